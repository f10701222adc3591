package dev.idempotency.web;

/**
 * Whose requests share the keys of an idempotent request handler.
 */
public enum KeyScope {

	/**
	 * Keys are scoped: by default each authenticated principal has keys of its own, and
	 * unauthenticated requests share theirs, so the same key sent by two authenticated
	 * clients is two requests and one can never replay or block the other's. An
	 * application's {@code ServletKeyScopeResolver} or {@code ReactiveKeyScopeResolver}
	 * bean scopes them otherwise (by API key, tenant, client certificate).
	 */
	PRINCIPAL,

	/**
	 * Every client shares the keys: the same key from any caller is the same request. No
	 * scope resolver is called.
	 */
	NONE

}
