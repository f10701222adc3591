package dev.idempotency.engine;

/**
 * The payload fingerprint of one call, computed by the engine when it needs it, so that a
 * failure to compute it is reported and counted like any refused call.
 */
@FunctionalInterface
public interface Fingerprint {

	/**
	 * Compute the fingerprint.
	 * @return the fingerprint, such as a SHA-256 digest
	 * @throws RuntimeException when the payload cannot be evaluated or fingerprinted
	 */
	byte[] compute();

}
