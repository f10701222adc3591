package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Turns the reply of {@code server-check.lua} (the probe write's refusal, and the
 * {@code replication} and {@code memory} sections of {@code INFO}) into a
 * {@link RedisServerStatus}.
 */
final class ServerCheckReply {

	private ServerCheckReply() {
	}

	static RedisServerStatus status(@Nullable List<Object> reply) {
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

}
