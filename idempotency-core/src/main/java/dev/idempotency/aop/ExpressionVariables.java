package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;

/**
 * Checks that every variable a parsed key or payload expression uses names a parameter of
 * its method, so that a typo fails the application context instead of every call.
 */
final class ExpressionVariables {

	private static final Set<String> BUILT_IN = Set.of("root", "this");

	private ExpressionVariables() {
	}

	/**
	 * Check the variables of an expression.
	 * @param ast the expression's syntax tree
	 * @throws IllegalStateException if a variable names no parameter, listing the names
	 * that may be used
	 */
	static void check(String attribute, String text, Method method, SpelNode ast, Map<String, Integer> argumentIndexes,
			boolean namesKnown) {
		List<String> unknown = new ArrayList<>();
		collectUnknownVariables(ast, argumentIndexes, unknown);
		if (!unknown.isEmpty()) {
			String known = argumentIndexes.keySet()
				.stream()
				.filter((name) -> !isPositional(name))
				.sorted()
				.toList()
				.toString();
			String hint = namesKnown ? "parameters are " + known + ", or use #p0/#a0"
					: "parameter names are not available: compile with -parameters, or use #p0/#a0";
			throw IdempotentMessages.invalid(attribute, text, method, "unknown variable " + unknown + "; " + hint);
		}
	}

	private static void collectUnknownVariables(SpelNode node, Map<String, Integer> argumentIndexes,
			List<String> unknown) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!argumentIndexes.containsKey(name) && !isBuiltIn(name)) {
				unknown.add("#" + name);
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectUnknownVariables(node.getChild(i), argumentIndexes, unknown);
		}
	}

	static boolean isBuiltIn(String name) {
		return BUILT_IN.contains(name);
	}

	private static boolean isPositional(String name) {
		return name.length() > 1 && (name.charAt(0) == 'p' || name.charAt(0) == 'a')
				&& name.substring(1).chars().allMatch(Character::isDigit);
	}

}
