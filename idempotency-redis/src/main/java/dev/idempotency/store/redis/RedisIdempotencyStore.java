package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.BatchAcquireException;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.UnreplicatedWriteException;
import dev.idempotency.store.redis.ScriptRunner.Acknowledged;
import dev.idempotency.store.redis.ScriptRunner.Undo;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
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
 * application's own.
 * <p>
 * Every command of the store, a health check's included, waits for its reply at most for
 * the store's command timeout ({@link #DEFAULT_COMMAND_TIMEOUT} unless given), whatever
 * the connection factory's own timeout, which other uses of Redis in the application
 * keep. With Lettuce the store bounds opening its connection the same way; with other
 * clients (Jedis) a command sent on the caller's thread waits as long as the client's own
 * timeout.
 * <p>
 * With {@link ReplicaAcks replica acknowledgements}, an acquire that takes a record or
 * replays it, and every complete, are followed by {@code WAIT} on the connection the
 * script went on, and fail when too few replicas acknowledge the write in time: no caller
 * is told that a claim or a result holds, nor handed a result, that a failover to an
 * acknowledging replica would lose (see
 * {@link #RedisIdempotencyStore(RedisConnectionFactory, String, Duration, ReplicaAcks)}).
 * <p>
 * Batches ({@link #acquireAll}, {@link #completeAll}) are pipelined when the store sends
 * on a native Lettuce connection: every item's script is written before any reply is
 * awaited, so a batch costs one round trip. On Redis Cluster, Lettuce routes each script
 * to the node connection serving its key's hash slot, so a batch is split into one
 * pipeline per primary, all in flight together. With replica acknowledgements, or with
 * other clients, a batch runs one item after the other as {@link #acquire} and
 * {@link #complete} do.
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

	// Waits are measured in nanoseconds, a long of which holds 292 years
	private static final Duration MAX_COMMAND_TIMEOUT = Duration.ofDays(36500);

	private static final byte[] NONE = {};

	// acquire.lua's ARGV[5]: write the expiry of a completed record again, for WAIT
	private static final byte[] ACKNOWLEDGED_REPLAY = { '1' };

	private static final long TRUE = 1L;

	private static final long RENEW_LOST = 0L;

	// renew.lua: this very owner already completed or released the record
	private static final long RENEW_FINISHED = 2L;

	private final RedisConnectionFactory connectionFactory;

	private final RedisScripts scripts;

	private final ScriptRunner runner;

	private final String keyPrefix;

	private final ReplicaAcks replicaAcks;

	private final ClusterPrimaries primaries;

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
	 * {@link ReplicaAcks}).
	 * <p>
	 * With Lettuce, such a script and its {@code WAIT} go on connections of the store's
	 * own (at most 16, opened from the factory's client as calls need them), never on the
	 * connection the factory shares: {@code WAIT} holds the connection it is sent on
	 * until it answers, and every other command of the application would wait behind it.
	 * On Redis Cluster they go to the primary serving the record's slot. Lettuce opens no
	 * such connection for a static master/replica configuration: every acquire and
	 * complete then fails. With other clients (Jedis), they go on the connection each
	 * script takes from the factory, one round trip after the other, and the client's
	 * read timeout ({@code spring.data.redis.timeout}) must be longer than the
	 * acknowledgement timeout; they are refused on Redis Cluster, where such a client
	 * cannot send {@code WAIT} to the node that ran the script.
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
		this(connectionFactory, keyPrefix, ScriptRunner.of(connectionFactory, checkTimeout(commandTimeout)),
				replicaAcks);
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
		this.scripts = RedisScripts.load();
		this.runner = runner;
		this.keyPrefix = keyPrefix;
		this.replicaAcks = replicaAcks;
		this.primaries = new ClusterPrimaries(runner, keyPrefix);
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
	@Override
	public AcquireResult acquire(RecordKey key, AcquireRequest request) {
		byte[] fingerprint = request.fingerprint();
		byte[] owner = utf8(request.owner());
		byte[] lease = number(request.lease().toMillis());
		byte[] retention = number(request.retention().toMillis());
		byte[] fingerprintArg = (fingerprint != null) ? fingerprint : NONE;
		if (!this.replicaAcks.enabled()) {
			return acquireResult(key,
					execute("acquire", key, this.scripts.acquire(), owner, lease, retention, fingerprintArg));
		}
		// The engine abandons an acquire that failed on the connection the runner shares,
		// which can overtake this one on its way to Redis; this abandon follows it
		Undo abandon = new Undo(this.scripts.release(), new byte[][] { owner, NONE, retention });
		Acknowledged<List<Object>> reply = executeAcknowledged("acquire", key,
				() -> this.runner.runThenWait(this.scripts.acquire(), redisKey(key), this.replicaAcks,
						RedisReplies::isClaimOrReplay, abandon, owner, lease, retention, fingerprintArg,
						ACKNOWLEDGED_REPLAY));
		AcquireResult result = acquireResult(key, reply.reply());
		if (!reply.asked() || reply.replicas() >= this.replicaAcks.replicas()) {
			return result;
		}
		if (result instanceof AcquireResult.Acquired acquired) {
			IdempotencyStoreException failure = tooFewAcks("the claim of", key, reply.replicas(),
					"; the claim was released");
			try {
				release(key, request.owner(), acquired.fence(), request.retention());
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
	 * Acquire a batch in one round trip: every script is written before any reply is
	 * awaited, and a script that Redis does not have cached is sent again in full for its
	 * item alone. With replica acknowledgements, items are acquired one after the other,
	 * each followed by its {@code WAIT} as {@link #acquire} does: {@code WAIT} counts
	 * only the writes of the connection it is sent on, and a batch spread over a
	 * cluster's primaries would need one per node, so the batch keeps the single path's
	 * guarantee at its cost.
	 */
	@Override
	public List<AcquireResult> acquireAll(List<BatchAcquire> batch) {
		if (!pipelined(batch)) {
			return acquireEach(batch);
		}
		List<byte[][]> args = new ArrayList<>(batch.size());
		for (BatchAcquire item : batch) {
			AcquireRequest request = item.request();
			byte[] fingerprint = request.fingerprint();
			args.add(new byte[][] { utf8(request.owner()), number(request.lease().toMillis()),
					number(request.retention().toMillis()), (fingerprint != null) ? fingerprint : NONE });
		}
		List<RecordKey> keys = batch.stream().map(BatchAcquire::key).toList();
		List<CompletableFuture<@Nullable List<Object>>> replies = this.runner.runAll(this.scripts.acquire(),
				redisKeys(keys), args);
		List<@Nullable List<Object>> received = new ArrayList<>(batch.size());
		IdempotencyStoreException failure = awaitAll("acquire", keys, replies, received);
		List<@Nullable AcquireResult> results = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			List<Object> reply = received.get(i);
			AcquireResult result = null;
			try {
				result = (reply != null) ? acquireResult(batch.get(i).key(), reply) : null;
			}
			catch (IdempotencyStoreException ex) {
				failure = firstOf(failure, ex);
			}
			results.add(result);
		}
		return answers(results, failure);
	}

	// One item after the other: a value that is not a record fails its own item, and the
	// items after it are still asked, since Redis answered; any other failure (Redis
	// gone,
	// too few acknowledgements) leaves the items after it unanswered
	private List<AcquireResult> acquireEach(List<BatchAcquire> batch) {
		List<@Nullable AcquireResult> results = new ArrayList<>(batch.size());
		IdempotencyStoreException failure = null;
		boolean answering = true;
		for (BatchAcquire item : batch) {
			if (!answering) {
				results.add(null);
				continue;
			}
			try {
				results.add(acquire(item.key(), item.request()));
			}
			catch (IdempotencyStoreException ex) {
				results.add(null);
				answering = RedisErrors.isCorrupt(ex);
				failure = firstOf(failure, ex);
			}
		}
		return answers(results, failure);
	}

	private static IdempotencyStoreException firstOf(@Nullable IdempotencyStoreException first,
			IdempotencyStoreException next) {
		if (first == null) {
			return next;
		}
		first.addSuppressed(next);
		return first;
	}

	// The items Redis answered keep their answers: one that is completed must be replayed
	// even when the batch runs unprotected
	private static List<AcquireResult> answers(List<@Nullable AcquireResult> results,
			@Nullable IdempotencyStoreException failure) {
		if (failure != null) {
			BatchAcquireException partial = new BatchAcquireException(String.valueOf(failure.getMessage()),
					failure.getCause(), results);
			for (Throwable suppressed : failure.getSuppressed()) {
				partial.addSuppressed(suppressed);
			}
			throw partial;
		}
		return results.stream().map(Objects::requireNonNull).toList();
	}

	/**
	 * Complete a batch in one round trip, as {@link #acquireAll} acquires one; with
	 * replica acknowledgements, one item after the other, each followed by its
	 * {@code WAIT} as {@link #complete} does.
	 */
	@Override
	public List<Boolean> completeAll(List<BatchComplete> batch) {
		if (!pipelined(batch)) {
			return IdempotencyStore.super.completeAll(batch);
		}
		List<byte[][]> args = new ArrayList<>(batch.size());
		for (BatchComplete item : batch) {
			StoredResult result = item.result();
			args.add(new byte[][] { utf8(item.owner()), number(item.fence()), millis(item.retention(), "retention"),
					body(result), reason(result) });
		}
		List<RecordKey> keys = batch.stream().map(BatchComplete::key).toList();
		List<@Nullable Long> received = new ArrayList<>(batch.size());
		IdempotencyStoreException failure = awaitAll("complete", keys,
				this.runner.runAll(this.scripts.complete(), redisKeys(keys), args), received);
		if (failure != null) {
			throw failure;
		}
		return received.stream().map((reply) -> reply != null && TRUE == reply).toList();
	}

	private boolean pipelined(List<?> batch) {
		return batch.size() > 1 && !this.replicaAcks.enabled() && this.runner.pipelines();
	}

	private List<byte[]> redisKeys(List<RecordKey> keys) {
		return keys.stream().map(this::redisKey).toList();
	}

	// Every reply is awaited, even after a failure, so that no script of the batch is
	// still in flight when the call fails; each reply is added to received, null for an
	// item that failed, and the first failure is returned, the others suppressed in it.
	private <T> @Nullable IdempotencyStoreException awaitAll(String operation, List<RecordKey> keys,
			List<CompletableFuture<@Nullable T>> replies, List<@Nullable T> received) {
		IdempotencyStoreException failure = null;
		for (int i = 0; i < replies.size(); i++) {
			try {
				T reply = replies.get(i).join();
				Assert.state(reply != null, () -> "No reply from Redis to " + operation);
				received.add(reply);
			}
			catch (CompletionException ex) {
				received.add(null);
				Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
				IdempotencyStoreException itemFailure = failure(operation, keys.get(i),
						(cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause));
				if (failure == null) {
					failure = itemFailure;
				}
				else {
					failure.addSuppressed(itemFailure);
				}
			}
		}
		return failure;
	}

	/**
	 * Complete; with replica acknowledgements, {@code WAIT} is sent with the script, and
	 * a completion that too few replicas acknowledged fails the call, although the record
	 * is completed on the primary: sending it again (the same owner and fence) writes it
	 * again and waits again.
	 */
	@Override
	public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		byte[][] args = { utf8(owner), number(fence), millis(retention, "retention"), body(result), reason(result) };
		if (!this.replicaAcks.enabled()) {
			return TRUE == execute("complete", key, this.scripts.complete(), args);
		}
		Acknowledged<Long> reply = executeAcknowledged("complete", key,
				() -> this.runner.runAndWait(this.scripts.complete(), redisKey(key), this.replicaAcks, args));
		boolean completed = TRUE == reply.reply();
		if (completed && reply.replicas() < this.replicaAcks.replicas()) {
			throw new UnreplicatedWriteException(tooFewAcksMessage("the completion of", key, reply.replicas(),
					": it is completed on the primary, and a failover to a replica that does not have it would run "
							+ "the method again"));
		}
		return completed;
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

	@Override
	public boolean release(RecordKey key, String owner, long fence, Duration retention) {
		return TRUE == execute("release", key, this.scripts.release(), utf8(owner), number(fence),
				millis(retention, "retention"));
	}

	@Override
	public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return RENEW_LOST != execute("renew", key, this.scripts.renew(), utf8(owner), number(fence),
				millis(lease, "lease"), millis(retention, "retention"));
	}

	/**
	 * Renew without waiting: with a Lettuce factory that shares its native connection,
	 * the script is written at once and the reply handled when it comes, so renewals of
	 * many attempts are pipelined on that connection (on a cluster, on each node's); with
	 * any other factory, it is sent on the calling thread.
	 */
	@Override
	public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return executeAsync("renew", key, this.scripts.renew(), utf8(owner), number(fence), millis(lease, "lease"),
				millis(retention, "retention"))
			.thenApply((reply) -> RENEW_LOST != reply);
	}

	@Override
	public CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return executeAsync("renew", key, this.scripts.renew(), utf8(owner), number(fence), millis(lease, "lease"),
				millis(retention, "retention"))
			.thenApply((reply) -> (reply == RENEW_LOST) ? RenewalResult.LOST
					: (reply == RENEW_FINISHED) ? RenewalResult.FINISHED : RenewalResult.RENEWED);
	}

	@Override
	public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		return executeAsync("abandon", key, this.scripts.release(), utf8(owner), NONE, millis(retention, "retention"))
			.thenApply((reply) -> TRUE == reply);
	}

	@Override
	public Optional<IdempotencyRecord> read(RecordKey key) {
		return RedisReplies.record(key, execute("read", key, this.scripts.read()));
	}

	@Override
	public boolean evict(RecordKey key) {
		try {
			return this.runner.delete(redisKey(key));
		}
		catch (RuntimeException ex) {
			throw failure("evict", key, ex);
		}
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
		List<ScriptRunner.Primary> primaries = this.primaries.all();
		if (primaries.isEmpty()) {
			return this.scripts.loadedOn(this.runner, "Redis");
		}
		Map<String, Boolean> loaded = new LinkedHashMap<>();
		for (ScriptRunner.Primary primary : primaries) {
			this.scripts.loadedOn(primary.commands(), "Redis node " + primary.address())
				.forEach((transition, cached) -> loaded.merge(transition, cached, Boolean::logicalAnd));
		}
		return loaded;
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
		return this.scripts.loadedOn(this.primaries.get(primary).commands(), "Redis node " + primary);
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
		return this.primaries.all().stream().map(ScriptRunner.Primary::address).toList();
	}

	/**
	 * Return a check of whether the Redis server this store uses accepts writes now, and
	 * how it is set up to keep records, for health checks.
	 * @return a check on this store's connections and key prefix, bounded by its command
	 * timeout
	 */
	public RedisServerCheck serverCheck() {
		return new RedisServerCheck(this.runner, this.keyPrefix);
	}

	/**
	 * Describe where the records are: the Redis server (or the nodes of a cluster, the
	 * master of a sentinel set), the key prefix, and the replica acknowledgements asked
	 * for, if any.
	 * @return a description for logs
	 */
	@Override
	public String toString() {
		String acks = "";
		if (this.replicaAcks.enabled()) {
			int replicas = this.replicaAcks.replicas();
			acks = ", waits for " + replicas + ((replicas == 1) ? " replica" : " replicas") + " within "
					+ this.replicaAcks.timeout().toMillis() + " ms";
		}
		return "Redis store at " + RedisTargets.describe(this.connectionFactory) + " (key prefix '" + this.keyPrefix
				+ "'" + acks + ")";
	}

	private <T> T execute(String operation, RecordKey key, RedisScript<T> script, byte[]... args) {
		T reply;
		try {
			reply = this.runner.run(script, redisKey(key), args);
		}
		catch (RuntimeException ex) {
			throw failure(operation, key, ex);
		}
		Assert.state(reply != null, () -> "No reply from Redis to " + operation);
		return reply;
	}

	private <T> Acknowledged<T> executeAcknowledged(String operation, RecordKey key,
			Supplier<Acknowledged<T>> command) {
		Acknowledged<T> reply;
		try {
			reply = command.get();
		}
		catch (RuntimeException ex) {
			throw failure(operation, key, ex);
		}
		Assert.state(reply.reply() != null, () -> "No reply from Redis to " + operation);
		return reply;
	}

	private AcquireResult acquireResult(RecordKey key, List<Object> reply) {
		try {
			return RedisReplies.acquireResult(reply);
		}
		catch (IllegalArgumentException ex) {
			throw new IdempotencyStoreException("Value under Redis key '" + redisKeyString(key)
					+ "' is not an idempotency record: " + ex.getMessage() + "; evict it or use another key prefix",
					ex);
		}
	}

	private IdempotencyStoreException tooFewAcks(String write, RecordKey key, long acknowledged, String consequence) {
		return new IdempotencyStoreException(tooFewAcksMessage(write, key, acknowledged, consequence));
	}

	private String tooFewAcksMessage(String write, RecordKey key, long acknowledged, String consequence) {
		return "Only " + Math.max(acknowledged, 0) + " of " + this.replicaAcks.replicas()
				+ " Redis replicas acknowledged " + write + " the idempotency record under key '" + redisKeyString(key)
				+ "' within " + this.replicaAcks.timeout().toMillis()
				+ " ms (idempotency.redis.replica-acks, idempotency.redis.replica-ack-timeout)" + consequence;
	}

	private <T> CompletionStage<T> executeAsync(String operation, RecordKey key, RedisScript<T> script,
			byte[]... args) {
		return this.runner.runAsync(script, redisKey(key), args).handle((reply, ex) -> {
			if (ex != null) {
				Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				throw failure(operation, key,
						(cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause));
			}
			Assert.state(reply != null, () -> "No reply from Redis to " + operation);
			return reply;
		});
	}

	private IdempotencyStoreException failure(String operation, RecordKey key, RuntimeException ex) {
		String redisKey = redisKeyString(key);
		if (RedisErrors.isCorrupt(ex)) {
			return new IdempotencyStoreException("Value under Redis key '" + redisKey
					+ "' is not an idempotency record; evict it or use another key prefix", ex);
		}
		return new IdempotencyStoreException(
				"Redis failed to " + operation + " the idempotency record under key '" + redisKey + "'", ex);
	}

	private byte[] redisKey(RecordKey key) {
		return utf8(redisKeyString(key));
	}

	private String redisKeyString(RecordKey key) {
		return this.keyPrefix + key.name() + ':' + key.key();
	}

	private static Duration checkTimeout(Duration commandTimeout) {
		Assert.notNull(commandTimeout, "'commandTimeout' must not be null");
		Assert.isTrue(commandTimeout.toMillis() > 0, "'commandTimeout' must be at least one millisecond");
		Assert.isTrue(commandTimeout.compareTo(MAX_COMMAND_TIMEOUT) <= 0, () -> "'commandTimeout' must be at most "
				+ MAX_COMMAND_TIMEOUT.toDays() + " days, was " + commandTimeout);
		return commandTimeout;
	}

	private static byte[] millis(Duration duration, String name) {
		long millis = duration.toMillis();
		Assert.isTrue(millis > 0, () -> "'" + name + "' must be at least one millisecond");
		return number(millis);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
