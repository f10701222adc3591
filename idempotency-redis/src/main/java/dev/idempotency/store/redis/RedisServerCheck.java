package dev.idempotency.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.idempotency.IdempotencyStoreException;

import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;
import org.springframework.util.StreamUtils;

/**
 * Asks the Redis server that holds a store's records whether a transition could write
 * there now, and how the server is set up to keep them, in one round trip: for health
 * checks.
 * <p>
 * Writability is observed, not inferred from settings: a Lua script tries a write of an
 * empty string under a probe key ({@code keyPrefix + "health-probe"}, which no record key
 * can equal) with {@code SET NX} and deletes it again within the same atomic script, so a
 * check leaves nothing behind and never changes a value it did not create. The server
 * refuses that write exactly when it would refuse a transition's: {@code READONLY} on a
 * read-only replica, {@code OOM} at {@code maxmemory} under {@code noeviction},
 * {@code NOREPLICAS} under {@code min-replicas-to-write}, {@code MISCONF} after a failed
 * background save. Each check that succeeds costs one replicated write and delete.
 * <p>
 * The role and memory settings come from {@code INFO} in the same script, so a
 * {@code CONFIG} command that a managed service disables is never needed; where
 * {@code INFO} is not allowed either, they are unknown ({@code null}).
 * <p>
 * On Redis Cluster, {@link #check()} answers for the node holding the probe key's slot;
 * {@link #check(String)} asks one primary of
 * {@link RedisIdempotencyStore#clusterPrimaries()}, with a probe key of a slot it serves
 * ({@code keyPrefix + "health-probe{n}"}, the smallest such {@code n}).
 * <p>
 * A check runs on the connections of its store and waits for the reply at most for the
 * store's command timeout; get one from {@link RedisIdempotencyStore#serverCheck()}.
 */
public final class RedisServerCheck {

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static final RedisScript<List<Object>> SCRIPT = (RedisScript) RedisScript.of(load("server-check.lua"),
			List.class);

	private final ScriptRunner runner;

	private final ClusterPrimaries primaries;

	private final String probeKey;

	RedisServerCheck(ScriptRunner runner, String keyPrefix) {
		this.runner = runner;
		this.primaries = new ClusterPrimaries(runner, keyPrefix);
		this.probeKey = ProbeKeys.of(keyPrefix);
	}

	/**
	 * Ask the server, within the store's command timeout.
	 * @return what the server answered
	 * @throws IdempotencyStoreException when Redis cannot be reached or fails otherwise
	 * than by refusing the probe write
	 */
	public RedisServerStatus check() {
		return check(this.runner, this.probeKey);
	}

	/**
	 * Ask one primary of a Redis Cluster, within the store's command timeout.
	 * @param primary the {@code host:port} of a primary, one of
	 * {@link RedisIdempotencyStore#clusterPrimaries()}
	 * @return what the primary answered
	 * @throws IdempotencyStoreException when it is no longer a primary that can hold
	 * records, cannot be reached, or fails otherwise than by refusing the probe write
	 */
	public RedisServerStatus check(String primary) {
		Assert.notNull(primary, "'primary' must not be null");
		ScriptRunner.Primary node = this.primaries.get(primary);
		String probeKey = this.primaries.probeKey(node);
		Assert.state(probeKey != null, () -> "No probe key lands on " + primary);
		return check(node.commands(), probeKey);
	}

	private static RedisServerStatus check(ScriptCommands commands, String probeKey) {
		List<Object> reply;
		try {
			reply = commands.run(SCRIPT, probeKey.getBytes(StandardCharsets.UTF_8));
		}
		catch (RuntimeException ex) {
			throw new IdempotencyStoreException(
					"Redis failed to tell whether it accepts writes under key '" + probeKey + "'", ex);
		}
		return ServerCheckReply.status(reply);
	}

	private static String load(String name) {
		try (InputStream in = RedisServerCheck.class.getResourceAsStream(name)) {
			Assert.state(in != null, () -> "Lua script '" + name + "' is missing from the class path next to "
					+ RedisServerCheck.class.getName());
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to read Lua script '" + name + "'", ex);
		}
	}

}
