package dev.idempotency.aop;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.web.ResponseEntityResultCodec;
import dev.idempotency.web.SpringWebHandlerMethods;

import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RequestHandlerOperationsTests {

	private final IdempotentOperationSource source = new IdempotentOperationSource(IdempotencyDefaults.STANDARD,
			ResponseEntityResultCodec.wrap(new JacksonResultCodec()), null, SpringWebHandlerMethods.INSTANCE);

	@Test
	void handlerWithoutKeyTakesItFromTheRequestAndItsBodyAsPayload() {
		IdempotentOperation operation = operation(Handlers.class, "pay");
		assertThat(operation.key()).isNull();
		assertThat(operation.keyExpression()).isEmpty();
		assertThat(operation.payloadExpression()).isEqualTo("#p1");
		assertThat(operation.operation().keySource()).startsWith("the request's idempotency key header of ");
	}

	@Test
	void handlerWithoutBodyHasNoPayload() {
		IdempotentOperation operation = operation(Handlers.class, "ping");
		assertThat(operation.key()).isNull();
		assertThat(operation.payload()).isNull();
	}

	@Test
	void handlerKeepsAKeyAndAPayloadItNames() {
		IdempotentOperation operation = operation(Handlers.class, "keyed");
		assertThat(operation.key()).isNotNull();
		assertThat(operation.payloadExpression()).isEqualTo("#id");
	}

	@Test
	void handlerWithAKeyFingerprintsItsBody() {
		assertThat(operation(Handlers.class, "keyedWithBody").payloadExpression()).isEqualTo("#p0");
	}

	@Test
	void handlerOfAPlainControllerMayOmitTheKey() {
		assertThat(operation(PlainController.class, "pay").key()).isNull();
	}

	@Test
	void methodOutsideAControllerWithoutKeyFailsStartupNamingIt() {
		assertThatIllegalStateException().isThrownBy(() -> operation(NotAController.class, "pay"))
			.withMessageContaining(NotAController.class.getName() + ".pay(String)")
			.withMessageContaining("has no key");
	}

	@Test
	void mappedMethodOfAClassThatIsNoControllerWithoutKeyFailsStartup() {
		assertThatIllegalStateException().isThrownBy(() -> operation(MappedNotAController.class, "pay"))
			.withMessageContaining("has no key");
	}

	@Test
	void annotationOnAControllerProtectsItsUnsafeHandlersAndLeavesItsSafeOnesAlone() {
		assertThat(operation(AnnotatedController.class, "create").key()).isNull();
		assertThat(this.source.getOperation(ReflectionUtils.findMethod(AnnotatedController.class, "list", String.class),
				AnnotatedController.class))
			.isNull();
	}

	@Test
	void unmappedMethodOfAControllerWithoutKeyFailsStartup() {
		assertThatIllegalStateException().isThrownBy(() -> operation(Handlers.class, "helper"))
			.withMessageContaining(Handlers.class.getName() + ".helper(String)")
			.withMessageContaining("only a request handler method");
	}

	@Test
	void handlerWithoutKeyWhoseBodyArrivesAfterTheCallFailsStartup() {
		assertThatIllegalStateException().isThrownBy(() -> operation(DeferredBodies.class, "pay"))
			.withMessageContaining(DeferredBodies.class.getName() + ".pay(Mono)")
			.withMessageContaining("a Mono whose value arrives only after the call");
	}

	@Test
	void handlerWithAKeyWhoseBodyArrivesAfterTheCallHasNoPayload() {
		assertThat(operation(DeferredBodies.class, "keyed").payload()).isNull();
	}

	private IdempotentOperation operation(Class<?> type, String name) {
		Method method = ReflectionUtils.findMethod(type, name, (Class<?>[]) null);
		IdempotentOperation operation = this.source.getOperation(method, type);
		assertThat(operation).isNotNull();
		return operation;
	}

	record Order(String item) {

	}

	@RestController
	static class Handlers {

		@PostMapping("/orders/{id}")
		@Idempotent
		public ResponseEntity<Order> pay(@PathVariable String id, @RequestBody Order order) {
			return ResponseEntity.ok(order);
		}

		@PostMapping("/ping")
		@Idempotent
		public String ping() {
			return "pong";
		}

		@PostMapping("/keyed/{id}")
		@Idempotent(key = "#id", payload = "#id")
		public String keyed(@PathVariable String id) {
			return id;
		}

		@PostMapping("/keyed-with-body")
		@Idempotent(key = "#order.item")
		public String keyedWithBody(@RequestBody Order order) {
			return order.item();
		}

		@Idempotent
		public String helper(String value) {
			return value;
		}

	}

	@RestController
	@Idempotent
	public static class AnnotatedController {

		@GetMapping("/annotated/{id}")
		public String list(@PathVariable String id) {
			return id;
		}

		@PostMapping("/annotated")
		public String create(@RequestBody String body) {
			return body;
		}

	}

	@Controller
	static class PlainController {

		@PostMapping("/plain")
		@Idempotent
		public String pay(@RequestBody String body) {
			return body;
		}

	}

	static class NotAController {

		@Idempotent
		public String pay(String value) {
			return value;
		}

	}

	static class MappedNotAController {

		@PostMapping("/orders")
		@Idempotent
		public String pay(@RequestBody String value) {
			return value;
		}

	}

	@RestController
	static class DeferredBodies {

		@PostMapping("/deferred")
		@Idempotent
		public String pay(@RequestBody Mono<Order> order) {
			return "paid";
		}

		@PostMapping("/deferred/{id}")
		@Idempotent(key = "#id")
		public String keyed(@PathVariable String id, @RequestBody Mono<Order> order) {
			return id;
		}

	}

}
