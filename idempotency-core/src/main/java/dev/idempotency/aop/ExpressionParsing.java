package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Map;

import org.springframework.core.NativeDetector;
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

	private static final SpelParserConfiguration CONFIGURATION = configuration(NativeDetector.inNativeImage());

	private static final SpelExpressionParser PARSER = new SpelExpressionParser(CONFIGURATION);

	private ExpressionParsing() {
	}

	/**
	 * Return the configuration expressions are parsed with: compiled once they have run
	 * often, except in a native image, which cannot define a class at run time. There
	 * GraalVM throws an {@code UnsupportedFeatureError}, an {@code Error} that SpEL's
	 * fallback to interpretation does not catch, and every compilable expression would
	 * fail on the call that tries to compile it.
	 * @param inNativeImage whether the application runs as a native image
	 * @return the configuration
	 */
	static SpelParserConfiguration configuration(boolean inNativeImage) {
		return new SpelParserConfiguration(inNativeImage ? SpelCompilerMode.OFF : SpelCompilerMode.MIXED,
				ExpressionParsing.class.getClassLoader());
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
