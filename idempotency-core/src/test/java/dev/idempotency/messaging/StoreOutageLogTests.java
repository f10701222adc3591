package dev.idempotency.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.impl.NoOpLog;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for what {@link StoreOutageLog} logs, on a clock of the test's own.
 */
class StoreOutageLogTests {

	private final AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - Duration.ofSeconds(5).toNanos());

	private final RecordingLog log = new RecordingLog();

	private final StoreOutageLog outage = new StoreOutageLog(this.log, this.nanos::get);

	@Test
	void warnsWithTheStackTraceAtMostOnceAMinuteAndLogsEveryOtherDeliveryInOneDebugLine() {
		for (int i = 1; i <= 3; i++) {
			this.outage.failed("Requeueing a message in 100 ms", failure(i));
			advance(Duration.ofSeconds(20));
		}
		this.outage.failed("Requeueing a message in 100 ms", failure(4));
		assertThat(this.log.lines).containsExactly("WARN with stack trace: store outage 1",
				"DEBUG Requeueing a message in 100 ms: store outage 2",
				"DEBUG Requeueing a message in 100 ms: store outage 3", "WARN with stack trace: store outage 4");
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
			this.lines.add("WARN with stack trace: " + ex.getMessage());
		}

		@Override
		public void debug(Object message) {
			this.lines.add("DEBUG " + message);
		}

	}

}
