package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses key and payload expressions at startup and checks that every variable they use
 * names a parameter, so that a typo fails the application context instead of every call.
 */
final class ExpressionParsing {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser(
			new SpelParserConfiguration(SpelCompilerMode.MIXED, ExpressionParsing.class.getClassLoader()));

	private static final Set<String> BUILT_IN = Set.of("root", "this");

	private ExpressionParsing() {
	}

	static Expression parse(String attribute, String text, Method method, Map<String, Integer> argumentIndexes,
			boolean namesKnown) {
		Expression expression;
		try {
			expression = PARSER.parseExpression(text);
		}
		catch (ParseException ex) {
			throw invalid(attribute, text, method, ex.getMessage());
		}
		List<String> unknown = new ArrayList<>();
		collectUnknownVariables(((SpelExpression) expression).getAST(), argumentIndexes, unknown);
		if (!unknown.isEmpty()) {
			String known = argumentIndexes.keySet()
				.stream()
				.filter((name) -> !isPositional(name))
				.sorted()
				.toList()
				.toString();
			String hint = namesKnown ? "parameters are " + known + ", or use #p0/#a0"
					: "parameter names are not available: compile with -parameters, or use #p0/#a0";
			throw invalid(attribute, text, method, "unknown variable " + unknown + "; " + hint);
		}
		return expression;
	}

	private static void collectUnknownVariables(SpelNode node, Map<String, Integer> argumentIndexes,
			List<String> unknown) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!argumentIndexes.containsKey(name) && !BUILT_IN.contains(name)) {
				unknown.add("#" + name);
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectUnknownVariables(node.getChild(i), argumentIndexes, unknown);
		}
	}

	private static boolean isPositional(String name) {
		return name.length() > 1 && (name.charAt(0) == 'p' || name.charAt(0) == 'a')
				&& name.substring(1).chars().allMatch(Character::isDigit);
	}

	// The reason carries the cause's message instead of chaining it, so that the root
	// cause of a failed startup names the method and the expression.
	static IllegalStateException invalid(String attribute, String text, Method method, @Nullable String reason) {
		return new IllegalStateException(
				"Invalid @Idempotent(" + attribute + " = \"" + text + "\") on " + describe(method) + ": " + reason);
	}

	static String describe(Method method) {
		StringBuilder builder = new StringBuilder(method.getDeclaringClass().getName()).append('.')
			.append(method.getName())
			.append('(');
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			builder.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return builder.append(')').toString();
	}

}
