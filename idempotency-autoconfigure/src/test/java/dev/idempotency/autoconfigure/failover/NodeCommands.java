package dev.idempotency.autoconfigure.failover;

import java.time.Duration;
import java.util.BitSet;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import org.jspecify.annotations.Nullable;

import dev.idempotency.test.redis.RedisSentinels;
import dev.idempotency.test.redis.RedisServer;

import static org.awaitility.Awaitility.await;

/**
 * Commands that a test sends to one server of a cluster or sentinel set, each on a
 * connection of its own that is closed at once, so that no connection outlives a server
 * the test kills.
 */
final class NodeCommands implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final RedisClient client = RedisClient.create();

	/**
	 * Close the links of a primary's replicas on the primary's side. A replica that is
	 * frozen at the same time cannot reconnect, and receives nothing the primary writes
	 * from now on: without this, the kernel would keep what the primary sends to the
	 * frozen replica in its socket buffer and hand it over on thaw, even once the primary
	 * is dead.
	 * @param primary the primary
	 */
	void cutOffReplicas(RedisServer primary) {
		call(primary, (commands) -> commands.clientKill(KillArgs.Builder.typeSlave()));
	}

	/**
	 * Change a setting of a server ({@code CONFIG SET}) until it restarts.
	 * @param server the server
	 * @param parameter the setting
	 * @param value its value
	 */
	void configSet(RedisServer server, String parameter, String value) {
		call(server, (commands) -> commands.configSet(parameter, value));
	}

	/**
	 * Return the clients of a server, one line each, as {@code CLIENT LIST} gives them.
	 * @param server the server
	 * @return its clients
	 */
	String clientList(RedisServer server) {
		return call(server, RedisCommands::clientList);
	}

	/**
	 * Return whether every sentinel names a server as the primary, with no failover in
	 * progress: then a former primary that comes back, empty, is made a replica by all of
	 * them, and none sends clients to it.
	 * @param sentinels the sentinels
	 * @param primary the server
	 * @return whether they all agree
	 */
	boolean sentinelsAgreeOn(RedisSentinels sentinels, RedisServer primary) {
		for (String address : sentinels.sentinelNodes().split(",")) {
			String[] hostAndPort = address.split(":");
			RedisURI uri = RedisURI.create(hostAndPort[0], Integer.parseInt(hostAndPort[1]));
			uri.setTimeout(TIMEOUT);
			try (StatefulRedisSentinelConnection<String, String> connection = this.client.connectSentinel(uri)) {
				Map<String, String> master = connection.sync().master(sentinels.masterName());
				if (!"master".equals(master.get("flags"))
						|| !Integer.toString(primary.port()).equals(master.get("port"))) {
					return false;
				}
			}
		}
		return true;
	}

	/**
	 * Return the hash slots that a primary of a cluster serves, as it says itself.
	 * @param primary the primary
	 * @return its slots
	 */
	BitSet slotsOf(RedisServer primary) {
		String nodes = call(primary, RedisCommands::clusterNodes);
		BitSet slots = new BitSet();
		for (String line : nodes.split("\n")) {
			String[] fields = line.trim().split(" ");
			if (fields.length > 2 && fields[2].contains("myself")) {
				for (int i = 8; i < fields.length; i++) {
					if (!fields[i].startsWith("[")) {
						String[] range = fields[i].split("-");
						int first = Integer.parseInt(range[0]);
						slots.set(first, Integer.parseInt(range[range.length - 1]) + 1);
					}
				}
			}
		}
		return slots;
	}

	/**
	 * Wait until a server is a replica whose link to its primary is up.
	 * @param replica the replica
	 */
	void awaitLinked(RedisServer replica) {
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> isLinkedReplica(replica, null));
	}

	/**
	 * Return whether a server says it is a replica whose link to its primary is up.
	 * @param replica the replica
	 * @param primary its primary, or {@code null} for any
	 * @return whether it is linked
	 */
	boolean isLinkedReplica(RedisServer replica, @Nullable RedisServer primary) {
		String info = call(replica, (commands) -> commands.info("replication"));
		return info.contains("role:slave") && info.contains("master_link_status:up")
				&& (primary == null || info.contains("master_port:" + primary.port() + "\r\n"));
	}

	private <T> T call(RedisServer server, Function<RedisCommands<String, String>, T> command) {
		RedisURI uri = RedisURI.create(server.host(), server.port());
		uri.setTimeout(TIMEOUT);
		try (StatefulRedisConnection<String, String> connection = this.client.connect(uri)) {
			return command.apply(connection.sync());
		}
	}

	@Override
	public void close() {
		this.client.shutdown();
	}

	/**
	 * Return whether a record of {@link ExecutionLedger#NAME} lives in one of the slots.
	 * @param slots the slots
	 * @return a test of the key of a record
	 */
	static Predicate<String> inSlots(BitSet slots) {
		return (key) -> slots.get(SlotHash.getSlot(ExecutionLedger.redisKey(ExecutionLedger.NAME, key)));
	}

}
