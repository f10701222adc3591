package dev.idempotency.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

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
 * {@code INFO} is not allowed either, they are unknown ({@code null}). On Redis Cluster
 * the answer is that of the node holding the probe key's slot.
 * <p>
 * A check runs on the connections of its store and waits for the reply at most for the
 * store's command timeout; get one from {@link RedisIdempotencyStore#serverCheck()}.
 */
public final class RedisServerCheck {

	private static final String PROBE_KEY = "health-probe";

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static final RedisScript<List<Object>> SCRIPT = (RedisScript) RedisScript.of(load("server-check.lua"),
			List.class);

	private final ScriptRunner runner;

	private final String probeKey;

	private final byte[] probeKeyBytes;

	RedisServerCheck(ScriptRunner runner, String keyPrefix) {
		this.runner = runner;
		this.probeKey = keyPrefix + PROBE_KEY;
		this.probeKeyBytes = this.probeKey.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Ask the server, within the store's command timeout.
	 * @return what the server answered
	 * @throws IdempotencyStoreException when Redis cannot be reached or fails otherwise
	 * than by refusing the probe write
	 */
	public RedisServerStatus check() {
		List<Object> reply;
		try {
			reply = this.runner.run(SCRIPT, this.probeKeyBytes);
		}
		catch (RuntimeException ex) {
			throw new IdempotencyStoreException(
					"Redis failed to tell whether it accepts writes under key '" + this.probeKey + "'", ex);
		}
		Assert.state(reply != null && reply.size() == 3, () -> "Unexpected reply from Redis to the server check");
		String refusal = text(reply.get(0));
		Map<String, String> replication = info(text(reply.get(1)));
		Map<String, String> memory = info(text(reply.get(2)));
		return new RedisServerStatus(role(replication.get("role")), refusal.isEmpty() ? null : refusal,
				memory.get("maxmemory_policy"), number(memory.get("maxmemory")), number(memory.get("used_memory")));
	}

	private static @Nullable String role(@Nullable String role) {
		return "slave".equals(role) ? RedisServerStatus.REPLICA : role;
	}

	// INFO is lines of "field:value" under "# Section" headings.
	private static Map<String, String> info(String text) {
		Map<String, String> fields = new HashMap<>();
		for (String line : text.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return fields;
	}

	private static @Nullable Long number(@Nullable String value) {
		try {
			return (value != null) ? Long.valueOf(value) : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static String text(@Nullable Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		return (value != null) ? value.toString() : "";
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
