package dev.idempotency.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * Settings of idempotent HTTP request handlers (Spring MVC and WebFlux), bound from
 * {@code idempotency.http}.
 *
 * @see IdempotencyProperties#getHttp()
 */
public class IdempotencyHttpProperties {

	/**
	 * Name of the request header that carries the idempotency key of a request handler
	 * whose @Idempotent omits the key.
	 */
	private String keyHeader = "Idempotency-Key";

	/**
	 * Whose requests share idempotency keys: 'principal' scopes them, by default to each
	 * authenticated principal (the principal's name is part of the stored key; anonymous
	 * requests share one scope), or as the application's key scope resolver bean says;
	 * 'none' shares them between all callers.
	 */
	private Scope scope = Scope.PRINCIPAL;

	/**
	 * Longest idempotency key that a request may give in the key header, in characters
	 * (after removing the quotes of an sf-string). A longer key is refused as invalid.
	 */
	private int maxKeyLength = 255;

	/**
	 * Names of the response headers that a replay of a returned ResponseEntity carries,
	 * besides Content-Type, in any case. Other headers are neither stored nor replayed;
	 * Set-Cookie and Set-Cookie2 never are, even when listed.
	 */
	private List<String> replayedHeaders = new ArrayList<>(
			List.of("Location", "Content-Location", "Content-Language", "ETag", "Last-Modified", "Link"));

	/**
	 * Whether a returned ResponseEntity with a server error status (5xx) is stored and
	 * replayed like any other response. When disabled, its record is released as for a
	 * thrown exception, so that a retry runs the handler again.
	 */
	private boolean replayServerErrors;

	public String getKeyHeader() {
		return this.keyHeader;
	}

	public void setKeyHeader(String keyHeader) {
		this.keyHeader = keyHeader;
	}

	public Scope getScope() {
		return this.scope;
	}

	public void setScope(Scope scope) {
		this.scope = scope;
	}

	public int getMaxKeyLength() {
		return this.maxKeyLength;
	}

	public void setMaxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
	}

	public List<String> getReplayedHeaders() {
		return this.replayedHeaders;
	}

	public void setReplayedHeaders(List<String> replayedHeaders) {
		this.replayedHeaders = replayedHeaders;
	}

	public boolean isReplayServerErrors() {
		return this.replayServerErrors;
	}

	public void setReplayServerErrors(boolean replayServerErrors) {
		this.replayServerErrors = replayServerErrors;
	}

	/**
	 * Whose requests share idempotency keys; kept apart from the web module's own type so
	 * that these properties bind without it.
	 */
	public enum Scope {

		/**
		 * Keys are scoped to the caller: its principal, or as the application's key scope
		 * resolver says.
		 */
		PRINCIPAL,

		/**
		 * Every caller shares the keys.
		 */
		NONE

	}

}
