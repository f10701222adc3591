package dev.idempotency.store.redis;

/**
 * Recognises Redis error replies by their code, whichever client raised them and however
 * its exceptions wrap them.
 */
final class RedisErrors {

	/**
	 * Error code of a script that Redis does not have in its script cache.
	 */
	static final String NO_SCRIPT = "NOSCRIPT";

	/**
	 * Error code the scripts answer with when the value under a key is not a record.
	 */
	static final String CORRUPT = "IDEMPOTENCY_CORRUPT";

	/**
	 * Error code of Redis Cluster for a command on many keys of a slot that is moving,
	 * whose keys are not all on the node asked.
	 */
	static final String TRY_AGAIN = "TRYAGAIN";

	private RedisErrors() {
	}

	static boolean isNoScript(Throwable ex) {
		return causedBy(ex, NO_SCRIPT);
	}

	static boolean isTryAgain(Throwable ex) {
		return causedBy(ex, TRY_AGAIN);
	}

	static boolean isCorrupt(Throwable ex) {
		return causedBy(ex, CORRUPT);
	}

	private static boolean causedBy(Throwable ex, String code) {
		for (Throwable candidate = ex; candidate != null; candidate = candidate.getCause()) {
			String message = candidate.getMessage();
			if (message != null && message.startsWith(code)) {
				return true;
			}
		}
		return false;
	}

}
