package dev.idempotency.store.dynamodb;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The expressions of one write: its update (or none, for a put or a delete), its
 * condition, and their values. Every attribute is named through a placeholder
 * ({@code #owner} stands for {@code owner}), so that none is taken for one of DynamoDB's
 * reserved words; only the placeholders the expressions use are sent, as DynamoDB
 * requires.
 */
final class Condition {

	private static final Pattern NAME = Pattern.compile("#(\\w+)");

	private final @Nullable String update;

	private final String condition;

	private final Map<String, AttributeValue> values = new LinkedHashMap<>();

	private Condition(@Nullable String update, String condition) {
		this.update = update;
		this.condition = condition;
	}

	static Condition of(String condition) {
		return new Condition(null, condition);
	}

	static Condition update(String update, String condition) {
		return new Condition(update, condition);
	}

	Condition with(String placeholder, AttributeValue value) {
		this.values.put(placeholder, value);
		return this;
	}

	@Nullable String update() {
		return this.update;
	}

	String condition() {
		return this.condition;
	}

	Map<String, AttributeValue> values() {
		return this.values;
	}

	Map<String, String> names() {
		Map<String, String> names = new LinkedHashMap<>();
		addNames((this.update != null) ? this.update : "", names);
		addNames(this.condition, names);
		return names;
	}

	private static void addNames(String expression, Map<String, String> names) {
		Matcher matcher = NAME.matcher(expression);
		while (matcher.find()) {
			names.put(matcher.group(), matcher.group(1));
		}
	}

}
