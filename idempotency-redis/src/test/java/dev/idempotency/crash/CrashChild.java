package dev.idempotency.crash;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Operation;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate JVM that takes a record and then either hangs until it is killed
 * ({@code hang}) or waits for a line on standard input before it returns
 * ({@code zombie}), reporting on standard output what happened.
 */
public final class CrashChild {

	static final Duration LOCK_TIMEOUT = Duration.ofSeconds(1);

	private CrashChild() {
	}

	static Operation operation(String name) {
		return new Operation(name,
				new OperationSettings(LOCK_TIMEOUT, Duration.ofHours(1), OnInProgress.REJECT, Duration.ofSeconds(1)),
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the crash test's key");
	}

	public static void main(String[] args) throws Throwable {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		String name = args[2];
		String key = args[3];
		String mode = args[4];
		LettuceConnectionFactory factory = TestRedis.connectionFactory(host, port);
		IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
				IdempotencyDefaults.STANDARD, List.of());
		try {
			Object result = engine.execute(operation(name), key, null, () -> {
				System.out.println("STARTED " + IdempotencyContext.current().fence());
				System.out.flush();
				if (mode.equals("hang")) {
					new CountDownLatch(1).await();
				}
				new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
				return "zombie's result";
			});
			System.out.println("COMPLETED " + result);
			System.exit(0);
		}
		catch (IdempotencyLockLostException ex) {
			System.out.println("LOCK_LOST " + ex.getMessage());
			System.exit(3);
		}
		catch (Throwable ex) {
			System.out.println("ERROR " + ex);
			System.exit(4);
		}
	}

}
