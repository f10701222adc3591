package dev.idempotency.kafka;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;

/**
 * Turns on transaction synchronization in every {@link KafkaTransactionManager}, which
 * spring-kafka creates without it: a listener container's Kafka transaction (Spring
 * Boot's {@code spring.kafka.producer.transaction-id-prefix}) then lets the idempotency
 * engine complete the record of a method that ran inside it once the transaction has
 * committed, and release it once it has rolled back. Without synchronization the engine
 * cannot see the transaction, and would complete the record when the method returns: a
 * rollback after that (the listener failing later, a failed commit) would abort the
 * records the method sent while its record said done, and the redelivery would replay
 * instead of sending them again.
 * <p>
 * A transaction manager whose synchronization was set to anything but
 * {@code SYNCHRONIZATION_NEVER} is left as it is. With synchronization on, a transaction
 * of another manager begun inside the Kafka one (a database transaction the listener
 * opens) shares the Kafka transaction's synchronizations, as with any two synchronizing
 * managers: its after-commit callbacks run once the Kafka transaction has ended.
 */
public final class KafkaTransactionSynchronization implements BeanPostProcessor {

	private static final Log logger = LogFactory.getLog(KafkaTransactionSynchronization.class);

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof KafkaTransactionManager<?, ?> transactions && transactions
			.getTransactionSynchronization() == AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER) {
			transactions.setTransactionSynchronization(
					AbstractPlatformTransactionManager.SYNCHRONIZATION_ON_ACTUAL_TRANSACTION);
			if (logger.isDebugEnabled()) {
				logger.debug("Turned on transaction synchronization of '" + beanName + "', so that idempotent "
						+ "records complete once its transactions have committed");
			}
		}
		return bean;
	}

}
