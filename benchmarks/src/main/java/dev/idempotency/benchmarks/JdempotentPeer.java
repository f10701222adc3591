package dev.idempotency.benchmarks;

import com.trendyol.jdempotent.core.aspect.IdempotentAspect;
import com.trendyol.jdempotent.redis.RedisConfigProperties;
import com.trendyol.jdempotent.redis.RedisIdempotentRepository;
import dev.idempotency.benchmarks.JdempotentPayments.ChargeRequest;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

import org.springframework.aop.aspectj.annotation.AspectJProxyFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.GenericJacksonJsonRedisSerializer;
import org.springframework.data.redis.serializer.StringRedisSerializer;

/**
 * Trendyol's Jdempotent 1.1.0, built for Boot 2: its auto-configuration does not load in
 * Boot 4 (it registers through {@code spring.factories}; only its environment
 * post-processor still runs, which turns Redis repositories off by default), so the
 * harness wires what it would have: its {@link IdempotentAspect} over its
 * {@link RedisIdempotentRepository} on a {@link RedisTemplate} configured as its own
 * configuration means to (string keys, generic JSON values), but on the application's
 * Lettuce connection factory, applied with Spring's {@link AspectJProxyFactory} to
 * {@link JdempotentPayments}.
 * <p>
 * Per call, the aspect asks the repository {@code contains} (a {@code GET}); a duplicate
 * then reads the response ({@code GET}): two round trips, each decoding the whole JSON
 * value. A new key is stored without its response ({@code SET} with expiry), the method
 * runs, and {@code setResponse} checks, reads and writes again ({@code GET}, {@code GET},
 * {@code SET}): five round trips.
 */
final class JdempotentPeer implements Contender {

	private static final long EXPIRATION_HOURS = 24;

	private final JdempotentPayments target = new JdempotentPayments();

	private final JdempotentPayments payments;

	JdempotentPeer(RedisConnectionFactory connectionFactory) {
		AspectJProxyFactory proxyFactory = new AspectJProxyFactory(this.target);
		proxyFactory
			.addAspect(new IdempotentAspect(new RedisIdempotentRepository(template(connectionFactory), properties())));
		this.payments = proxyFactory.getProxy();
	}

	@Override
	public Side side() {
		return Side.JDEMPOTENT;
	}

	@Override
	public Receipt call(String id) {
		Receipt receipt = this.payments.charge(new ChargeRequest(id));
		if (receipt == null) {
			throw new IllegalStateException("Jdempotent returned no receipt for " + id);
		}
		return receipt;
	}

	@Override
	public void check(Reference reference) {
		String id = Ids.unique(0, side().ordinal(), 1);
		long runs = this.target.runs();
		Receipt first = call(id);
		Receipt second = call(id);
		if (!Receipt.settled(id).equals(first) || !first.equals(second)) {
			throw new IllegalStateException("Jdempotent returned " + first + ", then " + second);
		}
		if (this.target.runs() != runs + 1) {
			throw new IllegalStateException("Jdempotent ran the method again for a duplicate");
		}
	}

	@Override
	public Protocol protocol() {
		return new Protocol(
				"its `IdempotentAspect` (`@Around` of `@JdempotentResource`) over its `RedisIdempotentRepository` "
						+ "on a `RedisTemplate` as its configuration means to build one (string keys, generic JSON "
						+ "values: Jackson 3's `GenericJacksonJsonRedisSerializer`) on the application's "
						+ "connection factory, applied with `AspectJProxyFactory`; key: MD5 of the request's fields",
				"5: `GET` (contains), `SET` with expiry (the request), the method, then `GET` (contains), "
						+ "`GET`, `SET` (request and response)",
				"2: `GET` (contains), `GET` (the response), each decoding the whole JSON value",
				"the stored result, decoded from JSON; `null` while the first call is in flight",
				"none: check-then-set without `NX`, so concurrent first calls all run the method; no lease, no "
						+ "fencing; an exception deletes the key; a crash leaves a key without a response, and "
						+ "its duplicates get `null` until it expires");
	}

	// What Jdempotent's RedisSentinelConfiguration means to build, on the application's
	// factory. It calls afterPropertiesSet() before it sets its serializers, so its
	// values actually fall back to JDK serialization, which would need a Serializable
	// result; the JSON it meant keeps the same Receipt as the other sides.
	private static RedisTemplate<String, Object> template(RedisConnectionFactory connectionFactory) {
		RedisTemplate<String, Object> template = new RedisTemplate<>();
		template.setConnectionFactory(connectionFactory);
		template.setKeySerializer(new StringRedisSerializer());
		// Jackson 3's version of its GenericJackson2JsonRedisSerializer: default typing,
		// limited to the types it stores
		template.setDefaultSerializer(GenericJacksonJsonRedisSerializer.builder()
			.enableDefaultTyping(BasicPolymorphicTypeValidator.builder()
				.allowIfSubType("com.trendyol.jdempotent.")
				.allowIfSubType("dev.idempotency.benchmarks.")
				.allowIfSubType("java.util.")
				.build())
			.build());
		template.afterPropertiesSet();
		return template;
	}

	private static RedisConfigProperties properties() {
		RedisConfigProperties properties = new RedisConfigProperties();
		// Its default: keep the request and the response, so that duplicates get it
		properties.setPersistReqRes(true);
		properties.setExpirationTimeHour(EXPIRATION_HOURS);
		return properties;
	}

}
