package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.jdbc.DatabaseKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cleanup of expired rows running while callers acquire records again once they
 * expired, each caller its own keys: nobody else holds them, so every acquire takes the
 * record (or finds it completed, not yet expired), never in progress, and no statement
 * fails, whatever locks the cleanup's batches take.
 */
abstract class JdbcCleanupRaceTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMillis(1);

	private static final int CALLERS = 6;

	private static final int ROUNDS = 150;

	private final DatabaseKind kind;

	private StoreDatabase database;

	JdbcCleanupRaceTests(DatabaseKind kind) {
		this.kind = kind;
	}

	@BeforeEach
	void createDatabase() {
		this.database = StoreDatabase.create(this.kind, CALLERS + 2);
	}

	@AfterEach
	void closeDatabase() {
		this.database.close();
	}

	@Test
	void acquiresOfExpiredRecordsWhileTheCleanupRunsAreNeverInProgressNorFail() throws Exception {
		JdbcIdempotencyStore store = new JdbcIdempotencyStore(this.database.dataSource());
		JdbcRecordCleaner cleaner = new JdbcRecordCleaner(this.database.dataSource(),
				JdbcIdempotencyStore.DEFAULT_TABLE);
		// Rows that expired long ago, for the cleanup's batches to lock among the
		// callers'
		for (int i = 0; i < 2000; i += 500) {
			this.database.jdbc().update(fillerSql(i));
		}
		ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
		AtomicBoolean done = new AtomicBoolean();
		AtomicLong deleted = new AtomicLong();
		Thread cleanup = new Thread(() -> {
			while (!done.get()) {
				try {
					deleted.addAndGet(cleaner.deleteExpired(20));
				}
				catch (RuntimeException ex) {
					wrong.add("cleanup failed: " + ex.getMessage());
				}
			}
		});
		cleanup.start();
		try {
			Races.race(CALLERS, (owner) -> {
				List<RecordKey> keys = new ArrayList<>();
				for (int i = 0; i < 5; i++) {
					keys.add(new RecordKey("cleanup", owner + "-" + UUID.randomUUID()));
				}
				for (int round = 0; round < ROUNDS; round++) {
					RecordKey key = keys.get(round % keys.size());
					String attempt = owner + "-" + round;
					try {
						AcquireResult result = store.acquire(key, new AcquireRequest(attempt, LEASE, RETENTION, null));
						if (result instanceof AcquireResult.Acquired acquired) {
							if (!store.complete(key, attempt, acquired.fence(), StoredResult.of(new byte[] { 1 }),
									RETENTION)) {
								wrong.add(key + " round " + round + ": lost its record after " + result + ", now "
										+ store.read(key));
							}
						}
						else if (!(result instanceof AcquireResult.Completed)) {
							wrong.add(key + " round " + round + ": " + result);
						}
					}
					catch (RuntimeException ex) {
						wrong.add(key + " round " + round + ": " + ex);
					}
				}
				return null;
			});
		}
		finally {
			done.set(true);
			cleanup.join(30_000);
		}
		System.out
			.println(this.kind + ": cleanup deleted " + deleted + " rows during the race; wrong: " + wrong.size());
		assertThat(wrong).isEmpty();
	}

	abstract String fillerSql(int from);

}
