package dev.idempotency.test.dynamodb;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.test.process.AbstractServerProcess;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A dynalite of this JVM, in a temporary directory of its own (its data in {@code data},
 * when kept on disk), listening on a free port of 127.0.0.1. It is killed and its
 * directory deleted when the JVM exits, or, through its watchdog, within a second or two
 * after the JVM is killed.
 */
final class DynaliteProcess extends AbstractServerProcess implements PrivateDynamoDbServer {

	private static final String CRASH_SIGNAL = "KILL";

	private final Dynalite dynalite;

	private final @Nullable Path data;

	private final URI endpoint;

	private DynaliteProcess(Dynalite dynalite, Path directory, boolean onDisk, int port, long owner) {
		super("dynalite-watchdog", directory, port, owner);
		this.dynalite = dynalite;
		this.data = onDisk ? directory.resolve("data") : null;
		this.endpoint = URI.create("http://" + HOST + ":" + port);
	}

	/**
	 * Start a dynalite and wait until it answers.
	 * @param dynalite the machine's dynalite
	 * @param onDisk whether it keeps its data on disk (which survives a restart) rather
	 * than in memory
	 * @return the running server
	 */
	static DynaliteProcess start(Dynalite dynalite, boolean onDisk) {
		return start(dynalite, onDisk, ProcessHandle.current().pid());
	}

	/**
	 * Start a dynalite that lives no longer than a process, and wait until it answers.
	 * @param dynalite the machine's dynalite
	 * @param onDisk whether it keeps its data on disk rather than in memory
	 * @param owner the process whose end kills the server and deletes its directory
	 * @return the running server
	 */
	static DynaliteProcess start(Dynalite dynalite, boolean onDisk, long owner) {
		return start("idempotency-dynalite-",
				(directory) -> (port) -> new DynaliteProcess(dynalite, directory, onDisk, port, owner));
	}

	@Override
	public URI endpoint() {
		return this.endpoint;
	}

	@Override
	public DynamoDbClient client() {
		return Clients.create(this.endpoint);
	}

	@Override
	public String describe() {
		return this.dynalite + " on " + HOST + ":" + port() + " with its data "
				+ ((this.data != null) ? "in " + this.data : "in memory");
	}

	@Override
	protected List<String> command() {
		return this.dynalite.command(HOST, port(), this.data);
	}

	@Override
	protected void awaitReady(Supplier<@Nullable String> exited, Supplier<String> log) {
		Answering.await(describe(), this.endpoint, exited, log);
	}

	@Override
	protected String crashSignal() {
		return CRASH_SIGNAL;
	}

}
