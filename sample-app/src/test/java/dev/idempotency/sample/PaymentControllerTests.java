package dev.idempotency.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import org.springframework.test.web.servlet.client.ExchangeResult;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.web.servlet.client.RestTestClient.ResponseSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@code POST /payments} over HTTP, in the sample's default configuration: no
 * Redis, records in memory.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "sample.ledger.latency=300ms")
@ExtendWith(OutputCaptureExtension.class)
class PaymentControllerTests {

	private static final String REPLAYED = IdempotencyProblems.REPLAYED_HEADER;

	@LocalServerPort
	private int port;

	@Autowired
	private Ledger ledger;

	private RestTestClient client;

	@BeforeEach
	void setUp() {
		this.client = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port).build();
	}

	@Test
	void startsWithRecordsInMemoryAndSaysSo(@Autowired IdempotencyStore store, CapturedOutput output) {
		assertThat(store).isInstanceOf(InMemoryIdempotencyStore.class);
		assertThat(output).contains("No Redis is configured, so idempotency records are kept in memory")
			.contains("Idempotency: in-memory store (at most 100000 records), 2 @Idempotent operations");
	}

	// With no Redis anywhere, Boot's own Redis indicator would take the sample's health
	// DOWN although its records are in memory.
	@Test
	void healthIsUpWithoutRedisBecauseBootsRedisIndicatorIsOff(@Autowired ApplicationContext context) {
		assertThat(context.containsBean("redisHealthContributor")).isFalse();
		this.client.get().uri("/actuator/health").exchange().expectStatus().isOk();
	}

	@Test
	void firstRequestChargesAndCreatesThePayment() {
		long entries = this.ledger.entries();
		EntityExchangeResult<Payment> result = pay("first", "{\"account\":\"alice\",\"amountCents\":1250}")
			.expectStatus()
			.isCreated()
			.expectHeader()
			.doesNotExist(REPLAYED)
			.expectBody(Payment.class)
			.returnResult();
		Payment payment = result.getResponseBody();
		assertThat(payment).isNotNull();
		assertThat(payment.account()).isEqualTo("alice");
		assertThat(payment.amountCents()).isEqualTo(1250);
		assertThat(result.getResponseHeaders().getLocation()).hasToString("/payments/" + payment.id());
		assertThat(this.ledger.entries()).isEqualTo(entries + 1);
	}

	@Test
	void retryWithTheSameKeyReplaysTheSameResponseWithoutASecondCharge() {
		String body = "{\"account\":\"bob\",\"amountCents\":990}";
		EntityExchangeResult<byte[]> first = pay("retry", body).expectStatus().isCreated().expectBody().returnResult();
		long entries = this.ledger.entries();
		EntityExchangeResult<byte[]> retry = pay("\"retry\"", body).expectStatus()
			.isCreated()
			.expectHeader()
			.valueEquals(REPLAYED, "true")
			.expectBody()
			.returnResult();
		assertThat(retry.getResponseBody()).isEqualTo(first.getResponseBody());
		assertThat(retry.getResponseHeaders().getLocation()).isEqualTo(first.getResponseHeaders().getLocation());
		assertThat(this.ledger.entries()).isEqualTo(entries);
	}

	@Test
	void sameKeyWithAnotherBodyIsUnprocessable() {
		pay("reused", "{\"account\":\"carol\",\"amountCents\":100}").expectStatus().isCreated();
		long entries = this.ledger.entries();
		pay("reused", "{\"account\":\"carol\",\"amountCents\":100000}").expectStatus()
			.isEqualTo(HttpStatus.UNPROCESSABLE_CONTENT)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo(IdempotencyProblems.KEY_REUSED);
		assertThat(this.ledger.entries()).isEqualTo(entries);
	}

	@Test
	void retryWhileTheFirstRequestIsChargingIsAConflict() throws Exception {
		long entries = this.ledger.entries();
		CountDownLatch gate = new CountDownLatch(1);
		List<CompletableFuture<ExchangeResult>> requests = Stream.of(1, 2)
			.map((i) -> CompletableFuture.supplyAsync(() -> {
				awaitQuietly(gate);
				return pay("racing", "{\"account\":\"dave\",\"amountCents\":500}").returnResult();
			}))
			.toList();
		gate.countDown();
		List<ExchangeResult> results = new ArrayList<>();
		for (CompletableFuture<ExchangeResult> request : requests) {
			results.add(request.get(10, TimeUnit.SECONDS));
		}
		assertThat(results).extracting((result) -> result.getStatus().value()).containsExactlyInAnyOrder(201, 409);
		ExchangeResult conflict = results.stream()
			.filter((result) -> result.getStatus().isSameCodeAs(HttpStatus.CONFLICT))
			.findFirst()
			.orElseThrow();
		assertThat(conflict.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isNotBlank();
		assertThat(conflict.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		assertThat(this.ledger.entries()).isEqualTo(entries + 1);
	}

	@Test
	void missingKeyIsABadRequest() {
		long entries = this.ledger.entries();
		this.client.post()
			.uri("/payments")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"account\":\"erin\",\"amountCents\":1}")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo(IdempotencyProblems.INVALID_KEY);
		assertThat(this.ledger.entries()).isEqualTo(entries);
	}

	@Test
	void blankKeyIsABadRequest() {
		long entries = this.ledger.entries();
		pay(" ", "{\"account\":\"erin\",\"amountCents\":1}").expectStatus().isBadRequest();
		assertThat(this.ledger.entries()).isEqualTo(entries);
	}

	private ResponseSpec pay(String key, String body) {
		return this.client.post()
			.uri("/payments")
			.header("Idempotency-Key", key)
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
