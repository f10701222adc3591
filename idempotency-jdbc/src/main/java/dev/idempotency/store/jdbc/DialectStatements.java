package dev.idempotency.store.jdbc;

/**
 * The statements of a dialect that both dialects have. Each that changes a row states in
 * its {@code WHERE} everything the decision to run it was based on, so that it changes
 * nothing when another statement moved first.
 *
 * @param claimExpired take a row whose record has expired, as a new record
 * @param claimTakeover take over an attempt whose lease ran out: same fence and owner as
 * read, still in progress, lease over, record not expired
 * @param claimFailed take a failed record: same fence as read, still failed, not expired
 * @param reclaim start the lease of a re-sent acquire again: same owner and fence
 * @param complete complete an owned attempt
 * @param release release an owned attempt
 * @param abandon release whatever attempt an owner holds
 * @param renew extend an owned lease, without waiting for a row lock
 * @param read read a row and the database's time
 * @param deleteLive delete a record that has not expired
 * @param delete delete a row
 */
record DialectStatements(NamedSql claimExpired, NamedSql claimTakeover, NamedSql claimFailed, NamedSql reclaim,
		NamedSql complete, NamedSql release, NamedSql abandon, NamedSql renew, NamedSql read, NamedSql deleteLive,
		NamedSql delete) {

}
