package dev.idempotency.web;

/**
 * Whose requests share the keys of an idempotent request handler.
 */
public enum KeyScope {

	/**
	 * Each authenticated principal has keys of its own, and unauthenticated requests
	 * share theirs: the same key sent by two clients is two requests, so one client can
	 * never replay or block another's.
	 */
	PRINCIPAL,

	/**
	 * Every client shares the keys: the same key from any caller is the same request.
	 */
	NONE

}
