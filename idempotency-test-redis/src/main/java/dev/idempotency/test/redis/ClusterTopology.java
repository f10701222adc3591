package dev.idempotency.test.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The nodes of a Redis Cluster as one node sees them ({@code CLUSTER NODES}).
 *
 * @param nodes the nodes
 */
record ClusterTopology(List<Node> nodes) {

	/**
	 * Parse a reply of {@code CLUSTER NODES}.
	 * @param reply the reply
	 * @return the topology
	 */
	static ClusterTopology parse(String reply) {
		List<Node> nodes = new ArrayList<>();
		for (String line : reply.split("\r?\n")) {
			if (!line.isBlank()) {
				nodes.add(Node.parse(line.trim()));
			}
		}
		return new ClusterTopology(List.copyOf(nodes));
	}

	/**
	 * Return the primaries that serve slots and are not known to have failed, by their
	 * first slot.
	 * @return the primaries
	 */
	List<Node> primaries() {
		return this.nodes.stream()
			.filter((node) -> node.isPrimary() && node.isHealthy() && !node.slots().isEmpty())
			.sorted(Comparator.comparingInt((Node node) -> node.slots().get(0).first()))
			.toList();
	}

	/**
	 * Return the node that serves a slot.
	 * @param slot the slot
	 * @return the node, if one serves it
	 */
	Optional<Node> owner(int slot) {
		return this.nodes.stream().filter((node) -> node.serves(slot)).findFirst();
	}

	/**
	 * Return the replicas of a node that are not known to have failed.
	 * @param id the node's ID
	 * @return its replicas
	 */
	List<Node> replicasOf(String id) {
		return this.nodes.stream().filter((node) -> id.equals(node.primaryId()) && node.isHealthy()).toList();
	}

	/**
	 * Return the node at an address.
	 * @param host its host
	 * @param port its port
	 * @return the node, if the topology has it
	 */
	Optional<Node> at(String host, int port) {
		return this.nodes.stream().filter((node) -> node.isAt(host, port)).findFirst();
	}

	/**
	 * One line of {@code CLUSTER NODES}.
	 *
	 * @param id the node's ID
	 * @param host the host it announces (empty while it knows none)
	 * @param port its port
	 * @param flags its flags ({@code master}, {@code slave}, {@code fail}, ...)
	 * @param primaryId the ID of its primary, for a replica
	 * @param slots the ranges of slots it serves
	 */
	record Node(String id, String host, int port, Set<String> flags, @Nullable String primaryId,
			List<SlotRange> slots) {

		static Node parse(String line) {
			String[] fields = line.split(" ");
			if (fields.length < 8) {
				throw new IllegalStateException("Not a line of CLUSTER NODES: '" + line + "'");
			}
			String address = fields[1].split("[@,]")[0];
			int colon = address.lastIndexOf(':');
			List<SlotRange> slots = new ArrayList<>();
			for (int i = 8; i < fields.length; i++) {
				// Slots being imported or migrated, in brackets, are not served yet
				if (!fields[i].startsWith("[")) {
					String[] range = fields[i].split("-");
					int first = Integer.parseInt(range[0]);
					slots.add(new SlotRange(first, (range.length > 1) ? Integer.parseInt(range[1]) : first));
				}
			}
			return new Node(fields[0], address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)),
					Set.of(fields[2].split(",")), "-".equals(fields[3]) ? null : fields[3], List.copyOf(slots));
		}

		boolean isPrimary() {
			return this.flags.contains("master");
		}

		/**
		 * Return whether no node has seen this one fail, or suspected it.
		 * @return whether it is healthy as far as is known
		 */
		boolean isHealthy() {
			return !this.flags.contains("fail") && !this.flags.contains("fail?") && !this.flags.contains("noaddr")
					&& !this.flags.contains("handshake");
		}

		boolean serves(int slot) {
			return this.slots.stream().anyMatch((range) -> range.first() <= slot && slot <= range.last());
		}

		boolean isAt(String host, int port) {
			return this.port == port && (this.host.isEmpty() || this.host.equals(host));
		}

		@Override
		public String toString() {
			return this.id + " " + this.host + ":" + this.port + " " + String.join(",", this.flags);
		}

	}

	/**
	 * Slots that a node serves.
	 *
	 * @param first the first slot
	 * @param last the last slot
	 */
	record SlotRange(int first, int last) {

	}

}
