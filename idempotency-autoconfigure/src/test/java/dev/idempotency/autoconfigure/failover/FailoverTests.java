package dev.idempotency.autoconfigure.failover;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Tests that start servers of their own and kill or fail them over under a stream of
 * calls, a minute or more in all: they run in every build unless
 * {@code -Didempotency.failover-tests=false} leaves them out while iterating, and are
 * then reported as skipped, with this reason.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("failover")
@EnabledIfSystemProperty(named = "idempotency.failover-tests", matches = "true",
		disabledReason = "Left out by -Didempotency.failover-tests=false")
@interface FailoverTests {

}
