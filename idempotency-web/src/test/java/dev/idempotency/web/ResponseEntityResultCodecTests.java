package dev.idempotency.web;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.codec.ResultTooLargeException;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ResponseEntityResultCodecTests {

	private final ResultCodec codec = ResponseEntityResultCodec.wrap(new JacksonResultCodec());

	@Test
	void responseEntityKeepsStatusHeadersAndBodyOfTheDeclaredType() {
		TypedCodec typed = ResponseEntityResultCodec
			.wrap(new JacksonResultCodec(), List.of("Location", "x-trace"), false)
			.forType(ResolvableType.forType(new ParameterizedTypeReference<ResponseEntity<List<Receipt>>>() {
			}));
		ResponseEntity<List<Receipt>> entity = ResponseEntity.created(URI.create("/receipts/1"))
			.header("X-Trace", "a", "b")
			.body(List.of(new Receipt("r-1", 1250)));
		Object decoded = typed.decode(typed.encode(entity));
		assertThat(decoded).isInstanceOf(ResponseEntity.class);
		ResponseEntity<?> replayed = (ResponseEntity<?>) decoded;
		assertThat(replayed.getStatusCode()).isEqualTo(HttpStatus.CREATED);
		assertThat(replayed.getHeaders().getLocation()).isEqualTo(URI.create("/receipts/1"));
		assertThat(replayed.getHeaders().get("X-Trace")).containsExactly("a", "b");
		assertThat(replayed.getBody()).isEqualTo(List.of(new Receipt("r-1", 1250)));
	}

	@Test
	void onlyContentTypeAndTheDefaultHeadersAreStored() {
		TypedCodec typed = codecFor(new ParameterizedTypeReference<ResponseEntity<String>>() {
		});
		ResponseEntity<String> entity = responseWithEveryKindOfHeader();
		HttpHeaders replayed = ((ResponseEntity<?>) typed.decode(typed.encode(entity))).getHeaders();
		assertThat(replayed.headerNames()).containsExactlyInAnyOrder("Content-Type", "Location", "ETag", "Link");
		assertThat(replayed.getFirst("Link")).isEqualTo("</next>; rel=\"next\"");
		assertThat(entity.getHeaders().headerNames()).contains("Set-Cookie", "X-Custom");
		assertThat(new String(typed.encode(entity), StandardCharsets.ISO_8859_1)).doesNotContain("session")
			.doesNotContain("custom");
	}

	@Test
	void listedHeadersAreStoredWhateverTheirCaseButNeverACookie() {
		TypedCodec typed = ResponseEntityResultCodec
			.wrap(new JacksonResultCodec(), List.of("x-CUSTOM", "set-cookie", "Set-Cookie2"), false)
			.forType(ResolvableType.forType(new ParameterizedTypeReference<ResponseEntity<String>>() {
			}));
		ResponseEntity<String> entity = responseWithEveryKindOfHeader();
		HttpHeaders replayed = ((ResponseEntity<?>) typed.decode(typed.encode(entity))).getHeaders();
		assertThat(replayed.headerNames()).containsExactlyInAnyOrder("Content-Type", "X-Custom");
		assertThat(replayed.get("X-Custom")).containsExactly("custom-1", "custom-2");
	}

	@Test
	void recordStoredWithEveryHeaderReplaysOnlyTheAllowedOnes() throws IOException {
		TypedCodec typed = codecFor(new ParameterizedTypeReference<ResponseEntity<String>>() {
		});
		// The stored form written before the allow-list: every header of the response
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeByte(1);
			out.writeBoolean(true);
			out.writeInt(201);
			Map<String, List<String>> headers = new LinkedHashMap<>();
			headers.put("Set-Cookie", List.of("session=first", "theme=dark"));
			headers.put("Location", List.of("/receipts/1"));
			headers.put("X-Custom", List.of("custom"));
			headers.put("Content-Type", List.of("text/plain"));
			out.writeInt(headers.size());
			for (Map.Entry<String, List<String>> header : headers.entrySet()) {
				out.writeUTF(header.getKey());
				out.writeInt(header.getValue().size());
				for (String value : header.getValue()) {
					out.writeUTF(value);
				}
			}
			byte[] body = "\"stored\"".getBytes(StandardCharsets.UTF_8);
			out.writeInt(body.length);
			out.write(body);
		}
		ResponseEntity<?> replayed = (ResponseEntity<?>) typed.decode(bytes.toByteArray());
		assertThat(replayed.getStatusCode()).isEqualTo(HttpStatus.CREATED);
		assertThat(replayed.getHeaders().headerNames()).containsExactlyInAnyOrder("Location", "Content-Type");
		assertThat(replayed.getBody()).isEqualTo("stored");
	}

	private static ResponseEntity<String> responseWithEveryKindOfHeader() {
		return ResponseEntity.created(URI.create("/receipts/1"))
			.header(HttpHeaders.SET_COOKIE, "session=first-caller")
			.header("Set-Cookie2", "session=first-caller")
			.header("X-Custom", "custom-1", "custom-2")
			.eTag("\"v1\"")
			.header("Link", "</next>; rel=\"next\"")
			.contentType(MediaType.TEXT_PLAIN)
			.body("body");
	}

	@Test
	void serverErrorIsAFailureUnlessServerErrorsAreReplayed() {
		ParameterizedTypeReference<ResponseEntity<String>> type = new ParameterizedTypeReference<>() {
		};
		TypedCodec released = codecFor(type);
		TypedCodec replayed = ResponseEntityResultCodec.wrap(new JacksonResultCodec(), List.of(), true)
			.forType(ResolvableType.forType(type));
		ResponseEntity<String> outage = ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("later");
		assertThat(released.isFailure(outage)).isTrue();
		assertThat(released.isFailure(ResponseEntity.internalServerError().build())).isTrue();
		assertThat(released.isFailure(ResponseEntity.status(422).body("no"))).isFalse();
		assertThat(released.isFailure(ResponseEntity.ok("fine"))).isFalse();
		assertThat(released.isFailure(null)).isFalse();
		assertThat(replayed.isFailure(outage)).isFalse();
		assertThat(((ResponseEntity<?>) replayed.decode(replayed.encode(outage))).getStatusCode())
			.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
	}

	@Test
	void responseEntityWithoutBodyOrOfVoidReplaysWithoutBody() {
		TypedCodec typed = codecFor(new ParameterizedTypeReference<ResponseEntity<Void>>() {
		});
		ResponseEntity<?> replayed = (ResponseEntity<?>) typed.decode(typed.encode(ResponseEntity.noContent().build()));
		assertThat(replayed.getStatusCode()).isEqualTo(HttpStatus.NO_CONTENT);
		assertThat(replayed.getBody()).isNull();
		assertThat(typed.decode(typed.encode(null))).isNull();
	}

	@Test
	void otherTypesAreLeftToTheBodyCodec() {
		TypedCodec typed = codecFor(new ParameterizedTypeReference<Receipt>() {
		});
		assertThat(new String(typed.encode(new Receipt("r-2", 5)))).isEqualTo("{\"id\":\"r-2\",\"amount\":5}");
	}

	@Test
	void bodyThatCannotBeReplayedFailsPreparationNamingTheType() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> codecFor(new ParameterizedTypeReference<ResponseEntity<Object>>() {
			}))
			.withMessageContaining("The body of")
			.withMessageContaining("ResponseEntity<java.lang.Object>");
	}

	@Test
	void encodingLargerThanTheLimitIsTooLarge() {
		TypedCodec typed = codecFor(new ParameterizedTypeReference<ResponseEntity<String>>() {
		});
		ResponseEntity<String> entity = ResponseEntity.ok().header("Link", "p".repeat(100)).body("small");
		assertThatExceptionOfType(ResultTooLargeException.class).isThrownBy(() -> typed.encode(entity, 50));
		assertThat(typed.encode(entity, 1000)).hasSizeLessThanOrEqualTo(1000);
	}

	@Test
	void truncatedBytesFailDecoding() {
		TypedCodec typed = codecFor(new ParameterizedTypeReference<ResponseEntity<String>>() {
		});
		byte[] bytes = typed.encode(ResponseEntity.ok("body"));
		assertThatIllegalArgumentException().isThrownBy(() -> typed.decode(java.util.Arrays.copyOf(bytes, 8)));
	}

	@Test
	void wrappingTwiceWrapsOnce() {
		assertThat(ResponseEntityResultCodec.wrap(this.codec)).isSameAs(this.codec);
	}

	private TypedCodec codecFor(ParameterizedTypeReference<?> type) {
		return this.codec.forType(ResolvableType.forType(type));
	}

	record Receipt(String id, long amount) {

	}

}
