package dev.idempotency.web.servlet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.web.KeyScope;
import dev.idempotency.web.RequestBinding.BoundRequest;
import dev.idempotency.web.RequestKeys;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
