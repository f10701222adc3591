package dev.idempotency.chaos;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.idempotency.Idempotent;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The business effect: one row in {@code payment} per call that runs, which the chaos run
 * counts. The row has no unique key, so that a duplicate effect shows.
 */
@Component
public class ChaosPayments {

	/**
	 * The operation's name, under which its records are kept.
	 */
	public static final String OPERATION = "chaos.pay";

	private final JdbcTemplate jdbc;

	private final long pid = ProcessHandle.current().pid();

	ChaosPayments(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Insert the event's payment row, then work a little inside the caller's transaction,
	 * which widens the window for a kill or a freeze between the effect and the commit.
	 * @param event the event's id
	 * @return what was paid
	 */
	@Idempotent(name = OPERATION, key = "#event")
	public String pay(String event) {
		this.jdbc.update("INSERT INTO payment (id, worker) VALUES (?, ?)", event, this.pid);
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(10, 150)));
		return "paid " + event + " by " + this.pid;
	}

}
