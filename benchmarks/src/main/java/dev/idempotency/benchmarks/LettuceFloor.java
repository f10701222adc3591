package dev.idempotency.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import org.springframework.util.Assert;

/**
 * The raw Lettuce floor: the starter's protocol by hand (see {@link FloorProtocol}) with
 * no Spring Data Redis at all. One {@link RedisClient} and one
 * {@link StatefulRedisConnection} with the {@link ByteArrayCodec}, shared by every caller
 * thread as Lettuce is meant to be used, and its asynchronous {@code evalsha} of the
 * starter's scripts (loaded once with {@code SCRIPT LOAD}), awaited at once: the leanest
 * blocking call Lettuce has, without even the reflective proxy of its synchronous API.
 * <p>
 * As {@link Side#LETTUCE} it stores one body encoded up front and returns replays as
 * bytes; as {@link Side#LETTUCE_JSON} it encodes each key's result with a plain
 * {@code JsonMapper} and decodes each replay, the codec work the starter does.
 */
final class LettuceFloor implements Contender {

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

	// Lettuce's default command timeout, which its synchronous API would apply
	private static final Duration TIMEOUT = RedisURI.DEFAULT_TIMEOUT_DURATION;

	private final RedisClient client;

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final String acquire;

	private final String complete;

	private final Side side;

	private final FloorProtocol protocol;

	private final FloorProtocol.Scripts scripts = new FloorProtocol.Scripts() {

		@Override
		public List<Object> acquire(byte[] key, byte[]... args) {
			return await(LettuceFloor.this.commands.evalsha(LettuceFloor.this.acquire, ScriptOutputType.MULTI,
					new byte[][] { key }, args));
		}

		@Override
		public Long complete(byte[] key, byte[]... args) {
			return await(LettuceFloor.this.commands.evalsha(LettuceFloor.this.complete, ScriptOutputType.INTEGER,
					new byte[][] { key }, args));
		}

	};

	/**
	 * Connect to the server and load the scripts.
	 * @param host the server's host
	 * @param port the server's port
	 * @param keyPrefix prefix of record keys, the operation's name and {@code :} included
	 * @param lockTimeoutMillis lease the starter asks for
	 * @param retentionMillis retention the starter asks for
	 * @param body the encoded result the starter stores
	 * @param side {@link Side#LETTUCE} or {@link Side#LETTUCE_JSON}
	 */
	LettuceFloor(String host, int port, String keyPrefix, long lockTimeoutMillis, long retentionMillis, byte[] body,
			Side side) {
		Assert.isTrue(side == Side.LETTUCE || side == Side.LETTUCE_JSON, () -> "Not a raw Lettuce side: " + side);
		this.side = side;
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.async();
		this.acquire = await(this.commands.scriptLoad(FloorProtocol.acquireScript()));
		this.complete = await(this.commands.scriptLoad(FloorProtocol.completeScript()));
		this.protocol = new FloorProtocol(keyPrefix, "lettuce-owner-01", lockTimeoutMillis, retentionMillis,
				(side == Side.LETTUCE) ? FloorProtocol.Results.preEncoded(body) : FloorProtocol.Results.json());
	}

	@Override
	public Side side() {
		return this.side;
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
		String raw = "the starter's scripts by hand on raw Lettuce, no Spring Data Redis: one `RedisClient`, one "
				+ "`StatefulRedisConnection<byte[], byte[]>` shared by all callers, async "
				+ "`evalsha(sha, MULTI / INTEGER, keys, args...)` awaited at once, ";
		if (this.side == Side.LETTUCE) {
			return FloorProtocol.protocol(raw + "the body encoded once up front", "the stored bytes, not decoded");
		}
		return FloorProtocol.protocol(raw + "each key's `Receipt` encoded with a plain `JsonMapper` per call",
				"decoded to a `Receipt` with the same mapper");
	}

	private static <T> T await(RedisFuture<T> reply) {
		return LettuceFutures.awaitOrCancel(reply, TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown(Duration.ZERO, SHUTDOWN_TIMEOUT);
	}

}
