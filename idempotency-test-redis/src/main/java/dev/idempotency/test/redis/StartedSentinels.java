package dev.idempotency.test.redis;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A primary, a replica and three sentinels that this JVM started.
 */
final class StartedSentinels implements RedisSentinels {

	static final String MASTER_NAME = "idempotency-test";

	private static final int SENTINELS = 3;

	private static final int QUORUM = 2;

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private static final Duration INFO_PERIOD = Duration.ofSeconds(1);

	private static final Duration PUBLISH_PERIOD = Duration.ofMillis(500);

	private final List<RedisServer> servers;

	private final List<RedisServer> sentinels;

	private final RedisAdmin admin;

	private StartedSentinels(List<RedisServer> servers, List<RedisServer> sentinels, RedisAdmin admin) {
		this.servers = List.copyOf(servers);
		this.sentinels = List.copyOf(sentinels);
		this.admin = admin;
	}

	/**
	 * Start a primary, its replica and three sentinels, and wait until every sentinel
	 * knows the replica and the two other sentinels.
	 * @param launcher starts each server
	 * @return the running set
	 */
	static StartedSentinels start(RedisLauncher launcher) {
		List<RedisServer> servers = new ArrayList<>();
		List<RedisServer> sentinels = new ArrayList<>();
		RedisAdmin admin = new RedisAdmin();
		try {
			RedisServer primary = launcher.start(RedisServerSettings.STANDARD);
			servers.add(primary);
			servers.add(launcher.start(RedisServerSettings.replicaOf(primary.host(), primary.port())));
			for (int i = 0; i < SENTINELS; i++) {
				RedisServer sentinel = launcher.start(RedisServerSettings.sentinel(config(primary)));
				sentinels.add(sentinel);
				admin.callSentinel(sentinel, StartedSentinels::quicken);
			}
			StartedSentinels started = new StartedSentinels(servers, sentinels, admin);
			Poll.until("every sentinel of " + started + " aware of the replica and the other sentinels", TIMEOUT,
					started::checkAware);
			return started;
		}
		catch (RuntimeException ex) {
			RedisServers.closeAll(sentinels, ex);
			RedisServers.closeAll(servers, ex);
			admin.close();
			throw ex;
		}
	}

	private static String config(RedisServer primary) {
		return String.join("\n",
				"sentinel monitor " + MASTER_NAME + " " + primary.host() + " " + primary.port() + " " + QUORUM,
				"sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
				"sentinel failover-timeout " + MASTER_NAME + " 5000", "sentinel parallel-syncs " + MASTER_NAME + " 1",
				"");
	}

	/**
	 * Have a sentinel ask the servers for their state every second rather than every ten,
	 * and greet the other sentinels twice a second rather than every two: it then sees a
	 * demoted primary linked to its successor, and a failover can follow another, within
	 * seconds.
	 */
	private static String quicken(RedisSentinelCommands<String, String> commands) {
		return commands.dispatch(CommandType.SENTINEL, new StatusOutput<>(StringCodec.UTF8),
				new CommandArgs<>(StringCodec.UTF8).add("DEBUG")
					.add("INFO-PERIOD")
					.add(INFO_PERIOD.toMillis())
					.add("PUBLISH-PERIOD")
					.add(PUBLISH_PERIOD.toMillis()));
	}

	private boolean checkAware() {
		for (RedisServer sentinel : this.sentinels) {
			Map<String, String> master = this.admin.callSentinel(sentinel, (commands) -> commands.master(MASTER_NAME));
			if (!"master".equals(master.get("flags")) || !"1".equals(master.get("num-slaves"))
					|| !Integer.toString(SENTINELS - 1).equals(master.get("num-other-sentinels"))) {
				throw new IllegalStateException(sentinel + " reports " + master);
			}
			List<Map<String, String>> replicas = this.admin.callSentinel(sentinel,
					(commands) -> commands.replicas(MASTER_NAME));
			if (replicas.stream().noneMatch(StartedSentinels::isUp)) {
				throw new IllegalStateException(sentinel + " reports the replicas " + replicas);
			}
		}
		return true;
	}

	@Override
	public String masterName() {
		return MASTER_NAME;
	}

	@Override
	public String sentinelNodes() {
		return this.sentinels.stream().map((node) -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
	}

	@Override
	public RedisServer primary() {
		List<RedisServer> reported = ask(this::reportedPrimary);
		return reported.stream()
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting()))
			.entrySet()
			.stream()
			.max(Map.Entry.comparingByValue())
			.map(Map.Entry::getKey)
			.orElseThrow();
	}

	@Override
	public RedisServer replica() {
		return ask((commands) -> commands.replicas(MASTER_NAME)).stream()
			.flatMap(List::stream)
			.filter(StartedSentinels::isUp)
			.map((replica) -> server(replica.get("ip"), port(replica)))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No sentinel of " + this + " knows a replica that is up"));
	}

	private static int port(Map<String, String> replica) {
		return Integer.parseInt(replica.get("port"));
	}

	private static boolean isUp(Map<String, String> replica) {
		return "slave".equals(replica.get("flags")) && "ok".equals(replica.get("master-link-status"));
	}

	@Override
	public RedisServer failover() {
		RedisServer former = primary();
		RedisServer next = replica();
		Poll.until(next + " ready to take over from " + former, TIMEOUT, () -> checkReady(next, former));
		return Poll.until("a failover from " + former + " to " + next, TIMEOUT, () -> {
			// Started at first, and again when the sentinels gave up on it: one that
			// lost its link to the replica at the wrong moment waits for a promotion it
			// never sees, and aborts after the failover timeout.
			if (ask(this::reportedPrimary).stream().allMatch(former::equals)
					&& ask((commands) -> commands.master(MASTER_NAME)).stream()
						.noneMatch((master) -> master.get("flags").contains("failover_in_progress"))) {
				startFailover();
				throw new IllegalStateException("The sentinels started a failover of " + former);
			}
			return checkPromoted(next);
		});
	}

	// The replica is linked to the primary, and the sentinels see it so: none is about to
	// turn it into a replica once more, which cuts their links to it.
	private boolean checkReady(RedisServer next, RedisServer primary) {
		Map<String, String> replication = this.admin.info(next, "replication");
		if (!"slave".equals(replication.get("role"))
				|| !Integer.toString(primary.port()).equals(replication.get("master_port"))
				|| !"up".equals(replication.get("master_link_status"))) {
			throw new IllegalStateException(next + " reports " + replication);
		}
		for (List<Map<String, String>> replicas : ask((commands) -> commands.replicas(MASTER_NAME))) {
			if (replicas.stream()
				.noneMatch((replica) -> isUp(replica) && server(replica.get("ip"), port(replica)) == next
						&& Integer.toString(primary.port()).equals(replica.get("master-port")))) {
				throw new IllegalStateException("A sentinel reports the replicas " + replicas);
			}
		}
		return true;
	}

	private String startFailover() {
		RuntimeException refused = null;
		for (RedisServer sentinel : this.sentinels) {
			if (sentinel.isRunning()) {
				try {
					return this.admin.callSentinel(sentinel, (commands) -> commands.failover(MASTER_NAME));
				}
				catch (RuntimeException ex) {
					// NOGOODSLAVE or INPROG, or a sentinel that does not answer: asked
					// again until the deadline
					refused = ex;
				}
			}
		}
		throw (refused != null) ? refused : new IllegalStateException("No sentinel of " + this + " runs");
	}

	private RedisServer checkPromoted(RedisServer next) {
		List<RedisServer> reported = ask(this::reportedPrimary);
		if (reported.size() < QUORUM || !reported.stream().allMatch(next::equals)) {
			throw new IllegalStateException("The sentinels that answer report the primaries " + reported);
		}
		String role = this.admin.info(next, "replication").get("role");
		if (!"master".equals(role)) {
			throw new IllegalStateException(next + " reports role:" + role);
		}
		this.admin.call(next,
				(commands) -> commands.set("idempotency-test:failover-probe", UUID.randomUUID().toString()));
		return next;
	}

	private RedisServer reportedPrimary(RedisSentinelCommands<String, String> commands) {
		return server(commands.getMasterAddrByName(MASTER_NAME));
	}

	@Override
	public LettuceConnectionFactory newConnectionFactory() {
		return TestConnectionFactories.sentinel(MASTER_NAME, this.sentinels);
	}

	@Override
	public void close() {
		try {
			RedisServers.closeAll(this.sentinels, null);
			RedisServers.closeAll(this.servers, null);
		}
		finally {
			this.admin.close();
		}
	}

	@Override
	public String toString() {
		return "primary and replica " + this.servers + " watched by sentinels " + this.sentinels;
	}

	// Every sentinel that runs and answers; those that do not are left out.
	private <T> List<T> ask(Function<RedisSentinelCommands<String, String>, T> question) {
		List<T> answers = new ArrayList<>();
		RuntimeException failure = null;
		for (RedisServer sentinel : this.sentinels) {
			if (sentinel.isRunning()) {
				try {
					answers.add(this.admin.callSentinel(sentinel, question));
				}
				catch (RuntimeException ex) {
					failure = ex;
				}
			}
		}
		if (answers.isEmpty()) {
			throw new IllegalStateException("No sentinel of " + this + " answers", failure);
		}
		return answers;
	}

	private RedisServer server(SocketAddress address) {
		InetSocketAddress socket = (InetSocketAddress) address;
		return server(socket.getHostString(), socket.getPort());
	}

	private RedisServer server(String host, int port) {
		return this.servers.stream()
			.filter((server) -> server.port() == port && server.host().equals(host))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(
					"The sentinels report " + host + ":" + port + ", which is none of " + this.servers));
	}

}
