package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.expression.Expression;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

class ArgumentReferenceTests {

	private static final Method METHOD = ReflectionUtils.findMethod(ArgumentReferenceTests.class, "charge",
			String.class, String.class);

	private static final Map<String, Integer> INDEXES = Map.of("paymentId", 0, "root", 1, "p0", 0, "a0", 0, "p1", 1,
			"a1", 1);

	private final Object[] args = { "pay-1", "other" };

	@Test
	void variableThatNamesAnArgumentIsThatArgument() {
		assertThat(argument("#paymentId").valueOf(this.args)).isSameAs(this.args[0]);
		assertThat(argument("#p1").valueOf(this.args)).isSameAs(this.args[1]);
		assertThat(argument("#a0").valueOf(this.args)).isSameAs(this.args[0]);
	}

	@Test
	void argumentReferenceEvaluatesAsTheSameSpelExpression() {
		ArgumentReference reference = argument("#paymentId");
		KeyRoot root = new KeyRoot(METHOD, this, this.args);
		assertThat(reference.getExpressionString()).isEqualTo("#paymentId");
		assertThat(reference.getValue(new CallEvaluationContext(root, INDEXES, null))).isSameAs(this.args[0]);
	}

	@Test
	void builtInVariablesAndLongerExpressionsAreEvaluated() {
		assertThat(parse("#root")).isNotInstanceOf(ArgumentReference.class);
		assertThat(parse("#this")).isNotInstanceOf(ArgumentReference.class);
		assertThat(parse("#paymentId.length()")).isNotInstanceOf(ArgumentReference.class);
		assertThat(parse("#paymentId + #p1")).isNotInstanceOf(ArgumentReference.class);
		assertThat(parse("'#paymentId'")).isNotInstanceOf(ArgumentReference.class);
	}

	private static ArgumentReference argument(String text) {
		Expression expression = parse(text);
		assertThat(expression).isInstanceOf(ArgumentReference.class);
		return (ArgumentReference) expression;
	}

	private static Expression parse(String text) {
		return ExpressionParsing.parse("key", text, METHOD, INDEXES, true);
	}

	String charge(String paymentId, String root) {
		return paymentId + root;
	}

}
