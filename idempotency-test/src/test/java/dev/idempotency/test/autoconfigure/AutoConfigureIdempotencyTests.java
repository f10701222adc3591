package dev.idempotency.test.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;

@WebMvcTest
@AutoConfigureIdempotency
class AutoConfigureIdempotencyTests {

	@Autowired
	MockMvc mvc;

	@Autowired
	ChargeController controller;

	@Test
	void sliceRunsAnIdempotentHandlerOncePerKey() throws Exception {
		this.mvc.perform(post("/charges/a")).andExpect(content().string("charge 1 of a"));
		this.mvc.perform(post("/charges/a")).andExpect(content().string("charge 1 of a"));
		this.mvc.perform(post("/charges/b")).andExpect(content().string("charge 2 of b"));
		assertThat(this.controller.charges()).isEqualTo(2);
	}

	@Test
	void recordsAreKeptInMemory(@Autowired IdempotencyStore store) {
		assertThat(store).isInstanceOf(InMemoryIdempotencyStore.class);
	}

	@SpringBootConfiguration
	@Import(ChargeController.class)
	static class Config {

	}

	@RestController
	static class ChargeController {

		private final AtomicInteger charges = new AtomicInteger();

		int charges() {
			return this.charges.get();
		}

		@PostMapping("/charges/{id}")
		@Idempotent(key = "#id")
		String charge(@PathVariable String id) {
			return "charge " + this.charges.incrementAndGet() + " of " + id;
		}

	}

}
