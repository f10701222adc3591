package dev.idempotency.amqp;

import java.util.Arrays;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.util.Assert;

/**
 * Puts a configurer's two advices around a listener container's own advice chain:
 * outermost the one that decides what becomes of a failed message, innermost the one that
 * captures the listener's exception before any other advice sees it.
 */
final class ListenerAdviceChains {

	private final FailureDecidingInterceptor outermost;

	private final FailureCapturingInterceptor innermost;

	private final CopyPublisher.Shared publishers;

	ListenerAdviceChains(FailureDecidingInterceptor outermost, FailureCapturingInterceptor innermost,
			CopyPublisher.Shared publishers) {
		this.outermost = outermost;
		this.innermost = innermost;
		this.publishers = publishers;
	}

	/**
	 * Return the chain between the two advices, as
	 * {@link IdempotencyRabbitListenerConfigurer#adviceChain} describes.
	 * @param chain the container's own advice chain, outermost first
	 * @return the advice chain to set
	 */
	Advice[] around(Advice... chain) {
		Assert.notNull(chain, "'chain' must not be null");
		Assert.noNullElements(chain, "'chain' must not contain null elements");
		// A customizer that kept a configured chain may have added to it past our advice
		Advice[] own = Arrays.stream(chain).filter((advice) -> !isOwn(advice)).toArray(Advice[]::new);
		if (isConfigured(own)) {
			return chain.clone();
		}
		Advice[] configured = new Advice[own.length + 2];
		configured[0] = this.outermost;
		for (int i = 0; i < own.length; i++) {
			configured[i + 1] = (own[i] instanceof MethodInterceptor interceptor
					&& !(interceptor instanceof RepeatableProceedInterceptor))
							? new RepeatableProceedInterceptor(interceptor) : own[i];
		}
		configured[configured.length - 1] = this.innermost;
		return configured;
	}

	private boolean isOwn(Advice advice) {
		return advice == this.innermost
				|| (advice instanceof FailureDecidingInterceptor deciding && deciding.decidesAs(this.outermost));
	}

	// The chain of one container, whose outermost advice of ours knows the container: the
	// factory's, or one a ContainerCustomizer set, with or without our advice (then put
	// around it, so that the innermost still sees the listener's exceptions first); null
	// for a chain of another configurer's
	Advice @Nullable [] forContainer(Advice[] chain, AbstractMessageListenerContainer container) {
		Advice[] configured = around(chain);
		for (int i = 0; i < configured.length; i++) {
			if (configured[i] == this.outermost) {
				configured[i] = this.outermost.forContainer(container, this.publishers);
				return configured;
			}
		}
		return null;
	}

	/**
	 * Return whether an advice chain already holds the advice of a configurer.
	 * @param chain the advice chain
	 * @return whether it is configured
	 */
	static boolean isConfigured(Advice... chain) {
		return Arrays.stream(chain).anyMatch(FailureDecidingInterceptor.class::isInstance);
	}

}
