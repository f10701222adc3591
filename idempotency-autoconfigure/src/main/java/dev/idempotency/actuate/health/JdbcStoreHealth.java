package dev.idempotency.actuate.health;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcTableCheck;

import org.springframework.boot.health.contributor.Health;

/**
 * Health of a JDBC store beyond a read: whether its table exists and accepts a write, and
 * whether the database is a read-only replica. {@code DOWN} with a {@code reason} that
 * says which, and for a missing table how to create it. A class of its own so that it is
 * loaded only when idempotency-jdbc is on the class path.
 */
final class JdbcStoreHealth implements Consumer<Health.Builder> {

	private final JdbcTableCheck check;

	private JdbcStoreHealth(JdbcIdempotencyStore store) {
		this.check = store.tableCheck();
	}

	static @Nullable Consumer<Health.Builder> of(IdempotencyStore store) {
		return (store instanceof JdbcIdempotencyStore jdbc) ? new JdbcStoreHealth(jdbc) : null;
	}

	@Override
	public void accept(Health.Builder builder) {
		JdbcTableCheck.Status status = this.check.check();
		builder.withDetail("database", status.database()).withDetail("table", status.table());
		if (status.problem() != null) {
			builder.down().withDetail("reason", status.problem());
		}
	}

}
