package dev.idempotency.actuate.endpoint;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.util.Assert;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} for the {@link IdempotencyEndpoint}:
 * evicting answers {@code 204 No Content}, or {@code 404 Not Found} when there was no
 * record.
 */
@EndpointWebExtension(endpoint = IdempotencyEndpoint.class)
public class IdempotencyEndpointWebExtension {

	private final IdempotencyEndpoint delegate;

	/**
	 * Create a web extension.
	 * @param delegate the endpoint to extend
	 */
	public IdempotencyEndpointWebExtension(IdempotencyEndpoint delegate) {
		Assert.notNull(delegate, "'delegate' must not be null");
		this.delegate = delegate;
	}

	/**
	 * Delete the record of a key, as {@link IdempotencyEndpoint#evict} does.
	 * @param name the operation name
	 * @param key the key, in path segments
	 * @return {@code 204} if a record was deleted, {@code 404} if there was none
	 */
	@DeleteOperation
	public WebEndpointResponse<Void> evict(@Selector String name, @Selector(match = Match.ALL_REMAINING) String[] key) {
		boolean evicted = this.delegate.evict(name, key);
		return new WebEndpointResponse<>(
				evicted ? WebEndpointResponse.STATUS_NO_CONTENT : WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
