package dev.idempotency.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the demo counted, and its verdict: it passes when the ledger has exactly one entry
 * per unique event and every delivery was acknowledged.
 *
 * @param deliveries deliveries sent by the broker, before redeliveries of conflicts
 * @param uniqueEvents distinct events among them
 * @param sideEffects ledger entries written, that is charges made
 * @param replays deliveries answered with a stored receipt, without a charge
 * @param conflicts deliveries that met another consumer charging the same event, and were
 * redelivered later
 * @param unfinished deliveries never acknowledged before the timeout
 * @param errors messages of deliveries that failed otherwise
 * @param took how long the burst took
 */
record DemoReport(long deliveries, long uniqueEvents, long sideEffects, long replays, long conflicts, long unfinished,
		List<String> errors, Duration took) {

	boolean passed() {
		return this.sideEffects == this.uniqueEvents && this.unfinished == 0 && this.errors.isEmpty();
	}

	/**
	 * Render the counts as a table with aligned columns, and the verdict under it.
	 * @return the lines to print
	 */
	String render() {
		List<Row> rows = new ArrayList<>(List.of(new Row("events sent (deliveries)", this.deliveries),
				new Row("unique events", this.uniqueEvents), new Row("side effects (ledger entries)", this.sideEffects),
				new Row("replays", this.replays), new Row("conflicts (redelivered later)", this.conflicts)));
		if (this.unfinished > 0) {
			rows.add(new Row("unfinished deliveries", this.unfinished));
		}
		if (!this.errors.isEmpty()) {
			rows.add(new Row("failed deliveries", this.errors.size()));
		}
		int labelWidth = rows.stream().mapToInt((row) -> row.label().length()).max().orElse(0);
		int valueWidth = rows.stream().mapToInt((row) -> Long.toString(row.value()).length()).max().orElse(0);
		String border = "+" + "-".repeat(labelWidth + 2) + "+" + "-".repeat(valueWidth + 2) + "+";
		String format = "| %-" + labelWidth + "s | %" + valueWidth + "d |";
		StringBuilder table = new StringBuilder(border).append('\n');
		for (Row row : rows) {
			table.append(format.formatted(row.label(), row.value())).append('\n');
		}
		table.append(border).append('\n').append(verdict());
		if (!this.errors.isEmpty()) {
			table.append('\n').append("first failure: ").append(this.errors.get(0));
		}
		return table.toString();
	}

	private String verdict() {
		String took = " (%.1f s)".formatted(this.took.toMillis() / 1000.0);
		if (passed()) {
			return "PASS: side effects == unique events: every payment was charged exactly once" + took;
		}
		List<String> reasons = new ArrayList<>();
		if (this.sideEffects != this.uniqueEvents) {
			reasons.add(this.sideEffects + " side effects for " + this.uniqueEvents + " unique events");
		}
		if (this.unfinished > 0) {
			reasons.add("unfinished deliveries: " + this.unfinished);
		}
		if (!this.errors.isEmpty()) {
			reasons.add("failed deliveries: " + this.errors.size());
		}
		return "FAIL: " + String.join(", ", reasons) + took;
	}

	private record Row(String label, long value) {

	}

}
