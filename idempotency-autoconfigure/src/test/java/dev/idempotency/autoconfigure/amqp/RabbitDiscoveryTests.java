package dev.idempotency.autoconfigure.amqp;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RabbitDiscoveryTests {

	private final Map<String, String> environment = new HashMap<>();

	private final AtomicInteger dockerAsked = new AtomicInteger();

	@Test
	void urlComesFirstWithoutAskingDocker() {
		this.environment.put(TestRabbit.URL_VARIABLE, " amqp://u:p@broker:5673 ");
		RabbitDiscovery discovery = discovery(true, true);
		assertThat(discovery.source()).isEqualTo(RabbitSource.URL);
		assertThat(discovery.url()).isEqualTo("amqp://u:p@broker:5673");
		assertThat(this.dockerAsked).hasValue(0);
	}

	@Test
	void dockerComesBeforeTheBinary() {
		assertThat(discovery(true, true).source()).isEqualTo(RabbitSource.TESTCONTAINERS);
		assertThat(discovery(false, true).source()).isEqualTo(RabbitSource.BINARY);
	}

	@Test
	void nothingAvailableFailsSayingHowToGetOne() {
		assertThatIllegalStateException().isThrownBy(() -> discovery(false, false).source())
			.withMessageContaining(TestRabbit.URL_VARIABLE)
			.withMessageContaining("apt-get install rabbitmq-server");
	}

	@Test
	void demandedSourceIsUsedOrFailsWithoutFallingBack() {
		this.environment.put(TestRabbit.SOURCE_VARIABLE, "binary");
		assertThat(discovery(true, true).source()).isEqualTo(RabbitSource.BINARY);
		assertThatIllegalStateException().isThrownBy(() -> discovery(true, false).source())
			.withMessageContaining("no rabbitmq-server on the PATH");
		this.environment.put(TestRabbit.SOURCE_VARIABLE, "testcontainers");
		assertThatIllegalStateException().isThrownBy(() -> discovery(false, true).source())
			.withMessageContaining("no Docker daemon answers");
		this.environment.put(TestRabbit.SOURCE_VARIABLE, "url");
		assertThatIllegalStateException().isThrownBy(() -> discovery(true, true).source())
			.withMessageContaining(TestRabbit.URL_VARIABLE + " is not set");
		this.environment.put(TestRabbit.SOURCE_VARIABLE, "kubernetes");
		assertThatIllegalStateException().isThrownBy(() -> discovery(true, true).source())
			.withMessage(TestRabbit.SOURCE_VARIABLE + "='kubernetes' is not one of url, testcontainers, binary");
	}

	private RabbitDiscovery discovery(boolean docker, boolean binary) {
		return new RabbitDiscovery(this.environment::get, () -> {
			this.dockerAsked.incrementAndGet();
			return docker;
		}, () -> binary);
	}

}
