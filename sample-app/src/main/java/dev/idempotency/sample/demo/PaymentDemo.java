package dev.idempotency.sample.demo;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.jspecify.annotations.Nullable;

import dev.idempotency.engine.Outcome;
import dev.idempotency.sample.Ledger;
import dev.idempotency.sample.PaymentEvent;
import dev.idempotency.sample.PaymentHandler;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;

/**
 * Runs the demo once the application has started: plans a burst, delivers it through a
 * {@link ConsumerGroup}, prints the {@link DemoReport} and keeps its verdict as the exit
 * code (0 for PASS, 1 for FAIL).
 */
class PaymentDemo implements ApplicationRunner, ExitCodeGenerator {

	private static final String OPERATION = "payments.charge";

	private final PaymentHandler handler;

	private final Ledger ledger;

	private final OutcomeCounter outcomes;

	private final DemoProperties properties;

	private final String store;

	private volatile @Nullable DemoReport report;

	PaymentDemo(PaymentHandler handler, Ledger ledger, OutcomeCounter outcomes, DemoProperties properties,
			String store) {
		this.handler = handler;
		this.ledger = ledger;
		this.outcomes = outcomes;
		this.properties = properties;
		this.store = store;
	}

	@Override
	public void run(ApplicationArguments args) throws InterruptedException {
		List<PaymentEvent> deliveries = DeliveryPlan.deliveries(this.properties.events(),
				this.properties.maxDeliveries(), new Random());
		long uniqueEvents = deliveries.stream().map(PaymentEvent::id).distinct().count();
		System.out.printf("%nDelivering %d payment events %d times from %d consumer threads (store: %s)%n",
				uniqueEvents, deliveries.size(), this.properties.consumers(), this.store);
		// Counted as differences, so that calls made before the demo do not count
		long entries = this.ledger.entries();
		long replays = this.outcomes.count(OPERATION, Outcome.REPLAYED);
		long conflicts = this.outcomes.count(OPERATION, Outcome.IN_PROGRESS);
		long started = System.nanoTime();
		ConsumerGroup.Result result = new ConsumerGroup(this.handler, this.properties.consumers()).deliver(deliveries,
				this.properties.timeout());
		DemoReport report = new DemoReport(deliveries.size(), uniqueEvents, this.ledger.entries() - entries,
				this.outcomes.count(OPERATION, Outcome.REPLAYED) - replays,
				this.outcomes.count(OPERATION, Outcome.IN_PROGRESS) - conflicts, result.unfinished(),
				result.errors().stream().map(RuntimeException::toString).toList(),
				Duration.ofNanos(System.nanoTime() - started));
		this.report = report;
		System.out.println();
		System.out.println(report.render());
		System.out.println();
	}

	/**
	 * Return the report of the run.
	 * @return the report, or {@code null} before the demo ran
	 */
	@Nullable DemoReport report() {
		return this.report;
	}

	@Override
	public int getExitCode() {
		DemoReport report = this.report;
		return (report != null && report.passed()) ? 0 : 1;
	}

}
