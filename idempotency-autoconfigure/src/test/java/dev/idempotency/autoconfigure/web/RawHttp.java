package dev.idempotency.autoconfigure.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * An HTTP/1.1 client that writes the request's bytes as they are given, so that a test
 * can send what {@code java.net.http.HttpClient} refuses to: repeated header lines,
 * control and non-ASCII characters in a header value.
 */
final class RawHttp {

	private RawHttp() {
	}

	/**
	 * Send one request on a connection of its own, closed by the server after the
	 * response.
	 * @param port the server's port on localhost
	 * @param method the request method
	 * @param path the request target
	 * @param headers header lines, each written as it is (such as
	 * {@code Idempotency-Key: abc}), as UTF-8
	 * @param body the request body, sent as JSON
	 * @return the response
	 */
	static Response send(int port, String method, String path, List<String> headers, String body) throws IOException {
		byte[] content = body.getBytes(StandardCharsets.UTF_8);
		StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: localhost:" + port
				+ "\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: " + content.length
				+ "\r\n");
		headers.forEach((line) -> head.append(line).append("\r\n"));
		head.append("\r\n");
		try (Socket socket = new Socket("localhost", port)) {
			socket.setSoTimeout(10_000);
			// In one write, so that the body arrives with the head: a server that answers
			// the head alone (Netty refusing a header) and closes, its socket holding a
			// body
			// that came later, resets the connection, and the client loses the answer
			ByteArrayOutputStream request = new ByteArrayOutputStream();
			request.write(head.toString().getBytes(StandardCharsets.UTF_8));
			request.write(content);
			OutputStream out = socket.getOutputStream();
			out.write(request.toByteArray());
			out.flush();
			return parse(socket.getInputStream().readAllBytes());
		}
	}

	private static Response parse(byte[] bytes) throws IOException {
		String text = new String(bytes, StandardCharsets.ISO_8859_1);
		int end = text.indexOf("\r\n\r\n");
		if (end < 0) {
			throw new IOException("Not an HTTP response: '" + text + "'");
		}
		String[] lines = text.substring(0, end).split("\r\n");
		int status = Integer.parseInt(lines[0].split(" ")[1]);
		Map<String, String> headers = new LinkedHashMap<>();
		for (int i = 1; i < lines.length; i++) {
			int colon = lines[i].indexOf(':');
			headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
					lines[i].substring(colon + 1).trim());
		}
		byte[] rest = java.util.Arrays.copyOfRange(bytes, end + 4, bytes.length);
		boolean chunked = "chunked".equalsIgnoreCase(headers.get("transfer-encoding"));
		return new Response(status, headers, chunked ? dechunk(rest) : rest);
	}

	private static byte[] dechunk(byte[] chunked) throws IOException {
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		InputStream in = new java.io.ByteArrayInputStream(chunked);
		while (true) {
			StringBuilder size = new StringBuilder();
			int c;
			while ((c = in.read()) != '\n') {
				if (c < 0) {
					throw new IOException("Truncated chunked body");
				}
				if (c != '\r') {
					size.append((char) c);
				}
			}
			int length = Integer.parseInt(size.toString().split(";")[0].trim(), 16);
			if (length == 0) {
				return body.toByteArray();
			}
			body.write(in.readNBytes(length));
			in.readNBytes(2);
		}
	}

	/**
	 * A response.
	 *
	 * @param status the status code
	 * @param headers the first value of each header, by lowercase name
	 * @param body the body, dechunked
	 */
	record Response(int status, Map<String, String> headers, byte[] body) {

		Optional<String> header(String name) {
			return Optional.ofNullable(this.headers.get(name.toLowerCase(Locale.ROOT)));
		}

		String text() {
			return new String(this.body, StandardCharsets.UTF_8);
		}

	}

}
