package dev.idempotency.sample;

import java.net.URI;
import java.time.Instant;

import dev.idempotency.Idempotent;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Takes payments over HTTP. A client that did not see the answer (a timeout, a dropped
 * connection) sends the same request again with the same {@code Idempotency-Key} and gets
 * the first answer back; the account is charged once.
 */
@RestController
@RequestMapping("/payments")
public class PaymentController {

	private final Ledger ledger;

	PaymentController(Ledger ledger) {
		this.ledger = ledger;
	}

	/**
	 * Make a payment once per {@code Idempotency-Key} header of the caller. A retry with
	 * the same key gets the same 201, {@code Location} and body back, marked
	 * {@code Idempotent-Replayed: true}; the same key with another body is a 422, and a
	 * retry while the first request still runs a 409 with {@code Retry-After}.
	 * @param request what to charge; a retry with the same key must send the same body
	 * @return the payment, the same for every request with the key
	 */
	@PostMapping
	@Idempotent(name = "payments.api")
	public ResponseEntity<Payment> pay(@RequestBody PayRequest request) {
		long entry = this.ledger.charge(request.account(), request.amountCents());
		Payment payment = new Payment("pay-" + entry, request.account(), request.amountCents(), entry, Instant.now());
		return ResponseEntity.created(URI.create("/payments/" + payment.id())).body(payment);
	}

}
