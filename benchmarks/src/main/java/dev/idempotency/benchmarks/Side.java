package dev.idempotency.benchmarks;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Who talks to Redis: the starter, and what it is measured against: floors of its own
 * protocol done by hand, and peer libraries that solve the same problem their own way.
 */
enum Side {

	/**
	 * The {@code @Idempotent} method of a Boot application, through the starter.
	 */
	STARTER("starter", "starter", Kind.STARTER),

	/**
	 * The same application with {@code idempotency.redis.replica-acks=1}: every claim and
	 * completion waits for a replica's acknowledgement ({@code WAIT}). Choosing it gives
	 * the harness's Redis a replica, for every side.
	 */
	STARTER_ACKS("starter-acks", "starter, replica-acks=1", Kind.VARIANT),

	/**
	 * The same protocol by hand through Spring Data Redis: see {@link Floor}.
	 */
	FLOOR("floor", "floor", Kind.FLOOR),

	/**
	 * The same protocol by hand on raw Lettuce: see {@link LettuceFloor}.
	 */
	LETTUCE("lettuce", "lettuce", Kind.FLOOR),

	/**
	 * The raw Lettuce floor with the codec work the starter does: each key's result
	 * encoded to JSON per call, each replay decoded: see {@link LettuceFloor}.
	 */
	LETTUCE_JSON("lettuce-json", "lettuce + json", Kind.FLOOR),

	/**
	 * Spring Integration's idempotent receiver: see {@link IntegrationReceiver}.
	 */
	SPRING_INTEGRATION("si", "spring integration", Kind.PEER),

	/**
	 * Trendyol's Jdempotent: see {@link JdempotentPeer}.
	 */
	JDEMPOTENT("jdempotent", "jdempotent", Kind.PEER);

	private final String option;

	private final String label;

	private final Kind kind;

	Side(String option, String label, Kind kind) {
		this.option = option;
		this.label = label;
		this.kind = kind;
	}

	/**
	 * Return the name of this side in {@code --sides=...}.
	 * @return the option value
	 */
	String option() {
		return this.option;
	}

	String label() {
		return this.label;
	}

	Kind kind() {
		return this.kind;
	}

	static Side ofOption(String option) {
		String name = option.trim().toLowerCase(Locale.ROOT);
		return Arrays.stream(values())
			.filter((side) -> side.option.equals(name))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Unknown side " + option + ": one of "
					+ Arrays.stream(values()).map(Side::option).collect(Collectors.joining(","))));
	}

	/**
	 * What the starter is held to against a side.
	 */
	enum Kind {

		/**
		 * The starter itself: nothing to compare.
		 */
		STARTER,

		/**
		 * The starter with another setting: the ratio is what the setting costs, with no
		 * target.
		 */
		VARIANT,

		/**
		 * The same protocol with nothing around it: the starter must stay close to it.
		 */
		FLOOR,

		/**
		 * Another library: the starter must be faster.
		 */
		PEER

	}

}
