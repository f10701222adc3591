package dev.idempotency.sample;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Delivers a few events, each more than once, as a broker that retries would.
 */
@Component
class DeliveryReplay implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(DeliveryReplay.class);

	private final PaymentHandler handler;

	private final Ledger ledger;

	DeliveryReplay(PaymentHandler handler, Ledger ledger) {
		this.handler = handler;
		this.ledger = ledger;
	}

	@Override
	public void run(ApplicationArguments args) {
		List<PaymentEvent> deliveries = List.of(new PaymentEvent("evt-1", "alice", 1250),
				new PaymentEvent("evt-2", "bob", 990), new PaymentEvent("evt-1", "alice", 1250),
				new PaymentEvent("evt-2", "bob", 990), new PaymentEvent("evt-1", "alice", 1250));
		for (PaymentEvent event : deliveries) {
			logger.info("Delivered " + event.id() + " -> " + this.handler.handle(event));
		}
		logger.info(deliveries.size() + " deliveries of 2 events made " + this.ledger.entries() + " ledger entries");
	}

}
