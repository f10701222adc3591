package dev.idempotency.test.redis;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

	static final int QUORUM = 2;

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
		List<RedisServer> reported = reportedPrimaries();
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

	static int port(Map<String, String> replica) {
		return Integer.parseInt(replica.get("port"));
	}

	static boolean isUp(Map<String, String> replica) {
		return "slave".equals(replica.get("flags")) && "ok".equals(replica.get("master-link-status"));
	}

	@Override
	public RedisServer failover() {
		return new SentinelFailover(this, this.admin).run();
	}

	List<RedisServer> sentinels() {
		return this.sentinels;
	}

	List<RedisServer> reportedPrimaries() {
		return ask(this::reportedPrimary);
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
	<T> List<T> ask(Function<RedisSentinelCommands<String, String>, T> question) {
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

	RedisServer server(String host, int port) {
		return this.servers.stream()
			.filter((server) -> server.port() == port && server.host().equals(host))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(
					"The sentinels report " + host + ":" + port + ", which is none of " + this.servers));
	}

}
