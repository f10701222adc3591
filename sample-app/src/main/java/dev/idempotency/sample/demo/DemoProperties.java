package dev.idempotency.sample.demo;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Shape of the demo's burst.
 *
 * @param events number of unique payment events
 * @param consumers number of consumer threads delivering them concurrently
 * @param maxDeliveries most times one event is delivered; each is delivered between once
 * and this many times
 * @param timeout how long the demo may take before it gives up and fails
 */
@ConfigurationProperties("sample.demo")
record DemoProperties(@DefaultValue("200") int events, @DefaultValue("8") int consumers,
		@DefaultValue("5") int maxDeliveries, @DefaultValue("30s") Duration timeout) {

}
