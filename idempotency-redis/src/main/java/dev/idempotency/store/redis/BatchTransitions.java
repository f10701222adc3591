package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchAcquireException;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.RecordKey;

/**
 * Acquires and completes batches of records on Redis: in one round trip where the runner
 * pipelines and no replica acknowledgements are asked for, the items whose keys share a
 * hash slot in one script call ({@link BatchCalls}), else acquired one item after the
 * other. Every item's answer that Redis gave is kept, even when another item failed.
 */
final class BatchTransitions {

	// acquire-all.lua's code of an item's error, before the error's text
	private static final Long ACQUIRE_ERROR = 0L;

	// What complete-all.lua answers for an item whose value is not a record
	private static final Long CORRUPT_COMPLETE = -1L;

	// The error the single-key scripts answer for a value that is not a record
	private static final String CORRUPT = RedisErrors.CORRUPT + " value is not an idempotency record";

	private final RecordCommands commands;

	private final RedisScripts scripts;

	private final ScriptRunner runner;

	private final ReplicaAcks replicaAcks;

	private final AcquireTransition acquire;

	BatchTransitions(RecordCommands commands, AcquireTransition acquire) {
		this.commands = commands;
		this.scripts = commands.scripts();
		this.runner = commands.runner();
		this.replicaAcks = commands.replicaAcks();
		this.acquire = acquire;
	}

	/**
	 * Return whether a batch is sent in one round trip: it has more than one item, no
	 * acknowledgements are asked for, and the runner pipelines.
	 * @param batch the batch
	 * @return whether {@link #acquirePipelined} and {@link #completePipelined} apply
	 */
	boolean pipelined(List<?> batch) {
		return batch.size() > 1 && !this.replicaAcks.enabled() && this.runner.pipelines();
	}

	/**
	 * Acquire a batch in one round trip: the items whose keys share a hash slot (all of
	 * them, on one server) in one script call per {@link BatchCalls#MAX_ITEMS} items, the
	 * others each in a call of its own, every call written before any reply is awaited; a
	 * script that Redis does not have cached is loaded and its calls sent again. With
	 * replica acknowledgements, items are acquired one after the other, each followed by
	 * its {@code WAIT} as {@link AcquireTransition#acquire} does: {@code WAIT} counts
	 * only the writes of the connection it is sent on, and a batch spread over a
	 * cluster's primaries would need one per node, so the batch keeps the single path's
	 * guarantee at its cost.
	 */
	List<AcquireResult> acquirePipelined(List<BatchAcquire> batch) {
		List<byte[][]> args = new ArrayList<>(batch.size());
		for (BatchAcquire item : batch) {
			args.add(AcquireTransition.args(item.request()));
		}
		List<RecordKey> keys = batch.stream().map(BatchAcquire::key).toList();
		List<byte[]> redisKeys = this.commands.redisKeys(keys);
		BatchCalls calls = BatchCalls.plan(redisKeys, args, this.runner::slot);
		List<CompletableFuture<@Nullable Object>> replies = calls.run(this.runner, redisKeys, args,
				this.scripts.acquire(), this.scripts.acquireAll());
		AcquireResult[] results = new AcquireResult[batch.size()];
		IdempotencyStoreException[] failures = new IdempotencyStoreException[batch.size()];
		calls.await(replies, BatchTransitions::acquireError, (i, reply, failure) -> {
			try {
				if (failure != null || !(reply instanceof List<?>)) {
					throw this.commands.failure("acquire", keys.get(i),
							(failure != null) ? failure : new IllegalStateException("No reply from Redis to acquire"));
				}
				results[i] = this.acquire.result(keys.get(i), list(reply));
			}
			catch (IdempotencyStoreException ex) {
				failures[i] = ex;
			}
		});
		return answers(Arrays.asList(results), firstOf(failures));
	}

	// One item after the other: a value that is not a record fails its own item, and the
	// items after it are still asked, since Redis answered; any other failure (Redis
	// gone, too few acknowledgements) leaves the items after it unanswered
	List<AcquireResult> acquireEach(List<BatchAcquire> batch) {
		List<@Nullable AcquireResult> results = new ArrayList<>(batch.size());
		IdempotencyStoreException failure = null;
		boolean answering = true;
		for (BatchAcquire item : batch) {
			if (!answering) {
				results.add(null);
				continue;
			}
			try {
				results.add(this.acquire.acquire(item.key(), item.request()));
			}
			catch (IdempotencyStoreException ex) {
				results.add(null);
				answering = RedisErrors.isCorrupt(ex);
				failure = firstOf(failure, ex);
			}
		}
		return answers(results, failure);
	}

	/**
	 * Complete a batch in one round trip, as {@link #acquirePipelined} acquires one; with
	 * replica acknowledgements, one item after the other, each followed by its
	 * {@code WAIT} as {@link FinishTransitions#complete} does.
	 */
	List<Boolean> completePipelined(List<BatchComplete> batch) {
		List<byte[][]> args = new ArrayList<>(batch.size());
		for (BatchComplete item : batch) {
			args.add(FinishTransitions.completeArgs(item.owner(), item.fence(), item.result(), item.retention()));
		}
		List<RecordKey> keys = batch.stream().map(BatchComplete::key).toList();
		List<byte[]> redisKeys = this.commands.redisKeys(keys);
		BatchCalls calls = BatchCalls.plan(redisKeys, args, this.runner::slot);
		List<CompletableFuture<@Nullable Object>> replies = calls.run(this.runner, redisKeys, args,
				this.scripts.complete(), this.scripts.completeAll());
		Boolean[] completed = new Boolean[batch.size()];
		IdempotencyStoreException[] failures = new IdempotencyStoreException[batch.size()];
		calls.await(replies, (reply) -> CORRUPT_COMPLETE.equals(reply) ? CORRUPT : null, (i, reply, failure) -> {
			if (failure != null) {
				failures[i] = this.commands.failure("complete", keys.get(i), failure);
			}
			else if (!(reply instanceof Long)) {
				failures[i] = this.commands.failure("complete", keys.get(i),
						new IllegalStateException("No reply from Redis to complete"));
			}
			else {
				completed[i] = RecordCommands.TRUE == (Long) reply;
			}
		});
		IdempotencyStoreException failure = firstOf(failures);
		if (failure != null) {
			throw failure;
		}
		return List.of(completed);
	}

	// The error of acquire-all.lua's reply for an item that failed: {0, error}
	private static @Nullable String acquireError(Object reply) {
		if (!(reply instanceof List<?> list) || list.isEmpty() || !ACQUIRE_ERROR.equals(list.get(0))) {
			return null;
		}
		return (list.size() > 1 && list.get(1) instanceof byte[] error) ? new String(error, StandardCharsets.UTF_8)
				: CORRUPT;
	}

	@SuppressWarnings("unchecked")
	private static List<Object> list(Object reply) {
		return (List<Object>) reply;
	}

	// The first failure in the order of the batch, the others suppressed in it
	private static @Nullable IdempotencyStoreException firstOf(@Nullable IdempotencyStoreException[] failures) {
		IdempotencyStoreException first = null;
		for (IdempotencyStoreException failure : failures) {
			if (failure != null) {
				first = firstOf(first, failure);
			}
		}
		return first;
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

}
