package dev.idempotency.autoconfigure.aot;

import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.Idempotent;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The idempotent handler of the AOT web application tests: its key is the request's
 * {@code Idempotency-Key}, its body a record, its response an entity of a record.
 */
@RestController
class AotOrders {

	// Read through a method: the bean is a proxy by subclass, whose own fields are unset
	private final AtomicInteger placed = new AtomicInteger();

	public int placed() {
		return this.placed.get();
	}

	@PostMapping("/orders")
	@Idempotent
	public ResponseEntity<OrderReceipt> place(@RequestBody OrderRequest order) {
		return created(order);
	}

	protected ResponseEntity<OrderReceipt> created(OrderRequest order) {
		int number = this.placed.incrementAndGet();
		return ResponseEntity.status(HttpStatus.CREATED)
			.header("Location", "/orders/" + number)
			.body(new OrderReceipt("o-" + number, order.item(), order.quantity()));
	}

	record OrderRequest(String item, int quantity) {
	}

	record OrderReceipt(String id, String item, int quantity) {
	}

}
