package dev.idempotency.metrics;

/**
 * Names and tag keys of the idempotency meters: a public contract of dashboards and
 * alerts, so they never change silently.
 */
public final class IdempotencyMetricNames {

	/**
	 * Counter of idempotent calls, tagged with {@link #NAME} and {@link #OUTCOME}.
	 */
	public static final String INVOCATIONS = "idempotency.invocations";

	/**
	 * Timer of store transitions, tagged with {@link #OPERATION}, {@link #STORE} and
	 * {@link #RESULT}.
	 */
	public static final String STORE_OPERATIONS = "idempotency.store.operations";

	/**
	 * Tag key of the operation name, such as {@code PaymentService.charge}.
	 */
	public static final String NAME = "name";

	/**
	 * Tag key of how a call ended, such as {@code executed} or {@code key_reuse}.
	 */
	public static final String OUTCOME = "outcome";

	/**
	 * Tag key of the store transition: {@code acquire}, {@code complete}, {@code release}
	 * or {@code renew}.
	 */
	public static final String OPERATION = "operation";

	/**
	 * Tag key of the store type, such as {@code redis} or {@code memory}.
	 */
	public static final String STORE = "store";

	/**
	 * Tag key of whether a store transition returned ({@link #SUCCESS}, whatever its
	 * answer) or threw ({@link #ERROR}).
	 */
	public static final String RESULT = "result";

	/**
	 * {@link #RESULT} of a store transition that returned.
	 */
	public static final String SUCCESS = "success";

	/**
	 * {@link #RESULT} of a store transition that threw.
	 */
	public static final String ERROR = "error";

	private IdempotencyMetricNames() {
	}

}
