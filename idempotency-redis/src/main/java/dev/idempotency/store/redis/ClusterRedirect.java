package dev.idempotency.store.redis;

import org.jspecify.annotations.Nullable;

/**
 * A cluster redirection, from an error reply such as {@code MOVED 3999 10.0.0.1:6381}:
 * the node to send a command to again, after {@code ASKING} when {@code ask} is set (the
 * slot is being migrated there).
 *
 * @param ask whether it is an {@code ASK} rather than a {@code MOVED}
 * @param host the host of the node
 * @param port its port
 */
record ClusterRedirect(boolean ask, String host, int port) {

	/**
	 * Read a redirection from an error reply.
	 * @param error the error's message
	 * @return the redirection, or {@code null} when the error is no redirection
	 */
	static @Nullable ClusterRedirect of(@Nullable String error) {
		if (error == null || !(error.startsWith("MOVED ") || error.startsWith("ASK "))) {
			return null;
		}
		String[] parts = error.split(" ");
		int colon = (parts.length == 3) ? parts[2].lastIndexOf(':') : -1;
		if (colon <= 0) {
			return null;
		}
		try {
			return new ClusterRedirect(parts[0].equals("ASK"), parts[2].substring(0, colon),
					Integer.parseInt(parts[2].substring(colon + 1)));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
