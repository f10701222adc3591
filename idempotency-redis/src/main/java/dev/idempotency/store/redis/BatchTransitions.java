package dev.idempotency.store.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchAcquireException;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.RecordKey;

import org.springframework.util.Assert;

/**
 * Acquires and completes batches of records on Redis: pipelined in one round trip where
 * the runner pipelines and no replica acknowledgements are asked for, else acquired one
 * item after the other. Every item's answer that Redis gave is kept, even when another
 * item failed.
 */
final class BatchTransitions {

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
	 * Acquire a batch in one round trip: every script is written before any reply is
	 * awaited, and a script that Redis does not have cached is sent again in full for its
	 * item alone. With replica acknowledgements, items are acquired one after the other,
	 * each followed by its {@code WAIT} as {@link AcquireTransition#acquire} does:
	 * {@code WAIT} counts only the writes of the connection it is sent on, and a batch
	 * spread over a cluster's primaries would need one per node, so the batch keeps the
	 * single path's guarantee at its cost.
	 */
	List<AcquireResult> acquirePipelined(List<BatchAcquire> batch) {
		List<byte[][]> args = new ArrayList<>(batch.size());
		for (BatchAcquire item : batch) {
			args.add(AcquireTransition.args(item.request()));
		}
		List<RecordKey> keys = batch.stream().map(BatchAcquire::key).toList();
		List<CompletableFuture<@Nullable List<Object>>> replies = this.runner.runAll(this.scripts.acquire(),
				this.commands.redisKeys(keys), args);
		List<@Nullable List<Object>> received = new ArrayList<>(batch.size());
		IdempotencyStoreException failure = awaitAll("acquire", keys, replies, received);
		List<@Nullable AcquireResult> results = new ArrayList<>(batch.size());
		for (int i = 0; i < batch.size(); i++) {
			List<Object> reply = received.get(i);
			AcquireResult result = null;
			try {
				result = (reply != null) ? this.acquire.result(batch.get(i).key(), reply) : null;
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
		List<@Nullable Long> received = new ArrayList<>(batch.size());
		IdempotencyStoreException failure = awaitAll("complete", keys,
				this.runner.runAll(this.scripts.complete(), this.commands.redisKeys(keys), args), received);
		if (failure != null) {
			throw failure;
		}
		return received.stream().map((reply) -> reply != null && RecordCommands.TRUE == reply).toList();
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
				IdempotencyStoreException itemFailure = this.commands.failure(operation, keys.get(i),
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
