package dev.idempotency.benchmarks;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;

/**
 * Checks that the floor's statements are the store's, text and parameters: the dialects
 * are package-private, so they are read reflectively from the running store (its
 * recognised dialect, after its first call), and a change to the store's SQL fails the
 * harness at startup instead of silently measuring other statements.
 */
final class JdbcFloorCheck {

	private JdbcFloorCheck() {
	}

	static void check(JdbcIdempotencyStore store, DatabaseKind kind, String table) {
		Object dialect = invoke(read(store, "transitions"), "dialect");
		Object statements = invoke(dialect, "statements");
		List<String> differences = new ArrayList<>();
		if (kind == DatabaseKind.POSTGRESQL) {
			compare("acquire", read(dialect, "acquire"), String.format(JdbcFloor.PG_ACQUIRE, table),
					JdbcFloor.PG_ACQUIRE_PARAMS, differences);
			compare("complete", invoke(statements, "complete"), String.format(JdbcFloor.PG_COMPLETE, table),
					JdbcFloor.COMPLETE_PARAMS, differences);
		}
		else {
			compare("read", invoke(statements, "read"), String.format(JdbcFloor.MARIADB_READ, table),
					JdbcFloor.MARIADB_READ_PARAMS, differences);
			compare("insert", read(dialect, "insert"), String.format(JdbcFloor.MARIADB_INSERT, table),
					JdbcFloor.MARIADB_INSERT_PARAMS, differences);
			compare("complete", invoke(statements, "complete"), String.format(JdbcFloor.MARIADB_COMPLETE, table),
					JdbcFloor.COMPLETE_PARAMS, differences);
		}
		if (!differences.isEmpty()) {
			throw new IllegalStateException("The JDBC floor's statements are not the store's: copy them again from "
					+ "the dialect\n" + String.join("\n", differences));
		}
	}

	private static void compare(String name, Object namedSql, String sql, String params, List<String> differences) {
		String storeSql = (String) invoke(namedSql, "sql");
		String storeParams = String.join(",", (String[]) invoke(namedSql, "names"));
		if (!storeSql.equals(sql) || !storeParams.equals(params)) {
			differences.add(name + ": the store's is\n  " + storeSql + "\n  (" + storeParams + ")");
		}
	}

	private static Object read(Object target, String name) {
		for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
			try {
				Field field = type.getDeclaredField(name);
				field.setAccessible(true);
				Object value = field.get(target);
				if (value == null) {
					throw new IllegalStateException(name + " of " + target + " is not set yet");
				}
				return value;
			}
			catch (NoSuchFieldException ex) {
				// in a superclass
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("No field " + name + " in " + target.getClass());
	}

	private static Object invoke(Object target, String name) {
		for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
			try {
				Method method = type.getDeclaredMethod(name);
				method.setAccessible(true);
				return method.invoke(target);
			}
			catch (NoSuchMethodException ex) {
				// in a superclass
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("No method " + name + " in " + target.getClass());
	}

}
