package dev.idempotency.benchmarks;

/**
 * Who talks to the database in {@link JdbcHarness}.
 */
enum JdbcSide {

	/**
	 * The {@code @Idempotent} method of the Boot application on the JDBC store, called
	 * with no transaction: every statement commits on a connection of the store's own.
	 */
	STARTER("starter"),

	/**
	 * The store's statements by hand: see {@link JdbcFloor}.
	 */
	FLOOR("jdbc floor"),

	/**
	 * The same call inside a {@code TransactionTemplate} on the application's data
	 * source: the completion joins the transaction and commits with it.
	 */
	JOINED("starter joined");

	private final String label;

	JdbcSide(String label) {
		this.label = label;
	}

	String label() {
		return this.label;
	}

}
