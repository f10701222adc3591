package dev.idempotency.store.jdbc;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import com.zaxxer.hikari.HikariDataSource;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.DefaultIdempotentExecutor;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.OperationSettings;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A separate JVM whose idempotent call runs inside a transaction on a Hikari pool and
 * inserts a business row, then either hangs until it is killed, between the call and the
 * commit ({@code hang}), or waits inside the method for a line on standard input
 * ({@code zombie}), reporting its moments on standard output.
 */
public final class JdbcCrashChild {

	static final Duration LOCK_TIMEOUT = Duration.ofSeconds(2);

	static final String NAME = "JdbcCrashChild.pay";

	private JdbcCrashChild() {
	}

	static IdempotentExecutor executor(JdbcIdempotencyStore store) {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		IdempotencyEngine engine = new IdempotencyEngine(store,
				new IdempotencyDefaults(
						new OperationSettings(LOCK_TIMEOUT, Duration.ofHours(1), OnInProgress.REJECT,
								Duration.ofSeconds(1)),
						standard.onStoreFailure(), standard.maxKeyLength(), standard.maxResultSize(), Map.of()),
				List.of());
		return new DefaultIdempotentExecutor(engine, new JacksonResultCodec(), new JacksonPayloadFingerprinter());
	}

	static String pay(IdempotentExecutor executor, TransactionTemplate transactions, JdbcTemplate jdbc, String key,
			String who, Runnable afterInsert) {
		return transactions.execute((status) -> executor.execute(NAME, key, String.class, () -> {
			jdbc.update("INSERT INTO payment (id, who) VALUES (?, ?)", key, who);
			afterInsert.run();
			return who + "'s payment, fence " + IdempotencyContext.current().fence();
		}));
	}

	public static void main(String[] args) throws Throwable {
		String url = args[0];
		String username = args[1];
		String password = args[2];
		String key = args[3];
		String mode = args[4];
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(url);
		dataSource.setUsername(username);
		dataSource.setPassword(password.isEmpty() ? null : password);
		dataSource.setMaximumPoolSize(4);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		IdempotentExecutor executor = executor(new JdbcIdempotencyStore(dataSource));
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		try {
			String result = transactions.execute((status) -> {
				String paid = pay(executor, transactions, jdbc, key, "child", () -> {
					say("INSERTED");
					if (mode.equals("zombie")) {
						try {
							in.readLine();
						}
						catch (Exception ex) {
							throw new IllegalStateException(ex);
						}
					}
				});
				if (mode.equals("hang")) {
					// Completed inside the transaction, not committed
					say("RETURNED " + paid);
					try {
						new CountDownLatch(1).await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return paid;
			});
			say("COMMITTED " + result);
			System.exit(0);
		}
		catch (IdempotencyLockLostException ex) {
			say("LOCK_LOST " + ex.getMessage());
			System.exit(3);
		}
		catch (Throwable ex) {
			say("ERROR " + ex);
			System.exit(4);
		}
	}

	private static void say(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
