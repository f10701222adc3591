package dev.idempotency.autoconfigure;

import java.net.URI;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Settings of the DynamoDB store, bound from {@code idempotency.dynamodb}. They build the
 * store's client only when the application has no {@code DynamoDbClient} bean of its own.
 *
 * @see IdempotencyProperties#getDynamodb()
 */
public class IdempotencyDynamoDbProperties {

	/**
	 * Endpoint of DynamoDB, such as 'http://localhost:8000' for a local server. Unset,
	 * the region's AWS endpoint. Ignored when the application defines a DynamoDbClient
	 * bean.
	 */
	private @Nullable URI endpoint;

	/**
	 * AWS region of DynamoDB, such as 'eu-west-1'. Unset, the SDK's default region chain
	 * (the aws.region system property, the AWS_REGION environment variable, the AWS
	 * profile, EC2 instance metadata); startup fails when it finds none. Ignored when the
	 * application defines a DynamoDbClient bean.
	 */
	private @Nullable String region;

	/**
	 * Table of the idempotency records: 3 to 255 letters, digits, '_', '-' and '.'.
	 */
	private String table = "idempotency_record";

	/**
	 * Whether to create the table at startup unless it exists (on-demand capacity, hash
	 * key 'id'), wait until it is active, and enable TTL on its 'ttl' attribute. Off by
	 * default: the table is usually created with the infrastructure (CloudFormation,
	 * Terraform), and creating one needs the dynamodb:CreateTable permission.
	 */
	private boolean initializeTable;

	/**
	 * How far the clocks of the application's instances may drift apart. Leases are
	 * judged on the callers' clocks, as DynamoDB has none a condition can read: an
	 * attempt is taken over only once its lease ended longer ago than this, and a record
	 * counts as expired only once its expiry did.
	 */
	private Duration clockSkew = Duration.ofSeconds(1);

	public @Nullable URI getEndpoint() {
		return this.endpoint;
	}

	public void setEndpoint(@Nullable URI endpoint) {
		this.endpoint = endpoint;
	}

	public @Nullable String getRegion() {
		return this.region;
	}

	public void setRegion(@Nullable String region) {
		this.region = region;
	}

	public String getTable() {
		return this.table;
	}

	public void setTable(String table) {
		this.table = table;
	}

	public boolean isInitializeTable() {
		return this.initializeTable;
	}

	public void setInitializeTable(boolean initializeTable) {
		this.initializeTable = initializeTable;
	}

	public Duration getClockSkew() {
		return this.clockSkew;
	}

	public void setClockSkew(Duration clockSkew) {
		this.clockSkew = clockSkew;
	}

}
