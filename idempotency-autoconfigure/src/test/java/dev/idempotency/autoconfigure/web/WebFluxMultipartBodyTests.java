package dev.idempotency.autoconfigure.web;

import java.util.stream.Collectors;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestPart;
import org.springframework.web.bind.annotation.RestController;

/**
 * Tests of Spring WebFlux handlers that read a multipart body themselves, on a real
 * Netty.
 */
@SpringBootTest(classes = WebFluxMultipartBodyTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=reactive")
class WebFluxMultipartBodyTests extends MultipartBodyWebTests {

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Executions.class, Parts.class })
	static class TestApplication {

	}

	record Account(String account) {

	}

	@RestController
	static class Parts {

		private final Executions executions;

		Parts(Executions executions) {
			this.executions = executions;
		}

		@PostMapping(path = "/parts/plain", consumes = "multipart/form-data")
		Mono<String> plain(@RequestBody Flux<Part> parts) {
			return parts.concatMap(Parts::describe).collect(Collectors.joining(","));
		}

		@PostMapping(path = "/parts/body", consumes = "multipart/form-data")
		@Idempotent(name = "multipart-body.parts", key = "#key")
		Mono<ResponseEntity<Receipt>> body(@RequestBody Flux<Part> parts,
				@RequestHeader("Idempotency-Key") String key) {
			return parts.collectMap(Part::name)
				.flatMap((byName) -> size(byName.get("file")).map(
						(size) -> this.executions.created(key, ((FormFieldPart) byName.get("account")).value(), size)));
		}

		@PostMapping(path = "/parts/each", consumes = "multipart/form-data")
		@Idempotent(name = "multipart-body.each", key = "#key")
		Mono<ResponseEntity<Receipt>> each(@RequestPart("account") String account, @RequestPart("file") FilePart file,
				@RequestHeader("Idempotency-Key") String key) {
			return size(file).map((size) -> this.executions.created(key, account, size));
		}

		@PostMapping(path = "/parts/fields", consumes = "multipart/form-data")
		@Idempotent(name = "multipart-body.fields")
		ResponseEntity<Receipt> fields(@ModelAttribute Account form, @RequestPart("file") FilePart file,
				@RequestHeader("Idempotency-Key") String key) {
			return this.executions.created(key, form.account(), file.filename().length());
		}

		private static Mono<String> describe(Part part) {
			if (part instanceof FormFieldPart field) {
				return Mono.just(part.name() + "=" + field.value());
			}
			return size(part).map((size) -> part.name() + "=" + ((FilePart) part).filename() + ":" + size);
		}

		private static Mono<Long> size(Part part) {
			return DataBufferUtils.join(part.content()).map((buffer) -> {
				long size = buffer.readableByteCount();
				DataBufferUtils.release(buffer);
				return size;
			});
		}

	}

}
