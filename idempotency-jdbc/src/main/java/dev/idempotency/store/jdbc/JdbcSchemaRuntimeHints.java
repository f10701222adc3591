package dev.idempotency.store.jdbc;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The schema scripts that {@link JdbcSchema} runs at startup
 * ({@code idempotency.jdbc.initialize-schema}), read from the class path: a native image
 * holds them only when told to. Registered through {@code META-INF/spring/aot.factories}.
 */
class JdbcSchemaRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(JdbcSchema.POSTGRESQL_SCRIPT).registerPattern(JdbcSchema.MARIADB_SCRIPT);
	}

}
