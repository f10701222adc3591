package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.UnreplicatedWriteException;
import dev.idempotency.store.redis.ScriptRunner.Acknowledged;

import org.springframework.util.Assert;

import static dev.idempotency.store.redis.RecordCommands.NONE;
import static dev.idempotency.store.redis.RecordCommands.TRUE;
import static dev.idempotency.store.redis.RecordCommands.millis;
import static dev.idempotency.store.redis.RecordCommands.number;
import static dev.idempotency.store.redis.RecordCommands.utf8;

/**
 * The transitions that finish an attempt on Redis: complete, which stores its result
 * ({@code complete.lua}), and release and abandon, which give it up
 * ({@code release.lua}).
 */
final class FinishTransitions {

	private final RecordCommands commands;

	private final RedisScripts scripts;

	private final ScriptRunner runner;

	private final ReplicaAcks replicaAcks;

	FinishTransitions(RecordCommands commands) {
		this.commands = commands;
		this.scripts = commands.scripts();
		this.runner = commands.runner();
		this.replicaAcks = commands.replicaAcks();
	}

	/**
	 * Complete; with replica acknowledgements, {@code WAIT} is sent with the script, and
	 * a completion that too few replicas acknowledged fails the call, although the record
	 * is completed on the primary: sending it again (the same owner and fence) writes it
	 * again and waits again.
	 */
	boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		byte[][] args = completeArgs(owner, fence, result, retention);
		if (!this.replicaAcks.enabled()) {
			return TRUE == this.commands.execute("complete", key, this.scripts.complete(), args);
		}
		Acknowledged<Long> reply = this.commands.executeAcknowledged("complete", key, () -> this.runner
			.runAndWait(this.scripts.complete(), this.commands.redisKey(key), this.replicaAcks, args));
		boolean completed = TRUE == reply.reply();
		if (completed && reply.replicas() < this.replicaAcks.replicas()) {
			throw new UnreplicatedWriteException(this.commands.tooFewAcksMessage("the completion of", key,
					reply.replicas(), ": it is completed on the primary, and a failover to a replica that does not "
							+ "have it would run the method again"));
		}
		return completed;
	}

	boolean release(RecordKey key, String owner, long fence, Duration retention) {
		return TRUE == this.commands.execute("release", key, this.scripts.release(), utf8(owner), number(fence),
				millis(retention, "retention"));
	}

	CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		return this.commands
			.executeAsync("abandon", key, this.scripts.release(), utf8(owner), NONE, millis(retention, "retention"))
			.thenApply((reply) -> TRUE == reply);
	}

	/**
	 * Return the arguments of {@code complete.lua} for one completion.
	 * @param owner the owner of the attempt
	 * @param fence its fence
	 * @param result its result
	 * @param retention how long to keep the record
	 * @return the arguments, in the script's order
	 */
	static byte[][] completeArgs(String owner, long fence, StoredResult result, Duration retention) {
		return new byte[][] { utf8(owner), number(fence), millis(retention, "retention"), body(result),
				reason(result) };
	}

	private static byte[] body(StoredResult result) {
		return result.isFailure() ? RedisFailures.encode(result) : result.body();
	}

	private static byte[] reason(StoredResult result) {
		if (result.isFailure()) {
			return utf8(RedisFailures.MARKER);
		}
		String reason = result.unreplayableReason();
		Assert.isTrue(!RedisFailures.MARKER.equals(reason), "An unreplayable reason must not be the failure marker");
		return (reason != null) ? utf8(reason) : NONE;
	}

}
