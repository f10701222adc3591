package dev.idempotency.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.Version;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.deser.ValueInstantiator;
import tools.jackson.databind.deser.ValueInstantiators;
import tools.jackson.databind.deser.std.StdValueInstantiator;
import tools.jackson.databind.introspect.AnnotatedConstructor;

/**
 * Makes Jackson call the constructor of a record, or of any class it builds through a
 * properties-based constructor, with a method handle spread once per type.
 * <p>
 * jackson-databind 3.1 calls such constructors with
 * {@code MethodHandle.invokeWithArguments}, which builds a new spreader on every call:
 * decoding a 200-byte record spent a quarter of its time there, and replays decode on
 * every call. Only Jackson's own {@link StdValueInstantiator} with a constructor is
 * replaced, by a copy that differs in nothing but how it calls the constructor; failures
 * are reported as Jackson reports them. Custom instantiators, factory-method creators and
 * constructors the codec may not access are left as they are.
 */
final class ConstructorCreatorModule extends JacksonModule {

	@Override
	public String getModuleName() {
		return ConstructorCreatorModule.class.getName();
	}

	@Override
	public Version version() {
		return Version.unknownVersion();
	}

	@Override
	public void setupModule(SetupContext context) {
		context.addValueInstantiators(new SpreadConstructors());
	}

	/**
	 * Replaces the instantiators that call a constructor with an argument array.
	 */
	static final class SpreadConstructors implements ValueInstantiators {

		private static final MethodType ARRAY_TO_OBJECT = MethodType.methodType(Object.class, Object[].class);

		@Override
		public @Nullable ValueInstantiator findValueInstantiator(DeserializationConfig config,
				BeanDescription.Supplier beanDescRef) {
			return null;
		}

		@Override
		public ValueInstantiator modifyValueInstantiator(DeserializationConfig config,
				BeanDescription.Supplier beanDescRef, ValueInstantiator instantiator) {
			if (instantiator.getClass() != StdValueInstantiator.class) {
				return instantiator;
			}
			StdValueInstantiator standard = (StdValueInstantiator) instantiator;
			if (!(standard.getWithArgsCreator() instanceof AnnotatedConstructor creator)) {
				return instantiator;
			}
			MethodHandle spread = spread(creator.getAnnotated());
			return (spread != null) ? new SpreadConstructorInstantiator(standard, spread) : instantiator;
		}

		// Jackson has already made the constructor accessible where it may; one it could
		// not open is left to Jackson, which reports it as it always does.
		private static @Nullable MethodHandle spread(Constructor<?> constructor) {
			try {
				return MethodHandles.lookup()
					.unreflectConstructor(constructor)
					.asSpreader(Object[].class, constructor.getParameterCount())
					.asType(ARRAY_TO_OBJECT);
			}
			catch (IllegalAccessException | RuntimeException ex) {
				return null;
			}
		}

	}

	/**
	 * Jackson's instantiator, calling its constructor through a spread handle.
	 */
	static final class SpreadConstructorInstantiator extends StdValueInstantiator {

		private final MethodHandle constructor;

		SpreadConstructorInstantiator(StdValueInstantiator source, MethodHandle constructor) {
			super(source);
			this.constructor = constructor;
		}

		@Override
		public Object createFromObjectWith(DeserializationContext context, Object[] args) {
			try {
				return (Object) this.constructor.invokeExact(args);
			}
			catch (Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				return context.handleInstantiationProblem(getValueClass(), args, rewrapCtorProblem(context, ex));
			}
		}

	}

}
