package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;

/**
 * Computes the fingerprint of a call's payload, so that a key reused with a different
 * payload can be told apart from a duplicate.
 */
@FunctionalInterface
public interface PayloadFingerprinter {

	/**
	 * Fingerprint a payload. Equal payloads must give equal fingerprints across JVMs and
	 * restarts.
	 * @param payload the payload, possibly {@code null}
	 * @return the fingerprint, such as a 32-byte SHA-256 digest
	 */
	byte[] fingerprint(@Nullable Object payload);

}
