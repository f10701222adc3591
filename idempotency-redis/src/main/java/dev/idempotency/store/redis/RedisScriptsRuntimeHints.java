package dev.idempotency.store.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The Lua scripts of the store and of its server check, read from the class path when the
 * store is created: a native image holds them only when told to. Registered through
 * {@code META-INF/spring/aot.factories}.
 */
class RedisScriptsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("dev/idempotency/store/redis/*.lua");
	}

}
