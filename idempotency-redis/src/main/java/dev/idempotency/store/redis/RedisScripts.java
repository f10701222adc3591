package dev.idempotency.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.IdempotencyStoreException;

import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;
import org.springframework.util.StreamUtils;

/**
 * The Lua scripts of the transitions, read from the class path once.
 * <p>
 * Each script is held as a single {@link RedisScript} built from a String, so its SHA-1
 * is computed once and the steady state is one {@code EVALSHA}: a script built per call
 * would hash the text every time, and a resource-backed one checks the file on every
 * call. Every script is the shared {@code record.lua} (the record format) followed by the
 * transition's own file.
 */
final class RedisScripts {

	private final RedisScript<List<Object>> acquire;

	private final RedisScript<Long> complete;

	private final RedisScript<Long> release;

	private final RedisScript<Long> renew;

	private final RedisScript<List<Object>> read;

	private RedisScripts(String record) {
		this.acquire = listScript(record, "acquire.lua");
		this.complete = RedisScript.of(record + load("complete.lua"), Long.class);
		this.release = RedisScript.of(record + load("release.lua"), Long.class);
		this.renew = RedisScript.of(record + load("renew.lua"), Long.class);
		this.read = listScript(record, "read.lua");
	}

	static RedisScripts load() {
		return new RedisScripts(load("record.lua"));
	}

	RedisScript<List<Object>> acquire() {
		return this.acquire;
	}

	RedisScript<Long> complete() {
		return this.complete;
	}

	RedisScript<Long> release() {
		return this.release;
	}

	RedisScript<Long> renew() {
		return this.renew;
	}

	RedisScript<List<Object>> read() {
		return this.read;
	}

	/**
	 * Return every script by the name of its transition, in a stable order.
	 * @return the scripts
	 */
	Map<String, RedisScript<?>> byTransition() {
		Map<String, RedisScript<?>> scripts = new LinkedHashMap<>();
		scripts.put("acquire", this.acquire);
		scripts.put("complete", this.complete);
		scripts.put("release", this.release);
		scripts.put("renew", this.renew);
		scripts.put("read", this.read);
		return scripts;
	}

	/**
	 * Ask whether a server holds each script in its script cache, in one round trip.
	 * @param commands the server's commands
	 * @param where the server, for the message of a failure
	 * @return whether each script is cached, by transition name
	 * @throws IdempotencyStoreException when Redis fails
	 */
	Map<String, Boolean> loadedOn(ScriptCommands commands, String where) {
		Map<String, RedisScript<?>> scripts = byTransition();
		String[] shas = scripts.values().stream().map(RedisScript::getSha1).toArray(String[]::new);
		List<Boolean> exists;
		try {
			exists = commands.scriptsExist(shas);
		}
		catch (RuntimeException ex) {
			throw new IdempotencyStoreException(where + " failed to tell whether the idempotency scripts are loaded",
					ex);
		}
		Assert.state(exists.size() == shas.length, "No reply from Redis to SCRIPT EXISTS");
		Map<String, Boolean> loaded = new LinkedHashMap<>();
		int i = 0;
		for (String transition : scripts.keySet()) {
			loaded.put(transition, exists.get(i++));
		}
		return loaded;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Object>> listScript(String record, String name) {
		// The result type selects a multi-bulk reply; List.class cannot carry its element
		// type.
		return (RedisScript) RedisScript.of(record + load(name), List.class);
	}

	private static String load(String name) {
		try (InputStream in = RedisScripts.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script '" + name + "' is missing from the class path next to "
						+ RedisScripts.class.getName());
			}
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to read Lua script '" + name + "'", ex);
		}
	}

}
