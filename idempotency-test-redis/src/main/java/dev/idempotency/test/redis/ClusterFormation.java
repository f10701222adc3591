package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.idempotency.test.redis.ClusterTopology.Node;

/**
 * Brings a Redis Cluster of the tests up: starts three primaries and three replicas, each
 * in a directory of its own, joins them with {@code redis-cli --cluster create}, and
 * waits until every node serves or copies its share; or finds a running cluster the tests
 * were given.
 */
final class ClusterFormation {

	private static final int PRIMARIES = 3;

	private static final int NODES = PRIMARIES * 2;

	private static final int SLOTS = 16384;

	private static final Duration FORM_TIMEOUT = Duration.ofSeconds(60);

	// A failed primary is noticed within a second or two, and its replica takes over
	// however far behind it is (validity factor 0), as a failover test wants.
	private static final String[] NODE_ARGUMENTS = { "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0" };

	private ClusterFormation() {
	}

	/**
	 * Start a cluster of three primaries with a replica each.
	 * @param launcher starts each node
	 * @param closeable whether its {@link RedisCluster#close()} stops it
	 * @return the running cluster
	 * @throws IllegalStateException if it does not come up
	 */
	static StartedCluster start(RedisLauncher launcher, boolean closeable) {
		List<StartedRedisServer> nodes = new ArrayList<>();
		RedisAdmin admin = new RedisAdmin();
		try {
			for (int i = 0; i < NODES; i++) {
				nodes.add(launcher.start(RedisServerSettings.clusterNode(NODE_ARGUMENTS)));
			}
			List<String> create = new ArrayList<>(List.of("--cluster", "create"));
			nodes.forEach((node) -> create.add(node.host() + ":" + node.port()));
			create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
			nodes.get(0).redisCli(create.toArray(String[]::new));
			StartedCluster cluster = new StartedCluster(nodes, admin, closeable,
					"a cluster of " + PRIMARIES + " primaries and " + PRIMARIES + " replicas: " + nodes);
			Poll.until("every node of " + cluster + " up", FORM_TIMEOUT, () -> checkFormed(admin, nodes));
			cluster.topology();
			return cluster;
		}
		catch (RuntimeException ex) {
			RedisServers.closeAll(nodes, ex);
			admin.close();
			throw ex;
		}
	}

	/**
	 * Find the nodes of a running cluster.
	 * @param addresses some of its nodes, {@code host:port,host:port}
	 * @param givenBy where they were given, for failures
	 * @return the cluster, which the tests cannot stop
	 * @throws IllegalStateException if the addresses are malformed, or no node answers
	 * with {@code cluster_state:ok}
	 */
	static StartedCluster given(String addresses, String givenBy) {
		List<GivenRedisServer> seeds = new ArrayList<>();
		for (String address : addresses.split(",")) {
			seeds.add(parse(address.trim(), addresses, givenBy));
		}
		RedisAdmin admin = new RedisAdmin();
		try {
			GivenRedisServer seed = seeds.stream()
				.filter(GivenRedisServer::isRunning)
				.findFirst()
				.orElseThrow(() -> new IllegalStateException(
						"No node of the cluster at " + givenBy + "='" + addresses + "' answers"));
			String state = RedisAdmin.parse(admin.call(seed, (commands) -> commands.clusterInfo()))
				.get("cluster_state");
			if (!"ok".equals(state)) {
				throw new IllegalStateException(
						"The cluster at " + givenBy + "='" + addresses + "' reports cluster_state:" + state);
			}
			List<GivenRedisServer> nodes = ClusterTopology
				.parse(admin.call(seed, (commands) -> commands.clusterNodes()))
				.nodes()
				.stream()
				.map((node) -> new GivenRedisServer(node.host().isEmpty() ? seed.host() : node.host(), node.port(),
						givenBy))
				.toList();
			StartedCluster cluster = new StartedCluster(nodes, admin, false,
					"the running cluster at " + givenBy + "='" + addresses + "'");
			cluster.topology();
			return cluster;
		}
		catch (RuntimeException ex) {
			admin.close();
			throw ex;
		}
	}

	private static GivenRedisServer parse(String address, String addresses, String givenBy) {
		int colon = address.lastIndexOf(':');
		try {
			if (colon > 0) {
				return new GivenRedisServer(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)),
						givenBy);
			}
		}
		catch (NumberFormatException ex) {
			// Said below
		}
		throw new IllegalStateException(
				givenBy + "='" + addresses + "' is not a list of host:port separated by commas: '" + address + "'");
	}

	private static boolean checkFormed(RedisAdmin admin, List<? extends RedisServer> nodes) {
		for (RedisServer node : nodes) {
			Map<String, String> info = RedisAdmin.parse(admin.call(node, (commands) -> commands.clusterInfo()));
			if (!"ok".equals(info.get("cluster_state")) || !Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"))
					|| !Integer.toString(nodes.size()).equals(info.get("cluster_known_nodes"))) {
				throw new IllegalStateException(node + " reports cluster_state:" + info.get("cluster_state")
						+ ", cluster_slots_ok:" + info.get("cluster_slots_ok") + ", cluster_known_nodes:"
						+ info.get("cluster_known_nodes"));
			}
			Map<String, String> replication = admin.info(node, "replication");
			if ("slave".equals(replication.get("role")) && !"up".equals(replication.get("master_link_status"))) {
				throw new IllegalStateException(
						node + " reports master_link_status:" + replication.get("master_link_status"));
			}
		}
		ClusterTopology topology = ClusterTopology
			.parse(admin.call(nodes.get(0), (commands) -> commands.clusterNodes()));
		List<Node> primaries = topology.primaries();
		if (primaries.size() != PRIMARIES
				|| primaries.stream().anyMatch((primary) -> topology.replicasOf(primary.id()).size() != 1)) {
			throw new IllegalStateException(nodes.get(0) + " sees " + topology.nodes());
		}
		return true;
	}

}
