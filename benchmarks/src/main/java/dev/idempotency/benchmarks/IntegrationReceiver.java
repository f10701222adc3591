package dev.idempotency.benchmarks;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.metadata.RedisMetadataStore;
import org.springframework.integration.selector.MetadataStoreSelector;
import org.springframework.messaging.support.GenericMessage;

/**
 * Spring Integration's idempotent receiver, the lightest correct way: a
 * {@link MetadataStoreSelector} keyed by the message's payload (the payment id) over a
 * {@link RedisMetadataStore} on the application's connection factory, which is what an
 * {@code IdempotentReceiverInterceptor} consults before a handler. A message it accepts
 * runs the method body (a plain {@link Payments}, not the starter's proxy); a message it
 * rejects is a duplicate, and gets nothing: Spring Integration only discards or flags
 * duplicates, it keeps no result to return.
 * <p>
 * {@code accept} is one {@code RedisMetadataStore.putIfAbsent}, which is Spring Data
 * Redis's {@code RedisProperties.putIfAbsent} on one hash: {@code HSETNX}, and when that
 * finds the field already set, an {@code HGET} of it (through a {@code synchronized}
 * {@code get}), so one round trip for a new key and two for a duplicate.
 */
final class IntegrationReceiver implements Contender {

	// Every key of the store is a field of this one hash, in its own namespace
	private static final String METADATA_KEY = "si-idempotent-receiver:" + Payments.OPERATION;

	private final MetadataStoreSelector selector;

	// The method body without any proxy around it
	private final Payments body = new Payments();

	IntegrationReceiver(RedisConnectionFactory connectionFactory) {
		this.selector = new MetadataStoreSelector((message) -> (String) message.getPayload(),
				new RedisMetadataStore(connectionFactory, METADATA_KEY));
	}

	@Override
	public Side side() {
		return Side.SPRING_INTEGRATION;
	}

	/**
	 * Receive the message of one call: run the body if the selector accepts it.
	 * @param id the idempotency key, the message's payload
	 * @return the receipt, or {@code null} for a duplicate
	 */
	@Override
	public @Nullable Receipt call(String id) {
		return this.selector.accept(new GenericMessage<>(id)) ? this.body.charge(id) : null;
	}

	@Override
	public void check(Reference reference) {
		String id = Ids.unique(0, side().ordinal(), 1);
		if (!Receipt.settled(id).equals(call(id))) {
			throw new IllegalStateException("Spring Integration did not accept a new key");
		}
		if (call(id) != null) {
			throw new IllegalStateException("Spring Integration accepted a duplicate");
		}
	}

	@Override
	public Protocol protocol() {
		return new Protocol(
				"`MetadataStoreSelector` (key: the payload, the payment id) over a `RedisMetadataStore` on the "
						+ "application's connection factory; `accept(new GenericMessage<>(id))`, then the method "
						+ "body if accepted",
				"1: `HSETNX` of the key in one hash (`RedisMetadataStore.putIfAbsent`), then the method",
				"2: `HSETNX`, then `HGET` of the value found (`RedisProperties.putIfAbsent`, its `get` "
						+ "`synchronized` on the store)",
				"**nothing**: the message is rejected (discarded or flagged as a duplicate); the store "
						+ "keeps the first message's timestamp, not a result",
				"none: the key is marked before the method runs and the selector never clears it, so a failure "
						+ "or a crash loses the call for good, and a duplicate of a call in flight is rejected as done; "
						+ "every key is a field of one hash, with no expiry");
	}

}
