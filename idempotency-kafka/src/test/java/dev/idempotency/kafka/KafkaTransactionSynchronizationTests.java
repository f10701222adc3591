package dev.idempotency.kafka;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

class KafkaTransactionSynchronizationTests {

	private final KafkaTransactionSynchronization postProcessor = new KafkaTransactionSynchronization();

	@Test
	void kafkaTransactionManagerWithoutSynchronizationSynchronizesOnActualTransactions() {
		KafkaTransactionManager<String, String> transactions = transactionManager();
		assertThat(transactions.getTransactionSynchronization())
			.isEqualTo(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
		assertThat(this.postProcessor.postProcessAfterInitialization(transactions, "kafkaTransactionManager"))
			.isSameAs(transactions);
		assertThat(transactions.getTransactionSynchronization())
			.isEqualTo(AbstractPlatformTransactionManager.SYNCHRONIZATION_ON_ACTUAL_TRANSACTION);
	}

	@Test
	void synchronizationTheApplicationChoseIsKept() {
		KafkaTransactionManager<String, String> transactions = transactionManager();
		transactions.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_ALWAYS);
		this.postProcessor.postProcessAfterInitialization(transactions, "kafkaTransactionManager");
		assertThat(transactions.getTransactionSynchronization())
			.isEqualTo(AbstractPlatformTransactionManager.SYNCHRONIZATION_ALWAYS);
	}

	private static KafkaTransactionManager<String, String> transactionManager() {
		DefaultKafkaProducerFactory<String, String> producers = new DefaultKafkaProducerFactory<>(Map.of());
		producers.setTransactionIdPrefix("tx-");
		return new KafkaTransactionManager<>(producers);
	}

}
