package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Failures stored as the outcome of an operation and replayed to duplicates, against
 * every store.
 */
abstract class FailureReplayEngineTests {

	private static final JacksonResultCodec CODEC = new JacksonResultCodec(JsonMapper.builder().build());

	private static final OperationSettings REJECT = new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
			OnInProgress.REJECT, Duration.ofSeconds(5));

	private final RecordingListener listener = new RecordingListener();

	private IdempotencyStore store;

	private IdempotencyEngine engine;

	private String name;

	protected abstract IdempotencyStore createStore();

	@BeforeEach
	void setUp() {
		this.store = createStore();
		this.engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD, List.of(this.listener));
		this.name = "failures-" + UUID.randomUUID();
	}

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	private Operation operation(OperationSettings settings, Class<?>... replayed) {
		return new Operation(this.name, settings, CODEC.forType(ResolvableType.forClass(String.class)),
				"the test's key",
				Arrays.stream(replayed)
					.<Class<? extends Throwable>>map((type) -> type.asSubclass(Throwable.class))
					.toList());
	}

	private Object call(Operation operation, Object key, Invocation invocation) throws Throwable {
		return this.engine.execute(operation, key, null, invocation);
	}

	@Test
	void firstCallThrowsTheOriginalAndDuplicatesGetANewInstanceWithoutRunning() throws Throwable {
		Operation operation = operation(REJECT, CardDeclinedException.class);
		CardDeclinedException declined = new CardDeclinedException("card 4242 declined: insufficient funds");
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(operation, "k", () -> {
			runs.incrementAndGet();
			throw declined;
		})).isSameAs(declined);
		AtomicInteger replays = new AtomicInteger();
		Invocation duplicate = new Invocation() {

			@Override
			public Object proceed() {
				return "ran " + runs.incrementAndGet();
			}

			@Override
			public void replayed() {
				replays.incrementAndGet();
			}

		};
		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(operation, "k", duplicate))
				.isNotSameAs(declined)
				.withMessage("card 4242 declined: insufficient funds")
				.matches((ex) -> ex.getClass() == CardDeclinedException.class);
		}
		assertThat(runs).hasValue(1);
		assertThat(replays).hasValue(2);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.REPLAYED, Outcome.REPLAYED);
		assertThat(this.store.read(new RecordKey(this.name, "k")).orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

	@Test
	void subtypeIsStoredAndReplayedAsTheMostSpecificListedType() throws Throwable {
		Operation operation = operation(REJECT, PaymentException.class, CardDeclinedException.class);
		ExpiredCardException expired = new ExpiredCardException("card expired 01/25");
		assertThatExceptionOfType(ExpiredCardException.class).isThrownBy(() -> call(operation, "k", () -> {
			throw expired;
		})).isSameAs(expired);
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(operation, "k", () -> "ran"))
			.withMessage("card expired 01/25")
			.matches((ex) -> ex.getClass() == CardDeclinedException.class);
		assertThat(((AcquireResult.Completed) this.store.acquire(new RecordKey(this.name, "k"),
				new AcquireRequest("reader", Duration.ofSeconds(30), Duration.ofHours(1), null)))
			.result()
			.failureType()).isEqualTo(CardDeclinedException.class.getName());
	}

	@Test
	void unlistedExceptionReleasesTheRecordForARetry() throws Throwable {
		Operation operation = operation(REJECT, CardDeclinedException.class);
		IllegalStateException timeout = new IllegalStateException("gateway timed out");
		List<Long> fences = new ArrayList<>();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> call(operation, "k", () -> {
			fences.add(IdempotencyContext.current().fence());
			throw timeout;
		})).isSameAs(timeout);
		assertThat(call(operation, "k", () -> {
			fences.add(IdempotencyContext.current().fence());
			return "charged";
		})).isEqualTo("charged");
		assertThat(fences).containsExactly(1L, 2L);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	@Test
	void libraryExceptionsReleaseEvenWhenABroadListedTypeCoversThem() throws Throwable {
		Operation operation = operation(REJECT, RuntimeException.class);
		IdempotencyInProgressException nested = new IdempotencyInProgressException("nested", "n",
				Duration.ofSeconds(5));
		assertThatExceptionOfType(IdempotencyInProgressException.class).isThrownBy(() -> call(operation, "k", () -> {
			throw nested;
		})).isSameAs(nested);
		assertThat(call(operation, "k", () -> "charged")).isEqualTo("charged");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	@Test
	void checkedExceptionsAreReplayed() throws Throwable {
		Operation operation = operation(REJECT, InsufficientFundsException.class);
		InsufficientFundsException checked = new InsufficientFundsException("balance 3.10 < 5.00");
		assertThatExceptionOfType(InsufficientFundsException.class).isThrownBy(() -> call(operation, "k", () -> {
			throw checked;
		})).isSameAs(checked);
		assertThatExceptionOfType(InsufficientFundsException.class).isThrownBy(() -> call(operation, "k", () -> "ran"))
			.isNotSameAs(checked)
			.withMessage("balance 3.10 < 5.00");
	}

	@Test
	void nullMessageIsReplayedAsNullAndAnyTextUnchanged() throws Throwable {
		Operation operation = operation(REJECT, CardDeclinedException.class);
		String text = "déclinée ✗ 🃏\nline two\r\n\ttab";
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(operation, "null", () -> {
			throw new CardDeclinedException(null);
		}));
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(operation, "text", () -> {
			throw new CardDeclinedException(text);
		}));
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(operation, "null", () -> "ran"))
			.withMessage(null);
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(operation, "text", () -> "ran"))
			.withMessage(text);
	}

	@Test
	void failureWhoseMessageExceedsMaxResultSizeIsNotStoredAndDuplicatesGetReplayException() throws Throwable {
		IdempotencyDefaults small = new IdempotencyDefaults(IdempotencyDefaults.STANDARD.settings(),
				IdempotencyDefaults.STANDARD.onStoreFailure(), 200, 4096, Map.of());
		try (IdempotencyEngine engine = new IdempotencyEngine(this.store, small, List.of())) {
			Operation operation = operation(REJECT, CardDeclinedException.class);
			String huge = "é".repeat(3000);
			String fits = "x".repeat(3000);
			AtomicInteger runs = new AtomicInteger();
			assertThatExceptionOfType(CardDeclinedException.class)
				.isThrownBy(() -> engine.execute(operation, "huge", null, () -> {
					runs.incrementAndGet();
					throw new CardDeclinedException(huge);
				}))
				.withMessage(huge);
			assertThatExceptionOfType(CardDeclinedException.class)
				.isThrownBy(() -> engine.execute(operation, "fits", null, () -> {
					throw new CardDeclinedException(fits);
				}));
			assertThatExceptionOfType(IdempotencyReplayException.class)
				.isThrownBy(() -> engine.execute(operation, "huge", null, () -> "ran " + runs.incrementAndGet()))
				.withMessageContaining("max-result-size");
			assertThatExceptionOfType(CardDeclinedException.class)
				.isThrownBy(() -> engine.execute(operation, "fits", null, () -> "ran"))
				.withMessage(fits);
			assertThat(runs).hasValue(1);
			StoredResult stored = ((AcquireResult.Completed) this.store.acquire(new RecordKey(this.name, "huge"),
					new AcquireRequest("reader", Duration.ofSeconds(30), Duration.ofHours(1), null)))
				.result();
			assertThat(stored.isFailure()).isFalse();
			assertThat(stored.unreplayableReason()).contains(CardDeclinedException.class.getName())
				.contains("4096 bytes")
				.doesNotContain("é");
		}
	}

	@Test
	void listedFailureWhoseMessageCannotBeReadIsReleasedForARetry() throws Throwable {
		Operation operation = operation(REJECT, UnreadableException.class);
		UnreadableException unreadable = new UnreadableException("hidden");
		assertThatExceptionOfType(UnreadableException.class).isThrownBy(() -> call(operation, "k", () -> {
			throw unreadable;
		})).isSameAs(unreadable);
		assertThat(call(operation, "k", () -> "retried")).isEqualTo("retried");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	@Test
	void storedTypeThatIsNoLongerListedIsReplayExceptionAndRunsNothing() throws Throwable {
		Operation before = operation(REJECT, CardDeclinedException.class);
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> call(before, "k", () -> {
			throw new CardDeclinedException("declined");
		}));
		Operation after = operation(REJECT, InsufficientFundsException.class);
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(after, "k", () -> "ran " + runs.incrementAndGet()))
			.withMessageContaining(this.name)
			.withMessageContaining("failure of type " + CardDeclinedException.class.getName())
			.withMessageContaining("not one of its replayFailures [" + InsufficientFundsException.class.getName() + "]")
			.withMessageContaining("the method was not run again");
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(operation(REJECT), "k", () -> "ran " + runs.incrementAndGet()));
		assertThat(runs).hasValue(0);
	}

	@Test
	void foreignStoredTypeIsNeverLoaded() throws Throwable {
		RecordKey record = new RecordKey(this.name, "k");
		this.store.acquire(record, new AcquireRequest("other", Duration.ofSeconds(30), Duration.ofHours(1), null));
		this.store.complete(record, "other", 1, StoredResult.failure(Loaded.class.getName(), "boom"),
				Duration.ofHours(1));
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(operation(REJECT, CardDeclinedException.class), "k", () -> "ran"))
			.withMessageContaining(Loaded.class.getName());
		assertThat(Loaded.constructed).hasValue(0);
	}

	@Test
	void constructorThatFailsOnReplayIsReplayException() throws Throwable {
		Operation operation = operation(REJECT, PickyException.class);
		assertThatExceptionOfType(PickyException.class).isThrownBy(() -> call(operation, "k", () -> {
			throw new PickyException("fine", true);
		}));
		assertThatExceptionOfType(IdempotencyReplayException.class).isThrownBy(() -> call(operation, "k", () -> "ran"))
			.withMessageContaining("(String) constructor failed")
			.withCauseInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void listedTypesMustBeConcreteWithAPublicStringConstructor() {
		assertThatIllegalArgumentException().isThrownBy(() -> operation(REJECT, AbstractPaymentException.class))
			.withMessageContaining(AbstractPaymentException.class.getName())
			.withMessageContaining("abstract");
		assertThatIllegalArgumentException().isThrownBy(() -> operation(REJECT, NoMessageConstructor.class))
			.withMessageContaining(NoMessageConstructor.class.getName())
			.withMessageContaining("no public (String) constructor");
		assertThatIllegalArgumentException().isThrownBy(() -> operation(REJECT, HiddenConstructor.class))
			.withMessageContaining("no public (String) constructor");
	}

	@Test
	void sixteenSimultaneousCallersRunTheMethodOnceAndAllGetTheSameFailure() throws Exception {
		int threads = 16;
		Operation operation = operation(new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
				OnInProgress.WAIT, Duration.ofSeconds(20)), CardDeclinedException.class);
		AtomicInteger runs = new AtomicInteger();
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Throwable>> results = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				results.add(executor.submit(() -> {
					ready.countDown();
					go.await();
					try {
						call(operation, "same", () -> {
							throw new CardDeclinedException("declined on run " + runs.incrementAndGet());
						});
						return null;
					}
					catch (Throwable ex) {
						return ex;
					}
				}));
			}
			assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
			go.countDown();
			for (Future<Throwable> result : results) {
				assertThat(result.get(30, TimeUnit.SECONDS)).isExactlyInstanceOf(CardDeclinedException.class)
					.hasMessage("declined on run 1");
			}
			assertThat(runs).hasValue(1);
			assertThat(this.listener.count(Outcome.FAILED)).isEqualTo(1);
			assertThat(this.listener.count(Outcome.REPLAYED)).isEqualTo(threads - 1);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void anAttemptThatLostItsRecordCannotOverwriteItsSuccessorWithItsFailure() throws Throwable {
		Operation operation = operation(new OperationSettings(Duration.ofMillis(150), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1)), CardDeclinedException.class);
		RecordKey record = new RecordKey(this.name, "k");
		CardDeclinedException zombies = new CardDeclinedException("zombie's");
		assertThatExceptionOfType(IdempotencyLockLostException.class).isThrownBy(() -> call(operation, "k", () -> {
			this.store.evict(record);
			AcquireResult successor = this.store.acquire(record,
					new AcquireRequest("successor", Duration.ofSeconds(30), Duration.ofHours(1), null));
			long fence = ((AcquireResult.Acquired) successor).fence();
			assertThat(this.store.complete(record, "successor", fence,
					StoredResult.of(operation.codec().encode("successor's")), Duration.ofHours(1)))
				.isTrue();
			IdempotencyContext attempt = IdempotencyContext.current();
			await().atMost(Duration.ofSeconds(5)).until(() -> !attempt.isLeaseHeld());
			throw zombies;
		})).withMessageContaining(this.name).satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(zombies));
		assertThat(call(operation, "k", () -> "third")).isEqualTo("successor's");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.LOCK_LOST, Outcome.REPLAYED);
	}

	@Test
	void storeThatCannotRecordTheFailureTellsTheCallerWithTheOriginalSuppressed() throws Throwable {
		this.engine.close();
		this.engine = new IdempotencyEngine(new ForwardingStore(this.store) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				throw new IllegalStateException("store gone");
			}

		}, IdempotencyDefaults.STANDARD, List.of(this.listener));
		Operation operation = operation(new OperationSettings(Duration.ofSeconds(2), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1)), CardDeclinedException.class);
		CardDeclinedException declined = new CardDeclinedException("declined");
		assertThatExceptionOfType(IdempotencyCompletionException.class).isThrownBy(() -> call(operation, "k", () -> {
			throw declined;
		}))
			.isInstanceOf(IdempotencyStoreException.class)
			.withRootCauseInstanceOf(IllegalStateException.class)
			.satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(declined));
		assertThat(this.listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
	}

	public abstract static class AbstractPaymentException extends RuntimeException {

		public AbstractPaymentException(String message) {
			super(message);
		}

	}

	public static class PaymentException extends AbstractPaymentException {

		public PaymentException(String message) {
			super(message);
		}

	}

	public static class CardDeclinedException extends PaymentException {

		public CardDeclinedException(String message) {
			super(message);
		}

	}

	public static class ExpiredCardException extends CardDeclinedException {

		public ExpiredCardException(String message) {
			super(message);
		}

	}

	public static class InsufficientFundsException extends Exception {

		public InsufficientFundsException(String message) {
			super(message);
		}

	}

	public static class NoMessageConstructor extends RuntimeException {

		public NoMessageConstructor(int code) {
			super("code " + code);
		}

	}

	public static class HiddenConstructor extends RuntimeException {

		HiddenConstructor(String message) {
			super(message);
		}

	}

	public static class PickyException extends RuntimeException {

		PickyException(String message, boolean original) {
			super(message);
		}

		public PickyException(String message) {
			super(message);
			throw new IllegalArgumentException("not from stored data");
		}

	}

	public static class UnreadableException extends RuntimeException {

		public UnreadableException(String message) {
			super(message);
		}

		@Override
		public String getMessage() {
			throw new IllegalStateException("no message today");
		}

	}

	public static class Loaded extends RuntimeException {

		static final AtomicInteger constructed = new AtomicInteger();

		public Loaded(String message) {
			super(message);
			constructed.incrementAndGet();
		}

	}

}
