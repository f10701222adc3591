package dev.idempotency.test.redis;

/**
 * A server that the tests were given and did not start: they may use it, never stop it.
 *
 * @param host its host
 * @param port its port
 * @param givenBy where it was given, for the failure of a test that tries to stop it
 */
record GivenRedisServer(String host, int port, String givenBy) implements RedisServer {

	@Override
	public boolean isRunning() {
		return RedisPing.answers(this.host, this.port);
	}

	@Override
	public void restart() {
		throw refused("restart");
	}

	@Override
	public void stop() {
		throw refused("stop");
	}

	@Override
	public void kill() {
		throw refused("kill");
	}

	@Override
	public void freeze() {
		throw refused("freeze");
	}

	@Override
	public void thaw() {
		throw refused("thaw");
	}

	/**
	 * Does nothing: the server runs on after the tests.
	 */
	@Override
	public void close() {
	}

	private UnsupportedOperationException refused(String action) {
		return new UnsupportedOperationException("Cannot " + action + " " + this + ": it was given by " + this.givenBy
				+ " and the tests did not start it; start a cluster of the test's own (TestRedis.startCluster())");
	}

	@Override
	public String toString() {
		return "Redis at " + this.host + ":" + this.port;
	}

}
