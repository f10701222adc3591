package dev.idempotency.web;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyKeyException;

import org.springframework.util.Assert;

/**
 * Derives the stored key of an idempotent request from its key header and its scope.
 * <p>
 * The header holds the IETF Idempotency-Key draft's key, an RFC 8941 sf-string
 * ({@code "8e03978e-40d5"}), whose quotes are removed and whose escapes ({@code \"} and
 * {@code \\}) are undone, and whose parameters ({@code "abc";p=1}) are ignored; a bare
 * value is taken as it is. Either way the key is 1 to {@link #maxKeyLength()} printable
 * ASCII characters (0x20 to 0x7E), and a bare value has no space, tab or comma (a comma
 * is what a proxy joins two header lines with). With {@link KeyScope#PRINCIPAL} the
 * stored key is {@code <length of the scope>:<scope>:<key>} for a request with a scope
 * (by default the name of its authenticated principal) and {@code -:<key>} for one
 * without (an anonymous one): neither can be written as the other, so no header can reach
 * another scope's records. With {@link KeyScope#NONE} it is the key alone.
 */
public final class RequestKeys {

	/**
	 * The longest key that a request may give by default, in characters.
	 */
	public static final int DEFAULT_MAX_KEY_LENGTH = 255;

	private final String header;

	private final KeyScope scope;

	private final int maxKeyLength;

	/**
	 * Create the keys of requests with a header name and a scope, and keys of at most
	 * {@value #DEFAULT_MAX_KEY_LENGTH} characters.
	 * @param header the name of the request header that carries the key
	 * @param scope whose requests share keys
	 */
	public RequestKeys(String header, KeyScope scope) {
		this(header, scope, DEFAULT_MAX_KEY_LENGTH);
	}

	/**
	 * Create the keys of requests with a header name, a scope and a longest key.
	 * @param header the name of the request header that carries the key
	 * @param scope whose requests share keys
	 * @param maxKeyLength the longest key a request may give, in characters, at least 1
	 */
	public RequestKeys(String header, KeyScope scope, int maxKeyLength) {
		Assert.hasText(header, "'header' must not be empty");
		Assert.notNull(scope, "'scope' must not be null");
		Assert.isTrue(maxKeyLength >= 1, "'maxKeyLength' must be at least 1");
		this.header = header;
		this.scope = scope;
		this.maxKeyLength = maxKeyLength;
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
	 * Return the longest key that a request may give, in characters.
	 * @return the longest key
	 */
	public int maxKeyLength() {
		return this.maxKeyLength;
	}

	/**
	 * Derive the stored key of a request.
	 * @param operation the name of the operation, for error messages
	 * @param values the values of the key header in the request, possibly none
	 * @param scope the scope of the request's key (by default the name of its
	 * authenticated principal), or {@code null} for a request without one; ignored with
	 * {@link KeyScope#NONE}
	 * @return the key to store the operation's record under
	 * @throws IdempotencyKeyException if the header is missing, repeated, blank, too
	 * long, an sf-string that is not valid, or a bare value with a character that is not
	 * printable ASCII, a space or a comma
	 */
	public String key(String operation, @Nullable List<String> values, @Nullable String scope) {
		if (values == null || values.isEmpty()) {
			throw invalid(operation, "has no " + this.header + " header");
		}
		if (values.size() > 1) {
			throw invalid(operation, "has " + values.size() + " " + this.header + " headers, not one");
		}
		String value = strip(values.get(0));
		String key = (!value.isEmpty() && value.charAt(0) == '"') ? unquote(operation, value) : bare(operation, value);
		if (key.isBlank()) {
			throw invalid(operation, "has a blank " + this.header + " header");
		}
		if (key.length() > this.maxKeyLength) {
			throw invalid(operation, "has a key of " + key.length() + " characters in its " + this.header
					+ " header, longer than the " + this.maxKeyLength + " allowed");
		}
		if (this.scope == KeyScope.NONE) {
			return key;
		}
		return (scope != null) ? scope.length() + ":" + scope + ":" + key : "-:" + key;
	}

	// Only the spaces and tabs around a field value (RFC 9110 section 5.5), which
	// String.strip() would go beyond
	private static String strip(String value) {
		int start = 0;
		int end = value.length();
		while (start < end && isOptionalWhitespace(value.charAt(start))) {
			start++;
		}
		while (end > start && isOptionalWhitespace(value.charAt(end - 1))) {
			end--;
		}
		return value.substring(start, end);
	}

	private static boolean isOptionalWhitespace(char c) {
		return c == ' ' || c == '\t';
	}

	private String bare(String operation, String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == ' ' || c == '\t') {
				throw notKey(operation, "whitespace: quote a key with spaces as an RFC 8941 string");
			}
			if (c == ',') {
				throw notKey(operation, "a comma, as between two header lines that a proxy joined");
			}
			if (c < 0x20 || c > 0x7e) {
				throw notKey(operation, "a character that is not printable ASCII (at index " + i + ")");
			}
		}
		return value;
	}

	// RFC 8941 section 4.2.5: printable ASCII between the quotes, where only \" and \\
	// are escapes; section 4.2.3.2: the parameters after it, which carry no key
	private String unquote(String operation, String value) {
		StringBuilder key = new StringBuilder(Math.min(value.length(), this.maxKeyLength + 1));
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
				checkParameters(operation, value, i + 1);
				return key.toString();
			}
			else if (c < 0x20 || c > 0x7e) {
				throw notSfString(operation, "a character that is not printable ASCII (at index " + i + ")");
			}
			else {
				key.append(c);
			}
		}
		throw notSfString(operation, "no closing quote");
	}

	// parameters = *( ";" *SP key [ "=" bare-item ] ), with
	// key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
	private void checkParameters(String operation, String value, int from) {
		int i = from;
		while (i < value.length()) {
			if (value.charAt(i) != ';') {
				throw notSfString(operation, "characters after its closing quote that are not parameters");
			}
			i++;
			while (i < value.length() && value.charAt(i) == ' ') {
				i++;
			}
			int keyStart = i;
			while (i < value.length() && isParameterKeyChar(value.charAt(i), i == keyStart)) {
				i++;
			}
			if (i == keyStart) {
				throw notSfString(operation, "a parameter without a name");
			}
			if (i < value.length() && value.charAt(i) == '=') {
				i = skipBareItem(operation, value, i + 1);
			}
		}
	}

	private static boolean isParameterKeyChar(char c, boolean first) {
		return (c >= 'a' && c <= 'z') || c == '*' || (!first && ((c >= '0' && c <= '9') || "_-.".indexOf(c) >= 0));
	}

	// A string, or an integer, decimal, token, byte sequence or boolean, each of which
	// is made of these characters
	private int skipBareItem(String operation, String value, int from) {
		int i = from;
		if (i < value.length() && value.charAt(i) == '"') {
			for (i++; i < value.length(); i++) {
				char c = value.charAt(i);
				if (c == '\\') {
					i++;
				}
				else if (c == '"') {
					return i + 1;
				}
				else if (c < 0x20 || c > 0x7e) {
					break;
				}
			}
			throw notSfString(operation, "a parameter whose value is not a valid string");
		}
		while (i < value.length() && isBareItemChar(value.charAt(i))) {
			i++;
		}
		if (i == from) {
			throw notSfString(operation, "a parameter without a value after its '='");
		}
		return i;
	}

	private static boolean isBareItemChar(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
				|| "!#$%&'*+-.^_`|~:/=?".indexOf(c) >= 0;
	}

	private IdempotencyKeyException notKey(String operation, String reason) {
		return invalid(operation, "has a " + this.header + " header that is not a valid key: it has " + reason);
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
