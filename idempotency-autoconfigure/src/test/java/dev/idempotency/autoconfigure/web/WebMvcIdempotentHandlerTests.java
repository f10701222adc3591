package dev.idempotency.autoconfigure.web;

import java.io.IOException;
import java.security.Principal;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Tests of idempotent Spring MVC request handlers over real HTTP on a real Redis.
 */
@SpringBootTest(classes = WebMvcIdempotentHandlerTests.TestApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "spring.main.web-application-type=servlet")
class WebMvcIdempotentHandlerTests extends IdempotentHandlerWebTests {

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Payments.class, Lookups.class, OwnErrors.class, OwnErrorsAdvice.class, BroadErrors.class,
			BroadErrorsAdvice.class, TestUserFilter.class })
	static class TestApplication {

	}

	// Authenticates the caller that the test header names, as a security filter would
	static class TestUserFilter extends OncePerRequestFilter {

		@Override
		protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
				throws ServletException, IOException {
			String user = request.getHeader(USER_HEADER);
			if (user == null) {
				chain.doFilter(request, response);
				return;
			}
			Principal principal = () -> user;
			chain.doFilter(new HttpServletRequestWrapper(request) {

				@Override
				public Principal getUserPrincipal() {
					return principal;
				}

			}, response);
		}

	}

}
