package dev.idempotency.web.servlet;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.web.KeyScope;
import dev.idempotency.aop.RequestBinding.BoundRequest;
import dev.idempotency.web.RequestKeys;
import dev.idempotency.aop.RequestPayload;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.entry;

class ServletRequestBindingTests {

	private final ServletRequestBinding binding = new ServletRequestBinding(
			new RequestKeys("Idempotency-Key", KeyScope.PRINCIPAL));

	private final MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments");

	private final MockHttpServletResponse response = new MockHttpServletResponse();

	@AfterEach
	void reset() {
		RequestContextHolder.resetRequestAttributes();
	}

	@Test
	void keyIsTheHeaderScopedToThePrincipalAndReplaysMarkTheResponse() {
		this.request.addHeader("Idempotency-Key", "\"k-1\"");
		this.request.setUserPrincipal(() -> "alice");
		bind();
		BoundRequest bound = this.binding.bind("payments");
		assertThat(bound.key()).isEqualTo("5:alice:k-1");
		assertThat(this.response.getHeader("Idempotent-Replayed")).isNull();
		bound.replayed();
		assertThat(this.response.getHeader("Idempotent-Replayed")).isEqualTo("true");
	}

	@Test
	void anonymousRequestHasAKeyOfItsOwn() {
		this.request.addHeader("Idempotency-Key", "k-1");
		bind();
		assertThat(this.binding.bind("payments").key()).isEqualTo("-:k-1");
	}

	@Test
	void keyIsScopedAsTheResolverSays() {
		this.request.addHeader("Idempotency-Key", "k-1");
		this.request.addHeader("X-Api-Key", "api-7");
		this.request.setUserPrincipal(() -> "alice");
		bind();
		ServletRequestBinding byApiKey = new ServletRequestBinding(
				new RequestKeys("Idempotency-Key", KeyScope.PRINCIPAL), (request) -> request.getHeader("X-Api-Key"));
		assertThat(byApiKey.bind("payments").key()).isEqualTo("5:api-7:k-1");
	}

	@Test
	void unscopedKeysDoNotAskTheResolver() {
		this.request.addHeader("Idempotency-Key", "k-1");
		bind();
		ServletRequestBinding unscoped = new ServletRequestBinding(new RequestKeys("Idempotency-Key", KeyScope.NONE),
				(request) -> {
					throw new IllegalStateException("asked");
				});
		assertThat(unscoped.bind("payments").key()).isEqualTo("k-1");
	}

	@Test
	void payloadIsTheMethodPathAndParameters() {
		this.request.setRequestURI("/accounts/1%2F2/charge");
		this.request.addParameter("tag", "b", "a");
		this.request.addParameter("currency", "EUR");
		this.request.addHeader("Idempotency-Key", "k-1");
		bind();
		RequestPayload payload = this.binding.bind("payments").payload();
		assertThat(payload.method()).isEqualTo("POST");
		assertThat(payload.path()).isEqualTo("/accounts/1%2F2/charge");
		assertThat(payload.parameters()).containsOnly(entry("tag", List.of("b", "a")),
				entry("currency", List.of("EUR")));
	}

	@Test
	void missingHeaderFails() {
		bind();
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> this.binding.bind("payments"))
			.withMessageContaining("has no Idempotency-Key header");
	}

	@Test
	void callOutsideARequestFailsSayingWhy() {
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> this.binding.bind("payments"))
			.withMessageContaining("no servlet request is bound to the calling thread");
		assertThat(this.binding.currentResponse()).isNull();
	}

	@Test
	void currentResponseMarksTheResponseOfTheBoundRequest() {
		bind();
		this.binding.currentResponse().replayed();
		assertThat(this.response.getHeader("Idempotent-Replayed")).isEqualTo("true");
	}

	private void bind() {
		RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(this.request, this.response));
	}

}
