package dev.idempotency.store.redis;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How many replicas must acknowledge a record's writes before a
 * {@link RedisIdempotencyStore} call that made them returns: after an acquire that took
 * the record or replays it, and after every complete, the store sends
 * {@code WAIT replicas timeout} on the connection the script went on, and reports fewer
 * acknowledgements than asked within {@code timeout} as an
 * {@link dev.idempotency.IdempotencyStoreException}, as it does a connection that drops
 * before {@code WAIT} answers (whether replicas have the write is then unknown). A claim
 * that too few replicas acknowledged is released before the acquire fails; a completion
 * stays on the primary, and sent again (the same owner and fence) it is written and
 * waited for again.
 * <p>
 * Redis replicates asynchronously: without acknowledgements, a primary that fails just
 * after it answered can be replaced by a replica that never received the claim or the
 * result, and a duplicate then runs the method again. With them, a call that returned has
 * its record on that many replicas; a failover that promotes one of them keeps it.
 * {@code WAIT} does not make Redis strongly consistent (a replica that acknowledged may
 * still lose the write if it is not the one promoted), and it costs the time a replica
 * takes to acknowledge, on the connection of a call that claims, completes or replays a
 * record. A replay writes the record's expiry again, unchanged, and waits until replicas
 * acknowledged that write, which comes after the completion in the replication stream: it
 * never hands out a result whose completion no replica holds (its completer may still be
 * waiting, or have failed to get acknowledgements). In-progress answers write nothing and
 * never wait.
 * <p>
 * The timeout is independent of the store's command timeout: the reply to {@code WAIT} is
 * waited for as long as both together, so that neither cuts the other short.
 * <p>
 * With Lettuce, such a script and its {@code WAIT} go on connections of the store's own
 * (at most 16, opened from the factory's client as calls need them), never on the
 * connection the factory shares: {@code WAIT} holds the connection it is sent on until it
 * answers, and every other command of the application would wait behind it. On Redis
 * Cluster they go to the primary serving the record's slot. Lettuce opens no such
 * connection for a static master/replica configuration: every acquire and complete then
 * fails. With other clients (Jedis), they go on the connection each script takes from the
 * factory, one round trip after the other, and the client's read timeout
 * ({@code spring.data.redis.timeout}) must be longer than the acknowledgement timeout;
 * they are refused on Redis Cluster, where such a client cannot send {@code WAIT} to the
 * node that ran the script.
 *
 * @param replicas number of replicas that must acknowledge; {@code 0} for none, which
 * sends no {@code WAIT} at all
 * @param timeout how long Redis waits for them; at least one millisecond (Redis would
 * read {@code 0} as waiting forever)
 */
public record ReplicaAcks(int replicas, Duration timeout) {

	// Before NONE, which the constructor checks against it. Added to the command timeout
	// and measured in nanoseconds, which a long holds for 292 years.
	private static final Duration MAX_TIMEOUT = Duration.ofDays(36500);

	/**
	 * No acknowledgements: nothing is waited for.
	 */
	public static final ReplicaAcks NONE = new ReplicaAcks(0, Duration.ofSeconds(1));

	/**
	 * Create the acknowledgements to wait for.
	 * @param replicas number of replicas that must acknowledge; {@code 0} for none
	 * @param timeout how long Redis waits for them
	 * @throws IllegalArgumentException if the number of replicas is negative, or the
	 * timeout is {@code null}, shorter than one millisecond or longer than 36500 days
	 */
	public ReplicaAcks {
		Assert.isTrue(replicas >= 0, () -> "'replicas' must not be negative, was " + replicas);
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(timeout.toMillis() > 0, () -> "'timeout' must be at least one millisecond, was " + timeout);
		Assert.isTrue(timeout.compareTo(MAX_TIMEOUT) <= 0,
				() -> "'timeout' must be at most " + MAX_TIMEOUT.toDays() + " days, was " + timeout);
	}

	/**
	 * Return whether any acknowledgement is asked for.
	 * @return whether {@link #replicas()} is above zero
	 */
	public boolean enabled() {
		return this.replicas > 0;
	}

}
