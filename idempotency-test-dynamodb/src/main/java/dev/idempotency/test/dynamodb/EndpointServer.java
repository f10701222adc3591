package dev.idempotency.test.dynamodb;

import java.net.URI;

import org.jspecify.annotations.Nullable;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A running server given by its endpoint, used as it is: tests create their tables on it
 * and leave them there.
 */
final class EndpointServer implements DynamoDbServer {

	private final URI endpoint;

	private final String description;

	EndpointServer(URI endpoint, String description) {
		this.endpoint = endpoint;
		this.description = description;
	}

	/**
	 * Read the endpoint given by the environment.
	 * @param value the variable's value
	 * @return the server
	 * @throws IllegalStateException if it is not an http or https URL with a host
	 */
	static EndpointServer given(String value) {
		URI endpoint;
		try {
			endpoint = URI.create(value);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(value, ex);
		}
		String scheme = endpoint.getScheme();
		if (endpoint.getHost() == null || !("http".equals(scheme) || "https".equals(scheme))) {
			throw invalid(value, null);
		}
		return new EndpointServer(endpoint, "DynamoDB at " + endpoint + " (" + DynamoDbDiscovery.URL_VARIABLE + ")");
	}

	private static IllegalStateException invalid(String value, @Nullable IllegalArgumentException cause) {
		return new IllegalStateException(DynamoDbDiscovery.URL_VARIABLE + "='" + value + "' is not an endpoint: "
				+ "give its http URL, for example " + DynamoDbDiscovery.EXAMPLE_URL, cause);
	}

	@Override
	public URI endpoint() {
		return this.endpoint;
	}

	@Override
	public String describe() {
		return this.description;
	}

	@Override
	public DynamoDbClient client() {
		return Clients.create(this.endpoint);
	}

	@Override
	public String toString() {
		return this.description;
	}

}
