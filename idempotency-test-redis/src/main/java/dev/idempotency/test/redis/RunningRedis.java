package dev.idempotency.test.redis;

/**
 * A Redis that the tests started and stop when the JVM exits.
 *
 * @param host its host
 * @param port its port
 * @param stop how to stop it
 */
record RunningRedis(String host, int port, Runnable stop) {

}
