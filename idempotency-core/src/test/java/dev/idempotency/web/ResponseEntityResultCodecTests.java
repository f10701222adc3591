package dev.idempotency.web;

import java.net.URI;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.codec.ResultTooLargeException;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ResponseEntityResultCodecTests {

	private final ResultCodec codec = ResponseEntityResultCodec.wrap(new JacksonResultCodec());

	@Test
	void responseEntityKeepsStatusHeadersAndBodyOfTheDeclaredType() {
		TypedCodec typed = codecFor(new ParameterizedTypeReference<ResponseEntity<List<Receipt>>>() {
		});
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
		ResponseEntity<String> entity = ResponseEntity.ok().header("X-Padding", "p".repeat(100)).body("small");
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
