package dev.candor.itest.workload;

import dev.candor.api.Candor;
import dev.candor.api.LabelScope;

import java.nio.file.Path;

/**
 * Known-answer workload for label scopes ({@link Candor#label}). Thread {@value #WORKER} alternates
 * slices of {@link Hot#methodA} under {@code endpoint=/a} and of {@link Hot#methodB} under
 * {@code endpoint=/b}, the latter inside a nested {@code span=N} scope with a new N every slice
 * (many distinct sets, as trace ids make them). Thread {@value #PLAIN} runs methodA with no label.
 * The CPU time spent under each label is measured with ThreadMXBean around every slice.
 *
 * <p>Usage: {@code Labelled TRUTH_FILE CPU_MS_A CPU_MS_B CPU_MS_PLAIN}. Truth keys:
 * {@code cpu_a_ns}, {@code cpu_b_ns}, {@code cpu_plain_ns}, {@code spans}.
 */
public final class Labelled {
    public static final String WORKER = "lb-worker";
    public static final String PLAIN = "lb-plain";
    private static final long SLICE_NS = 3_000_000;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long targetA = Long.parseLong(args[1]) * 1_000_000L;
        long targetB = Long.parseLong(args[2]) * 1_000_000L;
        long targetPlain = Long.parseLong(args[3]) * 1_000_000L;
        Truth truth = new Truth();
        Hot.cpu(); // load the management classes on main, not on the measured threads
        long[] spent = new long[3];
        int[] spans = new int[1];
        Thread worker = new Thread(() -> {
            int x = 0;
            while (spent[0] < targetA || spent[1] < targetB) {
                if (spent[0] < targetA) {
                    try (LabelScope a = Candor.label("endpoint", "/a")) {
                        long t = Hot.cpu();
                        x += slice('A', x);
                        spent[0] += Hot.cpu() - t;
                    }
                }
                // B's share of each round follows the targets' ratio, so both phases end together
                if (spent[1] < targetB && spent[1] * targetA <= spent[0] * targetB) {
                    try (LabelScope b = Candor.label("endpoint", "/b");
                         LabelScope span = Candor.label("span", Integer.toString(spans[0]++))) {
                        long t = Hot.cpu();
                        x += slice('B', x);
                        spent[1] += Hot.cpu() - t;
                    }
                }
            }
            Hot.sink = x;
        }, WORKER);
        Thread plain = new Thread(() -> {
            int x = 0;
            long t0 = Hot.cpu();
            while (Hot.cpu() - t0 < targetPlain) {
                x += Hot.run('A', Hot.CHUNK, x);
            }
            spent[2] = Hot.cpu() - t0;
            Hot.sink += x;
        }, PLAIN);
        worker.start();
        plain.start();
        worker.join();
        plain.join();
        truth.put("cpu_a_ns", spent[0]).put("cpu_b_ns", spent[1]).put("cpu_plain_ns", spent[2])
                .put("spans", spans[0]).write(truthFile);
        System.out.println("workload done");
    }

    private static int slice(char which, int seed) {
        int x = seed;
        long start = Hot.cpu();
        while (Hot.cpu() - start < SLICE_NS) {
            x += Hot.run(which, Hot.CHUNK / 8, x);
        }
        return x;
    }

    private Labelled() {
    }
}
