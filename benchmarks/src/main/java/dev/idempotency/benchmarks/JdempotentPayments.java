package dev.idempotency.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import com.trendyol.jdempotent.core.annotation.JdempotentResource;

/**
 * The benchmarked bean as Jdempotent wants it: the same body as {@link Payments}, under
 * Jdempotent's annotation, taking a request object rather than the bare payment id (its
 * aspect reflects over the fields of the argument, which it may not do to a
 * {@link String} on Java 17).
 */
class JdempotentPayments {

	/**
	 * Prefix of Jdempotent's keys, its own namespace.
	 */
	static final String CACHE_PREFIX = "jdempotent-" + Payments.OPERATION;

	// Counts runs of the body, so that the startup check can tell a replay from a rerun
	private final LongAdder runs = new LongAdder();

	/**
	 * Charge a payment once per request; retention as the starter's default.
	 * @param request the request, whose fields make the key
	 * @return the receipt
	 */
	@JdempotentResource(cachePrefix = CACHE_PREFIX, ttl = 24, ttlTimeUnit = TimeUnit.HOURS)
	public Receipt charge(ChargeRequest request) {
		this.runs.increment();
		return Receipt.settled(request.paymentId());
	}

	long runs() {
		return this.runs.sum();
	}

	/**
	 * The argument of {@link JdempotentPayments#charge}: Jdempotent hashes the names and
	 * values of its fields into the key.
	 */
	static final class ChargeRequest {

		private final String paymentId;

		ChargeRequest(String paymentId) {
			this.paymentId = paymentId;
		}

		String paymentId() {
			return this.paymentId;
		}

	}

}
