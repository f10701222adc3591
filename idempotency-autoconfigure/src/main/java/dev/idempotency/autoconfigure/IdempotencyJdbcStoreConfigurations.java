package dev.idempotency.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.autoconfigure.IdempotencyJdbcProperties.InitializeSchema;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcRecordCleaner;
import dev.idempotency.store.jdbc.JdbcSchema;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The configurations of the JDBC store, imported after the Redis ones and before the
 * memory one, so that {@code auto} prefers a configured Redis, then a {@link DataSource}
 * with idempotency-jdbc on the class path. Each backs off when the application defines
 * its own {@link IdempotencyStore}.
 */
final class IdempotencyJdbcStoreConfigurations {

	private static final Log logger = LogFactory.getLog(IdempotencyJdbcStoreConfigurations.class);

	static final String JDBC_STORE = "dev.idempotency.store.jdbc.JdbcIdempotencyStore";

	// The product names of the databases that Spring Boot's EmbeddedDatabaseConnection
	// calls embedded, none of which the store runs on
	private static final Set<String> EMBEDDED = Set.of("H2", "HSQL Database Engine", "Apache Derby");

	private IdempotencyJdbcStoreConfigurations() {
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = JDBC_STORE)
	@Conditional(JdbcStoreCondition.class)
	static class JdbcStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		JdbcIdempotencyStore idempotencyStore(ObjectProvider<DataSource> dataSource, IdempotencyProperties properties,
				ObjectProvider<JdbcStorePool> storePool) {
			DataSource database = dataSource.getIfUnique();
			if (database == null) {
				throw new FailureAnalyzedException(
						"idempotency.store=jdbc but there is no single DataSource bean (" + dataSource.stream().count()
								+ " found)",
						"Add spring-boot-starter-jdbc and configure spring.datasource.* (or define a DataSource "
								+ "bean; one of several marked @Primary), or set idempotency.store to 'auto', "
								+ "'redis' or 'memory'.");
			}
			IdempotencyJdbcProperties jdbc = properties.getJdbc();
			initializeSchema(database, jdbc);
			return new JdbcIdempotencyStore(database, storePool.getObject().dataSource(), jdbc.getTable());
		}

		// Asked for by the store above, which fails first without a single DataSource;
		// not
		// made for an application's own store
		@Bean
		@ConditionalOnBean(JdbcIdempotencyStore.class)
		@ConditionalOnSingleCandidate(DataSource.class)
		JdbcStorePool idempotencyJdbcStorePool(DataSource dataSource, IdempotencyProperties properties) {
			return JdbcStorePool.of(dataSource, properties.getJdbc().getPoolSize());
		}

		@Bean
		@ConditionalOnBean(JdbcIdempotencyStore.class)
		@ConditionalOnSingleCandidate(DataSource.class)
		@ConditionalOnMissingBean
		JdbcRecordCleanup idempotencyJdbcRecordCleanup(JdbcStorePool storePool, IdempotencyProperties properties) {
			IdempotencyJdbcProperties jdbc = properties.getJdbc();
			return new JdbcRecordCleanup(new JdbcRecordCleaner(storePool.dataSource(), jdbc.getTable()),
					jdbc.getCleanupInterval(), jdbc.getCleanupBatchSize());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(JDBC_STORE)
	@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "jdbc")
	static class JdbcModuleMissingConfiguration {

		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		IdempotencyStore idempotencyStore() {
			throw new FailureAnalyzedException(
					"idempotency.store=jdbc but the JDBC store (idempotency-jdbc) is not on the classpath",
					"Add dev.idempotency:idempotency-jdbc (idempotency-starter does not bring it) with "
							+ "spring-boot-starter-jdbc and your database's driver; or set idempotency.store to "
							+ "'auto', 'redis' or 'memory'.");
		}

	}

	/**
	 * Create the table when {@code idempotency.jdbc.initialize-schema} says so, as
	 * {@code spring.sql.init.mode} would: {@code embedded} only in a database that Spring
	 * Boot calls embedded. The store runs on none of those, so that startup then fails,
	 * saying so, unless told {@code never}; a database that cannot be reached is not
	 * embedded.
	 */
	static void initializeSchema(DataSource dataSource, IdempotencyJdbcProperties jdbc) {
		InitializeSchema mode = jdbc.getInitializeSchema();
		String embedded = (mode != InitializeSchema.NEVER) ? embeddedProduct(dataSource) : null;
		if (embedded != null) {
			throw new FailureAnalyzedException(
					"The JDBC idempotency store does not run on " + embedded + ", an embedded database",
					"Use PostgreSQL, MariaDB or MySQL for the DataSource, or set idempotency.store to 'memory' "
							+ "where an embedded database is used (such as in tests).");
		}
		if (mode == InitializeSchema.ALWAYS) {
			JdbcSchema.initialize(dataSource, jdbc.getTable());
			logger.debug("Created the idempotency table " + jdbc.getTable() + " unless it existed");
		}
	}

	private static @Nullable String embeddedProduct(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			String product = connection.getMetaData().getDatabaseProductName();
			return EMBEDDED.contains(product) ? product : null;
		}
		catch (SQLException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * JDBC when asked for, or when {@code auto} finds a single {@link DataSource} bean
	 * (Redis, which comes first, was not configured).
	 */
	static class JdbcStoreCondition extends AnyNestedCondition {

		JdbcStoreCondition() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "jdbc")
		static class Explicit {

		}

		@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "auto", matchIfMissing = true)
		@ConditionalOnSingleCandidate(DataSource.class)
		static class Detected {

		}

	}

}
