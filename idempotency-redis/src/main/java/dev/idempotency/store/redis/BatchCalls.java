package dev.idempotency.store.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.redis.ScriptRunner.ScriptCall;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The script calls that send a batch: the items whose keys share a hash slot (every key,
 * on one server) go in calls of the batch script, at most {@link #MAX_ITEMS} items and
 * {@link #MAX_BYTES} of arguments each, so that one script never holds Redis for long; an
 * item alone in its slot goes in a call of the single-key script. Redis then runs one
 * script per call rather than one per item, each item's transition in the order of the
 * batch.
 */
final class BatchCalls {

	/**
	 * Items of one call of a batch script: about three milliseconds of Redis's time for
	 * acquires of new keys, during which it serves nobody else.
	 */
	static final int MAX_ITEMS = 256;

	/**
	 * Bytes of keys and arguments of one call of a batch script: Redis copies each result
	 * into the record it writes (about 7 ms for a result of 1 MB, the default
	 * {@code max-result-size}), so a call of large results holds it for as long as the
	 * same items sent one by one would each, not 256 times that.
	 */
	static final int MAX_BYTES = 1024 * 1024;

	// The items of each call, by their index in the batch, in the batch's order
	private final List<int[]> items;

	// The reply of each item of a call sent again item by item, by the call's index
	private final Map<Integer, List<CompletableFuture<@Nullable Object>>> itemByItem = new HashMap<>();

	// Why the items of a call that its batch script did not answer in full, and that were
	// sent again, got no reply, by the call's index
	private final Map<Integer, RuntimeException> unanswered = new HashMap<>();

	private BatchCalls(List<int[]> items) {
		this.items = items;
	}

	/**
	 * Group the items of a batch by the hash slot of their keys, in calls of at most
	 * {@link #MAX_ITEMS} items and {@link #MAX_BYTES} of arguments (an item larger than
	 * that goes alone).
	 * @param keys the Redis key of each item
	 * @param args the arguments of each item
	 * @param slot the hash slot of a key
	 * @return the calls
	 */
	static BatchCalls plan(List<byte[]> keys, List<byte[][]> args, ToIntFunction<byte[]> slot) {
		Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
		for (int i = 0; i < keys.size(); i++) {
			bySlot.computeIfAbsent(slot.applyAsInt(keys.get(i)), (s) -> new ArrayList<>()).add(i);
		}
		List<int[]> items = new ArrayList<>();
		for (List<Integer> group : bySlot.values()) {
			List<Integer> call = new ArrayList<>();
			long bytes = 0;
			for (int index : group) {
				long size = keys.get(index).length + size(args.get(index));
				if (!call.isEmpty() && (call.size() == MAX_ITEMS || bytes + size > MAX_BYTES)) {
					items.add(call.stream().mapToInt(Integer::intValue).toArray());
					call = new ArrayList<>();
					bytes = 0;
				}
				call.add(index);
				bytes += size;
			}
			items.add(call.stream().mapToInt(Integer::intValue).toArray());
		}
		return new BatchCalls(items);
	}

	private static long size(byte[][] args) {
		long size = 0;
		for (byte[] arg : args) {
			size += arg.length;
		}
		return size;
	}

	/**
	 * Send the script calls ({@link #calls}) in one go, then send again item by item, one
	 * after the other, the items of a call of the batch script that Redis Cluster refused
	 * with {@code TRYAGAIN}: while a slot moves between primaries, Redis runs a script on
	 * many of its keys only where it holds them all (a batch of new keys, asked on the
	 * new primary, is refused for as long as the move lasts), but a single-key script
	 * follows {@code ASK} to wherever its key is. Redis refuses before the script runs,
	 * so nothing of the call was done.
	 * @param runner the runner
	 * @param keys the Redis key of each item
	 * @param args the arguments of each item for the single-key script
	 * @param one the single-key script
	 * @param all the batch script
	 * @return the reply of each call, every one complete, for {@link #await}
	 */
	List<CompletableFuture<@Nullable Object>> run(ScriptRunner runner, List<byte[]> keys, List<byte[][]> args,
			RedisScript<?> one, RedisScript<?> all) {
		List<CompletableFuture<@Nullable Object>> replies = runner.runAll(calls(keys, args, one, all));
		for (int c = 0; c < this.items.size(); c++) {
			int[] call = this.items.get(c);
			if (call.length > 1
					&& replies.get(c).handle((reply, ex) -> ex != null && RedisErrors.isTryAgain(ex)).join()) {
				List<CompletableFuture<@Nullable Object>> each = new ArrayList<>(call.length);
				for (int index : call) {
					CompletableFuture<@Nullable Object> reply = runner
						.runAll(List.of(new ScriptCall(one, new byte[][] { keys.get(index) }, args.get(index))))
						.get(0);
					// In the order of the batch: an item finds what the items before it
					// wrote
					reply.handle((r, ex) -> null).join();
					each.add(reply);
				}
				this.itemByItem.put(c, each);
			}
			else if (call.length > 1) {
				replies.set(c, rest(runner, c, replies.get(c), keys, args, all));
			}
		}
		return replies;
	}

	// A batch script answers the items of a call up to a budget of replayed results
	// (acquire-all.lua), so that a call of large results holds Redis no longer than one
	// result would: the items it did not answer are sent again, in calls of their own,
	// until every one is answered
	private CompletableFuture<@Nullable Object> rest(ScriptRunner runner, int c,
			CompletableFuture<@Nullable Object> first, List<byte[]> keys, List<byte[][]> args, RedisScript<?> all) {
		int[] call = this.items.get(c);
		List<Object> answered = new ArrayList<>(call.length);
		CompletableFuture<@Nullable Object> reply = first;
		while (true) {
			Object got;
			try {
				got = reply.join();
			}
			catch (CompletionException ex) {
				if (answered.isEmpty()) {
					return reply;
				}
				this.unanswered.put(c, BatchItemReply.failure(ex));
				break;
			}
			if (!(got instanceof List<?> list) || list.isEmpty()) {
				break;
			}
			if (answered.isEmpty() && list.size() >= call.length) {
				// Every item answered at once, as nearly always: the reply as it came
				return reply;
			}
			answered.addAll(list);
			if (answered.size() >= call.length) {
				break;
			}
			reply = runner
				.runAll(List.of(batchCall(Arrays.copyOfRange(call, answered.size(), call.length), keys, args, all)))
				.get(0);
		}
		return CompletableFuture.completedFuture(answered);
	}

	/**
	 * Return the script calls: the single-key script for a call of one item, else the
	 * batch script with the items' keys and their arguments one item after the other.
	 * @param keys the Redis key of each item
	 * @param args the arguments of each item for the single-key script
	 * @param one the single-key script
	 * @param all the batch script
	 * @return the calls, in the order of {@link #await}
	 */
	private List<ScriptCall> calls(List<byte[]> keys, List<byte[][]> args, RedisScript<?> one, RedisScript<?> all) {
		List<ScriptCall> calls = new ArrayList<>(this.items.size());
		for (int[] call : this.items) {
			if (call.length == 1) {
				calls.add(new ScriptCall(one, new byte[][] { keys.get(call[0]) }, args.get(call[0])));
				continue;
			}
			calls.add(batchCall(call, keys, args, all));
		}
		return calls;
	}

	private static ScriptCall batchCall(int[] call, List<byte[]> keys, List<byte[][]> args, RedisScript<?> all) {
		byte[][] callKeys = new byte[call.length][];
		List<byte[]> callArgs = new ArrayList<>();
		for (int i = 0; i < call.length; i++) {
			callKeys[i] = keys.get(call[i]);
			callArgs.addAll(List.of(args.get(call[i])));
		}
		return new ScriptCall(all, callKeys, callArgs.toArray(new byte[0][]));
	}

	/**
	 * Hand each item its own reply or failure: a call that failed fails each of its
	 * items; an item of a batch script whose reply is an error (its value is not a
	 * record, Redis refused its write) fails alone with that error, as the single-key
	 * script would have, and the other items keep their replies.
	 * @param replies the reply of each call, every one complete
	 * @param error the error an item's reply from a batch script stands for, or
	 * {@code null} when it is no error
	 * @param item receives each item's reply or failure
	 */
	void await(List<CompletableFuture<@Nullable Object>> replies, Function<Object, @Nullable String> error,
			BatchItemReply item) {
		for (int c = 0; c < this.items.size(); c++) {
			int[] call = this.items.get(c);
			List<CompletableFuture<@Nullable Object>> each = this.itemByItem.get(c);
			if (each != null) {
				for (int i = 0; i < call.length; i++) {
					item.single(call[i], each.get(i));
				}
				continue;
			}
			if (call.length == 1) {
				item.single(call[0], replies.get(c));
				continue;
			}
			Object reply;
			try {
				reply = replies.get(c).join();
			}
			catch (CompletionException ex) {
				RuntimeException failure = BatchItemReply.failure(ex);
				for (int index : call) {
					item.accept(index, null, failure);
				}
				continue;
			}
			List<?> perItem = (reply instanceof List<?> list) ? list : List.of();
			for (int i = 0; i < call.length; i++) {
				Object itemReply = (i < perItem.size()) ? perItem.get(i) : null;
				RuntimeException unanswered = this.unanswered.get(c);
				if (itemReply == null && unanswered != null) {
					item.accept(call[i], null, unanswered);
					continue;
				}
				String itemError = (itemReply != null) ? error.apply(itemReply) : null;
				if (itemError != null) {
					item.accept(call[i], null, new RedisSystemException(itemError, null));
				}
				else {
					item.accept(call[i], itemReply, null);
				}
			}
		}
	}

}
