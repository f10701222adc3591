package dev.idempotency.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.idempotency.autoconfigure.IdempotencyProperties.StoreType;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Annotation for a test class that makes {@code @Idempotent} work in the test's
 * application context, with its records in memory unless {@link #store()} says otherwise.
 * A test slice ({@code @WebMvcTest}, {@code @DataRedisTest}, ...) leaves the starter's
 * auto-configuration out: this brings it in. On a {@code @SpringBootTest} it keeps the
 * records of the test in memory, whatever the application's configuration says, so that
 * the test needs no Redis.
 * <p>
 * The in-memory store lives as long as the cached application context, across test
 * classes that share it: give each test keys of its own.
 *
 * @see dev.idempotency.autoconfigure.IdempotencyAutoConfiguration
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("idempotency")
public @interface AutoConfigureIdempotency {

	/**
	 * Store of idempotency records in the test ({@code idempotency.store}): in memory by
	 * default; Redis needs a {@code RedisConnectionFactory} in the context.
	 * @return the store
	 */
	StoreType store() default StoreType.MEMORY;

}
