package dev.candor.itest.workload;

import java.nio.file.Path;

/**
 * Known-answer workload: one thread, {@value #THREAD}, runs {@link Hot#methodA} for a given amount
 * of its own CPU time, then {@link Hot#methodB}. The CPU time spent inside each method is measured
 * around every call with ThreadMXBean and written as the truth.
 *
 * <p>Usage: {@code KnownAnswer TRUTH_FILE CPU_MS_A CPU_MS_B}. Truth keys: {@code cpu_a_ns},
 * {@code cpu_b_ns}, {@code thread_cpu_ns}, {@code thread}, {@code tid}.
 */
public final class KnownAnswer {
    public static final String THREAD = "ka-worker";

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long targetA = Long.parseLong(args[1]) * 1_000_000L;
        long targetB = Long.parseLong(args[2]) * 1_000_000L;
        Truth truth = new Truth();
        Hot.cpu(); // load the management classes on main, not on the measured thread
        Thread worker = new Thread(() -> {
            long[] spent = new long[2];
            int x = 0;
            // warm-up: measured as a block per method
            long t0 = Hot.cpu();
            for (int i = 0; i < 20_000; i++) {
                x += Hot.methodA(500, i);
            }
            long t1 = Hot.cpu();
            for (int i = 0; i < 20_000; i++) {
                x += Hot.methodB(500, i);
            }
            long t2 = Hot.cpu();
            spent[0] += t1 - t0;
            spent[1] += t2 - t1;
            x += phase('A', targetA, spent, 0);
            x += phase('B', targetB, spent, 1);
            Hot.sink = x;
            truth.put("cpu_a_ns", spent[0]).put("cpu_b_ns", spent[1])
                    .put("thread_cpu_ns", Hot.cpu()).put("tid", Hot.osTid());
        }, THREAD);
        worker.start();
        worker.join();
        truth.put("thread", THREAD).write(truthFile);
        System.out.println("workload done");
    }

    private static int phase(char which, long targetNs, long[] spent, int slot) {
        int x = 0;
        long inPhase = 0;
        while (inPhase < targetNs) {
            long a = Hot.cpu();
            x += Hot.run(which, Hot.CHUNK, x);
            long d = Hot.cpu() - a;
            inPhase += d;
            spent[slot] += d;
        }
        return x;
    }

    private KnownAnswer() {
    }
}
