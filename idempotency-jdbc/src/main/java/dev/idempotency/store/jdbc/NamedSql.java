package dev.idempotency.store.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * A statement written with named parameters ({@code :key}), turned once into JDBC's
 * {@code ?} and the names in their order, so that the statements of two dialects can take
 * the same parameters in different places. {@code ::} is not a parameter.
 */
final class NamedSql {

	private final String sql;

	private final String[] names;

	private NamedSql(String sql, String[] names) {
		this.sql = sql;
		this.names = names;
	}

	static NamedSql of(String template) {
		StringBuilder sql = new StringBuilder(template.length());
		List<String> names = new ArrayList<>();
		int i = 0;
		while (i < template.length()) {
			char c = template.charAt(i);
			if (c == ':' && i + 1 < template.length() && isNameChar(template.charAt(i + 1))
					&& (i == 0 || template.charAt(i - 1) != ':')) {
				int end = i + 1;
				while (end < template.length() && isNameChar(template.charAt(end))) {
					end++;
				}
				names.add(template.substring(i + 1, end));
				sql.append('?');
				i = end;
			}
			else {
				sql.append(c);
				i++;
			}
		}
		return new NamedSql(sql.toString(), names.toArray(new String[0]));
	}

	private static boolean isNameChar(char c) {
		return (c >= 'a' && c <= 'z') || c == '_';
	}

	String sql() {
		return this.sql;
	}

	String[] names() {
		return this.names;
	}

	@Override
	public String toString() {
		return this.sql;
	}

}
