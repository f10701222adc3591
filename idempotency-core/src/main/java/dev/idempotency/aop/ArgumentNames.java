package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;

/**
 * The names by which the expressions of an {@code @Idempotent} method refer to its
 * arguments: {@code p0}, {@code a0} and so on, and their parameter names when the class
 * was compiled with {@code -parameters}.
 */
final class ArgumentNames {

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	/**
	 * Return the index of each argument of a method by each of its names.
	 * @param method the method
	 * @return the indexes by name
	 */
	Map<String, Integer> indexes(Method method) {
		Map<String, Integer> indexes = new HashMap<>();
		String[] names = this.parameterNames.getParameterNames(method);
		for (int i = 0; i < method.getParameterCount(); i++) {
			indexes.put("p" + i, i);
			indexes.put("a" + i, i);
			if (names != null) {
				indexes.put(names[i], i);
			}
		}
		return Map.copyOf(indexes);
	}

	/**
	 * Return whether the parameter names of a method are known, for messages about
	 * expressions that name an argument.
	 * @param method the method
	 * @return whether its parameters can be referred to by name
	 */
	boolean namesKnown(Method method) {
		return this.parameterNames.getParameterNames(method) != null;
	}

}
