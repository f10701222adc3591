package dev.idempotency.autoconfigure.web;

import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The servers that the web tests run on: Tomcat for Spring MVC and Reactor Netty for
 * Spring WebFlux, which Boot prefers to Tomcat's reactive adapter when both are present.
 */
final class WebServers {

	private WebServers() {
	}

	static void assertServesItsStack(WebServerApplicationContext context) {
		Class<?> expected = (context instanceof ReactiveWebServerApplicationContext) ? NettyWebServer.class
				: TomcatWebServer.class;
		assertThat(context.getWebServer()).isInstanceOf(expected);
	}

}
