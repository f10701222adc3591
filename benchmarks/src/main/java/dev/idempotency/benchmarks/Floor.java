package dev.idempotency.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.StreamUtils;

/**
 * The floor: the starter's Redis protocol done by hand, with nothing around it. One
 * {@code EVALSHA} of the starter's own {@code acquire.lua} and one of its
 * {@code complete.lua} for a new key, one {@code EVALSHA} of {@code acquire.lua} for a
 * replay, with the same keys, argument and reply shapes, through the same
 * {@link RedisTemplate#execute(RedisScript, RedisSerializer, RedisSerializer, List, Object...)}
 * with byte[] serializers, on the application's own connection factory. The body is
 * encoded once, up front: the floor does no JSON, no expression, no lease renewal.
 */
final class Floor {

	private static final String SCRIPTS = "dev/idempotency/store/redis/";

	private static final RedisSerializer<byte[]> BYTES = RedisSerializer.byteArray();

	private static final byte[] NONE = {};

	private final RedisTemplate<byte[], byte[]> template;

	private final RedisScript<List<Object>> acquire;

	private final RedisScript<Long> complete;

	private final byte[] keyPrefix;

	// Same length as the engine's tokens.
	private final byte[] owner = "floor-owner-0001".getBytes(StandardCharsets.US_ASCII);

	private final byte[] lease;

	private final byte[] retention;

	private final byte[] body;

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
		String record = load("record.lua");
		this.acquire = listScript(record + load("acquire.lua"));
		this.complete = RedisScript.of(record + load("complete.lua"), Long.class);
		this.keyPrefix = keyPrefix.getBytes(StandardCharsets.UTF_8);
		this.lease = number(lockTimeoutMillis);
		this.retention = number(retentionMillis);
		this.body = body.clone();
	}

	/**
	 * Run one call: acquire and complete a new key, or replay a completed one.
	 * @param id the idempotency key
	 * @return the stored body
	 */
	byte[] call(String id) {
		List<byte[]> keys = Collections.singletonList(key(id));
		List<Object> acquired = this.template.execute(this.acquire, BYTES, resultSerializer(), keys, this.owner,
				this.lease, this.retention, NONE);
		long code = (Long) acquired.get(0);
		if (code == 3) {
			return (byte[]) acquired.get(2);
		}
		if (code != 1) {
			throw new IllegalStateException("Floor could not acquire " + id + ": reply code " + code);
		}
		Long completed = this.template.execute(this.complete, BYTES, resultSerializer(), keys, this.owner,
				number((Long) acquired.get(1)), this.retention, this.body, NONE);
		if (completed == null || completed != 1) {
			throw new IllegalStateException("Floor could not complete " + id);
		}
		return this.body;
	}

	private byte[] key(String id) {
		byte[] suffix = id.getBytes(StandardCharsets.UTF_8);
		byte[] key = new byte[this.keyPrefix.length + suffix.length];
		System.arraycopy(this.keyPrefix, 0, key, 0, this.keyPrefix.length);
		System.arraycopy(suffix, 0, key, this.keyPrefix.length, suffix.length);
		return key;
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@SuppressWarnings("unchecked")
	private static <T> RedisSerializer<T> resultSerializer() {
		return (RedisSerializer<T>) BYTES;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Object>> listScript(String text) {
		return (RedisScript) RedisScript.of(text, List.class);
	}

	private static String load(String name) {
		try (InputStream in = Floor.class.getClassLoader().getResourceAsStream(SCRIPTS + name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + SCRIPTS + name + " is not on the class path");
			}
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read Lua script " + SCRIPTS + name, ex);
		}
	}

}
