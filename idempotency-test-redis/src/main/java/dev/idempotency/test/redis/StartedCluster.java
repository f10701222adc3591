package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.lettuce.core.cluster.SlotHash;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

import dev.idempotency.test.redis.ClusterTopology.Node;

/**
 * A Redis Cluster of the tests: one they started, or one they were given. Roles are asked
 * from every node that answers, and the view most of them share is taken, so that a node
 * that was just thawed, and still believes it serves slots it lost, is outvoted.
 */
final class StartedCluster implements RedisCluster {

	private static final Duration PROMOTION_TIMEOUT = Duration.ofSeconds(30);

	private final List<RedisServer> nodes;

	private final RedisAdmin admin;

	private final boolean closeable;

	private final String description;

	// A slot that each primary served when the cluster was last asked: what to watch
	// once it failed, since the cluster then no longer says which slots were its own.
	private final Map<RedisServer, Integer> lastSlots = new ConcurrentHashMap<>();

	StartedCluster(List<? extends RedisServer> nodes, RedisAdmin admin, boolean closeable, String description) {
		this.nodes = List.copyOf(nodes);
		this.admin = admin;
		this.closeable = closeable;
		this.description = description;
	}

	@Override
	public List<RedisServer> nodes() {
		return this.nodes;
	}

	@Override
	public List<RedisServer> primaries() {
		return topology().primaries().stream().map(this::server).toList();
	}

	@Override
	public RedisServer primaryOf(byte[] key) {
		int slot = SlotHash.getSlot(key);
		return topology().owner(slot)
			.filter((node) -> node.isPrimary() && node.isHealthy())
			.map(this::server)
			.orElseThrow(() -> new IllegalStateException("No healthy primary of " + this + " serves slot " + slot));
	}

	@Override
	public RedisServer replicaOf(RedisServer primary) {
		checkNode(primary, "primary");
		ClusterTopology topology = topology();
		Node node = topology.at(primary.host(), primary.port())
			.filter(Node::isPrimary)
			.orElseThrow(() -> new IllegalArgumentException("'primary' must be a primary, but " + primary + " is not"));
		return topology.replicasOf(node.id())
			.stream()
			.findFirst()
			.map(this::server)
			.orElseThrow(() -> new IllegalStateException(primary + " has no healthy replica"));
	}

	@Override
	public String nodeAddresses() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
	}

	@Override
	public RedisServer awaitPromotion(RedisServer formerPrimary) {
		checkNode(formerPrimary, "formerPrimary");
		Integer slot = this.lastSlots.get(formerPrimary);
		if (slot == null) {
			throw new IllegalArgumentException(
					"'formerPrimary' must have been a primary, but " + formerPrimary + " was not when last asked");
		}
		List<RedisServer> survivors = this.nodes.stream()
			.filter((node) -> node != formerPrimary && node.isRunning())
			.toList();
		RedisServer promoted = Poll.until("a replica of " + formerPrimary + " serving its slots", PROMOTION_TIMEOUT,
				() -> promoted(formerPrimary, slot, survivors));
		topology();
		return promoted;
	}

	private RedisServer promoted(RedisServer formerPrimary, int slot, List<RedisServer> survivors) {
		String ownerId = null;
		for (RedisServer survivor : survivors) {
			String state = RedisAdmin.parse(this.admin.call(survivor, (commands) -> commands.clusterInfo()))
				.get("cluster_state");
			if (!"ok".equals(state)) {
				throw new IllegalStateException(survivor + " reports cluster_state:" + state);
			}
			ClusterTopology topology = ClusterTopology
				.parse(this.admin.call(survivor, (commands) -> commands.clusterNodes()));
			Node owner = topology.owner(slot)
				.filter((node) -> node.isPrimary() && node.isHealthy())
				.orElseThrow(() -> new IllegalStateException(survivor + " knows no healthy primary of slot " + slot));
			if (owner.isAt(formerPrimary.host(), formerPrimary.port())) {
				throw new IllegalStateException(survivor + " still sees slot " + slot + " served by " + formerPrimary);
			}
			if (ownerId != null && !ownerId.equals(owner.id())) {
				throw new IllegalStateException("The survivors disagree on who serves slot " + slot);
			}
			ownerId = owner.id();
		}
		Node owner = ClusterTopology.parse(this.admin.call(survivors.get(0), (commands) -> commands.clusterNodes()))
			.owner(slot)
			.orElseThrow();
		RedisServer promoted = server(owner);
		String role = this.admin.info(promoted, "replication").get("role");
		if (!"master".equals(role)) {
			throw new IllegalStateException(promoted + " reports role:" + role);
		}
		return promoted;
	}

	@Override
	public LettuceConnectionFactory newConnectionFactory() {
		return TestConnectionFactories.cluster(this.nodes);
	}

	@Override
	public void close() {
		if (this.closeable) {
			shutdown();
		}
	}

	/**
	 * Stop the nodes that the tests started, and let go of the rest.
	 */
	void shutdown() {
		try {
			RedisServers.closeAll(this.nodes, null);
		}
		finally {
			this.admin.close();
		}
	}

	@Override
	public String toString() {
		return this.description;
	}

	/**
	 * Ask every node that runs how it sees the cluster, and take the view of the
	 * primaries that most of them share.
	 * @return the topology
	 * @throws IllegalStateException if no node answers
	 */
	ClusterTopology topology() {
		List<ClusterTopology> views = new ArrayList<>();
		RuntimeException failure = null;
		for (RedisServer node : this.nodes) {
			if (node.isRunning()) {
				try {
					views.add(ClusterTopology.parse(this.admin.call(node, (commands) -> commands.clusterNodes())));
				}
				catch (RuntimeException ex) {
					failure = ex;
				}
			}
		}
		if (views.isEmpty()) {
			throw new IllegalStateException("No node of " + this + " answers", failure);
		}
		ClusterTopology topology = views.stream()
			.collect(Collectors.groupingBy(StartedCluster::primariesOf, Collectors.toList()))
			.values()
			.stream()
			.max((left, right) -> Integer.compare(left.size(), right.size()))
			.map((same) -> same.get(0))
			.orElseThrow();
		remember(topology);
		return topology;
	}

	private static String primariesOf(ClusterTopology topology) {
		return topology.primaries()
			.stream()
			.map((node) -> node.id() + node.slots()
				.stream()
				.map((range) -> range.first() + "-" + range.last())
				.collect(Collectors.joining(",", "[", "]")))
			.collect(Collectors.joining(" "));
	}

	private void remember(ClusterTopology topology) {
		for (Node node : topology.nodes()) {
			findServer(node).ifPresent((server) -> {
				if (node.isPrimary() && !node.slots().isEmpty()) {
					this.lastSlots.put(server, node.slots().get(0).first());
				}
				else if (!node.isPrimary()) {
					this.lastSlots.remove(server);
				}
			});
		}
	}

	private RedisServer server(Node node) {
		return findServer(node).orElseThrow(
				() -> new IllegalStateException("Node " + node + " of " + this + " is not one of " + this.nodes));
	}

	private Optional<RedisServer> findServer(Node node) {
		return this.nodes.stream().filter((server) -> node.isAt(server.host(), server.port())).findFirst();
	}

	private void checkNode(RedisServer server, String name) {
		Assert.isTrue(this.nodes.contains(server),
				() -> "'" + name + "' must be a node of " + this + ", but was " + server);
	}

}
