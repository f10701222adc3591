package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.idempotency.test.redis.StartedSentinels.MASTER_NAME;

/**
 * A failover that the tests force on {@link StartedSentinels}: from the primary to the
 * replica the sentinels report, once the replica is ready, and done once the sentinels
 * and the replica itself say it is the primary and it accepts a write.
 */
final class SentinelFailover {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final StartedSentinels sentinels;

	private final RedisAdmin admin;

	SentinelFailover(StartedSentinels sentinels, RedisAdmin admin) {
		this.sentinels = sentinels;
		this.admin = admin;
	}

	RedisServer run() {
		RedisServer former = this.sentinels.primary();
		RedisServer next = this.sentinels.replica();
		Poll.until(next + " ready to take over from " + former, TIMEOUT, () -> checkReady(next, former));
		return Poll.until("a failover from " + former + " to " + next, TIMEOUT, () -> {
			// Started at first, and again when the sentinels gave up on it: one that
			// lost its link to the replica at the wrong moment waits for a promotion it
			// never sees, and aborts after the failover timeout.
			if (this.sentinels.reportedPrimaries().stream().allMatch(former::equals)
					&& this.sentinels.ask((commands) -> commands.master(MASTER_NAME))
						.stream()
						.noneMatch((master) -> master.get("flags").contains("failover_in_progress"))) {
				start();
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
		for (List<Map<String, String>> replicas : this.sentinels.ask((commands) -> commands.replicas(MASTER_NAME))) {
			if (replicas.stream()
				.noneMatch((replica) -> StartedSentinels.isUp(replica)
						&& this.sentinels.server(replica.get("ip"), StartedSentinels.port(replica)) == next
						&& Integer.toString(primary.port()).equals(replica.get("master-port")))) {
				throw new IllegalStateException("A sentinel reports the replicas " + replicas);
			}
		}
		return true;
	}

	private String start() {
		RuntimeException refused = null;
		for (RedisServer sentinel : this.sentinels.sentinels()) {
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
		throw (refused != null) ? refused : new IllegalStateException("No sentinel of " + this.sentinels + " runs");
	}

	private RedisServer checkPromoted(RedisServer next) {
		List<RedisServer> reported = this.sentinels.reportedPrimaries();
		if (reported.size() < StartedSentinels.QUORUM || !reported.stream().allMatch(next::equals)) {
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

}
