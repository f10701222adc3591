package dev.idempotency.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.aop.IdempotentAdvisor;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;

import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of the advisor's order against Spring's own {@code @Transactional} advisor, on a
 * transaction manager whose commit can be made to fail.
 */
class IdempotentTransactionOrderTests {

	private static final RecordKey RECORD = new RecordKey("Orders.place", "o-1");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=memory");

	@Test
	void advisorIsOrderedOutsideTransactionsByDefault() {
		this.contextRunner.withUserConfiguration(Transactions.class).run((context) -> {
			IdempotentAdvisor idempotent = context.getBean(IdempotentAdvisor.class);
			BeanFactoryTransactionAttributeSourceAdvisor transactional = context
				.getBean(BeanFactoryTransactionAttributeSourceAdvisor.class);
			assertThat(idempotent.getOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE - 100);
			assertThat(transactional.getOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE);
			assertThat(((Advised) context.getBean(Orders.class)).getAdvisors()).containsExactly(idempotent,
					transactional);
		});
	}

	@Test
	void recordCompletesOnlyAfterTheCommit() {
		this.contextRunner.withUserConfiguration(Transactions.class).run((context) -> {
			FlakyTransactionManager transactions = context.getBean(FlakyTransactionManager.class);
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			List<@Nullable RecordState> atCommit = new ArrayList<>();
			transactions.atCommit = () -> atCommit.add(state(store));
			Orders orders = context.getBean(Orders.class);
			assertThat(orders.place("o-1")).isEqualTo("o-1/1");
			assertThat(orders.inTransaction()).containsExactly(true);
			assertThat(atCommit).containsExactly(RecordState.IN_PROGRESS);
			assertThat(state(store)).isEqualTo(RecordState.COMPLETED);
		});
	}

	@Test
	void failedCommitReleasesTheRecordSoThatTheRetryRunsAgainAndItsDuplicateIsReplayed() {
		this.contextRunner.withUserConfiguration(Transactions.class).run((context) -> {
			FlakyTransactionManager transactions = context.getBean(FlakyTransactionManager.class);
			Orders orders = context.getBean(Orders.class);
			transactions.failNextCommit = true;
			assertThatExceptionOfType(TransactionSystemException.class).isThrownBy(() -> orders.place("o-1"))
				.withMessage("commit failed");
			assertThat(state(context)).isEqualTo(RecordState.FAILED);
			assertThat(orders.place("o-1")).isEqualTo("o-1/2");
			assertThat(state(context)).isEqualTo(RecordState.COMPLETED);
			assertThat(orders.place("o-1")).isEqualTo("o-1/2");
			assertThat(orders.runs()).isEqualTo(2);
			assertThat(transactions.begun).as("the replay opens no transaction").hasValue(2);
			assertThat(transactions.committed).hasValue(1);
		});
	}

	@Test
	void advisorOrderedInsideTheTransactionCompletesTheRecordOnlyAfterTheCommit() {
		this.contextRunner.withUserConfiguration(TransactionsFirst.class).run((context) -> {
			assertThat(((Advised) context.getBean(Orders.class)).getAdvisors()).containsExactly(
					context.getBean(BeanFactoryTransactionAttributeSourceAdvisor.class),
					context.getBean(IdempotentAdvisor.class));
			FlakyTransactionManager transactions = context.getBean(FlakyTransactionManager.class);
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			List<@Nullable RecordState> atCommit = new ArrayList<>();
			transactions.atCommit = () -> atCommit.add(state(store));
			Orders orders = context.getBean(Orders.class);
			assertThat(orders.place("o-1")).isEqualTo("o-1/1");
			assertThat(atCommit).containsExactly(RecordState.IN_PROGRESS);
			assertThat(state(store)).isEqualTo(RecordState.COMPLETED);
		});
	}

	@Test
	void advisorOrderedInsideTheTransactionReleasesTheRecordWhenTheCommitFails() {
		this.contextRunner.withUserConfiguration(TransactionsFirst.class).run((context) -> {
			FlakyTransactionManager transactions = context.getBean(FlakyTransactionManager.class);
			Orders orders = context.getBean(Orders.class);
			transactions.failNextCommit = true;
			assertThatExceptionOfType(TransactionSystemException.class).isThrownBy(() -> orders.place("o-1"));
			assertThat(state(context)).isEqualTo(RecordState.FAILED);
			assertThat(orders.place("o-1")).isEqualTo("o-1/2");
			assertThat(state(context)).isEqualTo(RecordState.COMPLETED);
			assertThat(orders.place("o-1")).isEqualTo("o-1/2");
			assertThat(orders.runs()).isEqualTo(2);
		});
	}

	@Test
	void advisorOrderPropertyPutsTheAdvisorOutsideATransactionAdvisorOrderedFirst() {
		this.contextRunner.withUserConfiguration(TransactionsFirst.class)
			.withPropertyValues("idempotency.advisor-order=-1")
			.run((context) -> {
				FlakyTransactionManager transactions = context.getBean(FlakyTransactionManager.class);
				Orders orders = context.getBean(Orders.class);
				transactions.failNextCommit = true;
				assertThatExceptionOfType(TransactionSystemException.class).isThrownBy(() -> orders.place("o-1"));
				assertThat(state(context)).isEqualTo(RecordState.FAILED);
				assertThat(orders.place("o-1")).isEqualTo("o-1/2");
			});
	}

	private static @Nullable RecordState state(AssertableApplicationContext context) {
		return state(context.getBean(IdempotencyStore.class));
	}

	private static @Nullable RecordState state(IdempotencyStore store) {
		return store.read(RECORD).map(IdempotencyRecord::state).orElse(null);
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		FlakyTransactionManager transactionManager() {
			return new FlakyTransactionManager();
		}

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	@Import(Beans.class)
	static class Transactions {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 0)
	@Import(Beans.class)
	static class TransactionsFirst {

	}

	static class Orders {

		private final AtomicInteger runs = new AtomicInteger();

		private final List<Boolean> inTransaction = new ArrayList<>();

		@Idempotent(key = "#id")
		@Transactional
		public String place(String id) {
			this.inTransaction.add(TransactionSynchronizationManager.isActualTransactionActive());
			return id + "/" + this.runs.incrementAndGet();
		}

		int runs() {
			return this.runs.get();
		}

		List<Boolean> inTransaction() {
			return this.inTransaction;
		}

	}

	/**
	 * A transaction manager with nothing to commit but Spring's whole transaction
	 * lifecycle around it; its next commit can be made to fail.
	 */
	static class FlakyTransactionManager extends AbstractPlatformTransactionManager {

		final AtomicInteger begun = new AtomicInteger();

		final AtomicInteger committed = new AtomicInteger();

		volatile boolean failNextCommit;

		volatile Runnable atCommit = () -> {
		};

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.incrementAndGet();
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			this.atCommit.run();
			if (this.failNextCommit) {
				this.failNextCommit = false;
				throw new TransactionSystemException("commit failed");
			}
			this.committed.incrementAndGet();
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
