package dev.idempotency.autoconfigure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.springframework.boot.test.system.CapturedOutput;

/**
 * The lines an application logged in Spring Boot's console format, as captured by
 * {@code OutputCaptureExtension}. Logger names may be printed shortened ({@code o.s.k.l.}
 * for {@code org.springframework.kafka.listener.}).
 */
public final class LoggedLines {

	// Date, level, process id, "---", the application and thread in brackets, logger, ":"
	private static final Pattern LINE = Pattern
		.compile("^\\S+\\s+(TRACE|DEBUG|INFO|WARN|ERROR)\\s+\\S+\\s+---\\s.*?\\]\\s+(\\S+)\\s+: (.*)$");

	private final List<String> lines;

	private LoggedLines(List<String> lines) {
		this.lines = lines;
	}

	/**
	 * Return the lines captured since a position of the output.
	 * @param output the captured output
	 * @param from the position, from {@code output.length()}
	 * @return the lines
	 */
	public static LoggedLines since(CapturedOutput output, int from) {
		return new LoggedLines(Arrays.asList(output.toString().substring(from).split("\\R")));
	}

	/**
	 * Return the frames of stack traces printed with a line of the loggers under any of
	 * the given names. Frames are attributed to the last logged line before them, so that
	 * a trace another test's closing client prints meanwhile (a Lettuce reconnect refused
	 * by a shut-down event loop) does not count.
	 * @param loggers the names
	 * @return the lines that start with a tab and {@code at}
	 */
	public List<String> stackTraceLinesFrom(String... loggers) {
		List<String> frames = new ArrayList<>();
		boolean attributed = false;
		for (String line : this.lines) {
			Matcher matcher = LINE.matcher(line);
			if (matcher.matches()) {
				attributed = Stream.of(loggers).anyMatch((logger) -> isUnder(matcher.group(2), logger));
			}
			else if (attributed && line.startsWith("\tat ")) {
				frames.add(line);
			}
		}
		return frames;
	}

	/**
	 * Return the lines at WARN or ERROR of the loggers under any of the given names.
	 * @param loggers the names
	 * @return the lines
	 */
	public List<String> atWarnOrError(String... loggers) {
		return Stream.of(loggers)
			.flatMap((logger) -> Stream.concat(from(logger, "WARN"), from(logger, "ERROR")))
			.toList();
	}

	/**
	 * Return the lines at a level of the loggers under a name.
	 * @param logger the name
	 * @param level the level
	 * @return the lines
	 */
	public Stream<String> from(String logger, String level) {
		return this.lines.stream().filter((line) -> {
			Matcher matcher = LINE.matcher(line);
			return matcher.matches() && matcher.group(1).equals(level) && isUnder(matcher.group(2), logger);
		});
	}

	private static boolean isUnder(String printed, String logger) {
		String[] printedParts = printed.split("\\.");
		String[] parts = logger.split("\\.");
		if (printedParts.length < parts.length) {
			return false;
		}
		for (int i = 0; i < parts.length; i++) {
			if (!printedParts[i].equals(parts[i]) && !printedParts[i].equals(parts[i].substring(0, 1))) {
				return false;
			}
		}
		return true;
	}

}
