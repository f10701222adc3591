package dev.idempotency.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbTable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The configurations of the DynamoDB store, chosen only by
 * {@code idempotency.store=dynamodb}: {@code auto} never picks it. The store uses the
 * application's {@link DynamoDbClient} bean when there is one, else a client of its own
 * built from {@code idempotency.dynamodb.*}, which a {@link DynamoDbStoreClient} bean
 * holds and closes with the context. No {@link DynamoDbClient} bean is defined, so that
 * the application's own auto-configurations of one do not back off. Each backs off when
 * the application defines its own {@link IdempotencyStore}.
 */
final class IdempotencyDynamoDbStoreConfigurations {

	private static final Log logger = LogFactory.getLog(IdempotencyDynamoDbStoreConfigurations.class);

	static final String DYNAMODB_STORE = "dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore";

	private IdempotencyDynamoDbStoreConfigurations() {
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = DYNAMODB_STORE)
	@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "dynamodb")
	static class DynamoDbStoreConfiguration {

		// Asked for by the store below; built only when the application has no client
		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		DynamoDbStoreClient idempotencyDynamoDbStoreClient(ObjectProvider<DynamoDbClient> clients,
				IdempotencyProperties properties) {
			long count = clients.stream().count();
			DynamoDbClient client = clients.getIfUnique();
			if (client != null) {
				return new DynamoDbStoreClient(client, false);
			}
			if (count > 0) {
				throw new FailureAnalyzedException(
						"idempotency.store=dynamodb but there are " + count
								+ " DynamoDbClient beans and none is primary",
						"Mark the DynamoDbClient the idempotency store should use @Primary.");
			}
			return new DynamoDbStoreClient(DynamoDbStoreClient.build(properties.getDynamodb()), true);
		}

		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		DynamoDbIdempotencyStore idempotencyStore(DynamoDbStoreClient storeClient, IdempotencyProperties properties) {
			IdempotencyDynamoDbProperties dynamodb = properties.getDynamodb();
			if (dynamodb.isInitializeTable()) {
				DynamoDbTable.initialize(storeClient.client(), dynamodb.getTable());
				logger.debug("Created the DynamoDB idempotency table " + dynamodb.getTable() + " unless it existed");
			}
			return new DynamoDbIdempotencyStore(storeClient.client(), dynamodb.getTable(), dynamodb.getClockSkew());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(DYNAMODB_STORE)
	@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "dynamodb")
	static class DynamoDbModuleMissingConfiguration {

		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		IdempotencyStore idempotencyStore() {
			throw new FailureAnalyzedException(
					"idempotency.store=dynamodb but the DynamoDB store (idempotency-dynamodb) is not on the classpath",
					"Add dev.idempotency:idempotency-dynamodb (idempotency-starter does not bring it); or set "
							+ "idempotency.store to 'auto', 'redis', 'jdbc' or 'memory'.");
		}

	}

}
