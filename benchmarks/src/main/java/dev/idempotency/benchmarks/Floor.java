package dev.idempotency.benchmarks;

import java.util.Collections;
import java.util.List;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The floor: the starter's Redis protocol done by hand, with nothing around it. One
 * {@code EVALSHA} of the starter's own {@code acquire.lua} and one of its
 * {@code complete.lua} for a new key, one {@code EVALSHA} of {@code acquire.lua} for a
 * replay, with the same keys, argument and reply shapes (see {@link FloorProtocol}),
 * through the same
 * {@link RedisTemplate#execute(RedisScript, RedisSerializer, RedisSerializer, List, Object...)}
 * with byte[] serializers, on the application's own connection factory. The body is
 * encoded once, up front: the floor does no JSON, no expression, no lease renewal.
 */
final class Floor implements Contender {

	private static final RedisSerializer<byte[]> BYTES = RedisSerializer.byteArray();

	private final RedisTemplate<byte[], byte[]> template;

	private final RedisScript<List<Object>> acquire;

	private final RedisScript<Long> complete;

	private final FloorProtocol protocol;

	private final FloorProtocol.Scripts scripts = new FloorProtocol.Scripts() {

		@Override
		public List<Object> acquire(byte[] key, byte[]... args) {
			return Floor.this.template.execute(Floor.this.acquire, BYTES, resultSerializer(),
					Collections.singletonList(key), (Object[]) args);
		}

		@Override
		public Long complete(byte[] key, byte[]... args) {
			return Floor.this.template.execute(Floor.this.complete, BYTES, resultSerializer(),
					Collections.singletonList(key), (Object[]) args);
		}

	};

	/**
	 * Create the floor.
	 * @param connectionFactory the application's connection factory
	 * @param keyPrefix prefix of record keys, the operation's name and {@code :} included
	 * @param lockTimeoutMillis lease the starter asks for
	 * @param retentionMillis retention the starter asks for
	 * @param body the encoded result the starter stores
	 */
	Floor(RedisConnectionFactory connectionFactory, String keyPrefix, long lockTimeoutMillis, long retentionMillis,
			byte[] body) {
		this.template = new RedisTemplate<>();
		this.template.setConnectionFactory(connectionFactory);
		this.template.setEnableDefaultSerializer(false);
		this.template.setKeySerializer(BYTES);
		this.template.setValueSerializer(BYTES);
		this.template.afterPropertiesSet();
		this.acquire = listScript(FloorProtocol.acquireScript());
		this.complete = RedisScript.of(FloorProtocol.completeScript(), Long.class);
		this.protocol = new FloorProtocol(keyPrefix, "floor-owner-0001", lockTimeoutMillis, retentionMillis,
				FloorProtocol.Results.preEncoded(body));
	}

	@Override
	public Side side() {
		return Side.FLOOR;
	}

	/**
	 * Run one call: acquire and complete a new key, or replay a completed one.
	 * @param id the idempotency key
	 * @return the stored body
	 */
	@Override
	public byte[] call(String id) {
		return this.protocol.call(side(), id, this.scripts);
	}

	@Override
	public void check(Reference reference) {
		this.protocol.check(side(), this.scripts, reference);
	}

	@Override
	public Protocol protocol() {
		return FloorProtocol.protocol(
				"the starter's scripts by hand through `RedisTemplate.execute(script, "
						+ "argsSerializer, resultSerializer, keys, args)` with byte[] serializers on the application's "
						+ "connection factory (one shared native Lettuce connection), the body encoded once up front",
				"the stored bytes, not decoded");
	}

	@SuppressWarnings("unchecked")
	private static <T> RedisSerializer<T> resultSerializer() {
		return (RedisSerializer<T>) BYTES;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Object>> listScript(String text) {
		return (RedisScript) RedisScript.of(text, List.class);
	}

}
