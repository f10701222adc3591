package dev.idempotency.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyLockLostException;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A worker of the chaos runs, as a user writes one: Spring Boot's {@code DataSource} and
 * transaction manager, {@code idempotency.store=jdbc}, and a consumer that runs each
 * delivery in a {@link TransactionTemplate} around {@link ChaosPayments#pay}. Deliveries
 * come as event ids, one per line of standard input; it answers on standard output
 * {@code ACK id} once the transaction committed, {@code NACK id reason} when it did not
 * (the broker delivers again), after {@code READY} once started. Standard input closed,
 * it finishes what it was given and exits.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class ChaosWorkerApplication {

	private static final int THREADS = 4;

	private static final PrintStream out = System.out;

	public static void main(String[] args) throws IOException, InterruptedException {
		SpringApplication application = new SpringApplication(ChaosWorkerApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setBannerMode(Banner.Mode.OFF);
		ConfigurableApplicationContext context = application.run(args);
		ChaosPayments payments = context.getBean(ChaosPayments.class);
		TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
		ExecutorService consumers = Executors.newFixedThreadPool(THREADS);
		say("READY");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			String event = line.strip();
			if (!event.isEmpty()) {
				consumers.execute(() -> consume(transactions, payments, event));
			}
		}
		consumers.shutdown();
		consumers.awaitTermination(1, TimeUnit.MINUTES);
		context.close();
		System.exit(0);
	}

	private static void consume(TransactionTemplate transactions, ChaosPayments payments, String event) {
		try {
			transactions.executeWithoutResult((status) -> payments.pay(event));
			say("ACK " + event);
		}
		catch (IdempotencyInProgressException ex) {
			say("NACK " + event + " in-progress");
		}
		catch (IdempotencyLockLostException ex) {
			say("NACK " + event + " lock-lost");
		}
		catch (RuntimeException ex) {
			say("NACK " + event + " " + ex.getClass().getSimpleName());
		}
	}

	private static void say(String line) {
		synchronized (out) {
			out.println(line);
			out.flush();
		}
	}

}
