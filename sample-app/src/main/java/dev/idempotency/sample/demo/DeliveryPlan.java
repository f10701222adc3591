package dev.idempotency.sample.demo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import dev.idempotency.sample.PaymentEvent;

/**
 * The deliveries of one burst, in the order a broker hands them out: every event between
 * once and {@code maxDeliveries} times. A third of the events arrive as copies back to
 * back, as after a consumer rebalance, so that concurrent consumers get them at the same
 * moment; the copies of the others are scattered through the burst, as late redeliveries
 * that find the result already stored.
 */
final class DeliveryPlan {

	private DeliveryPlan() {
	}

	/**
	 * Plan a burst. Event ids are new on every run, so that a second run against the same
	 * Redis does not replay the first.
	 * @param events the number of unique events
	 * @param maxDeliveries the most times one event is delivered
	 * @param random the source of the number of copies, the order and the amounts
	 * @return the deliveries, in order
	 */
	static List<PaymentEvent> deliveries(int events, int maxDeliveries, Random random) {
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<List<PaymentEvent>> batches = new ArrayList<>();
		for (int i = 0; i < events; i++) {
			PaymentEvent event = new PaymentEvent("evt-%s-%04d".formatted(run, i), "acct-" + random.nextInt(50),
					100 + random.nextInt(50_000));
			int copies = 1 + random.nextInt(maxDeliveries);
			if (i % 3 == 0) {
				batches.add(Collections.nCopies(copies, event));
			}
			else {
				for (int copy = 0; copy < copies; copy++) {
					batches.add(List.of(event));
				}
			}
		}
		Collections.shuffle(batches, random);
		return batches.stream().flatMap(List::stream).toList();
	}

}
