package dev.idempotency.web.servlet;

import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import dev.idempotency.aop.RequestBinding.Response;
import dev.idempotency.web.IdempotencyProblems;

/**
 * The response of the current servlet request that {@link ServletRequestBinding} exposes,
 * which a replay marks with the replayed header.
 *
 * @param response the servlet response, {@code null} when the request has none
 */
record ServletBoundResponse(@Nullable HttpServletResponse response) implements Response {

	@Override
	public void replayed() {
		if (this.response != null) {
			this.response.setHeader(IdempotencyProblems.REPLAYED_HEADER, "true");
		}
	}

}
