package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * {@link IdempotencyStore} on Redis: each transition is one Lua script, run atomically on
 * the record's single key in one round trip, so it works unchanged on Redis Cluster.
 * <p>
 * A record is one Redis STRING under {@code keyPrefix + name + ":" + key}, holding a
 * MessagePack sequence described in {@code record.lua}. Leases and expiry are judged on
 * the Redis server's clock ({@code TIME}), never on the callers'. Bodies and fingerprints
 * travel as raw bytes in both directions.
 * <p>
 * Each transition is one {@code EVALSHA} ({@code EVAL} when Redis does not have the
 * script cached yet), sent on the native connection a Lettuce factory shares (or, when it
 * shares none, on one connection the store takes from it and keeps), or else, with other
 * clients, on a connection taken from the factory for it; never on the one a caller may
 * have bound to its thread, so a transition is never queued in a Redis transaction of the
 * application's own. On a native Lettuce connection, renewals are written without waiting
 * for their replies, so that those of many attempts are pipelined.
 * <p>
 * Every command of the store, a health check's included, waits for its reply at most for
 * the store's command timeout ({@link #DEFAULT_COMMAND_TIMEOUT} unless given), whatever
 * the connection factory's own timeout, which other uses of Redis in the application
 * keep. With Lettuce the store bounds opening its connection the same way; with other
 * clients (Jedis) a command sent on the caller's thread waits as long as the client's own
 * timeout.
 * <p>
 * With {@link ReplicaAcks replica acknowledgements}, an acquire that takes a record or
 * replays it, and every complete, fail when too few replicas acknowledge the write in
 * time: no caller is told that a claim or a result holds, nor handed a result, that a
 * failover to an acknowledging replica would lose (see {@link ReplicaAcks}).
 * <p>
 * Batches ({@link #acquireAll}, {@link #completeAll}) are pipelined on a native Lettuce
 * connection, in one round trip (on Redis Cluster, one pipeline per primary, all in
 * flight together), the items whose keys share a hash slot (all of them, on one server)
 * in one script call per 256 items (and per 1 MB of results, completed or replayed),
 * which runs each item's transition in turn, as the single-key script would; with replica
 * acknowledgements, or with other clients, their items run one after the other as
 * {@link #acquire} and {@link #complete} do.
 * <p>
 * Every client failure is reported as {@link IdempotencyStoreException} with the client's
 * exception as its cause. A value under a record's key that this store did not write
 * (another type, or a string that is not a record) is reported the same way and left
 * untouched; {@link #evict} deletes it.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {

	/**
	 * Command timeout of a store created without one.
	 */
	public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private final RedisConnectionFactory connectionFactory;

	private final RecordCommands commands;

	private final AcquireTransition acquisition;

	private final FinishTransitions finish;

	private final RenewTransition renewal;

	private final BatchTransitions batches;

	private final ScriptCacheChecks scriptCache;

	private final ReadAndEvict records;

	/**
	 * Create a store whose commands time out after {@link #DEFAULT_COMMAND_TIMEOUT}.
	 * @param connectionFactory the Redis connections to use; connections are opened
	 * lazily, on the first transition
	 * @param keyPrefix prefix of every Redis key, such as {@code idempotency:}
	 */
	public RedisIdempotencyStore(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this(connectionFactory, keyPrefix, DEFAULT_COMMAND_TIMEOUT);
	}

	/**
	 * Create a store that asks for no replica acknowledgements.
	 * @param connectionFactory the Redis connections to use; connections are opened
	 * lazily, on the first transition
	 * @param keyPrefix prefix of every Redis key, such as {@code idempotency:}
	 * @param commandTimeout how long a command of the store waits for its reply before it
	 * fails, whatever the connection factory's own command timeout
	 */
	public RedisIdempotencyStore(RedisConnectionFactory connectionFactory, String keyPrefix, Duration commandTimeout) {
		this(connectionFactory, keyPrefix, commandTimeout, ReplicaAcks.NONE);
	}

	/**
	 * Create a store that, after each acquire that takes a record and after each
	 * complete, waits until replicas acknowledged the write ({@code WAIT} on the
	 * connection the script went on), and fails the call when too few do in time (see
	 * {@link ReplicaAcks}, which also tells where each client sends {@code WAIT}).
	 * @param connectionFactory the Redis connections to use; connections are opened
	 * lazily, on the first transition
	 * @param keyPrefix prefix of every Redis key, such as {@code idempotency:}
	 * @param commandTimeout how long a command of the store waits for its reply before it
	 * fails, whatever the connection factory's own command timeout; the reply to
	 * {@code WAIT} is waited for as long plus the acknowledgement timeout
	 * @param replicaAcks the acknowledgements to wait for, {@link ReplicaAcks#NONE} for
	 * none
	 */
	public RedisIdempotencyStore(RedisConnectionFactory connectionFactory, String keyPrefix, Duration commandTimeout,
			ReplicaAcks replicaAcks) {
		this(connectionFactory, keyPrefix,
				ScriptRunner.of(connectionFactory, RecordCommands.checkTimeout(commandTimeout)), replicaAcks);
	}

	RedisIdempotencyStore(RedisConnectionFactory connectionFactory, String keyPrefix, ScriptRunner runner) {
		this(connectionFactory, keyPrefix, runner, ReplicaAcks.NONE);
	}

	RedisIdempotencyStore(RedisConnectionFactory connectionFactory, String keyPrefix, ScriptRunner runner,
			ReplicaAcks replicaAcks) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		Assert.hasText(keyPrefix, "'keyPrefix' must not be empty: without one, records share the key space with "
				+ "the application's own keys");
		Assert.notNull(replicaAcks, "'replicaAcks' must not be null");
		this.connectionFactory = connectionFactory;
		this.commands = new RecordCommands(runner, keyPrefix, replicaAcks);
		this.finish = new FinishTransitions(this.commands);
		this.acquisition = new AcquireTransition(this.commands, this.finish);
		this.renewal = new RenewTransition(this.commands);
		this.batches = new BatchTransitions(this.commands, this.acquisition);
		this.scriptCache = new ScriptCacheChecks(this.commands.scripts(), runner, keyPrefix);
		this.records = new ReadAndEvict(this.commands);
	}

	@Override
	public AcquireResult acquire(RecordKey key, AcquireRequest request) {
		return this.acquisition.acquire(key, request);
	}

	@Override
	public List<AcquireResult> acquireAll(List<BatchAcquire> batch) {
		return this.batches.pipelined(batch) ? this.batches.acquirePipelined(batch) : this.batches.acquireEach(batch);
	}

	@Override
	public List<Boolean> completeAll(List<BatchComplete> batch) {
		return this.batches.pipelined(batch) ? this.batches.completePipelined(batch)
				: IdempotencyStore.super.completeAll(batch);
	}

	@Override
	public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		return this.finish.complete(key, owner, fence, result, retention);
	}

	@Override
	public boolean release(RecordKey key, String owner, long fence, Duration retention) {
		return this.finish.release(key, owner, fence, retention);
	}

	@Override
	public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return this.renewal.renew(key, owner, fence, lease, retention);
	}

	@Override
	public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return this.renewal.renewAsync(key, owner, fence, lease, retention);
	}

	@Override
	public CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return this.renewal.renewLease(key, owner, fence, lease, retention);
	}

	@Override
	public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		return this.finish.abandon(key, owner, retention);
	}

	@Override
	public Optional<IdempotencyRecord> read(RecordKey key) {
		return this.records.read(key);
	}

	@Override
	public boolean evict(RecordKey key) {
		return this.records.evict(key);
	}

	@Override
	public String type() {
		return "redis";
	}

	/**
	 * Return whether the Redis server holds each transition script in its script cache,
	 * asked in one round trip ({@code SCRIPT EXISTS}), for health checks.
	 * <p>
	 * A script missing from the cache is not a fault: the next transition that needs it
	 * sends it in full once ({@code EVAL}), and later calls use {@code EVALSHA} again.
	 * Scripts missing after the application has warmed up point at a server restart, a
	 * failover to a replica, or {@code SCRIPT FLUSH}. On Redis Cluster (with Lettuce) a
	 * script counts as loaded when every primary of {@link #clusterPrimaries()} holds it;
	 * {@link #scriptsLoaded(String)} tells one primary's.
	 * @return whether each script is cached, by transition name ({@code acquire},
	 * {@code complete}, {@code release}, {@code renew}, {@code read})
	 * @throws IdempotencyStoreException when Redis fails
	 */
	public Map<String, Boolean> scriptsLoaded() {
		return this.scriptCache.loaded();
	}

	/**
	 * Return whether one primary of a Redis Cluster holds each transition script in its
	 * script cache, as {@link #scriptsLoaded()} does for a single server.
	 * @param primary the {@code host:port} of a primary, one of
	 * {@link #clusterPrimaries()}
	 * @return whether each script is cached there, by transition name
	 * @throws IdempotencyStoreException when it is no longer such a primary, or Redis
	 * fails
	 */
	public Map<String, Boolean> scriptsLoaded(String primary) {
		Assert.notNull(primary, "'primary' must not be null");
		return this.scriptCache.loadedOn(primary);
	}

	/**
	 * Return the primaries of the Redis Cluster that can hold this store's records, as
	 * the client sees the cluster now: those serving hash slots (only the one serving the
	 * key prefix's slot when the prefix has a hash tag of its own), by {@code host:port},
	 * for health checks of each.
	 * @return the primaries, in the client's order; empty when Redis is not a cluster, or
	 * its client (any but Lettuce) does not let the store address one node
	 * @throws IdempotencyStoreException when the client cannot connect to Redis
	 */
	public List<String> clusterPrimaries() {
		return this.scriptCache.primaries();
	}

	/**
	 * Return a check of whether the Redis server this store uses accepts writes now, and
	 * how it is set up to keep records, for health checks.
	 * @return a check on this store's connections and key prefix, bounded by its command
	 * timeout
	 */
	public RedisServerCheck serverCheck() {
		return new RedisServerCheck(this.commands.runner(), this.commands.keyPrefix());
	}

	/**
	 * Describe where the records are: the Redis server (or the nodes of a cluster, the
	 * master of a sentinel set), the key prefix, and the replica acknowledgements asked
	 * for, if any.
	 * @return a description for logs
	 */
	@Override
	public String toString() {
		return "Redis store at " + RedisTargets.describe(this.connectionFactory) + " (" + this.commands.describe()
				+ ")";
	}

}
