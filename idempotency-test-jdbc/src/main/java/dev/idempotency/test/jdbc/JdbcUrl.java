package dev.idempotency.test.jdbc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A JDBC URL of PostgreSQL or MariaDB, {@code jdbc:SUBPROTOCOL://HOSTS/DATABASE?PARAMS},
 * taken apart so that the same server's URL for another database can be made, with the
 * user and password, when given as parameters, taken out.
 *
 * @param prefix everything up to and including the {@code /} before the database
 * @param database the database, empty when none
 * @param parameters the other parameters, in their order
 * @param username the {@code user} parameter, or {@code null}
 * @param password the {@code password} parameter, or {@code null}
 */
record JdbcUrl(String prefix, String database, Map<String, String> parameters, @Nullable String username,
		@Nullable String password) {

	private static final Pattern URL = Pattern.compile("(jdbc:[a-z]+://[^/?]+/?)([^?]*)(?:\\?(.*))?");

	static JdbcUrl parse(String url) {
		Matcher matcher = URL.matcher(url.trim());
		if (!matcher.matches()) {
			throw new IllegalArgumentException(
					"Not a JDBC URL of the form jdbc:SUBPROTOCOL://HOST:PORT/DATABASE?user=...: " + url);
		}
		String prefix = matcher.group(1).endsWith("/") ? matcher.group(1) : matcher.group(1) + "/";
		Map<String, String> parameters = new LinkedHashMap<>();
		String query = matcher.group(3);
		if (query != null && !query.isEmpty()) {
			for (String pair : query.split("&")) {
				int equals = pair.indexOf('=');
				parameters.put((equals < 0) ? pair : pair.substring(0, equals),
						(equals < 0) ? "" : pair.substring(equals + 1));
			}
		}
		String username = parameters.remove("user");
		String password = parameters.remove("password");
		return new JdbcUrl(prefix, matcher.group(2), parameters, username, password);
	}

	/**
	 * Return the URL of another database on the same server, without user or password.
	 * @param name the database
	 * @return the URL
	 */
	String withDatabase(String name) {
		StringBuilder url = new StringBuilder(this.prefix).append(name);
		char separator = '?';
		for (Map.Entry<String, String> parameter : this.parameters.entrySet()) {
			url.append(separator).append(parameter.getKey()).append('=').append(parameter.getValue());
			separator = '&';
		}
		return url.toString();
	}

}
