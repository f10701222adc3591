package dev.idempotency.store.redis;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * A {@link RedisTemplate} that passes bytes through untouched in both directions, so that
 * stored bodies and fingerprints stay binary-exact.
 */
final class RawRedisTemplate {

	static final RedisSerializer<byte[]> BYTES = RedisSerializer.byteArray();

	private RawRedisTemplate() {
	}

	static RedisTemplate<byte[], byte[]> create(RedisConnectionFactory connectionFactory) {
		RedisTemplate<byte[], byte[]> template = new RedisTemplate<>();
		template.setConnectionFactory(connectionFactory);
		template.setEnableDefaultSerializer(false);
		template.setKeySerializer(BYTES);
		template.setValueSerializer(BYTES);
		template.setHashKeySerializer(BYTES);
		template.setHashValueSerializer(BYTES);
		template.afterPropertiesSet();
		return template;
	}

	/**
	 * Return the pass-through serializer typed for any script result: bulk replies are
	 * returned as {@code byte[]}, numbers and lists of them as they come.
	 * @param <T> the script's result type
	 * @return the serializer
	 */
	@SuppressWarnings("unchecked")
	static <T> RedisSerializer<T> resultSerializer() {
		return (RedisSerializer<T>) BYTES;
	}

}
