package dev.candor.itest.workload;

import dev.candor.api.Candor;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A start that fails late (the agent's test hook CANDOR_TEST_FAIL_START_AT fails one step of the
 * first start), then a start that works. Records what the failed start left behind: candor's own
 * threads, open file descriptors and the .jfr file it had opened.
 *
 * <p>Usage: {@code StartUndo OUT_DIR OPTIONS}: OPTIONS are the agent options of both starts,
 * without the files (the workload adds file=OUT_DIR/undo.jfr and OUT_DIR/undo.collapsed).
 */
public final class StartUndo {

    private static final String CLOSED = ":(closed meanwhile)";

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        String options = args[1] + ",file=" + out.resolve("undo.jfr") + ",file=" + out.resolve("undo.collapsed");
        Properties seen = new Properties();
        Hot.warmUp();
        Candor.status();  // the API's own first use (the library, its files) is not what is measured
        seen.setProperty("threads.before", candorThreads());
        putFds(seen, "fds.before");
        seen.setProperty("first", ApiUser.thrown(() -> Candor.start(options)));
        seen.setProperty("threads.afterFailure", candorThreads());
        putFds(seen, "fds.afterFailure");
        seen.setProperty("jfr.afterFailure", Boolean.toString(Files.exists(out.resolve("undo.jfr"))));
        seen.setProperty("status.afterFailure", Candor.status());
        seen.setProperty("second", ApiUser.thrown(() -> Candor.start(options)));
        int x = 0;
        long end = Hot.cpu() + 500_000_000L;
        while (Hot.cpu() < end) {
            x += Hot.methodA(Hot.CHUNK, x);
        }
        Hot.sink = x;
        Candor.stop();
        seen.setProperty("threads.afterStop", candorThreads());
        try (Writer w = Files.newBufferedWriter(out.resolve("undo.properties"))) {
            seen.store(w, "what StartUndo saw");
        }
        System.out.println("workload done");
    }

    // The OS names of candor's own threads ("candor walker", ...), sorted.
    static String candorThreads() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            List<String> names = tasks.map(t -> {
                try {
                    return Files.readString(t.resolve("comm")).strip();
                } catch (IOException e) {
                    return "";  // the task ended meanwhile
                }
            }).filter(n -> n.startsWith("candor")).sorted().collect(Collectors.toList());
            return String.join(",", names);
        }
    }

    // KEY: how many fds are open; KEY.list: what each is ("3:/path/to.jar"), for the test's message
    // when the counts differ. Both from one listing. The JVM reads its container's limits now and
    // then from its own threads (/sys/fs/cgroup/... memory.limit_in_bytes, cpu.cfs_quota_us: dozens
    // of times a second while the JIT sizes its thread pool): such an fd, open for microseconds, is
    // neither candor's nor a leak, nor is one closed between the listing and its readlink.
    static void putFds(Properties seen, String key) throws IOException {
        List<String> fds;
        try (Stream<Path> listing = Files.list(Path.of("/proc/self/fd"))) {
            fds = listing.map(fd -> {
                try {
                    return fd.getFileName() + ":" + Files.readSymbolicLink(fd);
                } catch (IOException e) {
                    return fd.getFileName() + CLOSED;
                }
            }).sorted().collect(Collectors.toList());
        }
        seen.setProperty(key, Long.toString(fds.stream()
                .filter(fd -> !fd.contains(":/sys/fs/cgroup/") && !fd.endsWith(CLOSED)).count()));
        seen.setProperty(key + ".list", String.join(" ", fds));
    }

    private StartUndo() {
    }
}
