package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.impl.NoOpLog;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for what {@link StoreOutage} logs, on a clock of the test's own.
 */
class StoreOutageTests {

	private static final RecordKey RECORD = new RecordKey("orders", "42");

	private final AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - Duration.ofSeconds(5).toNanos());

	private final RecordingLog log = new RecordingLog();

	private final StoreOutage outage = new StoreOutage(this.nanos::get, this.log);

	@Test
	void outageIsWarnedOfOnceAndItsEndOnce() {
		for (int i = 1; i <= 3; i++) {
			this.outage.bypassed(RECORD, failure(i));
			advance(Duration.ofSeconds(10));
		}
		this.outage.answered();
		this.outage.answered();
		assertThat(this.log.lines).containsExactly("WARN store outage 1", "INFO answers again");
	}

	@Test
	void endIsNeverLoggedWithoutAnOutage() {
		this.outage.answered();
		assertThat(this.log.lines).isEmpty();
	}

	@Test
	void storeThatFailsAndAnswersByTurnsWarnsAtMostOnceAMinute() {
		for (int i = 1; i <= 30; i++) {
			this.outage.bypassed(RECORD, failure(i));
			this.outage.answered();
			advance(Duration.ofSeconds(1));
		}
		assertThat(this.log.lines).containsExactly("WARN store outage 1", "INFO answers again");
		advance(Duration.ofSeconds(30));
		this.outage.bypassed(RECORD, failure(31));
		this.outage.answered();
		assertThat(this.log.lines).containsExactly("WARN store outage 1", "INFO answers again", "WARN store outage 31",
				"INFO answers again");
	}

	@Test
	void outageThatStartsWithinAMinuteOfTheLastWarningIsWarnedOfOnceTheMinuteIsOver() {
		this.outage.bypassed(RECORD, failure(1));
		this.outage.answered();
		advance(Duration.ofSeconds(20));
		this.outage.bypassed(RECORD, failure(2));
		advance(Duration.ofSeconds(39));
		this.outage.bypassed(RECORD, failure(3));
		advance(Duration.ofSeconds(1));
		this.outage.bypassed(RECORD, failure(4));
		this.outage.bypassed(RECORD, failure(5));
		this.outage.answered();
		assertThat(this.log.lines).containsExactly("WARN store outage 1", "INFO answers again", "WARN store outage 4",
				"INFO answers again");
	}

	private void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

	private static IdempotencyStoreException failure(int number) {
		return new IdempotencyStoreException("store outage " + number);
	}

	static class RecordingLog extends NoOpLog {

		final List<String> lines = new ArrayList<>();

		@Override
		public void warn(Object message, Throwable ex) {
			this.lines.add("WARN " + ex.getMessage());
		}

		@Override
		public void info(Object message) {
			this.lines.add("INFO " + ((message.toString().contains("answers again")) ? "answers again" : message));
		}

	}

}
