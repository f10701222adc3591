package dev.idempotency.web;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyKeyException;

import org.springframework.util.Assert;

/**
 * Derives the stored key of an idempotent request from its key header and its scope.
 * <p>
 * The header holds an RFC 8941 sf-string ({@code "8e03978e-40d5"}), whose quotes are
 * removed and whose escapes ({@code \"} and {@code \\}) are undone, or a bare value,
 * taken as it is. With {@link KeyScope#PRINCIPAL} the stored key is
 * {@code <length of the scope>:<scope>:<key>} for a request with a scope (by default the
 * name of its authenticated principal) and {@code -:<key>} for one without (an anonymous
 * one): neither can be written as the other, so no header can reach another scope's
 * records. With {@link KeyScope#NONE} it is the key alone.
 */
public final class RequestKeys {

	private final String header;

	private final KeyScope scope;

	/**
	 * Create the keys of requests with a header name and a scope.
	 * @param header the name of the request header that carries the key
	 * @param scope whose requests share keys
	 */
	public RequestKeys(String header, KeyScope scope) {
		Assert.hasText(header, "'header' must not be empty");
		Assert.notNull(scope, "'scope' must not be null");
		this.header = header;
		this.scope = scope;
	}

	/**
	 * Return the name of the request header that carries the key.
	 * @return the header name
	 */
	public String header() {
		return this.header;
	}

	/**
	 * Return whose requests share keys.
	 * @return the scope
	 */
	public KeyScope scope() {
		return this.scope;
	}

	/**
	 * Derive the stored key of a request.
	 * @param operation the name of the operation, for error messages
	 * @param values the values of the key header in the request, possibly none
	 * @param scope the scope of the request's key (by default the name of its
	 * authenticated principal), or {@code null} for a request without one; ignored with
	 * {@link KeyScope#NONE}
	 * @return the key to store the operation's record under
	 * @throws IdempotencyKeyException if the header is missing, repeated, blank, or an
	 * sf-string that is not valid
	 */
	public String key(String operation, @Nullable List<String> values, @Nullable String scope) {
		if (values == null || values.isEmpty()) {
			throw invalid(operation, "has no " + this.header + " header");
		}
		if (values.size() > 1) {
			throw invalid(operation, "has " + values.size() + " " + this.header + " headers, not one");
		}
		String key = unquote(operation, values.get(0).strip());
		if (key.isBlank()) {
			throw invalid(operation, "has a blank " + this.header + " header");
		}
		if (this.scope == KeyScope.NONE) {
			return key;
		}
		return (scope != null) ? scope.length() + ":" + scope + ":" + key : "-:" + key;
	}

	// RFC 8941 section 4.2.5: printable ASCII between the quotes, where only \" and \\
	// are escapes. A value that does not start with a quote is taken as it is.
	private String unquote(String operation, String value) {
		if (value.isEmpty() || value.charAt(0) != '"') {
			return value;
		}
		StringBuilder key = new StringBuilder(value.length());
		for (int i = 1; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '\\') {
				char escaped = (i + 1 < value.length()) ? value.charAt(++i) : 0;
				if (escaped != '"' && escaped != '\\') {
					throw notSfString(operation, "a backslash that does not escape '\"' or '\\'");
				}
				key.append(escaped);
			}
			else if (c == '"') {
				if (i != value.length() - 1) {
					throw notSfString(operation, "characters after its closing quote");
				}
				return key.toString();
			}
			else if (c < 0x20 || c > 0x7e) {
				throw notSfString(operation, "a character that is not printable ASCII");
			}
			else {
				key.append(c);
			}
		}
		throw notSfString(operation, "no closing quote");
	}

	private IdempotencyKeyException notSfString(String operation, String reason) {
		return invalid(operation, "has a " + this.header + " header that starts with a quote but is not an "
				+ "RFC 8941 string: it has " + reason);
	}

	private static IdempotencyKeyException invalid(String operation, String problem) {
		return new IdempotencyKeyException(
				"The request to operation '" + operation + "' " + problem + "; the handler was not called");
	}

}
