/**
 * The life of a server that the tests start from the machine's binaries, shared by the
 * test support modules: {@link dev.idempotency.test.process.AbstractServerProcess} (a
 * temporary directory, a free port, a crash, a restart, a close) and
 * {@link dev.idempotency.test.process.Watchdog}, which ends the server once the JVM that
 * started it is gone, even killed.
 */
@NullMarked
package dev.idempotency.test.process;

import org.jspecify.annotations.NullMarked;
