package dev.idempotency.autoconfigure.web;

import java.io.IOException;

import dev.idempotency.Idempotent;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestPart;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.multipart.MultipartFile;
import org.springframework.web.multipart.MultipartHttpServletRequest;

/**
 * Tests of Spring MVC handlers that read a multipart body themselves, on a real Tomcat.
 */
@SpringBootTest(classes = WebMvcMultipartBodyTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=servlet")
class WebMvcMultipartBodyTests extends MultipartBodyWebTests {

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
		String plain(MultipartHttpServletRequest request) {
			MultipartFile file = request.getFile("file");
			return "account=" + request.getParameter("account") + ",file=" + file.getOriginalFilename() + ":"
					+ file.getSize();
		}

		@PostMapping(path = "/parts/body", consumes = "multipart/form-data")
		@Idempotent(name = "multipart-body.parts", key = "#key")
		ResponseEntity<Receipt> body(MultipartHttpServletRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			return this.executions.created(key, request.getParameter("account"), request.getFile("file").getSize());
		}

		@PostMapping(path = "/parts/each", consumes = "multipart/form-data")
		@Idempotent(name = "multipart-body.each", key = "#key")
		ResponseEntity<Receipt> each(@RequestPart("account") String account, @RequestPart("file") MultipartFile file,
				@RequestHeader("Idempotency-Key") String key) throws IOException {
			return this.executions.created(key, account, file.getBytes().length);
		}

		@PostMapping(path = "/parts/fields", consumes = "multipart/form-data")
		@Idempotent(name = "multipart-body.fields")
		ResponseEntity<Receipt> fields(@ModelAttribute Account form, @RequestPart("file") MultipartFile file,
				@RequestHeader("Idempotency-Key") String key) {
			return this.executions.created(key, form.account(), file.getOriginalFilename().length());
		}

	}

}
