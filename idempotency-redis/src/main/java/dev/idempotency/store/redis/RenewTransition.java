package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;

import static dev.idempotency.store.redis.RecordCommands.millis;
import static dev.idempotency.store.redis.RecordCommands.number;
import static dev.idempotency.store.redis.RecordCommands.utf8;

/**
 * The renew transition on Redis ({@code renew.lua}), which extends an owner's lease,
 * waiting for its reply or not, and tells a lease lost from an attempt its owner already
 * finished.
 */
final class RenewTransition {

	private static final long RENEW_LOST = 0L;

	// renew.lua: this very owner already completed or released the record
	private static final long RENEW_FINISHED = 2L;

	private final RecordCommands commands;

	private final RedisScripts scripts;

	RenewTransition(RecordCommands commands) {
		this.commands = commands;
		this.scripts = commands.scripts();
	}

	boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return RENEW_LOST != this.commands.execute("renew", key, this.scripts.renew(), utf8(owner), number(fence),
				millis(lease, "lease"), millis(retention, "retention"));
	}

	/**
	 * Renew without waiting: with a Lettuce factory that shares its native connection,
	 * the script is written at once and the reply handled when it comes, so renewals of
	 * many attempts are pipelined on that connection (on a cluster, on each node's); with
	 * any other factory, it is sent on the calling thread.
	 */
	CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return send(key, owner, fence, lease, retention).thenApply((reply) -> RENEW_LOST != reply);
	}

	CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return send(key, owner, fence, lease, retention).thenApply((reply) -> (reply == RENEW_LOST) ? RenewalResult.LOST
				: (reply == RENEW_FINISHED) ? RenewalResult.FINISHED : RenewalResult.RENEWED);
	}

	private CompletionStage<Long> send(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return this.commands.executeAsync("renew", key, this.scripts.renew(), utf8(owner), number(fence),
				millis(lease, "lease"), millis(retention, "retention"));
	}

}
