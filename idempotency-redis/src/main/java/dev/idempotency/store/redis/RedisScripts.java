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
 * transition's own file. The transitions that batches run too, acquire and complete, are
 * each a function in their file ({@code acquire.lua}, {@code complete.lua}), written
 * once; a short file after it runs the function on one key ({@code acquire-one.lua}) or
 * on each key of a batch, in one script call ({@code acquire-all.lua}).
 */
final class RedisScripts {

	private final RedisScript<List<Object>> acquire;

	private final RedisScript<List<Object>> acquireAll;

	private final RedisScript<Long> complete;

	private final RedisScript<List<Object>> completeAll;

	private final RedisScript<Long> release;

	private final RedisScript<Long> renew;

	private final RedisScript<List<Object>> read;

	private RedisScripts(String record) {
		String acquire = record + load("acquire.lua");
		String complete = record + load("complete.lua");
		this.acquire = listScript(acquire + load("acquire-one.lua"));
		this.acquireAll = listScript(acquire + load("acquire-all.lua"));
		this.complete = RedisScript.of(complete + load("complete-one.lua"), Long.class);
		this.completeAll = listScript(complete + load("complete-all.lua"));
		this.release = RedisScript.of(record + load("release.lua"), Long.class);
		this.renew = RedisScript.of(record + load("renew.lua"), Long.class);
		this.read = listScript(record + load("read.lua"));
	}

	static RedisScripts load() {
		return new RedisScripts(load("record.lua"));
	}

	RedisScript<List<Object>> acquire() {
		return this.acquire;
	}

	/**
	 * Return the script that acquires every item of a batch whose keys share a hash slot,
	 * in one call.
	 * @return the script
	 */
	RedisScript<List<Object>> acquireAll() {
		return this.acquireAll;
	}

	RedisScript<Long> complete() {
		return this.complete;
	}

	/**
	 * Return the script that completes every item of a batch whose keys share a hash
	 * slot, in one call.
	 * @return the script
	 */
	RedisScript<List<Object>> completeAll() {
		return this.completeAll;
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
	 * Return every script by the name of its transition, in a stable order: the scripts
	 * of single calls, which every application runs, so that the health of one that never
	 * sends a batch does not report the batch scripts missing.
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
	private static RedisScript<List<Object>> listScript(String script) {
		// The result type selects a multi-bulk reply; List.class cannot carry its element
		// type.
		return (RedisScript) RedisScript.of(script, List.class);
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
