package dev.idempotency.aop;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.SpelNodeImpl;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * An expression that is one argument of its method and nothing else, such as
 * {@code #paymentId}, {@code #p0} or {@code #a0}: the interceptor takes its value from
 * the call's arguments without an evaluation context. Building a context on every call
 * ({@link CallEvaluationContext}, its root and its variable map) was most of what a key
 * cost; such an expression evaluates to the very same argument either way, and it still
 * evaluates as SpEL wherever a context is at hand.
 */
final class ArgumentReference extends SpelExpression {

	private final int index;

	private ArgumentReference(String text, SpelNodeImpl ast, SpelParserConfiguration configuration, int index) {
		super(text, ast, configuration);
		this.index = index;
	}

	/**
	 * Return the expression as an argument reference when it is a single variable that
	 * names an argument.
	 * @param parsed the parsed expression
	 * @param argumentIndexes argument positions by every name an expression may use
	 * @param configuration the configuration it was parsed with
	 * @return the argument reference, or the expression as it was
	 */
	static Expression of(SpelExpression parsed, Map<String, Integer> argumentIndexes,
			SpelParserConfiguration configuration) {
		SpelNode ast = parsed.getAST();
		if (!(ast instanceof VariableReference variable) || variable.getChildCount() != 0) {
			return parsed;
		}
		String name = variable.toStringAST().substring(1);
		// #root and #this are the root object and the current one, whatever the
		// parameters
		Integer index = ExpressionVariables.isBuiltIn(name) ? null : argumentIndexes.get(name);
		return (index != null) ? new ArgumentReference(parsed.getExpressionString(), variable, configuration, index)
				: parsed;
	}

	/**
	 * Return the value of this expression for a call.
	 * @param args the call's arguments
	 * @return the argument this expression names
	 */
	@Nullable Object valueOf(Object[] args) {
		return args[this.index];
	}

}
