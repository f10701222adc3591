package dev.idempotency.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Promela model in {@code model/} was checked against the Lua scripts whose digests
 * {@code model/script-digests.txt} records; a script that changes without those digests
 * changing fails here, as a reminder to revisit the model (not a proof that it still
 * holds).
 */
class ModelDigestTests {

	private static final String DIGESTS = "model/script-digests.txt";

	private static final String NOT_MODELED = "-";

	// The scripts model/store.pml describes: their digests can never be waived with "-"
	private static final Set<String> MODELED = Set.of("record.lua", "acquire.lua", "acquire-one.lua", "acquire-all.lua",
			"complete.lua", "complete-one.lua", "complete-all.lua", "release.lua", "renew.lua");

	@Test
	void everyScriptIsTheOneTheModelWasCheckedAgainst() throws IOException {
		List<String> problems = problems(recordedDigests(), scriptDigests());
		assertThat(problems).withFailMessage(() -> failure(problems)).isEmpty();
	}

	@Test
	void aChangedScriptIsReportedWithWhatToDo() throws IOException {
		Map<String, String> actual = scriptDigests();
		Map<String, String> recorded = new TreeMap<>(actual);
		recorded.put("complete.lua", "0".repeat(64));
		List<String> problems = problems(recorded, actual);
		assertThat(problems).singleElement().asString().startsWith("complete.lua changed: now ");
		assertThat(failure(problems)).contains("revisit model/store.pml", "bash model/check.sh", DIGESTS);
	}

	@Test
	void aScriptNotModeledNeedsNoDigest() throws IOException {
		Map<String, String> actual = scriptDigests();
		Map<String, String> recorded = new TreeMap<>(actual);
		recorded.put("server-check.lua", NOT_MODELED);
		assertThat(problems(recorded, actual)).isEmpty();
	}

	@Test
	void aModeledScriptCannotBeWaived() throws IOException {
		Map<String, String> actual = scriptDigests();
		Map<String, String> recorded = new TreeMap<>(actual);
		recorded.put("acquire.lua", NOT_MODELED);
		assertThat(problems(recorded, actual)).singleElement()
			.asString()
			.startsWith("acquire.lua is modelled by model/store.pml");
	}

	@Test
	void aScriptTheDigestsDoNotNameIsReported() throws IOException {
		Map<String, String> actual = scriptDigests();
		Map<String, String> recorded = new TreeMap<>(actual);
		recorded.remove("renew.lua");
		assertThat(problems(recorded, actual)).containsExactly(
				"renew.lua is not in " + DIGESTS + ": add its digest, or \"-\" if the model does not cover it");
	}

	private static List<String> problems(Map<String, String> recorded, Map<String, String> actual) {
		List<String> problems = new ArrayList<>();
		actual.forEach((script, digest) -> {
			String expected = recorded.get(script);
			if (expected == null) {
				problems.add(
						script + " is not in " + DIGESTS + ": add its digest, or \"-\" if the model does not cover it");
			}
			else if (expected.equals(NOT_MODELED) && MODELED.contains(script)) {
				problems.add(script + " is modelled by model/store.pml: its digest in " + DIGESTS + " cannot be \"-\"");
			}
			else if (!expected.equals(NOT_MODELED) && !expected.equals(digest)) {
				problems.add(script + " changed: now " + digest + ", the model was checked against " + expected);
			}
		});
		recorded.keySet()
			.stream()
			.filter((script) -> !actual.containsKey(script))
			.forEach((script) -> problems.add(script + " is in " + DIGESTS + " but not on the class path"));
		return problems;
	}

	private static String failure(List<String> problems) {
		return "The Lua scripts are not the ones the model was checked against:\n  " + String.join("\n  ", problems)
				+ "\nrevisit model/store.pml (model/README.md maps each step to its script lines), run "
				+ "`bash model/check.sh`, then record the new digests in " + DIGESTS + ".";
	}

	private static Map<String, String> scriptDigests() throws IOException {
		Map<String, String> digests = new TreeMap<>();
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:dev/idempotency/store/redis/*.lua");
		assertThat(scripts).as("Lua scripts on the class path").isNotEmpty();
		for (Resource script : scripts) {
			try (InputStream in = script.getInputStream()) {
				digests.put(script.getFilename(), sha256(in.readAllBytes()));
			}
		}
		return digests;
	}

	private static Map<String, String> recordedDigests() throws IOException {
		Map<String, String> digests = new TreeMap<>();
		for (String line : Files.readAllLines(digestsFile(), StandardCharsets.UTF_8)) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			String[] parts = line.trim().split("\\s+");
			assertThat(parts).as("line '%s' of %s: a digest and a script name", line, DIGESTS).hasSize(2);
			digests.put(parts[1], parts[0]);
		}
		return digests;
	}

	private static Path digestsFile() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			Path candidate = dir.resolve(DIGESTS);
			if (Files.isRegularFile(candidate)) {
				return candidate;
			}
		}
		throw new IllegalStateException(DIGESTS + " not found in " + Path.of("").toAbsolutePath() + " or above");
	}

	private static String sha256(byte[] bytes) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
