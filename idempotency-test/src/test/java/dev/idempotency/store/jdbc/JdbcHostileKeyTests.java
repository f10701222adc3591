package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.DefaultIdempotentExecutor;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.engine.StoreFailurePolicy;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.jdbc.DatabaseKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys an attacker or a sloppy producer chooses: NUL characters (which PostgreSQL's text
 * cannot hold), four-byte UTF-8 up to the column's size, keys that differ only in case,
 * trailing spaces or normalization. Each is a record of its own, on both databases, and
 * is never a store failure.
 */
abstract class JdbcHostileKeyTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofHours(1);

	private final DatabaseKind kind;

	private StoreDatabase database;

	private IdempotencyEngine engine;

	private final AtomicInteger runs = new AtomicInteger();

	JdbcHostileKeyTests(DatabaseKind kind) {
		this.kind = kind;
	}

	@BeforeEach
	void createDatabase() {
		this.database = StoreDatabase.create(this.kind, 4);
	}

	@AfterEach
	void closeDatabase() {
		if (this.engine != null) {
			this.engine.close();
		}
		this.database.close();
	}

	// A message key with a NUL in it (a JSON "\u0000" decodes to one) must neither fail
	// every delivery (on-store-failure=fail, a poison message) nor run unprotected on
	// every delivery (proceed, a duplicate each time)
	@Test
	void keyWithANulCharacterIsARecordOfItsOwn() {
		JdbcIdempotencyStore store = store();
		String base = UUID.randomUUID().toString();
		RecordKey nul = new RecordKey("hostile", base + "\0a");
		RecordKey other = new RecordKey("hostile", base + "\0b");
		RecordKey plain = new RecordKey("hostile", base + "a");
		assertThat(store.acquire(nul, request("owner-1"))).isEqualTo(new AcquireResult.Acquired(1, false));
		assertThat(store.acquire(nul, request("owner-2"))).isInstanceOf(AcquireResult.InProgress.class);
		assertThat(store.acquire(other, request("owner-3"))).isEqualTo(new AcquireResult.Acquired(1, false));
		assertThat(store.acquire(plain, request("owner-4"))).isEqualTo(new AcquireResult.Acquired(1, false));
		assertThat(store.renew(nul, "owner-1", 1, LEASE, RETENTION)).isTrue();
		assertThat(store.complete(nul, "owner-1", 1, StoredResult.of(new byte[] { 7 }), RETENTION)).isTrue();
		assertThat(store.read(nul)).map(IdempotencyRecord::state).hasValue(RecordState.COMPLETED);
		assertThat(store.acquire(nul, request("owner-5"))).isInstanceOf(AcquireResult.Completed.class);
		assertThat(store.read(other)).map(IdempotencyRecord::state).hasValue(RecordState.IN_PROGRESS);
		assertThat(store.evict(nul)).isTrue();
		assertThat(store.read(nul)).isEmpty();
	}

	@Test
	void callsWithANulKeyRunOnceUnderEitherStoreFailurePolicy() {
		for (StoreFailurePolicy policy : StoreFailurePolicy.values()) {
			IdempotentExecutor executor = executor(policy);
			String key = UUID.randomUUID() + "\0" + policy;
			this.runs.set(0);
			for (int i = 0; i < 3; i++) {
				assertThat(executor.execute("hostile", key, String.class, () -> "ran " + this.runs.incrementAndGet()))
					.isEqualTo("ran 1");
			}
			assertThat(this.runs).hasValue(1);
			this.engine.close();
			this.engine = null;
		}
	}

	// The key column holds 512 characters of name:key, whatever their UTF-8 size
	@Test
	void longestKeyOfFourByteCharactersFits() {
		JdbcIdempotencyStore store = store();
		String name = "hostile";
		int room = 512 - name.length() - 1;
		String base = UUID.randomUUID().toString();
		String key = base + "🔑".repeat(room - base.length());
		RecordKey longest = new RecordKey(name, key);
		assertThat(longest.toString().codePointCount(0, longest.toString().length())).isEqualTo(512);
		assertThat(store.acquire(longest, request("owner-1"))).isEqualTo(new AcquireResult.Acquired(1, false));
		assertThat(store.complete(longest, "owner-1", 1, StoredResult.of(new byte[] { 1 }), RETENTION)).isTrue();
		assertThat(store.read(longest)).map(IdempotencyRecord::state).hasValue(RecordState.COMPLETED);
	}

	// Composed and decomposed forms look the same but are different keys
	@Test
	void keysDifferingOnlyInNormalizationOrTrailingSpacesAreDifferentRecords() {
		JdbcIdempotencyStore store = store();
		String base = UUID.randomUUID().toString();
		for (String key : List.of(base + "-é", base + "-e\u0301", base + "-é ", base + "-É", base + "-é\t")) {
			assertThat(store.acquire(new RecordKey("hostile", key), request("a")))
				.isEqualTo(new AcquireResult.Acquired(1, false));
		}
	}

	private JdbcIdempotencyStore store() {
		return new JdbcIdempotencyStore(this.database.dataSource());
	}

	private IdempotentExecutor executor(StoreFailurePolicy policy) {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		this.engine = new IdempotencyEngine(store(),
				new IdempotencyDefaults(
						new OperationSettings(LEASE, RETENTION, OnInProgress.REJECT, Duration.ofSeconds(5)), policy,
						standard.maxKeyLength(), standard.maxResultSize(), Map.of()),
				List.of());
		return new DefaultIdempotentExecutor(this.engine, new JacksonResultCodec(), new JacksonPayloadFingerprinter());
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

}
