package dev.idempotency.sample.demo;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link DemoReport}.
 */
class DemoReportTests {

	@Test
	void rendersAlignedColumnsAndPassWhenEachEventWasChargedOnce() {
		DemoReport report = new DemoReport(612, 200, 200, 412, 37, 0, List.of(), Duration.ofMillis(900));
		assertThat(report.passed()).isTrue();
		assertThat(report.render()).isEqualTo("""
				+-------------------------------+-----+
				| events sent (deliveries)      | 612 |
				| unique events                 | 200 |
				| side effects (ledger entries) | 200 |
				| replays                       | 412 |
				| conflicts (redelivered later) |  37 |
				+-------------------------------+-----+
				PASS: side effects == unique events: every payment was charged exactly once (0.9 s)""");
	}

	@Test
	void failsWhenAnEventWasChargedTwice() {
		DemoReport report = new DemoReport(612, 200, 201, 411, 0, 0, List.of(), Duration.ofMillis(900));
		assertThat(report.passed()).isFalse();
		assertThat(report.render()).endsWith("FAIL: 201 side effects for 200 unique events (0.9 s)");
	}

	@Test
	void failsAndShowsDeliveriesThatNeverFinishedOrFailed() {
		DemoReport report = new DemoReport(612, 200, 200, 400, 3, 11, List.of("java.lang.IllegalStateException: boom"),
				Duration.ofSeconds(30));
		assertThat(report.passed()).isFalse();
		assertThat(report.render()).contains("| unfinished deliveries         |  11 |")
			.contains("| failed deliveries             |   1 |")
			.contains("FAIL: unfinished deliveries: 11, failed deliveries: 1 (30.0 s)")
			.endsWith("first failure: java.lang.IllegalStateException: boom");
	}

}
