package dev.idempotency.test.jdbc;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The user a server of the tests runs as. A JVM that is not root runs its servers as
 * itself. Run as root, it runs them as the database's usual user when the machine has it
 * ({@code postgres}, {@code mysql}), else as {@code nobody}, and gives that user the
 * server's directory: PostgreSQL refuses to run as root, and a server running as root
 * would be a needless risk.
 *
 * @param name the user's name, or {@code null} for the JVM's own user
 * @param group the user's primary group id, or {@code null} for the JVM's own user
 */
record ServerUser(@Nullable String name, @Nullable String group) {

	private static final String FALLBACK = "nobody";

	/**
	 * Choose the user a server runs as, and give it the server's directory.
	 * @param directory the server's directory, just created by this JVM
	 * @param preferred the database's usual user
	 * @return the user
	 */
	static ServerUser owning(Path directory, String preferred) {
		try {
			if (!"root".equals(Files.getOwner(directory).getName())) {
				return new ServerUser(null, null);
			}
			UserPrincipalLookupService users = FileSystems.getDefault().getUserPrincipalLookupService();
			UserPrincipal user = lookup(users, preferred);
			if (user == null) {
				user = users.lookupPrincipalByName(FALLBACK);
			}
			Files.setOwner(directory, user);
			return new ServerUser(user.getName(), Commands.output("id", "-g", user.getName()));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not give " + directory + " to a user other than root", ex);
		}
	}

	private static @Nullable UserPrincipal lookup(UserPrincipalLookupService users, String name) throws IOException {
		try {
			return users.lookupPrincipalByName(name);
		}
		catch (UserPrincipalNotFoundException ex) {
			return null;
		}
	}

	/**
	 * Return a command that runs a program as this user, with {@code setpriv}, which
	 * executes the program in its own place (unlike {@code runuser} or {@code su}, which
	 * stay as its parent), so that signals reach the program itself.
	 * @param command the program and its arguments
	 * @return the command
	 */
	List<String> run(List<String> command) {
		if (this.name == null) {
			return command;
		}
		List<String> wrapped = new ArrayList<>(
				List.of("setpriv", "--reuid=" + this.name, "--regid=" + this.group, "--init-groups", "--"));
		wrapped.addAll(command);
		return wrapped;
	}

}
