package dev.idempotency.autoconfigure.failover;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Tests that start servers of their own and kill or fail them over under a stream of
 * calls, a minute or more in all: they run with the {@code failover} Maven profile
 * ({@code ./mvnw verify -Pfailover}, or {@code -Didempotency.failover-tests=true}), and
 * are reported as skipped, with this reason, without it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("failover")
@EnabledIfSystemProperty(named = "idempotency.failover-tests", matches = "true",
		disabledReason = "Failover tests run with -Pfailover (./mvnw verify -Pfailover)")
@interface FailoverTests {

}
