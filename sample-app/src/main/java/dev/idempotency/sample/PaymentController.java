package dev.idempotency.sample;

import java.time.Instant;

import dev.idempotency.Idempotent;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
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
	 * Make a payment once per idempotency key.
	 * @param key the client's idempotency key
	 * @param request what to charge; a retry with the same key must send the same body
	 * @return the payment, the same for every request with the key
	 */
	@PostMapping
	@Idempotent(name = "payments.api", key = "#key", payload = "#request")
	public Payment pay(@RequestHeader("Idempotency-Key") String key, @RequestBody PayRequest request) {
		long entry = this.ledger.charge(request.account(), request.amountCents());
		return new Payment("pay-" + entry, request.account(), request.amountCents(), entry, Instant.now());
	}

}
