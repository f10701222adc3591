package dev.idempotency.store.redis;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Lua script the store ships is in a native image: a script added later without a
 * hint fails here, not at the first call of a native application.
 */
class RedisScriptsRuntimeHintsTests {

	@Test
	void everyScriptOfTheStoreIsRegistered() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new RedisScriptsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:dev/idempotency/store/redis/*.lua");
		assertThat(scripts).hasSizeGreaterThanOrEqualTo(11);
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource()
				.forResource("dev/idempotency/store/redis/" + script.getFilename())).as(script.getFilename())
				.accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/idempotency/store/redis/other.txt"))
			.rejects(hints);
	}

	@Test
	void registrarIsFoundThroughAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(RedisScriptsRuntimeHints.class);
	}

}
