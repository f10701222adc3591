package dev.idempotency.store.redis;

import java.util.Optional;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;

/**
 * Reads a record on Redis ({@code read.lua}) and deletes whatever is under its key, for
 * operators and the endpoint rather than for attempts: evict also deletes a value that is
 * not a record.
 */
final class ReadAndEvict {

	private final RecordCommands commands;

	private final RedisScripts scripts;

	private final ScriptRunner runner;

	ReadAndEvict(RecordCommands commands) {
		this.commands = commands;
		this.scripts = commands.scripts();
		this.runner = commands.runner();
	}

	Optional<IdempotencyRecord> read(RecordKey key) {
		return RedisReplies.record(key, this.commands.execute("read", key, this.scripts.read()));
	}

	boolean evict(RecordKey key) {
		try {
			return this.runner.delete(this.commands.redisKey(key));
		}
		catch (RuntimeException ex) {
			throw this.commands.failure("evict", key, ex);
		}
	}

}
