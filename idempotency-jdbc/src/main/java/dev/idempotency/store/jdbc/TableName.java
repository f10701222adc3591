package dev.idempotency.store.jdbc;

import java.util.regex.Pattern;

import org.springframework.util.Assert;

/**
 * The name of the store's table, checked to be a plain SQL identifier, optionally
 * schema-qualified, so that it can be written into statements as it is.
 *
 * @param qualified the name as written in statements, such as
 * {@code idempotency.idempotency_record}
 * @param simple the table's name without its schema, which names its index
 */
record TableName(String qualified, String simple) {

	static final String DEFAULT = "idempotency_record";

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	// PostgreSQL cuts identifiers at 63 bytes; the index is named <table>_expires_at
	private static final int MAX_LENGTH = 63 - "_expires_at".length();

	/**
	 * Check a table name.
	 * @param table the name, {@code table} or {@code schema.table}
	 * @return the name
	 * @throws IllegalArgumentException if it is not such a name, saying why
	 */
	static TableName of(String table) {
		Assert.hasText(table, "'table' must not be empty");
		int dot = table.indexOf('.');
		String schema = (dot >= 0) ? table.substring(0, dot) : null;
		String simple = table.substring(dot + 1);
		if ((schema != null && !IDENTIFIER.matcher(schema).matches()) || !IDENTIFIER.matcher(simple).matches()) {
			throw new IllegalArgumentException("Table name '" + table + "' must be an SQL identifier (letters, digits "
					+ "and '_', not starting with a digit), optionally qualified by a schema: 'schema.table'");
		}
		if (simple.length() > MAX_LENGTH || (schema != null && schema.length() > 63)) {
			throw new IllegalArgumentException("Table name '" + table + "' is too long: at most " + MAX_LENGTH
					+ " characters for the table, whose index is named after it, and 63 for the schema");
		}
		return new TableName(table, simple);
	}

	boolean isQualified() {
		return this.qualified.indexOf('.') >= 0;
	}

	/**
	 * Return this table in a schema.
	 * @param schema the schema, quoted as the database needs it
	 */
	TableName in(String schema) {
		return new TableName(schema + "." + this.simple, this.simple);
	}

	@Override
	public String toString() {
		return this.qualified;
	}

}
