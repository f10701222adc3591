package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A primary and replicas that this JVM started.
 */
final class StartedReplicaSet implements RedisReplicaSet {

	private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);

	private final RedisServer primary;

	private final List<RedisServer> replicas;

	private final RedisAdmin admin;

	private StartedReplicaSet(RedisServer primary, List<RedisServer> replicas, RedisAdmin admin) {
		this.primary = primary;
		this.replicas = List.copyOf(replicas);
		this.admin = admin;
	}

	/**
	 * Start a primary and its replicas, and wait until the replicas are in sync.
	 * @param launcher starts each server
	 * @param replicas how many replicas
	 * @return the running set
	 */
	static StartedReplicaSet start(RedisLauncher launcher, int replicas) {
		List<RedisServer> started = new ArrayList<>();
		RedisAdmin admin = new RedisAdmin();
		try {
			RedisServer primary = launcher.start(RedisServerSettings.STANDARD);
			started.add(primary);
			for (int i = 0; i < replicas; i++) {
				started.add(launcher.start(RedisServerSettings.replicaOf(primary.host(), primary.port())));
			}
			StartedReplicaSet set = new StartedReplicaSet(primary, started.subList(1, started.size()), admin);
			set.awaitReplicasInSync();
			return set;
		}
		catch (RuntimeException ex) {
			RedisServers.closeAll(started, ex);
			admin.close();
			throw ex;
		}
	}

	@Override
	public RedisServer primary() {
		return this.primary;
	}

	@Override
	public List<RedisServer> replicas() {
		return this.replicas;
	}

	@Override
	public void awaitReplicasInSync() {
		Poll.until("every replica of " + this.primary + " in sync", SYNC_TIMEOUT, () -> {
			String offset = this.admin.info(this.primary, "replication").get("master_repl_offset");
			if (offset == null) {
				throw new IllegalStateException(this.primary + " reports no master_repl_offset");
			}
			for (RedisServer replica : this.replicas) {
				checkInSync(replica, offset);
			}
			return offset;
		});
	}

	private void checkInSync(RedisServer replica, String primaryOffset) {
		Map<String, String> replication = this.admin.info(replica, "replication");
		if (!Integer.toString(this.primary.port()).equals(replication.get("master_port"))
				|| !"up".equals(replication.get("master_link_status"))
				|| !primaryOffset.equals(replication.get("slave_repl_offset"))) {
			throw new IllegalStateException(replica + " reports master_port:" + replication.get("master_port")
					+ ", master_link_status:" + replication.get("master_link_status") + ", slave_repl_offset:"
					+ replication.get("slave_repl_offset") + "; the primary's master_repl_offset:" + primaryOffset);
		}
	}

	@Override
	public void close() {
		List<RedisServer> servers = new ArrayList<>(this.replicas);
		servers.add(this.primary);
		try {
			RedisServers.closeAll(servers, null);
		}
		finally {
			this.admin.close();
		}
	}

	@Override
	public String toString() {
		return "primary " + this.primary + " with replicas " + this.replicas;
	}

}
