package dev.idempotency.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;
import org.springframework.validation.Errors;

/**
 * The checks of bound {@link IdempotencyProperties} that no type conversion catches, so
 * that binding fails with the property, its value and where it came from.
 */
final class IdempotencyPropertiesValidator {

	private static final Duration MAX_COMMAND_TIMEOUT = Duration.ofDays(36500);

	// As the JDBC store checks it, which the validator must not load
	private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

	private static final Pattern DYNAMODB_TABLE = Pattern.compile("[A-Za-z0-9_.-]{3,255}");

	private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9-]*");

	private IdempotencyPropertiesValidator() {
	}

	static void validate(IdempotencyProperties properties, Errors errors) {
		if (!StringUtils.hasText(properties.getKeyPrefix())) {
			errors.rejectValue("keyPrefix", "empty", "must not be empty (such as 'idempotency:'), or records "
					+ "would mix with every other key of the Redis database");
		}
		validateTimeout(properties.getRedis().getCommandTimeout(), "redis.commandTimeout",
				"idempotency.redis.command-timeout", errors);
		if (properties.getRedis().getReplicaAcks() < 0) {
			errors.rejectValue("redis.replicaAcks", "negative",
					"idempotency.redis.replica-acks must not be negative (0 waits for no replica)");
		}
		validateTimeout(properties.getRedis().getReplicaAckTimeout(), "redis.replicaAckTimeout",
				"idempotency.redis.replica-ack-timeout", errors);
		validateJdbc(properties.getJdbc(), errors);
		validateDynamoDb(properties.getDynamodb(), errors);
		if (!StringUtils.hasText(properties.getHttp().getKeyHeader())) {
			errors.rejectValue("http.keyHeader", "empty",
					"idempotency.http.key-header must not be empty (such as 'Idempotency-Key')");
		}
		if (properties.getHttp().getMaxKeyLength() < 1) {
			errors.rejectValue("http.maxKeyLength", "notPositive",
					"idempotency.http.max-key-length must be at least 1 (such as 255)");
		}
		for (String name : properties.getHttp().getReplayedHeaders()) {
			if (!isToken(name)) {
				errors.rejectValue("http.replayedHeaders", "invalid", "idempotency.http.replayed-headers must hold "
						+ "header names (letters, digits and !#$%&'*+-.^_`|~), but holds '" + name + "'");
			}
		}
		try {
			properties.getMessaging().getInProgressRetry().toBackOff();
		}
		catch (IllegalArgumentException ex) {
			errors.rejectValue("messaging.inProgressRetry", "invalid",
					"idempotency.messaging.in-progress-retry is invalid: " + ex.getMessage());
		}
	}

	private static void validateJdbc(IdempotencyJdbcProperties jdbc, Errors errors) {
		if (jdbc.getTable() == null || !TABLE.matcher(jdbc.getTable()).matches()) {
			errors.rejectValue("jdbc.table", "invalid", "idempotency.jdbc.table must be an SQL identifier (letters, "
					+ "digits and '_', not starting with a digit), optionally qualified by a schema: 'schema.table'");
		}
		Duration interval = jdbc.getCleanupInterval();
		if (interval == null || interval.isNegative()) {
			errors.rejectValue("jdbc.cleanupInterval", "negative",
					"idempotency.jdbc.cleanup-interval must not be negative (0 runs no cleanup)");
		}
		if (jdbc.getPoolSize() != null && jdbc.getPoolSize() < 0) {
			errors.rejectValue("jdbc.poolSize", "negative",
					"idempotency.jdbc.pool-size must not be negative (0 shares the application's DataSource)");
		}
		if (jdbc.getCleanupBatchSize() < 1) {
			errors.rejectValue("jdbc.cleanupBatchSize", "notPositive",
					"idempotency.jdbc.cleanup-batch-size must be at least 1 (such as 500)");
		}
	}

	private static void validateDynamoDb(IdempotencyDynamoDbProperties dynamodb, Errors errors) {
		if (dynamodb.getTable() == null || !DYNAMODB_TABLE.matcher(dynamodb.getTable()).matches()) {
			errors.rejectValue("dynamodb.table", "invalid", "idempotency.dynamodb.table must be a DynamoDB table "
					+ "name: 3 to 255 letters, digits, '_', '-' and '.'");
		}
		Duration skew = dynamodb.getClockSkew();
		if (skew == null || skew.isNegative()) {
			errors.rejectValue("dynamodb.clockSkew", "negative",
					"idempotency.dynamodb.clock-skew must not be negative (such as 1s)");
		}
		URI endpoint = dynamodb.getEndpoint();
		if (endpoint != null && (endpoint.getHost() == null || !("http".equalsIgnoreCase(endpoint.getScheme())
				|| "https".equalsIgnoreCase(endpoint.getScheme())))) {
			errors.rejectValue("dynamodb.endpoint", "invalid", "idempotency.dynamodb.endpoint must be an http or "
					+ "https URL with a host (such as 'http://localhost:8000'), but is '" + endpoint + "'");
		}
		String region = dynamodb.getRegion();
		if (region != null && !REGION.matcher(region).matches()) {
			errors.rejectValue("dynamodb.region", "invalid", "idempotency.dynamodb.region must be an AWS region "
					+ "(lower-case letters, digits and '-', such as 'eu-west-1'), but is '" + region + "'");
		}
	}

	// An RFC 9110 token, as a field name is
	private static boolean isToken(@Nullable String name) {
		if (name == null || name.isEmpty()) {
			return false;
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c > 127 || !(Character.isLetterOrDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
				return false;
			}
		}
		return true;
	}

	private static void validateTimeout(@Nullable Duration timeout, String field, String property, Errors errors) {
		if (timeout == null || timeout.toMillis() <= 0) {
			errors.rejectValue(field, "notPositive", property + " must be at least one millisecond");
		}
		else if (timeout.compareTo(MAX_COMMAND_TIMEOUT) > 0) {
			errors.rejectValue(field, "tooLong", property + " must be at most " + MAX_COMMAND_TIMEOUT.toDays()
					+ " days, as the Redis store measures it in nanoseconds");
		}
	}

}
