package dev.idempotency.sample;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A payments application whose charges happen exactly once per payment, however often a
 * client retries or a broker redelivers.
 * <p>
 * Started with {@code --demo} (or the {@code demo} profile) it runs the demo instead of
 * serving HTTP: a burst of payment events with duplicates and concurrent redeliveries,
 * then a table of what happened, and exits with 0 when every payment was charged once.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		if (Arrays.asList(args).contains("--demo")) {
			application.setAdditionalProfiles("demo");
		}
		ConfigurableApplicationContext context = application.run(args);
		// The demo is a batch run: once its table is printed, exit with its verdict
		if (context.getEnvironment().matchesProfiles("demo")) {
			System.exit(SpringApplication.exit(context));
		}
	}

}
