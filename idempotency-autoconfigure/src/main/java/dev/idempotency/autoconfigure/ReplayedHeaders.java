package dev.idempotency.autoconfigure;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.web.ResponseEntityResultCodec;

/**
 * The response headers that replays carry, as configured, less those never stored, with a
 * warning when the configuration lists one of those.
 */
final class ReplayedHeaders {

	private static final Log logger = LogFactory.getLog(ReplayedHeaders.class);

	private ReplayedHeaders() {
	}

	static List<String> of(IdempotencyHttpProperties http) {
		List<String> listed = http.getReplayedHeaders();
		List<String> ignored = listed.stream().filter(ReplayedHeaders::isNeverReplayed).toList();
		if (!ignored.isEmpty()) {
			logger.warn("idempotency.http.replayed-headers lists " + ignored + ", which is never stored nor "
					+ "replayed: a replay would hand the first caller's cookies to whoever sends its key; ignoring it");
		}
		return listed.stream().filter((name) -> !isNeverReplayed(name)).toList();
	}

	private static boolean isNeverReplayed(String name) {
		return ResponseEntityResultCodec.NEVER_REPLAYED_HEADERS.stream().anyMatch(name.trim()::equalsIgnoreCase);
	}

}
