package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent;
import dev.idempotency.aop.IdempotentOperation.ResultKind;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.Operation;
import dev.idempotency.engine.OperationSettings;

import org.springframework.core.MethodClassKey;
import org.springframework.core.ResolvableType;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@code @Idempotent} on methods (or their types) and resolves each once into an
 * {@link IdempotentOperation}: expressions parsed and checked, settings resolved with
 * their precedence, result codec prepared. Resolution happens when the pointcut first
 * matches a bean, so a mistake fails the application context at startup.
 */
public class IdempotentOperationSource {

	private final OperationSettingsResolver settings;

	private final ResultCodec codec;

	private final ArgumentNames argumentNames = new ArgumentNames();

	private final Map<Class<?>, Boolean> candidates = new ConcurrentHashMap<>();

	private final Map<MethodClassKey, Optional<IdempotentOperation>> cache = new ConcurrentHashMap<>();

	private final Map<String, IdempotentOperation> byName = new ConcurrentHashMap<>();

	private final RequestHandlerChecks handlers;

	/**
	 * Create an operation source that knows no request handlers
	 * ({@link RequestHandlerMethods#NONE}): every {@code @Idempotent} method needs a key
	 * expression. The codec is used as given: for a handler's {@code ResponseEntity} to
	 * replay with its status and headers, pass a codec that stores response entities
	 * ({@code idempotency-web}'s {@code ResponseEntityResultCodec.wrap}) and
	 * {@code idempotency-web}'s {@code SpringWebHandlerMethods} to the four-argument
	 * constructor, as the auto-configuration does.
	 * @param defaults global settings and per-operation overrides
	 * @param codec the codec that prepares each operation's result type
	 * @param valueResolver resolver of {@code ${...}} placeholders in annotation
	 * attributes, or {@code null}
	 */
	public IdempotentOperationSource(IdempotencyDefaults defaults, ResultCodec codec,
			@Nullable StringValueResolver valueResolver) {
		this(defaults, codec, valueResolver, RequestHandlerMethods.NONE);
	}

	/**
	 * Create an operation source that knows request handler methods, whose key and
	 * payload may come from the HTTP request.
	 * @param defaults global settings and per-operation overrides
	 * @param codec the codec that prepares each operation's result type
	 * @param valueResolver resolver of {@code ${...}} placeholders in annotation
	 * attributes, or {@code null}
	 * @param handlerMethods what tells request handlers from other methods
	 */
	public IdempotentOperationSource(IdempotencyDefaults defaults, ResultCodec codec,
			@Nullable StringValueResolver valueResolver, RequestHandlerMethods handlerMethods) {
		this.settings = new OperationSettingsResolver(defaults, valueResolver);
		this.codec = codec;
		this.handlers = new RequestHandlerChecks(handlerMethods);
	}

	/**
	 * Return the operation of a method called on a target class.
	 * @param method the method, possibly from an interface
	 * @param targetClass the class of the target bean
	 * @return the operation, or {@code null} if the method is not idempotent
	 * @throws IllegalStateException if the annotation is invalid
	 */
	public @Nullable IdempotentOperation getOperation(Method method, @Nullable Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		MethodClassKey key = new MethodClassKey(method, targetClass);
		Optional<IdempotentOperation> operation = this.cache.get(key);
		if (operation == null) {
			// Not computeIfAbsent: resolving can create beans (the result codec, beans in
			// #{...} attributes), and proxying those comes back here for their methods,
			// which a ConcurrentHashMap rejects as a recursive update.
			operation = Optional.ofNullable(resolve(method, targetClass));
			Optional<IdempotentOperation> raced = this.cache.putIfAbsent(key, operation);
			operation = (raced != null) ? raced : operation;
		}
		return operation.orElse(null);
	}

	/**
	 * Return whether methods of a class may be idempotent: whether the class, or a type
	 * it inherits from, carries {@code @Idempotent} on itself or on a method. Only the
	 * methods of such a class are then asked about one by one; the answer is kept per
	 * class. Fails when the class annotates a method of {@link Object}, which is never
	 * idempotent: proxies answer {@code equals} and {@code hashCode} without asking about
	 * them method by method, so such an annotation is found here, once per class, instead
	 * of being ignored.
	 * @param targetClass the class of a bean
	 * @return whether its methods may be idempotent
	 * @throws IllegalStateException if the class annotates {@code toString},
	 * {@code equals}, {@code hashCode}, {@code clone} or {@code finalize}
	 */
	public boolean isCandidateClass(Class<?> targetClass) {
		Boolean candidate = this.candidates.get(targetClass);
		if (candidate == null) {
			Class<?> userClass = ClassUtils.getUserClass(targetClass);
			candidate = IdempotentTypes.mayHaveOperations(userClass);
			if (candidate) {
				ObjectMethods.checkNotAnnotated(userClass);
			}
			this.candidates.put(targetClass, candidate);
		}
		return candidate;
	}

	/**
	 * Return every operation resolved so far, by name.
	 * @return the operations
	 */
	public Collection<IdempotentOperation> getOperations() {
		return Collections.unmodifiableCollection(this.byName.values());
	}

	private @Nullable IdempotentOperation resolve(Method method, @Nullable Class<?> targetClass) {
		AnnotatedMethod found = AnnotatedMethod.find(method, targetClass);
		if (found == null) {
			return null;
		}
		Method specific = found.method();
		Class<?> userClass = found.userClass();
		Idempotent annotation = found.annotation();
		if (found.onType() && this.handlers.servesOnlySafeMethods(specific, userClass)) {
			// A type's annotation covers its handlers that change state; a safe-only one
			// beside them (the GET of the same controller) has nothing to protect
			return null;
		}
		String name = found.operationName();
		Map<String, Integer> indexes = this.argumentNames.indexes(specific);
		boolean namesKnown = this.argumentNames.namesKnown(specific);
		boolean keyFromRequest = !StringUtils.hasText(annotation.key());
		if (keyFromRequest) {
			this.handlers.checkRequestHandler(specific, userClass);
		}
		Expression key = keyFromRequest ? null
				: ExpressionParsing.parse("key", annotation.key(), specific, indexes, namesKnown);
		boolean handler = keyFromRequest || this.handlers.isHandler(specific, userClass);
		boolean mapsSafeMethods = handler && this.handlers.checkReplayableHandler(specific, userClass);
		String payloadText = StringUtils.hasText(annotation.payload()) ? annotation.payload()
				: handler ? this.handlers.requestBody(specific, keyFromRequest) : null;
		Expression payload = (payloadText != null)
				? ExpressionParsing.parse("payload", payloadText, specific, indexes, namesKnown) : null;
		OperationSettings settings = this.settings.resolve(name, annotation, specific);
		ResultTypes.Resolved result = ResultTypes.resolve(specific, userClass);
		TypedCodec typedCodec = codecFor(specific, result);
		Operation operation = operation(name, settings, typedCodec,
				(keyFromRequest ? "the request's idempotency key header" : "key expression '" + annotation.key() + "'")
						+ " of " + IdempotentMessages.describe(specific),
				annotation, specific);
		boolean requestPayload = keyFromRequest && !StringUtils.hasText(annotation.payload());
		IdempotentOperation resolved = new IdempotentOperation(specific, userClass, annotation.key(), payloadText,
				operation, key, payload, indexes, result.kind(), handler, requestPayload, mapsSafeMethods);
		IdempotentOperation clash = this.byName.putIfAbsent(name, resolved);
		if (clash != null && !clash.method().equals(specific)) {
			throw new IllegalStateException("@Idempotent name '" + name + "' is used by both "
					+ IdempotentMessages.describe(clash.method()) + " and " + IdempotentMessages.describe(specific)
					+ ": give one of them another name, or their keys would collide");
		}
		return resolved;
	}

	private static Operation operation(String name, OperationSettings settings, @Nullable TypedCodec codec,
			String keySource, Idempotent annotation, Method method) {
		try {
			return new Operation(name, settings, codec, keySource, List.of(annotation.replayFailures()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("Invalid replayFailures of @Idempotent "
					+ IdempotentMessages.describe(method) + ": " + ex.getMessage());
		}
	}

	private @Nullable TypedCodec codecFor(Method method, ResultTypes.Resolved result) {
		ResolvableType type = result.valueType();
		Class<?> raw = type.toClass();
		if (raw == void.class || raw == Void.class) {
			return null;
		}
		try {
			return this.codec.forType(type);
		}
		catch (IllegalArgumentException ex) {
			String of = (result.kind() != ResultKind.VALUE)
					? "the value of its " + method.getReturnType().getSimpleName() + ": " : "";
			throw ResultTypes.unsupported(method, of + ex.getMessage());
		}
	}

}
