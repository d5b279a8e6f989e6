package dev.candor.itest.stress;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A plain busy workload for the safe-files tests. With LINK and TARGET it plants a symbolic
 * link LINK -> TARGET half way through, after the agent has checked its outputs at start (a
 * link planted in a shared directory while the JVM runs). Prints {@code stress busy: ...} at the
 * end, so a test can tell that the JVM ran on to its end. Usage: {@code Busy SECONDS [LINK TARGET]}.
 */
public final class Busy {
    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("busy", args);
        double seconds = Double.parseDouble(args[0]);
        boolean[] planted = {false};
        long half = System.nanoTime() + (long) (seconds * 0.5e9);
        s.workers(1, w -> {
            long x = 0;
            for (int i = 0; i < 1_000_000; i++) {
                x = x * 6364136223846793005L + i;
            }
            Stress.sink += x;
            if (args.length > 2 && !planted[0] && System.nanoTime() > half) {
                Files.createSymbolicLink(Path.of(args[1]), Path.of(args[2]));
                planted[0] = true;
            }
        });
        s.figure("planted", planted[0]);
        s.finish();
    }

    private Busy() {
    }
}
