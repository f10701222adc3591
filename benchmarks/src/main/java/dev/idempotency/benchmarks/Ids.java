package dev.idempotency.benchmarks;

/**
 * Idempotency keys of 16 characters, so that every record has the same size whatever the
 * case: new keys are unique per run, thread and sequence number; replays cycle over a
 * fixed set.
 */
final class Ids {

	private static final char[] HEX = "0123456789abcdef".toCharArray();

	private Ids() {
	}

	/**
	 * Return a key no other call uses.
	 * @param run the run, below 2^16
	 * @param thread the calling thread, below 2^8
	 * @param sequence the thread's call number, below 2^40
	 * @return 16 lowercase hex characters
	 */
	static String unique(int run, int thread, long sequence) {
		return hex(((long) run << 48) | ((long) thread << 40) | sequence);
	}

	/**
	 * Return the keys that replay cases cycle over.
	 * @param count how many
	 * @return keys of 16 characters starting with {@code r}
	 */
	static String[] replays(int count) {
		String[] ids = new String[count];
		for (int i = 0; i < count; i++) {
			ids[i] = "r" + hex(i).substring(1);
		}
		return ids;
	}

	private static String hex(long value) {
		char[] chars = new char[16];
		for (int i = 15; i >= 0; i--) {
			chars[i] = HEX[(int) (value & 0xf)];
			value >>>= 4;
		}
		return new String(chars);
	}

}
