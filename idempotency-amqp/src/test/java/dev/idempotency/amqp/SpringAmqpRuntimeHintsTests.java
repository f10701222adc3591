package dev.idempotency.amqp;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The members of Spring AMQP read by reflection are in a native image: all six exist in
 * this Spring AMQP (a later one without them fails here first), and each is registered.
 */
class SpringAmqpRuntimeHintsTests {

	@Test
	void everyMemberReadByReflectionIsRegistered() {
		RuntimeHints hints = new RuntimeHints();
		new SpringAmqpRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(SpringAmqpInternals.reflected()).hasSize(6);
		for (Member member : SpringAmqpInternals.reflected()) {
			if (member instanceof Method method) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method)).as(member.toString())
					.accepts(hints);
			}
			else {
				assertThat(RuntimeHintsPredicates.reflection().onFieldAccess((Field) member)).as(member.toString())
					.accepts(hints);
			}
		}
	}

	@Test
	void withoutSpringAmqpNothingIsRegisteredAndNothingFails() {
		RuntimeHints hints = new RuntimeHints();
		ClassLoader withoutSpringAmqp = new ClassLoader(getClass().getClassLoader()) {

			@Override
			protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
				if (name.startsWith("org.springframework.amqp.")) {
					throw new ClassNotFoundException(name);
				}
				return super.loadClass(name, resolve);
			}

		};
		new SpringAmqpRuntimeHints().registerHints(hints, withoutSpringAmqp);
		assertThat(hints.reflection().typeHints()).isEmpty();
	}

	@Test
	void registrarIsFoundThroughAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(SpringAmqpRuntimeHints.class);
	}

}
