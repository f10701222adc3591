package dev.idempotency.autoconfigure.endpoint;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the idempotency endpoint and health over HTTP on the JDBC store, in a Boot
 * application on a real PostgreSQL whose table the store creates: inspect and evict go
 * through the store's read and evict, on rows of its table.
 */
@TestPropertySource(properties = { "idempotency.store=jdbc", "idempotency.jdbc.initialize-schema=always" })
@Import(JdbcIdempotencyEndpointWebTests.Database.class)
class JdbcIdempotencyEndpointWebTests extends IdempotencyEndpointWebTests {

	@Autowired
	private DataSource dataSource;

	@Autowired
	private Payments payments;

	@Override
	protected String storeType() {
		return "jdbc";
	}

	@Test
	void inspectedRecordIsARowOfTheTableAndEvictDeletesIt() throws Exception {
		String key = UUID.randomUUID().toString();
		this.payments.charge(key);
		this.payments.charge(key);
		assertThat(this.payments.charges(key)).isOne();
		assertThat(rows("Payments.charge:" + key)).isOne();
		assertThat(get("/actuator/idempotency/Payments.charge/" + key).statusCode()).isEqualTo(200);
		HttpResponse<String> evicted = delete("/actuator/idempotency/Payments.charge/" + key);
		assertThat(evicted.statusCode()).isBetween(200, 204);
		assertThat(rows("Payments.charge:" + key)).isZero();
		assertThat(get("/actuator/idempotency/Payments.charge/" + key).statusCode()).isEqualTo(404);
	}

	@Test
	void healthNamesTheDatabaseAndTheTable() throws Exception {
		String body = get("/actuator/health/idempotency").body();
		assertThat(body).contains("\"database\":\"PostgreSQL\"").contains("\"table\":\"idempotency_record\"");
	}

	private int rows(String recordKey) throws Exception {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection
					.prepareStatement("SELECT count(*) FROM idempotency_record WHERE record_key = ?")) {
			statement.setString(1, recordKey);
			try (ResultSet rs = statement.executeQuery()) {
				rs.next();
				return rs.getInt(1);
			}
		}
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Database {

		@Bean
		HikariDataSource dataSource() {
			return TestDatabases.postgres().createDatabase().dataSource(8);
		}

	}

}
