package dev.idempotency.store.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The commands that health checks send: a script on one key, and {@code SCRIPT EXISTS}. A
 * {@link ScriptRunner} sends them wherever its client routes them; a
 * {@link ScriptRunner.Primary} of a cluster to that node alone.
 */
interface ScriptCommands {

	/**
	 * Run a script: {@code EVALSHA}, and {@code EVAL} when Redis does not have the script
	 * cached yet.
	 * @param <T> the reply type
	 * @param script the script
	 * @param key its only key
	 * @param args its arguments
	 * @return the reply
	 */
	<T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args);

	/**
	 * Ask whether Redis holds scripts in its script cache ({@code SCRIPT EXISTS}).
	 * @param shas the SHA-1 digests of the scripts
	 * @return whether each one is cached, in the same order
	 */
	List<Boolean> scriptsExist(String... shas);

}
