package dev.idempotency.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An {@code @Idempotent} method whose effect is a database write, called inside a
 * {@link DataSourceTransactionManager} transaction that may roll back after the method
 * returned, with the Redis store (which does not join the transaction) on a real Redis
 * and an embedded H2 database: the record completes only with the commit and is released
 * by a rollback, so that the redelivery writes the effect that was undone, and each
 * event's write is committed exactly once.
 */
class IdempotentJdbcTransactionTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=redis", "spring.data.redis.host=" + TestRedis.get().host(),
				"spring.data.redis.port=" + TestRedis.get().port(),
				"idempotency.key-prefix=idempotency-jdbc-" + UUID.randomUUID() + ":")
		.withUserConfiguration(Database.class);

	@Test
	void rollbackAfterTheMethodReturnedReleasesTheRecordAndTheRedeliveryWritesTheEffectOnce() {
		this.contextRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			List<@Nullable RecordState> beforeCommit = new ArrayList<>();
			transaction.executeWithoutResult((status) -> {
				ledger.record("evt-1", 10);
				beforeCommit.add(state(store, "evt-1"));
				status.setRollbackOnly();
			});
			assertThat(beforeCommit).containsExactly(RecordState.IN_PROGRESS);
			// Released: FAILED, which the next delivery acquires
			assertThat(state(store, "evt-1")).isEqualTo(RecordState.FAILED);
			assertThat(ledger.rows("evt-1")).isZero();
			transaction.executeWithoutResult((status) -> ledger.record("evt-1", 10));
			assertThat(ledger.rows("evt-1")).isOne();
			assertThat(state(store, "evt-1")).isEqualTo(RecordState.COMPLETED);
			transaction.executeWithoutResult((status) -> ledger.record("evt-1", 10));
			assertThat(ledger.rows("evt-1")).isOne();
			assertThat(ledger.runs()).hasValue(2);
		});
	}

	@Test
	void exceptionThrownAfterTheMethodReturnedRollsBackAndTheRetryIsNotAReplay() {
		this.contextRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			try {
				transaction.executeWithoutResult((status) -> {
					ledger.record("evt-2", 5);
					throw new IllegalStateException("the rest of the handler failed");
				});
			}
			catch (IllegalStateException expected) {
				// the consumer's redelivery follows
			}
			assertThat(ledger.rows("evt-2")).isZero();
			assertThat(transaction.<String>execute((status) -> ledger.record("evt-2", 5))).isEqualTo("evt-2:5:2");
			assertThat(ledger.rows("evt-2")).isOne();
		});
	}

	@Test
	void eventsRedeliveredUntilTheirTransactionCommitsAreEachWrittenOnce() throws Exception {
		this.contextRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			int events = 200;
			AtomicInteger rollbacks = new AtomicInteger();
			ExecutorService consumers = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> deliveries = new ArrayList<>();
				for (int i = 0; i < events; i++) {
					String id = "evt-many-" + i;
					// Each event delivered twice at once, as a redelivery racing its
					// first delivery, each delivery retried until its transaction commits
					for (int copy = 0; copy < 2; copy++) {
						deliveries
							.add(consumers.submit(() -> deliverUntilCommitted(transaction, ledger, id, rollbacks)));
					}
				}
				for (Future<?> delivery : deliveries) {
					delivery.get(60, TimeUnit.SECONDS);
				}
			}
			finally {
				consumers.shutdownNow();
			}
			assertThat(rollbacks.get()).isPositive();
			assertThat(ledger.totalRows()).isEqualTo(events);
			for (int i = 0; i < events; i++) {
				assertThat(ledger.rows("evt-many-" + i)).as("rows of evt-many-" + i).isOne();
				assertThat(state(store, "evt-many-" + i)).isEqualTo(RecordState.COMPLETED);
			}
		});
	}

	private static void deliverUntilCommitted(TransactionTemplate transaction, Ledger ledger, String id,
			AtomicInteger rollbacks) {
		while (true) {
			try {
				transaction.executeWithoutResult((status) -> {
					ledger.record(id, 1);
					// A third of the transactions fail after the method returned
					if (ThreadLocalRandom.current().nextInt(3) == 0) {
						rollbacks.incrementAndGet();
						status.setRollbackOnly();
						throw new RolledBack();
					}
				});
				return;
			}
			catch (RolledBack | IdempotencyInProgressException redelivered) {
				// A rolled-back transaction, or the other copy in progress: redelivered
				// after a broker's short delay
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
			}
		}
	}

	private static @Nullable RecordState state(IdempotencyStore store, String key) {
		return store.read(new RecordKey("ledger", key)).map(IdempotencyRecord::state).orElse(null);
	}

	private static final class RolledBack extends RuntimeException {

		RolledBack() {
			super("rolled back after the method returned", null, false, false);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Database {

		@Bean(destroyMethod = "shutdown")
		EmbeddedDatabase dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.addScript("classpath:dev/idempotency/autoconfigure/ledger.sql")
				.build();
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		TransactionTemplate transactionTemplate(PlatformTransactionManager transactionManager) {
			return new TransactionTemplate(transactionManager);
		}

		@Bean
		Ledger ledger(DataSource dataSource) {
			return new Ledger(new JdbcTemplate(dataSource));
		}

	}

	static class Ledger {

		private final JdbcTemplate jdbc;

		private final AtomicInteger runs = new AtomicInteger();

		Ledger(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Idempotent(name = "ledger", key = "#id")
		public String record(String id, int amount) {
			this.jdbc.update("insert into ledger (event_id, amount) values (?, ?)", id, amount);
			return id + ":" + amount + ":" + this.runs.incrementAndGet();
		}

		int rows(String id) {
			Integer rows = this.jdbc.queryForObject("select count(*) from ledger where event_id = ?", Integer.class,
					id);
			return (rows != null) ? rows : 0;
		}

		int totalRows() {
			Integer rows = this.jdbc.queryForObject("select count(*) from ledger", Integer.class);
			return (rows != null) ? rows : 0;
		}

		AtomicInteger runs() {
			return this.runs;
		}

	}

}
