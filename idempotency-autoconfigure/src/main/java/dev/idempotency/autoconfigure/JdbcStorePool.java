package dev.idempotency.autoconfigure;

import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.ClassUtils;

/**
 * The connections of the JDBC store's own statements (acquire, renew, release, reads,
 * cleanup, health): a pool of {@code idempotency.jdbc.pool-size} connections (unset, as
 * many as the application's pool) copied from the application's HikariCP pool, so that
 * callers holding every connection of that pool in transactions around their idempotent
 * calls cannot starve the store of the one each call needs before its method runs; else
 * the application's {@link DataSource} itself. Not a {@code DataSource} bean, so that the
 * application still has a single one. Closed with the context.
 */
final class JdbcStorePool implements DisposableBean {

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			JdbcStorePool.class.getClassLoader());

	private final DataSource dataSource;

	private final @Nullable AutoCloseable own;

	private JdbcStorePool(DataSource dataSource, @Nullable AutoCloseable own) {
		this.dataSource = dataSource;
		this.own = own;
	}

	/**
	 * Make the store's connections.
	 * @param application the application's data source
	 * @param size the size of the store's own pool, 0 for none, {@code null} for the
	 * application pool's size
	 * @return the store's connections
	 */
	static JdbcStorePool of(DataSource application, @Nullable Integer size) {
		if ((size == null || size > 0) && HIKARI_PRESENT) {
			HikariDataSource own = Hikari.copy(application, size);
			if (own != null) {
				return new JdbcStorePool(own, own);
			}
		}
		return new JdbcStorePool(application, null);
	}

	/**
	 * Return the data source of the store's own statements.
	 * @return the data source
	 */
	DataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * Return whether the store has a pool of its own.
	 * @return whether it has
	 */
	boolean isOwn() {
		return this.own != null;
	}

	@Override
	public void destroy() throws Exception {
		if (this.own != null) {
			this.own.close();
		}
	}

	// Loaded only when HikariCP is on the class path
	private static final class Hikari {

		// Every call outside a transaction runs all its statements on this pool: as large
		// as the application's unless told otherwise, so that it caps nothing the
		// application's pool would not
		static @Nullable HikariDataSource copy(DataSource application, @Nullable Integer size) {
			HikariDataSource hikari = unwrap(application);
			if (hikari == null) {
				return null;
			}
			// Started on its first connection, as Boot's own pool is: the application
			// starts
			// while the database is down
			HikariDataSource own = new HikariDataSource();
			hikari.copyStateTo(own);
			own.setPoolName(hikari.getPoolName() + "-idempotency");
			int maximum = (size != null) ? size : hikari.getMaximumPoolSize();
			own.setMaximumPoolSize(maximum);
			own.setMinimumIdle(Math.min(maximum, hikari.getMinimumIdle()));
			// Its MBeans would be the application pool's, under another name: not asked
			// for
			own.setRegisterMbeans(false);
			return own;
		}

		private static @Nullable HikariDataSource unwrap(DataSource dataSource) {
			if (dataSource instanceof HikariDataSource hikari) {
				return hikari;
			}
			try {
				return dataSource.isWrapperFor(HikariDataSource.class) ? dataSource.unwrap(HikariDataSource.class)
						: null;
			}
			catch (SQLException ex) {
				return null;
			}
		}

	}

}
