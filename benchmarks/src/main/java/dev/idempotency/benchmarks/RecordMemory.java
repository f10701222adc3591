package dev.idempotency.benchmarks;

import java.nio.charset.StandardCharsets;

/**
 * Redis memory of one completed record, measured with {@code MEMORY USAGE} and explained
 * with Redis's own accounting: the key's SDS string, the value's object header and SDS
 * string, and the key's entry in the keyspace dictionary, each allocation rounded up to
 * its jemalloc size class. The {@code all-in} figure is the growth of {@code used_memory}
 * per record over many records, which also counts what {@code MEMORY USAGE} leaves out:
 * the entry in the expiry dictionary, the real size class of both dictionary entries, and
 * the hash table slots.
 *
 * @param keyLength bytes of the Redis key
 * @param resultLength bytes of the encoded result
 * @param valueLength bytes of the stored record, result included
 * @param encoding the value's {@code OBJECT ENCODING}
 * @param usage {@code MEMORY USAGE} of the key
 * @param records how many records the all-in figure was measured over
 * @param allIn growth of {@code used_memory} per record
 */
record RecordMemory(int keyLength, int resultLength, long valueLength, String encoding, long usage, int records,
		double allIn) {

	private static final int ROBJ = 16;

	private static final int DICT_ENTRY = 24;

	static RecordMemory measure(RedisAdmin admin, Payments payments, String keyPrefix, int resultLength, int records) {
		admin.flush();
		String id = "m" + Ids.unique(0, 0, 0).substring(1);
		payments.charge(id);
		byte[] key = (keyPrefix + id).getBytes(StandardCharsets.UTF_8);
		long usage = admin.memoryUsage(key);
		long valueLength = admin.strlen(key);
		String encoding = admin.encoding(key);
		admin.flush();
		long before = Long.parseLong(admin.info("memory", "used_memory"));
		for (int i = 0; i < records; i++) {
			payments.charge(Ids.unique(1, 0, i));
		}
		long after = Long.parseLong(admin.info("memory", "used_memory"));
		admin.flush();
		return new RecordMemory(key.length, resultLength, valueLength, encoding, usage, records,
				(after - before) / (double) records);
	}

	long overhead() {
		return this.usage - this.keyLength - this.resultLength;
	}

	long valueAllocation() {
		return sizeClass(sdsHeader(this.valueLength) + this.valueLength + 1);
	}

	long keyAllocation() {
		return sizeClass(sdsHeader(this.keyLength) + this.keyLength + 1);
	}

	/**
	 * Return what Redis's accounting predicts {@code MEMORY USAGE} to be.
	 * @return the predicted usage
	 */
	long modelled() {
		return ROBJ + valueAllocation() + keyAllocation() + DICT_ENTRY;
	}

	long recordFields() {
		return this.valueLength - this.resultLength;
	}

	String explanation() {
		long valueHeader = sdsHeader(this.valueLength) + 1;
		long keyHeader = sdsHeader(this.keyLength) + 1;
		StringBuilder text = new StringBuilder();
		text.append("Where the ")
			.append(overhead())
			.append(" bytes of overhead go (")
			.append((modelled() == this.usage) ? "Redis's accounting predicts exactly the measured "
					: "Redis's accounting predicts " + modelled() + " bytes, not the measured ")
			.append(this.usage)
			.append(" bytes):\n\n");
		text.append("| part | bytes |\n|---|---|\n");
		row(text,
				"record fields around the result: version, state, fence (3), owner token (17), "
						+ "started, lease, completed timestamps (27), empty fingerprint and reason (2), result header",
				recordFields());
		row(text, "value string: SDS header and terminating NUL", valueHeader);
		row(text, "value string: jemalloc rounding up to its " + valueAllocation() + "-byte size class",
				valueAllocation() - (valueHeader + this.valueLength));
		row(text, "value object header (robj)", ROBJ);
		row(text, "key string: SDS header and terminating NUL", keyHeader);
		row(text, "key string: jemalloc rounding up to its " + keyAllocation() + "-byte size class",
				keyAllocation() - (keyHeader + this.keyLength));
		row(text, "keyspace dictionary entry", DICT_ENTRY);
		return text.toString();
	}

	/**
	 * Return what {@code used_memory} grows by per record beyond {@code MEMORY USAGE}:
	 * the keyspace entry's real size class, the expiry dictionary's entry, and the slots
	 * of both dictionaries' hash tables, sized to the next power of two.
	 * @return the predicted growth per record
	 */
	double modelledAllIn() {
		long slots = Long.highestOneBit(this.records - 1) << 1;
		return this.usage + (sizeClass(DICT_ENTRY) - DICT_ENTRY) + sizeClass(DICT_ENTRY)
				+ 2.0 * 8 * slots / this.records;
	}

	String formatOptions() {
		StringBuilder text = new StringBuilder();
		text.append("What format changes would save, for this result size (the value's allocation moves in "
				+ "steps of its size class; over many result sizes a change saves about the bytes it removes):\n\n");
		text.append("| record format | stored value | value allocation | saved per record |\n|---|---:|---:|---:|\n");
		option(text, "as stored (version 1)", 0);
		// cmsgpack picks the smallest integer encoding: a 30s lease fits 3 bytes, a few
		// ms 1.
		option(text, "`lease` and `completed` as offsets from `started` (9 + 9 → 3 + 1 bytes)", 14);
		option(text, "and a 12-byte binary owner token instead of 16 characters", 18);
		long smaller = this.valueLength;
		while (smaller > 0 && sizeClass(sdsHeader(smaller) + smaller + 1) == valueAllocation()) {
			smaller--;
		}
		text.append("\nThe next smaller size class needs a stored value of at most ")
			.append(smaller)
			.append(" bytes, ")
			.append(this.valueLength - smaller)
			.append(" fewer than now.\n");
		return text.toString();
	}

	private void option(StringBuilder text, String format, long shorter) {
		long value = this.valueLength - shorter;
		long allocation = sizeClass(sdsHeader(value) + value + 1);
		text.append("| ")
			.append(format)
			.append(" | ")
			.append(value)
			.append(" B | ")
			.append(allocation)
			.append(" B | ")
			.append(valueAllocation() - allocation)
			.append(" B |\n");
	}

	private static void row(StringBuilder text, String part, long bytes) {
		text.append("| ").append(part).append(" | ").append(bytes).append(" |\n");
	}

	// sdsReqType: a type 5 header (1 byte) below 32 bytes, then 3, 5 and 9 bytes.
	private static long sdsHeader(long length) {
		if (length < 32) {
			return 1;
		}
		return (length < 256) ? 3 : (length < 65536) ? 5 : 9;
	}

	/**
	 * Return jemalloc's size class of an allocation on x86-64: multiples of 8 then 16 up
	 * to 128 bytes, then four classes per doubling.
	 * @param size the requested size
	 * @return the size actually allocated
	 */
	static long sizeClass(long size) {
		if (size <= 8) {
			return 8;
		}
		if (size <= 128) {
			return (size + 15) / 16 * 16;
		}
		int log2 = 63 - Long.numberOfLeadingZeros(size - 1);
		long step = 1L << (log2 - 2);
		return (size + step - 1) / step * step;
	}

}
