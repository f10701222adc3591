package dev.idempotency.autoconfigure.aot;

import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.util.function.ThrowingConsumer;

/**
 * Runs an application as a native image or {@code spring.aot.enabled=true} would: its
 * configuration processed ahead of time (conditions decided, bean definitions written as
 * code, runtime hints gathered), the generated code compiled, and a new context refreshed
 * from it alone. Test classes that use it are annotated with
 * {@code @CompileWithForkedClassLoader}, so that generated code can reach package-private
 * classes.
 */
final class AotContexts {

	private AotContexts() {
	}

	/**
	 * Process a configuration ahead of time, refresh a context from the generated code,
	 * and hand it to a test; the context is closed afterwards.
	 * @param <C> the type of context
	 * @param contexts makes the context, once for the build and once for the run
	 * @param configuration the application's configuration class
	 * @param properties the environment of both
	 * @param test what to check, given the refreshed context and the hints gathered
	 */
	static <C extends GenericApplicationContext> void run(Supplier<C> contexts, Class<?> configuration,
			Map<String, Object> properties, ThrowingConsumer<Refreshed<C>> test) {
		C build = contexts.get();
		build.setEnvironment(environment(properties));
		AnnotationConfigUtils.registerAnnotationConfigProcessors(build);
		build.registerBean(configuration);
		TestGenerationContext generationContext = new TestGenerationContext();
		ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(build, generationContext);
		generationContext.writeGeneratedContent();
		TestCompiler.forSystem().with(generationContext).compile((compiled) -> {
			@SuppressWarnings("unchecked")
			ApplicationContextInitializer<GenericApplicationContext> generated = compiled
				.getInstance(ApplicationContextInitializer.class, initializer.reflectionName());
			C context = contexts.get();
			context.setEnvironment(environment(properties));
			generated.initialize(context);
			context.refresh();
			try {
				test.accept(new Refreshed<>(context, generationContext.getRuntimeHints(),
						Set.copyOf(generationContext.getGeneratedFiles().getGeneratedFiles(Kind.CLASS).keySet())));
			}
			finally {
				context.close();
			}
		});
	}

	private static StandardEnvironment environment(Map<String, Object> properties) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
		return environment;
	}

	/**
	 * A context refreshed from generated code, and the hints and classes its build
	 * gathered.
	 *
	 * @param <C> the type of context
	 * @param context the context
	 * @param hints the runtime hints a native image would be built with
	 * @param generatedClasses the paths of the class files the build generated (CGLIB
	 * proxies among them)
	 */
	record Refreshed<C>(C context, RuntimeHints hints, Set<String> generatedClasses) {

		/**
		 * Whether the build generated a class: a native image cannot generate one at run
		 * time, so every CGLIB proxy class of the context must be.
		 * @param type the class, such as that of a proxy
		 * @return whether its class file is among those the build generated
		 */
		boolean generatedAtBuildTime(Class<?> type) {
			return this.generatedClasses.contains(type.getName().replace('.', '/') + ".class");
		}

	}

}
