package dev.idempotency.autoconfigure;

import java.time.Duration;

/**
 * Settings of the Redis store, bound from {@code idempotency.redis}.
 *
 * @see IdempotencyProperties#getRedis()
 */
public class IdempotencyRedisProperties {

	/**
	 * How long a command of the Redis store, or of its health check, waits for its reply
	 * before the call fails, whatever the connection's own command timeout
	 * (spring.data.redis.timeout), which the application's other uses of Redis keep. With
	 * Lettuce, a new connection is waited for at most the connect timeout plus this.
	 */
	private Duration commandTimeout = Duration.ofSeconds(2);

	/**
	 * Number of replicas that must acknowledge a claim, a completion or the result a
	 * replay hands out (WAIT after the script, on the same connection) before the call
	 * goes on, so that a failover cannot silently forget it. Too few within
	 * replica-ack-timeout is a store error, and a claim is released first. 0 to wait for
	 * none.
	 */
	private int replicaAcks = 0;

	/**
	 * How long Redis waits for replica-acks replicas to acknowledge a write. The reply is
	 * waited for as long plus the command timeout.
	 */
	private Duration replicaAckTimeout = Duration.ofSeconds(1);

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	public int getReplicaAcks() {
		return this.replicaAcks;
	}

	public void setReplicaAcks(int replicaAcks) {
		this.replicaAcks = replicaAcks;
	}

	public Duration getReplicaAckTimeout() {
		return this.replicaAckTimeout;
	}

	public void setReplicaAckTimeout(Duration replicaAckTimeout) {
		this.replicaAckTimeout = replicaAckTimeout;
	}

}
