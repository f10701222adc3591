package dev.idempotency.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the numbers were measured on.
 *
 * @param cpus processors available to the JVM
 * @param cpuModel the first {@code model name} of {@code /proc/cpuinfo}
 * @param jdk vendor and version of the JVM
 * @param os name, version and architecture of the operating system
 * @param redis version and allocator of the Redis server
 */
record MachineInfo(int cpus, String cpuModel, String jdk, String os, String redis) {

	static MachineInfo describe(RedisAdmin redis) {
		return new MachineInfo(Runtime.getRuntime().availableProcessors(), readCpuModel(),
				System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
				System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
						+ System.getProperty("os.arch"),
				redis.info("server", "redis_version") + " (" + redis.info("memory", "mem_allocator") + ")");
	}

	/**
	 * Return the load average of the last minute, which tells how busy the machine was.
	 * @return the first field of {@code /proc/loadavg}, or {@code ?}
	 */
	static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
		}
		catch (IOException | RuntimeException ex) {
			return "?";
		}
	}

	private static String readCpuModel() {
		try {
			List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
			return lines.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst()
				.orElse("?");
		}
		catch (IOException ex) {
			return "?";
		}
	}

}
