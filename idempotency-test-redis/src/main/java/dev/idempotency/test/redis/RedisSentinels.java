package dev.idempotency.test.redis;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A primary, its replica and three sentinels that watch them (quorum 2), which one test
 * started for itself: for tests of a failover under Redis Sentinel. The sentinels think a
 * server down after a second without an answer, may start another failover five seconds
 * after one that did not finish, and ask the servers for their state every second rather
 * than every ten ({@code SENTINEL DEBUG INFO-PERIOD}), so that a failover can follow
 * another within seconds. Every server, sentinels included, can be stopped, killed or
 * frozen on its own; a restarted sentinel is back to every ten seconds.
 * <p>
 * Roles change: after a failover the former replica is the primary, and the sentinels
 * turn the former primary into its replica. {@link #primary()} and {@link #replica()} ask
 * the sentinels, so their answer is the current one.
 * <p>
 * Close it when done; servers still running when the JVM exits are stopped then.
 *
 * @see TestRedis#startSentinels()
 */
public interface RedisSentinels extends AutoCloseable {

	/**
	 * Return the name under which the sentinels know the primary, as
	 * {@code spring.data.redis.sentinel.master} takes it.
	 * @return the name
	 */
	String masterName();

	/**
	 * Return the addresses of the sentinels, as {@code spring.data.redis.sentinel.nodes}
	 * takes them: {@code host:port,host:port,host:port}.
	 * @return the addresses
	 */
	String sentinelNodes();

	/**
	 * Return the primary, as most of the sentinels that answer report it.
	 * @return the primary
	 * @throws IllegalStateException if no sentinel answers
	 */
	RedisServer primary();

	/**
	 * Return the replica of the primary, as the sentinels report it (a former primary
	 * counts once the sentinels have made it a replica).
	 * @return the replica
	 * @throws IllegalStateException if no sentinel answers, or none knows a replica that
	 * is up
	 */
	RedisServer replica();

	/**
	 * Force a failover ({@code SENTINEL FAILOVER}), and wait until every sentinel that
	 * runs reports the former replica as the primary, and it says it is a primary and
	 * accepts a write. A failover that the sentinels refuse for now (one still in
	 * progress, no replica good enough yet) is asked again until the deadline.
	 * @return the new primary
	 * @throws IllegalStateException if that does not happen within 30 seconds, with what
	 * was seen last
	 */
	RedisServer failover();

	/**
	 * Create a started connection factory for the primary, found through the sentinels,
	 * with timeouts short enough for tests, that rejects commands at once while
	 * disconnected. The caller destroys it.
	 * @return the started factory
	 */
	LettuceConnectionFactory newConnectionFactory();

	/**
	 * Stop the sentinels, then the primary and the replica, and free what they used.
	 */
	@Override
	void close();

}
