package dev.candor.itest.workload;

import dev.candor.api.Candor;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

/**
 * Uses the candor-api jar in-process: status, start, dump twice, the agent's refusals, stop.
 * Writes what it saw to OUT_DIR/api.properties for the test to check; the profiles go to OUT_DIR.
 *
 * <p>Usage: {@code ApiUser OUT_DIR [STOP_FILE]}: with STOP_FILE it then prints {@code api done} and
 * keeps running (one thread busy in {@link Hot#methodA}) until STOP_FILE appears, at most 60 s, so
 * that a test can attach to the agent the API loaded.
 */
public final class ApiUser {

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        Properties seen = new Properties();
        Hot.warmUp();
        seen.setProperty("mappings.before", Long.toString(candorMappings()));
        seen.setProperty("status.before", Candor.status());
        Path library = Candor.library();
        seen.setProperty("library", String.valueOf(library));
        seen.setProperty("library.dir.permissions",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(library.getParent())));
        seen.setProperty("library.permissions", PosixFilePermissions.toString(Files.getPosixFilePermissions(library)));

        Candor.start("interval=1ms,file=" + out.resolve("api.collapsed") + ",stats=" + out.resolve("api.json"));
        spin(600);
        seen.setProperty("status.running", Candor.status());
        seen.setProperty("running", Boolean.toString(Candor.isRunning()));
        Candor.dump(out.resolve("dump1.collapsed"));
        spin(600);
        Candor.dump(out.resolve("dump2.collapsed"), out.resolve("dump2.html"));
        seen.setProperty("start.again", thrown(() -> Candor.start("interval=1ms")));
        seen.setProperty("start.typo", thrown(() -> Candor.start("intervl=1ms")));
        seen.setProperty("dump.unwritable", thrown(() -> Candor.dump(out.resolve("no-such-dir/x.collapsed"))));
        Candor.stop();
        seen.setProperty("status.after", Candor.status());
        seen.setProperty("stop.again", thrown(Candor::stop));
        seen.setProperty("mappings.after", Long.toString(candorMappings()));
        try (Writer w = Files.newBufferedWriter(out.resolve("api.properties"))) {
            seen.store(w, "what ApiUser saw");
        }
        if (args.length > 1) {
            System.out.println("api done");
            System.out.flush();
            Path stop = Path.of(args[1]);
            long giveUp = System.nanoTime() + 60_000_000_000L;
            int x = 0;
            while (!Files.exists(stop) && System.nanoTime() < giveUp) {
                for (int i = 0; i < 20; i++) {
                    x += Hot.methodA(Hot.CHUNK, x);
                }
            }
            Hot.sink = x;
        }
        System.out.println("workload done");
    }

    // What a call threw, as "Class: message", for the test to compare.
    static String thrown(Runnable r) {
        try {
            r.run();
            return "(nothing thrown)";
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    // About MS milliseconds of CPU in Hot.methodA on this thread.
    private static void spin(long ms) {
        long end = Hot.cpu() + ms * 1_000_000;
        int x = 0;
        while (Hot.cpu() < end) {
            x += Hot.methodA(Hot.CHUNK, x);
        }
        Hot.sink = x;
    }

    static long candorMappings() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.endsWith("/libcandor.so")).count();
    }

    private ApiUser() {
    }
}
