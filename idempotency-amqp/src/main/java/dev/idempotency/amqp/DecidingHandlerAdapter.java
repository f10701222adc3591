package dev.idempotency.amqp;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;

import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.listener.adapter.HandlerAdapter;
import org.springframework.amqp.listener.adapter.InvocationResult;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * The handler of a listener adapter the application's own {@code AdapterProvider} made,
 * for a listener that returns a {@code CompletableFuture} or a {@code Mono}: the
 * adapter's handler, whose result is handed to the adapter through {@link AsyncFailures}
 * first. A failure of this library's is settled by it, and the adapter then gets a result
 * that never completes (it holds nothing: the adapter only registers a callback on it);
 * every other outcome reaches the adapter as it was. So the application's adapter does
 * what it does, and the rules still hold, where a subclass of ours could not replace it.
 * Every other method is the original handler's.
 */
final class DecidingHandlerAdapter extends HandlerAdapter {

	private final HandlerAdapter delegate;

	private final AsyncFailures failures;

	private volatile @Nullable TailRequeue tailRequeue;

	DecidingHandlerAdapter(InvocableHandlerMethod method, HandlerAdapter delegate, AsyncFailures failures) {
		super(method);
		this.delegate = delegate;
		this.failures = failures;
	}

	void requeueToTail(TailRequeue tailRequeue) {
		this.tailRequeue = tailRequeue;
	}

	@Override
	public InvocationResult invoke(org.springframework.messaging.Message<?> message, @Nullable Object... providedArgs)
			throws Exception {
		InvocationResult result = this.delegate.invoke(message, providedArgs);
		Message request = find(Message.class, providedArgs);
		Channel channel = find(Channel.class, providedArgs);
		Object value = (result != null) ? result.getReturnValue() : null;
		if (request == null || channel == null || value == null) {
			return result;
		}
		Object decided;
		if (value instanceof CompletableFuture<?> future) {
			decided = decided(future, request, channel);
		}
		else if (ContainerCreationInterceptor.isMono(value)) {
			decided = Monos.decided(value, (thrown) -> settles(request, channel, thrown));
		}
		else {
			return result;
		}
		return new InvocationResult(decided, result.getSendTo(), result.getReturnType(), result.getBean(),
				result.getMethod());
	}

	private CompletableFuture<@Nullable Object> decided(CompletableFuture<?> future, Message request, Channel channel) {
		CompletableFuture<@Nullable Object> decided = new CompletableFuture<>();
		future.whenComplete((value, thrown) -> {
			if (thrown == null) {
				decided.complete(value);
			}
			else if (!settles(request, channel, thrown)) {
				decided.completeExceptionally(thrown);
			}
		});
		return decided;
	}

	private boolean settles(Message request, Channel channel, Throwable thrown) {
		return this.failures.settle(request, channel, thrown, this.tailRequeue);
	}

	private static <T> @Nullable T find(Class<T> type, @Nullable Object[] arguments) {
		for (Object argument : arguments) {
			if (type.isInstance(argument)) {
				return type.cast(argument);
			}
		}
		return null;
	}

	@Override
	public String getMethodAsString(Object payload) {
		return this.delegate.getMethodAsString(payload);
	}

	@Override
	public Method getMethodFor(Object payload) {
		return this.delegate.getMethodFor(payload);
	}

	@Override
	public Type getReturnTypeFor(Object payload) {
		return this.delegate.getReturnTypeFor(payload);
	}

	@Override
	public Object getBean() {
		return this.delegate.getBean();
	}

	@Override
	public Method getMethod() {
		return this.delegate.getMethod();
	}

	@Override
	public boolean isAsyncReplies() {
		return this.delegate.isAsyncReplies();
	}

	@Override
	public @Nullable InvocationResult getInvocationResultFor(Object result, @Nullable Object inboundPayload) {
		return this.delegate.getInvocationResultFor(result, inboundPayload);
	}

	// Loaded only for a Mono, so that Reactor stays optional
	private static final class Monos {

		static Object decided(Object mono, java.util.function.Predicate<Throwable> settles) {
			return ((Mono<?>) mono).onErrorResume((thrown) -> settles.test(thrown) ? Mono.never() : Mono.error(thrown));
		}

	}

}
