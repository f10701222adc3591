package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * What the store contract does not cover: the database's clock, completion inside the
 * caller's transaction, zombies, row locks held by open transactions, the schema script,
 * keys and rows that do not fit. Each database's test class runs them on a database of
 * its own.
 */
abstract class JdbcIdempotencyStoreTests {

	static final Duration LEASE = Duration.ofSeconds(30);

	static final Duration RETENTION = Duration.ofMinutes(10);

	static final Duration SHORT = Duration.ofMillis(200);

	private static StoreDatabase database;

	JdbcIdempotencyStore store;

	RecordKey key;

	static void createDatabase(StoreDatabase created) {
		database = created;
		database.jdbc().execute("CREATE TABLE business_row (id VARCHAR(100) PRIMARY KEY)");
	}

	@AfterAll
	static void closeDatabase() {
		database.close();
	}

	@BeforeEach
	void createStore() {
		this.store = new JdbcIdempotencyStore(database.dataSource());
		this.key = new RecordKey("jdbc", UUID.randomUUID().toString());
	}

	static StoreDatabase database() {
		return database;
	}

	/**
	 * Set up a pool whose connections see the database's clock shifted by an amount.
	 */
	abstract void skewClock(HikariConfig dataSource, Duration shift);

	/**
	 * Return how many statements of the database wait for a lock.
	 */
	abstract String lockWaitsQuery();

	/**
	 * Insert a row that this store did not write, live for an hour.
	 */
	abstract void insertRow(String storedKey, String state, long fence);

	abstract String createSchemaStatement(String schema);

	@Test
	void leasesAndTimesAreTheDatabasesClockNotTheJvms() {
		try (HikariDataSource ahead = database.newDataSource(1, (pool) -> skewClock(pool, Duration.ofHours(1)));
				HikariDataSource behind = database.newDataSource(1, (pool) -> skewClock(pool, Duration.ofHours(-1)))) {
			new JdbcIdempotencyStore(ahead).acquire(this.key, new AcquireRequest("ahead", LEASE, RETENTION, null));
			IdempotencyRecord record = this.store.read(this.key).orElseThrow();
			assertThat(record.startedAt()).isBetween(Instant.now().plus(Duration.ofMinutes(55)),
					Instant.now().plus(Duration.ofMinutes(65)));
			InProgress inProgress = (InProgress) this.store.acquire(this.key, request("b"));
			assertThat(inProgress.leaseRemaining()).isGreaterThan(Duration.ofMinutes(55));
			RecordKey other = new RecordKey("jdbc", UUID.randomUUID().toString());
			new JdbcIdempotencyStore(behind).acquire(other,
					new AcquireRequest("behind", Duration.ofMinutes(30), Duration.ofHours(2), null));
			assertThat(this.store.acquire(other, request("b"))).isEqualTo(new Acquired(2, true));
		}
	}

	@Test
	void completionJoinsTheCallersTransactionAndCommitsWithItsWrites() {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.joinsCurrentTransaction()).isFalse();
		transactions().executeWithoutResult((status) -> {
			insertBusinessRow("committed-" + this.key.key());
			assertThat(this.store.joinsCurrentTransaction()).isTrue();
			assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("done")), RETENTION)).isTrue();
			assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
		});
		assertThat(businessRows("committed-" + this.key.key())).isEqualTo(1);
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().body()).isEqualTo(bytes("done"));
	}

	@Test
	void rollbackOfTheCallersTransactionLeavesNeitherTheWritesNorTheCompletion() {
		this.store.acquire(this.key, request("a"));
		transactions().executeWithoutResult((status) -> {
			insertBusinessRow("rolled-back-" + this.key.key());
			assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("done")), RETENTION)).isTrue();
			status.setRollbackOnly();
		});
		assertThat(businessRows("rolled-back-" + this.key.key())).isZero();
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.fence()).isEqualTo(1);
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("again")), RETENTION)).isTrue();
	}

	@Test
	void acquireAndReleaseCommitAtOnceWhateverTheCallersTransactionDoes() {
		RecordKey released = new RecordKey("jdbc", UUID.randomUUID().toString());
		transactions().executeWithoutResult((status) -> {
			assertThat(this.store.acquire(this.key, request("a"))).isEqualTo(new Acquired(1, false));
			this.store.acquire(released, request("a"));
			assertThat(this.store.release(released, "a", 1, RETENTION)).isTrue();
			status.setRollbackOnly();
		});
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(this.store.read(released).orElseThrow().state()).isEqualTo(RecordState.FAILED);
	}

	@Test
	void joinsOnlyATransactionOnItsOwnDataSource() {
		try (HikariDataSource other = database.newDataSource(2, (pool) -> {
		})) {
			new TransactionTemplate(new DataSourceTransactionManager(other))
				.executeWithoutResult((status) -> assertThat(this.store.joinsCurrentTransaction()).isFalse());
		}
	}

	@Test
	void zombiesCompletionInsideItsTransactionFailsWhileItsSuccessorCompletes() throws Exception {
		this.store.acquire(this.key, new AcquireRequest("zombie", SHORT, RETENTION, null));
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> this.store.acquire(this.key, request("successor")), Acquired.class::isInstance);
		CountDownLatch successorCompleted = new CountDownLatch(1);
		CountDownLatch commitSuccessor = new CountDownLatch(1);
		CompletableFuture<Void> successor = CompletableFuture
			.runAsync(() -> transactions().executeWithoutResult((s) -> {
				insertBusinessRow("successor-" + this.key.key());
				assertThat(
						this.store.complete(this.key, "successor", 2, StoredResult.of(bytes("successor")), RETENTION))
					.isTrue();
				successorCompleted.countDown();
				await(commitSuccessor);
			}));
		await(successorCompleted);
		CompletableFuture<Boolean> zombie = CompletableFuture.supplyAsync(() -> transactions().execute((status) -> {
			insertBusinessRow("zombie-" + this.key.key());
			boolean completed = this.store.complete(this.key, "zombie", 1, StoredResult.of(bytes("zombie")), RETENTION);
			if (!completed) {
				status.setRollbackOnly();
			}
			return completed;
		}));
		// MariaDB's update waits for the successor's row lock; PostgreSQL's finds at once
		// that
		// the row it sees is not the zombie's, and waits for nothing
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> zombie.isDone() || database.jdbc().queryForObject(lockWaitsQuery(), Integer.class) > 0);
		commitSuccessor.countDown();
		successor.get(10, TimeUnit.SECONDS);
		assertThat(zombie.get(10, TimeUnit.SECONDS)).isFalse();
		assertThat(businessRows("successor-" + this.key.key())).isEqualTo(1);
		assertThat(businessRows("zombie-" + this.key.key())).isZero();
		Completed completed = (Completed) this.store.acquire(this.key, request("c"));
		assertThat(completed.fence()).isEqualTo(2);
		assertThat(completed.result().body()).isEqualTo(bytes("successor"));
	}

	@Test
	void acquireAndRenewNeverWaitForARowThatAnOpenTransactionCompleted() throws Exception {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, RETENTION, null));
		CountDownLatch completed = new CountDownLatch(1);
		CountDownLatch commit = new CountDownLatch(1);
		CompletableFuture<Void> transaction = CompletableFuture
			.runAsync(() -> transactions().executeWithoutResult((status) -> {
				this.store.complete(this.key, "a", 1, StoredResult.of(bytes("done")), RETENTION);
				completed.countDown();
				await(commit);
			}));
		await(completed);
		try {
			assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
				Awaitility.await()
					.atMost(Duration.ofSeconds(5))
					.until(() -> this.store.read(this.key).orElseThrow().leaseExpiresAt().isBefore(Instant.now()));
				assertThat(this.store.acquire(this.key, request("b"))).isInstanceOf(InProgress.class);
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> this.store.renew(this.key, "a", 1, LEASE, RETENTION))
					.withMessageContaining("an open transaction holds its row");
			});
		}
		finally {
			commit.countDown();
		}
		transaction.get(10, TimeUnit.SECONDS);
		assertThat(this.store.acquire(this.key, request("b"))).isInstanceOf(Completed.class);
		assertThat(this.store.renew(this.key, "a", 1, LEASE, RETENTION)).isTrue();
	}

	@Test
	void runningTheSchemaScriptAgainChangesNothing() {
		this.store.acquire(this.key, request("a"));
		JdbcSchema.initialize(database.dataSource(), JdbcIdempotencyStore.DEFAULT_TABLE);
		JdbcSchema.initialize(database.dataSource(), JdbcIdempotencyStore.DEFAULT_TABLE);
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	void tableMayBeQualifiedByASchema() {
		String schema = "idem_" + UUID.randomUUID().toString().substring(0, 8);
		database.jdbc().execute(createSchemaStatement(schema));
		JdbcSchema.initialize(database.dataSource(), schema + ".records");
		JdbcSchema.initialize(database.dataSource(), schema + ".records");
		JdbcIdempotencyStore qualified = new JdbcIdempotencyStore(database.dataSource(), schema + ".records");
		assertThat(qualified.acquire(this.key, request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(this.store.acquire(this.key, request("b"))).isEqualTo(new Acquired(1, false));
		assertThat(qualified.toString()).endsWith(", table " + schema + ".records");
	}

	@Test
	void tableNameMustBeAnIdentifier() {
		for (String name : List.of("records; DROP TABLE x", "1records", "a.b.c", "records ", "\"records\"", "")) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> new JdbcIdempotencyStore(database.dataSource(), name));
		}
	}

	@Test
	void keyLongerThanTheColumnIsAPreciseError() {
		String longest = "k".repeat(512 - "jdbc:".length());
		assertThat(this.store.acquire(new RecordKey("jdbc", longest), request("a"))).isInstanceOf(Acquired.class);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(new RecordKey("jdbc", longest + "k"), request("a")))
			.withMessageContaining("513 characters long")
			.withMessageContaining("holds 512")
			.withMessageContaining("idempotency.max-key-length");
	}

	@Test
	void keysDifferingInCaseOrTrailingSpaceAreDifferentRecords() {
		String base = UUID.randomUUID().toString();
		for (String key : List.of(base + "-Key", base + "-key", base + "-key ", base + "-kéy", base + "-k🔑y")) {
			assertThat(this.store.acquire(new RecordKey("jdbc", key), request("a"))).isEqualTo(new Acquired(1, false));
		}
	}

	@Test
	void rowThatIsNotARecordIsReportedAndLeftAlone() {
		insertRow(this.key.toString(), "DONE", 1);
		RecordKey negative = new RecordKey("jdbc", UUID.randomUUID().toString());
		insertRow(negative.toString(), "IN_PROGRESS", -1);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(this.key, request("a")))
			.withMessageContaining("is not an idempotency record, since its state is 'DONE'");
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> this.store.read(this.key))
			.withMessageContaining("its state is 'DONE'");
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION))
			.withMessageContaining("its state is 'DONE'");
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(negative, request("a")))
			.withMessageContaining("its fence is -1");
		assertThat(database.jdbc()
			.queryForObject("SELECT count(*) FROM idempotency_record WHERE state = 'DONE' OR fence = -1",
					Integer.class))
			.isEqualTo(2);
		assertThat(this.store.evict(this.key)).isTrue();
		assertThat(this.store.acquire(this.key, request("a"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void thirtyTwoThreadsTakingOverOneExpiredAttemptHaveExactlyOneWinner() throws Exception {
		for (int i = 0; i < 3; i++) {
			RecordKey key = new RecordKey("jdbc", UUID.randomUUID().toString());
			this.store.acquire(key, new AcquireRequest("expired", Duration.ofMillis(1), RETENTION, null));
			List<AcquireResult> results = Races.race(32, (owner) -> this.store.acquire(key, request(owner)));
			assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(2, true));
			assertThat(results).filteredOn(InProgress.class::isInstance).hasSize(31);
		}
	}

	@Test
	void thirtyTwoThreadsAcquiringOneFailedOrExpiredRecordHaveExactlyOneWinner() throws Exception {
		RecordKey failed = new RecordKey("jdbc", UUID.randomUUID().toString());
		this.store.acquire(failed, request("first"));
		this.store.release(failed, "first", 1, RETENTION);
		List<AcquireResult> results = Races.race(32, (owner) -> this.store.acquire(failed, request(owner)));
		assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(2, false));
		this.store.acquire(this.key, new AcquireRequest("first", Duration.ofMillis(1), Duration.ofMillis(1), null));
		results = Races.race(32, (owner) -> this.store.acquire(this.key, request(owner)));
		assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(1, false));
	}

	@Test
	void thirtyTwoThreadsRacingForNewKeysNeverSeeADeadlock() throws Exception {
		for (int i = 0; i < 10; i++) {
			RecordKey key = new RecordKey("jdbc", UUID.randomUUID().toString());
			List<AcquireResult> results = Races.race(32, (owner) -> this.store.acquire(key, request(owner)));
			assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(1, false));
			assertThat(results).filteredOn(InProgress.class::isInstance).hasSize(31);
		}
	}

	static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	static byte[] bytes(String value) {
		return value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
	}

	static TransactionTemplate transactions() {
		return new TransactionTemplate(new DataSourceTransactionManager(database.dataSource()));
	}

	static void insertBusinessRow(String id) {
		new JdbcTemplate(database.dataSource()).update("INSERT INTO business_row (id) VALUES (?)", id);
	}

	static int businessRows(String id) {
		return database.jdbc().queryForObject("SELECT count(*) FROM business_row WHERE id = ?", Integer.class, id);
	}

	static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(20, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
