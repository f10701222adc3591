package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Map;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses key and payload expressions at startup and checks their variables with
 * {@link ExpressionVariables}, so that a typo fails the application context instead of
 * every call.
 */
final class ExpressionParsing {

	private static final SpelParserConfiguration CONFIGURATION = new SpelParserConfiguration(SpelCompilerMode.MIXED,
			ExpressionParsing.class.getClassLoader());

	private static final SpelExpressionParser PARSER = new SpelExpressionParser(CONFIGURATION);

	private ExpressionParsing() {
	}

	static Expression parse(String attribute, String text, Method method, Map<String, Integer> argumentIndexes,
			boolean namesKnown) {
		Expression expression;
		try {
			expression = PARSER.parseExpression(text);
		}
		catch (ParseException ex) {
			throw IdempotentMessages.invalid(attribute, text, method, ex.getMessage());
		}
		SpelExpression parsed = (SpelExpression) expression;
		ExpressionVariables.check(attribute, text, method, parsed.getAST(), argumentIndexes, namesKnown);
		return ArgumentReference.of(parsed, argumentIndexes, CONFIGURATION);
	}

}
