package dev.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.List;

import dev.idempotency.engine.OperationSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * The contenders of one run, built for the chosen sides on the same application and
 * {@code redis-server}, and closed together.
 */
final class Contenders implements AutoCloseable {

	private final List<Contender> all;

	private Contenders(List<Contender> all) {
		this.all = all;
	}

	/**
	 * Build the contenders of the chosen sides.
	 * @param sides the sides, in the order they are listed
	 * @param payments the starter's {@code @Idempotent} bean
	 * @param acknowledgedPayments the same bean of the application with replica
	 * acknowledgements, when {@link Side#STARTER_ACKS} is chosen
	 * @param connectionFactory the application's connection factory
	 * @param redisPort the port of the Redis server
	 * @param keyPrefix prefix of the starter's record keys, the operation's name and
	 * {@code :} included
	 * @param settings the starter's settings of the operation
	 * @param body the encoded result the starter stores
	 * @return the contenders
	 */
	static Contenders create(List<Side> sides, Payments payments, @Nullable Payments acknowledgedPayments,
			RedisConnectionFactory connectionFactory, int redisPort, String keyPrefix, OperationSettings settings,
			byte[] body) {
		long lease = settings.lockTimeout().toMillis();
		long retention = settings.retention().toMillis();
		List<Contender> all = new ArrayList<>();
		try {
			for (Side side : sides) {
				all.add(switch (side) {
					case STARTER -> new StarterSide(payments, side);
					case STARTER_ACKS -> {
						Assert.state(acknowledgedPayments != null, "No application with replica acknowledgements");
						yield new StarterSide(acknowledgedPayments, side);
					}
					case FLOOR -> new Floor(connectionFactory, keyPrefix, lease, retention, body);
					case LETTUCE, LETTUCE_JSON ->
						new LettuceFloor(RedisServer.HOST, redisPort, keyPrefix, lease, retention, body, side);
					case SPRING_INTEGRATION -> new IntegrationReceiver(connectionFactory);
					case JDEMPOTENT -> new JdempotentPeer(connectionFactory);
				});
			}
		}
		catch (RuntimeException | Error ex) {
			new Contenders(all).close();
			throw ex;
		}
		return new Contenders(all);
	}

	List<Contender> all() {
		return this.all;
	}

	@Override
	public void close() {
		for (Contender contender : this.all) {
			contender.close();
		}
	}

}
