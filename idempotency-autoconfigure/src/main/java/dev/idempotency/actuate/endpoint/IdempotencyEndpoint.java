package dev.idempotency.actuate.endpoint;

import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Operation;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * {@link Endpoint @Endpoint} that shows how idempotent operations are configured, and
 * lets operators inspect a single record or evict it so that the next call runs the
 * method again.
 * <p>
 * A key is given as the key expression evaluates it and looked up as the engine stores
 * it: one longer than {@code idempotency.max-key-length} (or starting with
 * {@code sha256:}) as {@code sha256:} followed by its SHA-256 digest, a form which may
 * also be given directly. A key given in that form names the record stored under it and,
 * when there is none, the record of a key that was that very string (such as an image
 * digest), stored hashed. Since a key may contain {@code /}, it takes the rest of the
 * path. Store failures propagate as {@link dev.idempotency.IdempotencyStoreException}.
 * <p>
 * A name and a key address one record of that operation and nothing else: a name that no
 * operation can have ({@link Operation#checkName}: one with {@code ':'}, whitespace or
 * control characters, for instance one that would reach into another operation's keys),
 * or a blank key, is refused as an invalid request. A valid name that no annotated method
 * has is accepted, since operations of the {@link dev.idempotency.IdempotentExecutor} are
 * known only once they are used; it finds no record unless such an operation stored one.
 */
@Endpoint(id = "idempotency")
public class IdempotencyEndpoint {

	private final IdempotencyEngine engine;

	private final IdempotentOperationSource operationSource;

	private final @Nullable String keyPrefix;

	/**
	 * Create an endpoint.
	 * @param engine the engine whose store and settings to show
	 * @param operationSource the source of the annotated operations
	 * @param keyPrefix the prefix of the store's keys, or {@code null} when the store has
	 * none
	 */
	public IdempotencyEndpoint(IdempotencyEngine engine, IdempotentOperationSource operationSource,
			@Nullable String keyPrefix) {
		Assert.notNull(engine, "'engine' must not be null");
		Assert.notNull(operationSource, "'operationSource' must not be null");
		this.engine = engine;
		this.operationSource = operationSource;
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Describe the store, the global settings, every {@code @Idempotent} operation
	 * resolved so far with its effective settings, and the configured operations that
	 * none of them uses.
	 * @return the description
	 */
	@ReadOperation
	public IdempotencyDescriptor idempotency() {
		return IdempotencyDescriptor.of(this.engine.getRecords().storeType(), this.keyPrefix, this.engine.getDefaults(),
				this.operationSource.getOperations());
	}

	/**
	 * Return the record of a key.
	 * @param name the operation name
	 * @param key the key, in path segments
	 * @return the record, or {@code null} if there is none
	 */
	@ReadOperation
	public @Nullable RecordDescriptor record(@Selector String name,
			@Selector(match = Match.ALL_REMAINING) String[] key) {
		String raw = join(key);
		for (RecordKey recordKey : recordKeys(name, raw)) {
			Optional<IdempotencyRecord> record = this.engine.getRecords().read(recordKey);
			if (record.isPresent()) {
				return RecordDescriptor.of(record.get(), !recordKey.key().equals(raw));
			}
		}
		return null;
	}

	/**
	 * Delete the record of a key, whatever its state, so that the next call with the key
	 * runs the method again. Deleting the record of an attempt still running lets a
	 * duplicate run alongside it.
	 * @param name the operation name
	 * @param key the key, in path segments
	 * @return whether there was a record to delete
	 */
	@DeleteOperation
	public boolean evict(@Selector String name, @Selector(match = Match.ALL_REMAINING) String[] key) {
		for (RecordKey recordKey : recordKeys(name, join(key))) {
			if (this.engine.getRecords().evict(recordKey)) {
				return true;
			}
		}
		return false;
	}

	// Every refusal is an InvalidEndpointRequestException, which the web layer answers
	// with 400, never a 500 from a check further down.
	private List<RecordKey> recordKeys(String name, String key) {
		if (!StringUtils.hasText(key)) {
			throw invalid("Key must not be blank");
		}
		try {
			return this.engine.getRecords().recordKeys(name, key);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(String.valueOf(ex.getMessage()));
		}
	}

	private static InvalidEndpointRequestException invalid(String reason) {
		return new InvalidEndpointRequestException(reason, reason);
	}

	// Path segments lose the slashes between them, which a key may contain.
	private static String join(String[] segments) {
		return String.join("/", segments);
	}

}
