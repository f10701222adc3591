package dev.idempotency.aop;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What the fingerprint of a request handler without a payload expression covers besides
 * its body: the request's method, its path and its parameters, so that the same key sent
 * with another method, path, query string or form is a key reuse, not a replay of another
 * request's response.
 * <p>
 * The path is the request's path as sent, still percent-encoded. The parameters are the
 * query string's and the form's (an {@code application/x-www-form-urlencoded} body or the
 * text fields of a {@code multipart/form-data} body, never its files), decoded, by name:
 * the order of different names does not count (a handler sees them by name), the order of
 * one name's values does (a handler may bind them to a list).
 *
 * @param method the request's method
 * @param path the request's path, percent-encoded as sent
 * @param parameters the query and form parameters by name, each name's values in the
 * order sent
 */
public record RequestPayload(String method, String path, Map<String, List<String>> parameters) {

	/**
	 * Create the payload of a request.
	 * @param method the request's method
	 * @param path the request's path, percent-encoded as sent
	 * @param parameters the query and form parameters by name, each name's values in the
	 * order sent
	 */
	public RequestPayload {
		Assert.hasText(method, "'method' must not be empty");
		Assert.notNull(path, "'path' must not be null");
		Assert.notNull(parameters, "'parameters' must not be null");
		Map<String, List<String>> copy = new LinkedHashMap<>();
		parameters.forEach((name, values) -> copy.put(name, List.copyOf(values)));
		parameters = Map.copyOf(copy);
	}

	/**
	 * Return what a handler without a request body fingerprints: the method, path and
	 * parameters.
	 * @return the payload to fingerprint, written as a JSON object by the fingerprinter
	 */
	public Map<String, Object> withoutBody() {
		Map<String, Object> payload = new LinkedHashMap<>();
		payload.put("method", this.method);
		payload.put("path", this.path);
		payload.put("parameters", this.parameters);
		return payload;
	}

	/**
	 * Return what a handler with a request body fingerprints: the method, path,
	 * parameters and body.
	 * @param body the handler's request body argument, possibly {@code null}
	 * @return the payload to fingerprint, written as a JSON object by the fingerprinter
	 */
	public Map<String, @Nullable Object> withBody(@Nullable Object body) {
		Map<String, @Nullable Object> payload = new LinkedHashMap<>(withoutBody());
		payload.put("body", body);
		return payload;
	}

}
