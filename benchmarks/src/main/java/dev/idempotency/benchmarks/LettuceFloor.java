package dev.idempotency.benchmarks;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The raw Lettuce floor: the starter's protocol by hand (see {@link FloorProtocol}) with
 * no Spring Data Redis at all. One {@link RedisClient} and one
 * {@link StatefulRedisConnection} with the {@link ByteArrayCodec}, shared by every caller
 * thread as Lettuce is meant to be used, and its synchronous {@code evalsha} of the
 * starter's scripts, loaded once with {@code SCRIPT LOAD}.
 */
final class LettuceFloor implements Contender {

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

	private final RedisClient client;

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisCommands<byte[], byte[]> commands;

	private final String acquire;

	private final String complete;

	private final FloorProtocol protocol;

	/**
	 * Connect to the server and load the scripts.
	 * @param host the server's host
	 * @param port the server's port
	 * @param keyPrefix prefix of record keys, the operation's name and {@code :} included
	 * @param lockTimeoutMillis lease the starter asks for
	 * @param retentionMillis retention the starter asks for
	 * @param body the encoded result the starter stores
	 */
	LettuceFloor(String host, int port, String keyPrefix, long lockTimeoutMillis, long retentionMillis, byte[] body) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.sync();
		this.acquire = this.commands.scriptLoad(FloorProtocol.acquireScript());
		this.complete = this.commands.scriptLoad(FloorProtocol.completeScript());
		this.protocol = new FloorProtocol(keyPrefix, "lettuce-owner-01", lockTimeoutMillis, retentionMillis, body);
	}

	@Override
	public Side side() {
		return Side.LETTUCE;
	}

	/**
	 * Run one call: acquire and complete a new key, or replay a completed one.
	 * @param id the idempotency key
	 * @return the stored body
	 */
	@Override
	public byte[] call(String id) {
		byte[][] keys = { this.protocol.key(id) };
		List<Object> acquired = this.commands.evalsha(this.acquire, ScriptOutputType.MULTI, keys, this.protocol.owner(),
				this.protocol.lease(), this.protocol.retention(), FloorProtocol.NONE);
		long code = (Long) acquired.get(0);
		if (code == FloorProtocol.COMPLETED) {
			return (byte[]) acquired.get(2);
		}
		if (code != FloorProtocol.ACQUIRED) {
			throw new IllegalStateException("Lettuce floor could not acquire " + id + ": reply code " + code);
		}
		Long completed = this.commands.evalsha(this.complete, ScriptOutputType.INTEGER, keys, this.protocol.owner(),
				FloorProtocol.number((Long) acquired.get(1)), this.protocol.retention(), this.protocol.body(),
				FloorProtocol.NONE);
		if (completed == null || completed != 1) {
			throw new IllegalStateException("Lettuce floor could not complete " + id);
		}
		return this.protocol.body();
	}

	@Override
	public void check(Reference reference) {
		FloorProtocol.checkAgainstStarter(side(), this::call, reference, Ids.unique(0, side().ordinal(), 1));
	}

	@Override
	public Protocol protocol() {
		return FloorProtocol.protocol("the starter's scripts by hand on raw Lettuce, no Spring Data Redis: one "
				+ "`RedisClient`, one `StatefulRedisConnection<byte[], byte[]>` shared by all callers, sync "
				+ "`evalsha(sha, MULTI / INTEGER, keys, args...)`, the body encoded once up front");
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown(Duration.ZERO, SHUTDOWN_TIMEOUT);
	}

}
