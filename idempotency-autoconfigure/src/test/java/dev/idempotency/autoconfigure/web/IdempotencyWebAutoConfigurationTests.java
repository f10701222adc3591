package dev.idempotency.autoconfigure.web;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.web.reactive.IdempotencyWebFluxAutoConfiguration;
import dev.idempotency.autoconfigure.web.servlet.IdempotencyWebMvcAutoConfiguration;
import dev.idempotency.web.IdempotencyProblemAdvice;
import dev.idempotency.aop.RequestBinding;
import dev.idempotency.web.reactive.IdempotencyWebFilter;
import dev.idempotency.web.reactive.ReactiveKeyScopeResolver;
import dev.idempotency.web.reactive.ReactiveRequestBinding;
import dev.idempotency.web.servlet.ServletKeyScopeResolver;
import dev.idempotency.web.servlet.ServletRequestBinding;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class IdempotencyWebAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(AopAutoConfiguration.class,
			IdempotencyAutoConfiguration.class, IdempotencyWebMvcAutoConfiguration.class,
			IdempotencyWebFluxAutoConfiguration.class);

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withPropertyValues("idempotency.store=memory")
		.withConfiguration(CONFIGURATIONS);

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withPropertyValues("idempotency.store=memory")
		.withConfiguration(CONFIGURATIONS);

	@Test
	void servletApplicationGetsTheServletBindingAndTheAdvice() {
		this.servlet.run((context) -> {
			assertThat(context).hasSingleBean(ServletRequestBinding.class)
				.hasSingleBean(IdempotencyProblemAdvice.class)
				.doesNotHaveBean(IdempotencyWebFilter.class);
		});
	}

	@Test
	void reactiveApplicationGetsTheFilterTheReactiveBindingAndTheAdvice() {
		this.reactive.run((context) -> {
			assertThat(context).hasSingleBean(ReactiveRequestBinding.class)
				.hasSingleBean(IdempotencyWebFilter.class)
				.hasSingleBean(IdempotencyProblemAdvice.class)
				.doesNotHaveBean(ServletRequestBinding.class);
		});
	}

	@Test
	void keysAreScopedByPrincipalUnlessTheApplicationDefinesAResolver() {
		this.servlet.run((context) -> assertThat(context).hasSingleBean(ServletKeyScopeResolver.class));
		this.reactive.run((context) -> assertThat(context).hasSingleBean(ReactiveKeyScopeResolver.class));
		ServletKeyScopeResolver servletScopes = (request) -> request.getHeader("X-Api-Key");
		this.servlet.withBean(ServletKeyScopeResolver.class, () -> servletScopes)
			.run((context) -> assertThat(context.getBean(ServletKeyScopeResolver.class)).isSameAs(servletScopes));
		ReactiveKeyScopeResolver reactiveScopes = (exchange) -> Mono.just("tenant");
		this.reactive.withBean(ReactiveKeyScopeResolver.class, () -> reactiveScopes)
			.run((context) -> assertThat(context.getBean(ReactiveKeyScopeResolver.class)).isSameAs(reactiveScopes));
	}

	@Test
	void applicationThatServesNoRequestsGetsNone() {
		new ApplicationContextRunner().withPropertyValues("idempotency.store=memory")
			.withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).doesNotHaveBean(RequestBinding.class)
				.doesNotHaveBean(IdempotencyProblemAdvice.class)
				.doesNotHaveBean(IdempotencyWebFilter.class));
	}

	@Test
	void withoutSpringMvcTheServletApplicationGetsNone() {
		this.servlet.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RequestBinding.class)
				.doesNotHaveBean(IdempotencyProblemAdvice.class));
	}

	@Test
	void withoutWebFluxTheReactiveApplicationGetsNone() {
		this.reactive.withClassLoader(new FilteredClassLoader(DispatcherHandler.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RequestBinding.class)
				.doesNotHaveBean(IdempotencyWebFilter.class));
	}

	@Test
	void disabledIdempotencyGetsNone() {
		this.servlet.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RequestBinding.class)
				.doesNotHaveBean(IdempotencyProblemAdvice.class));
	}

	@Test
	void applicationsOwnAdviceAndBindingReplaceTheDefaults() {
		this.servlet.withBean("ownAdvice", IdempotencyProblemAdvice.class, IdempotencyProblemAdvice::new)
			.withBean("ownBinding", RequestBinding.class, OwnBinding::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyProblemAdvice.class).hasBean("ownAdvice");
				assertThat(context).hasSingleBean(RequestBinding.class).hasBean("ownBinding");
			});
		this.reactive
			.withBean("ownFilter", IdempotencyWebFilter.class,
					() -> new IdempotencyWebFilter(
							new dev.idempotency.web.RequestKeys("X-Key", dev.idempotency.web.KeyScope.NONE)))
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyWebFilter.class).hasBean("ownFilter"));
	}

	@Test
	void emptyKeyHeaderPropertyFailsStartup() {
		this.servlet.withPropertyValues("idempotency.http.key-header= ")
			.run((context) -> assertThat(context).getFailure().rootCause().hasMessageContaining("key-header"));
	}

	@Test
	void maxKeyLengthPropertyBindsIntoTheServletBinding() {
		this.servlet.withPropertyValues("idempotency.http.max-key-length=8").run((context) -> {
			RequestBinding binding = context.getBean(RequestBinding.class);
			assertThat(bindKey(binding, "12345678")).endsWith(":12345678");
			assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> bindKey(binding, "123456789"))
				.withMessageContaining("longer than the 8 allowed");
		});
	}

	private static String bindKey(RequestBinding binding, String key) {
		MockHttpServletRequest request = new MockHttpServletRequest("POST", "/orders");
		request.addHeader("Idempotency-Key", key);
		RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
		try {
			return binding.bind("orders").key();
		}
		finally {
			RequestContextHolder.resetRequestAttributes();
		}
	}

	@Test
	void maxKeyLengthBelowOneFailsStartup() {
		this.servlet.withPropertyValues("idempotency.http.max-key-length=0")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("idempotency.http.max-key-length must be at least 1"));
		this.reactive.withPropertyValues("idempotency.http.max-key-length=0")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("idempotency.http.max-key-length must be at least 1"));
	}

	@Test
	void omittedKeyOutsideARequestHandlerFailsStartupNamingTheMethod() {
		this.servlet.withBean(Charges.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(Charges.class.getName() + ".charge(String)")
				.hasMessageContaining("has no key"));
	}

	static Stream<Arguments> streamingHandlers() {
		return Stream.of(arguments(SseHandler.class, "events()", SseEmitter.class),
				arguments(EmitterHandler.class, "emitter()", ResponseBodyEmitter.class),
				arguments(StreamingHandler.class, "stream()", StreamingResponseBody.class),
				arguments(ResourceHandler.class, "file()", ByteArrayResource.class),
				arguments(FluxHandler.class, "values()", Flux.class),
				arguments(EntityOfStreamingHandler.class, "stream()", StreamingResponseBody.class),
				arguments(MonoOfEntityOfResourceHandler.class, "file()", Resource.class),
				arguments(EntityOfFluxHandler.class, "values()", Flux.class));
	}

	@ParameterizedTest
	@MethodSource("streamingHandlers")
	void handlerReturningAStreamingTypeFailsStartupNamingTheMethod(Class<?> controller, String method,
			Class<?> streaming) {
		this.servlet.withBean(controller)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(controller.getName() + "." + method)
				.hasMessageContaining(
						"cannot replay its response: it returns a streaming type (" + streaming.getName() + ")"));
	}

	static Stream<Arguments> reactiveStreamingHandlers() {
		return Stream.of(arguments(FluxHandler.class, "values()", Flux.class),
				arguments(FluxOfEventsHandler.class, "events()", Flux.class),
				arguments(MonoOfEventHandler.class, "event()", ServerSentEvent.class),
				arguments(EventHandler.class, "event()", ServerSentEvent.class),
				arguments(EntityOfEventHandler.class, "event()", ServerSentEvent.class),
				arguments(ResourceHandler.class, "file()", ByteArrayResource.class),
				arguments(MonoOfResourceHandler.class, "file()", Resource.class),
				arguments(MonoOfEntityOfResourceHandler.class, "file()", Resource.class),
				arguments(EntityOfFluxHandler.class, "values()", Flux.class),
				arguments(MonoOfEntityOfFluxHandler.class, "values()", Flux.class));
	}

	@ParameterizedTest
	@MethodSource("reactiveStreamingHandlers")
	void webFluxHandlerReturningAStreamingTypeFailsStartupNamingTheMethod(Class<?> controller, String method,
			Class<?> streaming) {
		this.reactive.withBean(controller)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(controller.getName() + "." + method)
				.hasMessageContaining(
						"cannot replay its response: it returns a streaming type (" + streaming.getName() + ")"));
	}

	@ParameterizedTest
	@ValueSource(classes = { GetHandler.class, HeadAndOptionsHandler.class, GetOnTypeHandler.class })
	void handlerMappedOnlyToSafeMethodsFailsStartupNamingTheMethod(Class<?> controller) {
		this.servlet.withBean(controller)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(controller.getName() + ".read(String)")
				.hasMessageContaining("it is mapped only to safe methods"));
	}

	@ParameterizedTest
	@ValueSource(
			classes = { GetHandler.class, HeadAndOptionsHandler.class, GetOnTypeHandler.class, MonoGetHandler.class })
	void webFluxHandlerMappedOnlyToSafeMethodsFailsStartupNamingTheMethod(Class<?> controller) {
		this.reactive.withBean(controller)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(controller.getName() + ".read(String)")
				.hasMessageContaining("it is mapped only to safe methods"));
	}

	@Test
	void handlerMappedToSafeAndUnsafeMethodsStarts() {
		this.servlet.withBean(SafeAndUnsafeHandler.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@ParameterizedTest
	@ValueSource(classes = { SafeAndUnsafeHandler.class, MonoSafeAndUnsafeHandler.class })
	void webFluxHandlerMappedToSafeAndUnsafeMethodsStarts(Class<?> controller) {
		this.reactive.withBean(controller).run((context) -> assertThat(context).hasNotFailed());
	}

	@RestController
	static class SseHandler {

		@PostMapping("/events")
		@Idempotent
		SseEmitter events() {
			return new SseEmitter();
		}

	}

	@RestController
	static class EmitterHandler {

		@PostMapping("/emitter")
		@Idempotent
		ResponseBodyEmitter emitter() {
			return new ResponseBodyEmitter();
		}

	}

	@RestController
	static class StreamingHandler {

		@PostMapping("/stream")
		@Idempotent
		StreamingResponseBody stream() {
			return (out) -> out.write(1);
		}

	}

	@RestController
	static class ResourceHandler {

		@PostMapping("/file")
		@Idempotent
		ByteArrayResource file() {
			return new ByteArrayResource(new byte[1]);
		}

	}

	@RestController
	static class FluxHandler {

		@PostMapping("/values")
		@Idempotent
		Flux<String> values() {
			return Flux.just("a", "b");
		}

	}

	@RestController
	static class EntityOfStreamingHandler {

		@PostMapping("/stream")
		@Idempotent
		ResponseEntity<StreamingResponseBody> stream() {
			return ResponseEntity.ok((out) -> out.write(1));
		}

	}

	@RestController
	static class MonoOfEntityOfResourceHandler {

		@PostMapping("/file")
		@Idempotent(key = "'file'")
		Mono<ResponseEntity<Resource>> file() {
			return Mono.empty();
		}

	}

	@RestController
	static class EntityOfFluxHandler {

		@PostMapping("/values")
		@Idempotent
		ResponseEntity<Flux<String>> values() {
			return ResponseEntity.ok(Flux.just("a"));
		}

	}

	@RestController
	static class FluxOfEventsHandler {

		@PostMapping("/events")
		@Idempotent
		Flux<ServerSentEvent<String>> events() {
			return Flux.just(ServerSentEvent.builder("a").build());
		}

	}

	@RestController
	static class MonoOfEventHandler {

		@PostMapping("/event")
		@Idempotent
		Mono<ServerSentEvent<String>> event() {
			return Mono.just(ServerSentEvent.builder("a").build());
		}

	}

	@RestController
	static class EventHandler {

		@PostMapping("/event")
		@Idempotent
		ServerSentEvent<String> event() {
			return ServerSentEvent.builder("a").build();
		}

	}

	@RestController
	static class EntityOfEventHandler {

		@PostMapping("/event")
		@Idempotent
		ResponseEntity<ServerSentEvent<String>> event() {
			return ResponseEntity.ok(ServerSentEvent.builder("a").build());
		}

	}

	@RestController
	static class MonoOfResourceHandler {

		@PostMapping("/file")
		@Idempotent
		Mono<Resource> file() {
			return Mono.just(new ByteArrayResource(new byte[1]));
		}

	}

	@RestController
	static class MonoOfEntityOfFluxHandler {

		@PostMapping("/values")
		@Idempotent
		Mono<ResponseEntity<Flux<String>>> values() {
			return Mono.just(ResponseEntity.ok(Flux.just("a")));
		}

	}

	@RestController
	static class MonoGetHandler {

		@GetMapping("/items/{id}")
		@Idempotent
		Mono<String> read(@PathVariable String id) {
			return Mono.just(id);
		}

	}

	@RestController
	static class MonoSafeAndUnsafeHandler {

		@RequestMapping(path = "/items/{id}", method = { RequestMethod.GET, RequestMethod.PUT })
		@Idempotent
		Mono<String> read(@PathVariable String id) {
			return Mono.just(id);
		}

	}

	@RestController
	static class GetHandler {

		@GetMapping("/items/{id}")
		@Idempotent
		String read(@PathVariable String id) {
			return id;
		}

	}

	@RestController
	static class HeadAndOptionsHandler {

		@RequestMapping(path = "/items/{id}", method = { RequestMethod.HEAD, RequestMethod.OPTIONS })
		@Idempotent(key = "#id")
		String read(@PathVariable String id) {
			return id;
		}

	}

	@RestController
	@RequestMapping(method = RequestMethod.GET)
	static class GetOnTypeHandler {

		@RequestMapping("/items/{id}")
		@Idempotent
		String read(@PathVariable String id) {
			return id;
		}

	}

	@RestController
	static class SafeAndUnsafeHandler {

		@RequestMapping(path = "/items/{id}", method = { RequestMethod.GET, RequestMethod.POST })
		@Idempotent
		String read(@PathVariable String id) {
			return id;
		}

	}

	static class Charges {

		@Idempotent(name = "charges")
		public String charge(String id) {
			return id;
		}

	}

	static class OwnBinding implements RequestBinding {

		@Override
		public BoundRequest bind(String operation) {
			throw new IllegalStateException();
		}

		@Override
		public Response currentResponse() {
			return null;
		}

	}

}
