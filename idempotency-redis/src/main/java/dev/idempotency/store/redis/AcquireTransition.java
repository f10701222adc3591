package dev.idempotency.store.redis;

import java.util.List;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.redis.ScriptRunner.Acknowledged;
import dev.idempotency.store.redis.ScriptRunner.Undo;

import static dev.idempotency.store.redis.RecordCommands.NONE;
import static dev.idempotency.store.redis.RecordCommands.number;
import static dev.idempotency.store.redis.RecordCommands.utf8;

/**
 * The acquire transition on Redis ({@code acquire.lua}): takes, replays or reports a
 * record, and with replica acknowledgements waits until replicas hold what it wrote,
 * releasing a claim that too few acknowledged.
 */
final class AcquireTransition {

	// acquire.lua's ARGV[5]: write the expiry of a completed record again, for WAIT
	private static final byte[] ACKNOWLEDGED_REPLAY = { '1' };

	private final RecordCommands commands;

	private final RedisScripts scripts;

	private final ScriptRunner runner;

	private final ReplicaAcks replicaAcks;

	private final FinishTransitions finish;

	AcquireTransition(RecordCommands commands, FinishTransitions finish) {
		this.commands = commands;
		this.scripts = commands.scripts();
		this.runner = commands.runner();
		this.replicaAcks = commands.replicaAcks();
		this.finish = finish;
	}

	/**
	 * Acquire; with replica acknowledgements, a claim (a new attempt, a takeover or a
	 * re-sent acquire, each of which writes the record) and a replay (which then writes
	 * the record's expiry again, unchanged) are followed by {@code WAIT}: a claim that
	 * too few replicas acknowledged is released before the call fails, and a replay fails
	 * rather than hand out a result that a failover could lose. An in-progress answer
	 * writes nothing and waits for nothing. With Lettuce, an acquire whose reply does not
	 * come is abandoned right after it on its own connection, so that it takes nothing
	 * when it runs late (see {@link ScriptRunner#runThenWait}).
	 */
	AcquireResult acquire(RecordKey key, AcquireRequest request) {
		byte[] fingerprint = request.fingerprint();
		byte[] owner = utf8(request.owner());
		byte[] lease = number(request.lease().toMillis());
		byte[] retention = number(request.retention().toMillis());
		byte[] fingerprintArg = (fingerprint != null) ? fingerprint : NONE;
		if (!this.replicaAcks.enabled()) {
			return result(key, this.commands.execute("acquire", key, this.scripts.acquire(), owner, lease, retention,
					fingerprintArg));
		}
		// The engine abandons an acquire that failed on the connection the runner shares,
		// which can overtake this one on its way to Redis; this abandon follows it
		Undo abandon = new Undo(this.scripts.release(), new byte[][] { owner, NONE, retention });
		Acknowledged<List<Object>> reply = this.commands.executeAcknowledged("acquire", key,
				() -> this.runner.runThenWait(this.scripts.acquire(), this.commands.redisKey(key), this.replicaAcks,
						RedisReplies::isClaimOrReplay, abandon, owner, lease, retention, fingerprintArg,
						ACKNOWLEDGED_REPLAY));
		AcquireResult result = result(key, reply.reply());
		if (!reply.asked() || reply.replicas() >= this.replicaAcks.replicas()) {
			return result;
		}
		if (result instanceof AcquireResult.Acquired acquired) {
			IdempotencyStoreException failure = tooFewAcks("the claim of", key, reply.replicas(),
					"; the claim was released");
			try {
				this.finish.release(key, request.owner(), acquired.fence(), request.retention());
			}
			catch (RuntimeException ex) {
				failure.addSuppressed(ex);
			}
			throw failure;
		}
		throw tooFewAcks("the result replayed from", key, reply.replicas(),
				": its result is not replayed, since a failover to a replica that does not have it would run the "
						+ "method again");
	}

	/**
	 * Return the arguments of {@code acquire.lua} for one request, without the
	 * acknowledged replay flag.
	 * @param request the request
	 * @return the arguments, in the script's order
	 */
	static byte[][] args(AcquireRequest request) {
		byte[] fingerprint = request.fingerprint();
		return new byte[][] { utf8(request.owner()), number(request.lease().toMillis()),
				number(request.retention().toMillis()), (fingerprint != null) ? fingerprint : NONE };
	}

	/**
	 * Turn a reply of {@code acquire.lua} into its result.
	 * @param key the record
	 * @param reply the reply
	 * @return the result
	 * @throws IdempotencyStoreException when the value under the key is not a record
	 */
	AcquireResult result(RecordKey key, List<Object> reply) {
		try {
			return RedisReplies.acquireResult(reply);
		}
		catch (IllegalArgumentException ex) {
			throw new IdempotencyStoreException("Value under Redis key '" + this.commands.redisKeyString(key)
					+ "' is not an idempotency record: " + ex.getMessage() + "; evict it or use another key prefix",
					ex);
		}
	}

	private IdempotencyStoreException tooFewAcks(String write, RecordKey key, long acknowledged, String consequence) {
		return new IdempotencyStoreException(this.commands.tooFewAcksMessage(write, key, acknowledged, consequence));
	}

}
