package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.jdbc.JdbcRecordCleaner;

import org.springframework.context.SmartLifecycle;

/**
 * Runs the deletion of expired JDBC records every
 * {@code idempotency.jdbc.cleanup-interval} on a daemon thread of its own, batch after
 * batch until a batch is short, a run never overlapping the one before (each is planned
 * when the previous one ends). Stopped with the application context, before its
 * {@code DataSource} is closed. A failed run is logged and the next one runs as planned.
 */
final class JdbcRecordCleanup implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(JdbcRecordCleanup.class);

	private final JdbcRecordCleaner cleaner;

	private final Duration interval;

	private final int batchSize;

	private volatile @Nullable ScheduledExecutorService executor;

	JdbcRecordCleanup(JdbcRecordCleaner cleaner, Duration interval, int batchSize) {
		this.cleaner = cleaner;
		this.interval = interval;
		this.batchSize = batchSize;
	}

	@Override
	public synchronized void start() {
		if (this.executor != null || this.interval.isZero()) {
			return;
		}
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "idempotency-jdbc-cleanup");
			thread.setDaemon(true);
			return thread;
		});
		long millis = Math.max(1, this.interval.toMillis());
		executor.scheduleWithFixedDelay(this::run, millis, millis, TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	/**
	 * Delete expired records, a batch at a time, until a batch is short.
	 * @return how many were deleted
	 */
	long run() {
		long deleted = 0;
		try {
			int batch;
			do {
				batch = this.cleaner.deleteExpired(this.batchSize);
				deleted += batch;
			}
			while (batch == this.batchSize && !Thread.currentThread().isInterrupted());
			if (deleted > 0 && logger.isDebugEnabled()) {
				logger.debug("Deleted " + deleted + " expired idempotency records");
			}
		}
		catch (RuntimeException ex) {
			// A failure must not end the schedule: the next run tries again
			logger.warn("The cleanup of expired idempotency records failed after deleting " + deleted
					+ " records; it runs again in " + this.interval + ": " + ex.getMessage(), ex);
		}
		return deleted;
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor != null) {
			this.executor = null;
			executor.shutdownNow();
			try {
				if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
					logger.warn("The cleanup of expired idempotency records did not stop within 10s");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

}
