package dev.candor.itest.workload;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The known-answer workload with its truth as a calling context tree: one thread,
 * {@value #THREAD}, runs {@link Hot#methodA} for a given amount of its own CPU time, then
 * {@link Hot#methodB}, both called from {@link #work}. The CPU time of every call is measured with
 * ThreadMXBean and charged to the call's real stack (walked once per call site with
 * {@link StackWalker}, hidden frames included), written as collapsed stacks weighted by CPU ns,
 * which {@code candor compare} reads.
 *
 * <p>Usage: {@code TruthTree TRUTH_FILE CPU_MS_A CPU_MS_B}. Compare with {@code --focus
 * 'TruthTree\.work$'} (the truth covers only what {@link #work} measures).
 */
public final class TruthTree {
    public static final String THREAD = "tt-worker";
    /** The frame both the profile and the truth are re-rooted at. */
    public static final String WORK = "dev.candor.itest.workload.TruthTree.work";

    private static final StackWalker WALKER = StackWalker.getInstance(
            Set.of(StackWalker.Option.SHOW_HIDDEN_FRAMES, StackWalker.Option.SHOW_REFLECT_FRAMES));

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long targetA = Long.parseLong(args[1]) * 1_000_000L;
        long targetB = Long.parseLong(args[2]) * 1_000_000L;
        Hot.cpu();
        long[] spent = new long[2];
        String[] stacks = new String[2];
        Thread worker = new Thread(() -> work(targetA, targetB, spent, stacks), THREAD);
        worker.start();
        worker.join();
        String tree = stacks[0] + " " + spent[0] + "\n" + stacks[1] + " " + spent[1] + "\n";
        Files.writeString(truthFile, tree, StandardCharsets.UTF_8);
        System.out.println("workload done");
    }

    static void work(long targetA, long targetB, long[] spent, String[] stacks) {
        stacks[0] = here(Hot.METHOD_A);
        stacks[1] = here(Hot.METHOD_B);
        int x = 0;
        // warm-up: short calls, measured as a block per method
        long t0 = Hot.cpu();
        for (int i = 0; i < 20_000; i++) {
            x += Hot.methodA(500, i);
        }
        long t1 = Hot.cpu();
        for (int i = 0; i < 20_000; i++) {
            x += Hot.methodB(500, i);
        }
        spent[0] += t1 - t0;
        spent[1] += Hot.cpu() - t1;
        long a = 0;
        while (a < targetA) {
            long t = Hot.cpu();
            x += Hot.methodA(Hot.CHUNK, x);
            long d = Hot.cpu() - t;
            a += d;
            spent[0] += d;
        }
        long b = 0;
        while (b < targetB) {
            long t = Hot.cpu();
            x += Hot.methodB(Hot.CHUNK, x);
            long d = Hot.cpu() - t;
            b += d;
            spent[1] += d;
        }
        Hot.sink = x;
    }

    // The caller's stack, root first, then the callee.
    private static String here(String callee) {
        List<String> frames = WALKER.walk(s -> s.skip(1).map(f -> f.getClassName() + "." + f.getMethodName())
                .toList());
        List<String> out = new ArrayList<>();
        for (int i = frames.size() - 1; i >= 0; i--) {
            out.add(frames.get(i));
        }
        out.add(callee);
        return String.join(";", out);
    }

    private TruthTree() {
    }
}
