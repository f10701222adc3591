package dev.idempotency.test.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class RedisDiscoveryTests {

	private static final BooleanSupplier YES = () -> true;

	private static final BooleanSupplier NO = () -> false;

	private static final BooleanSupplier NOT_ASKED = () -> {
		throw new AssertionError("asked, but the decision did not need it");
	};

	private final Map<String, String> environment = new HashMap<>();

	@Test
	void urlComesFirstAndNothingElseIsAsked() {
		this.environment.put(TestRedis.URL_VARIABLE, " redis://example:7000 ");
		RedisDiscovery discovery = discovery(NOT_ASKED, NOT_ASKED, NOT_ASKED);
		assertThat(discovery.sharedSource()).isEqualTo(RedisSource.URL);
		assertThat(discovery.url()).isEqualTo("redis://example:7000");
	}

	@Test
	void blankUrlIsNoUrl() {
		this.environment.put(TestRedis.URL_VARIABLE, " ");
		assertThat(discovery(YES, NO, YES).sharedSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void testcontainersComesBeforeTheBinaryWhenDockerAnswers() {
		assertThat(discovery(YES, YES, NOT_ASKED).sharedSource()).isEqualTo(RedisSource.TESTCONTAINERS);
	}

	@Test
	void binaryComesWhenDockerDoesNotAnswer() {
		assertThat(discovery(YES, NO, YES).sharedSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void dockerIsNotAskedWithoutTestcontainers() {
		assertThat(discovery(NO, NOT_ASKED, YES).sharedSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void nothingAvailableFailsSayingHowToGetARedis() {
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, NO, NO).sharedSource())
			.withMessageStartingWith("These tests need a real Redis, and none was found.")
			.withMessageContaining("set IDEMPOTENCY_TEST_REDIS_URL=redis://host:port")
			.withMessageContaining("run a Docker daemon, with org.testcontainers:testcontainers on the test classpath")
			.withMessageContaining("install redis-server on the PATH");
	}

	@Test
	void demandedTestcontainersFailsWithoutDockerRatherThanFallBackToTheBinary() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "testcontainers");
		this.environment.put("DOCKER_HOST", "unix:///nowhere.sock");
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, NO, YES).sharedSource())
			.withMessage(
					"IDEMPOTENCY_TEST_REDIS=testcontainers demands a redis:7 container from Testcontainers, but no "
							+ "Docker daemon answers (DOCKER_HOST=unix:///nowhere.sock): start one, or unset "
							+ "IDEMPOTENCY_TEST_REDIS to let the tests find another Redis.");
	}

	@Test
	void demandedTestcontainersWinsOverAUrl() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "TestContainers");
		this.environment.put(TestRedis.URL_VARIABLE, "redis://example:7000");
		assertThat(discovery(YES, YES, NOT_ASKED).sharedSource()).isEqualTo(RedisSource.TESTCONTAINERS);
	}

	@Test
	void demandedTestcontainersWithoutTheLibraryNamesTheDependency() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "testcontainers");
		assertThatIllegalStateException().isThrownBy(() -> discovery(NO, NOT_ASKED, YES).sharedSource())
			.withMessageContaining("Testcontainers is not on the test classpath: add "
					+ "org.testcontainers:testcontainers as a test dependency.");
	}

	@Test
	void demandedBinaryIgnoresDocker() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "binary");
		assertThat(discovery(NOT_ASKED, NOT_ASKED, YES).sharedSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void demandedBinaryFailsWithoutOne() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "binary");
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, YES, NO).sharedSource())
			.withMessage("IDEMPOTENCY_TEST_REDIS=binary demands a redis-server from the PATH, but there is no "
					+ "redis-server on the PATH: install one (apt-get install redis-server, brew install redis).");
	}

	@Test
	void demandedUrlFailsWithoutOne() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "url");
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, YES, YES).sharedSource())
			.withMessage("IDEMPOTENCY_TEST_REDIS=url demands a running Redis at IDEMPOTENCY_TEST_REDIS_URL, but "
					+ "IDEMPOTENCY_TEST_REDIS_URL is not set.");
	}

	@Test
	void unknownSourceNamesTheKnownOnes() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "docker");
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, YES, YES).sharedSource())
			.withMessage("IDEMPOTENCY_TEST_REDIS='docker' is not one of url, testcontainers, binary");
	}

	@Test
	void privateServersPreferTheBinaryEvenWhenAUrlIsGiven() {
		this.environment.put(TestRedis.URL_VARIABLE, "redis://example:7000");
		assertThat(discovery(NOT_ASKED, NOT_ASKED, YES).privateSource()).isEqualTo(RedisSource.BINARY);
		this.environment.put(TestRedis.SOURCE_VARIABLE, "url");
		assertThat(discovery(NOT_ASKED, NOT_ASKED, YES).privateSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void privateServersComeFromDockerWithoutABinary() {
		assertThat(discovery(YES, YES, NO).privateSource()).isEqualTo(RedisSource.TESTCONTAINERS);
	}

	@Test
	void privateServersComeFromDockerWhenTestcontainersIsDemanded() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "testcontainers");
		assertThat(discovery(YES, YES, NOT_ASKED).privateSource()).isEqualTo(RedisSource.TESTCONTAINERS);
	}

	@Test
	void privateServerWithNothingAvailableFailsSayingHowToGetOne() {
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, NO, NO).privateSource())
			.withMessageStartingWith("This test needs a Redis server of its own, to stop, kill or restart, and none "
					+ "can be started. Install redis-server on the PATH");
	}

	@Test
	void clusterNodesComeFirstAndNothingElseIsAsked() {
		this.environment.put(TestRedis.CLUSTER_NODES_VARIABLE, " example:7000,example:7001 ");
		RedisDiscovery discovery = discovery(NOT_ASKED, NOT_ASKED, NOT_ASKED);
		assertThat(discovery.clusterSource()).isEqualTo(RedisSource.URL);
		assertThat(discovery.clusterNodes()).isEqualTo("example:7000,example:7001");
	}

	@Test
	void clusterIsNotTakenFromTheUrlOfOneRedis() {
		this.environment.put(TestRedis.URL_VARIABLE, "redis://example:7000");
		assertThat(discovery(YES, NO, YES).clusterSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void clusterComesFromTestcontainersBeforeTheBinary() {
		assertThat(discovery(YES, YES, NOT_ASKED).clusterSource()).isEqualTo(RedisSource.TESTCONTAINERS);
		assertThat(discovery(YES, NO, YES).clusterSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void demandedSourceOfTheClusterWinsOverGivenNodes() {
		this.environment.put(TestRedis.CLUSTER_NODES_VARIABLE, "example:7000");
		this.environment.put(TestRedis.SOURCE_VARIABLE, "binary");
		assertThat(discovery(NOT_ASKED, NOT_ASKED, YES).clusterSource()).isEqualTo(RedisSource.BINARY);
	}

	@Test
	void demandedUrlFailsWithoutClusterNodes() {
		this.environment.put(TestRedis.SOURCE_VARIABLE, "url");
		this.environment.put(TestRedis.URL_VARIABLE, "redis://example:7000");
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, YES, YES).clusterSource())
			.withMessage("IDEMPOTENCY_TEST_REDIS=url demands running servers, but "
					+ "IDEMPOTENCY_TEST_REDIS_CLUSTER_NODES is not set: set it to some nodes of a running cluster "
					+ "(host:port,host:port), or unset IDEMPOTENCY_TEST_REDIS to let the tests start one.");
	}

	@Test
	void clusterWithNothingAvailableFailsSayingHowToGetOne() {
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, NO, NO).clusterSource())
			.withMessageStartingWith("These tests need a real Redis Cluster, and none was found.")
			.withMessageContaining("set IDEMPOTENCY_TEST_REDIS_CLUSTER_NODES=host:port,host:port")
			.withMessageContaining("install redis-server and redis-cli on the PATH");
	}

	@Test
	void malformedClusterNodesAreNamed() {
		assertThatIllegalStateException()
			.isThrownBy(() -> ClusterFormation.given("127.0.0.1:7000,nowhere", TestRedis.CLUSTER_NODES_VARIABLE))
			.withMessage("IDEMPOTENCY_TEST_REDIS_CLUSTER_NODES='127.0.0.1:7000,nowhere' is not a list of host:port "
					+ "separated by commas: 'nowhere'");
	}

	@Test
	void dockerIsAskedOnce() {
		AtomicInteger asked = new AtomicInteger();
		RedisDiscovery discovery = discovery(YES, () -> asked.incrementAndGet() < 0, YES);
		discovery.sharedSource();
		discovery.privateSource();
		discovery.sharedSource();
		assertThat(asked).hasValue(1);
	}

	private RedisDiscovery discovery(BooleanSupplier testcontainers, BooleanSupplier docker, BooleanSupplier binary) {
		return new RedisDiscovery(this.environment::get, testcontainers, docker, binary);
	}

}
