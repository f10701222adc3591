package dev.idempotency.store.jdbc;

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
 * Every schema script the store ships is in a native image: a script added later without
 * a hint fails here, not at the first start of a native application.
 */
class JdbcSchemaRuntimeHintsTests {

	@Test
	void everySchemaScriptIsRegistered() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new JdbcSchemaRuntimeHints().registerHints(hints, getClass().getClassLoader());
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:dev/idempotency/store/jdbc/*.sql");
		assertThat(scripts).hasSize(2);
		for (Resource script : scripts) {
			assertThat(
					RuntimeHintsPredicates.resource().forResource("dev/idempotency/store/jdbc/" + script.getFilename()))
				.as(script.getFilename())
				.accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/idempotency/store/jdbc/other.txt"))
			.rejects(hints);
	}

	@Test
	void registrarIsFoundThroughAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(JdbcSchemaRuntimeHints.class);
	}

}
