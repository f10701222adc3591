package dev.idempotency.sample;

import java.util.Arrays;

import org.springframework.boot.SpringApplication;
import org.springframework.util.StringUtils;

/**
 * The sample with its records in a Redis that Testcontainers starts, as Spring Boot runs
 * an application with its services at development time:
 * {@code ./mvnw -pl sample-app spring-boot:test-run} (add
 * {@code -Dspring-boot.run.arguments=--demo} for the demo). Needs a Docker daemon; the
 * container stops with the application.
 */
public final class TestSampleApplication {

	private TestSampleApplication() {
	}

	public static void main(String[] args) {
		// SpringApplication.from(...) replaces the profiles that SampleApplication adds
		// for --demo, so both are included from the command line.
		String profiles = Arrays.asList(args).contains("--demo") ? "redis,demo" : "redis";
		String[] withProfiles = StringUtils.addStringToArray(args, "--spring.profiles.include=" + profiles);
		SpringApplication.from(SampleApplication::main).with(ContainersConfig.class).run(withProfiles);
	}

}
