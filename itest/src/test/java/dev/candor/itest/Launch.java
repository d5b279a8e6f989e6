package dev.candor.itest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Launching a {@link Jvm} with what {@link Jvm#start()} does not offer: extra environment
 * variables (LD_PRELOAD for the audit) and a shell prefix (a umask, another user).
 */
final class Launch {
    /** Runs JVM in DIR with ENV added, its command run by the shell code PREFIX (e.g. "umask 077; exec"). */
    static Jvm.Result run(Jvm jvm, Path dir, Map<String, String> env, String prefix, Duration timeout)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (prefix != null && !prefix.isBlank()) {
            cmd.addAll(List.of("/bin/sh", "-c", prefix + " \"$@\"", "sh"));
        }
        cmd.addAll(jvm.command());
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        StringBuilder shown = new StringBuilder();
        env.forEach((k, v) -> shown.append(k).append('=').append(v).append(' '));
        Files.writeString(dir.resolve("command.txt"), shown + String.join(" ", cmd) + "\n");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        return new Jvm.Started(cmd, p, out, err, System.nanoTime()).await(timeout);
    }

    /** Compiles C sources with cc (extra flags allowed) into OUT; fails the test with the compiler's output. */
    static Path cc(Path out, String... sourcesAndFlags) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("cc", "-O2", "-o", out.toString()));
        cmd.addAll(List.of(sourcesAndFlags));
        Files.createDirectories(out.getParent());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "cannot compile: " + String.join(" ", cmd) + "\n" + text);
        return out;
    }

    /** The repository root (itest/..). */
    static Path repo() {
        return Build.target().getParent().getParent();
    }

    private Launch() {
    }
}
