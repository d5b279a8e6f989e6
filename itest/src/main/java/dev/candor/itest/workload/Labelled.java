package dev.candor.itest.workload;

import dev.candor.api.Candor;
import dev.candor.api.LabelScope;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Known-answer workload for label scopes ({@link Candor#label}), as a server has them: a pool of
 * {@value #POOL} threads ({@value #WORKER}-N) takes requests of two types in turn, 7 of type A
 * ({@link Hot#methodA} under {@code endpoint=/a}) for every 3 of type B ({@link Hot#methodB} under
 * {@code endpoint=/b}, inside a nested {@code span=N} scope with a new N per request: many distinct
 * sets, as trace ids make them). Thread {@value #PLAIN} runs methodA with no label. The CPU time
 * of every request is measured with ThreadMXBean on the thread that ran it.
 *
 * <p>Usage: {@code Labelled TRUTH_FILE CPU_MS_A CPU_MS_B CPU_MS_PLAIN [SLICE_US]}: the pool stops
 * taking requests once A and B together used CPU_MS_A + CPU_MS_B; a request spins SLICE_US of CPU
 * (3000 if not given). Truth keys: {@code cpu_a_ns},
 * {@code cpu_b_ns}, {@code cpu_plain_ns}, {@code spans}.
 */
public final class Labelled {
    public static final String WORKER = "lb-worker";
    public static final String PLAIN = "lb-plain";
    public static final int POOL = 3;
    private static long sliceNs = 3_000_000;

    public static void main(String[] args) throws Exception {
        Path truthFile = Path.of(args[0]);
        long target = (Long.parseLong(args[1]) + Long.parseLong(args[2])) * 1_000_000L;
        long targetPlain = Long.parseLong(args[3]) * 1_000_000L;
        if (args.length > 4) {
            sliceNs = Long.parseLong(args[4]) * 1_000L;
        }
        Truth truth = new Truth();
        Hot.cpu(); // load the management classes on main, not on the measured threads
        AtomicLong spentA = new AtomicLong();
        AtomicLong spentB = new AtomicLong();
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger spans = new AtomicInteger();
        long[] plainSpent = new long[1];
        ExecutorService pool = Executors.newFixedThreadPool(POOL, new ThreadFactory() {
            private final AtomicInteger n = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
                return new Thread(r, WORKER + "-" + n.incrementAndGet());
            }
        });
        for (int w = 0; w < POOL; w++) {
            pool.execute(() -> {
                int x = 0;
                while (spentA.get() + spentB.get() < target) {
                    boolean typeA = requests.getAndIncrement() % 10 < 7;
                    if (typeA) {
                        try (LabelScope a = Candor.label("endpoint", "/a")) {
                            long t = Hot.cpu();
                            x += slice('A', x);
                            spentA.addAndGet(Hot.cpu() - t);
                        }
                    } else {
                        try (LabelScope b = Candor.label("endpoint", "/b");
                             LabelScope span = Candor.label("span", Integer.toString(spans.getAndIncrement()))) {
                            long t = Hot.cpu();
                            x += slice('B', x);
                            spentB.addAndGet(Hot.cpu() - t);
                        }
                    }
                }
                Hot.sink += x;
            });
        }
        Thread plain = new Thread(() -> {
            int x = 0;
            long t0 = Hot.cpu();
            while (Hot.cpu() - t0 < targetPlain) {
                x += Hot.run('A', Hot.CHUNK, x);
            }
            plainSpent[0] = Hot.cpu() - t0;
            Hot.sink += x;
        }, PLAIN);
        plain.start();
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.MINUTES);
        plain.join();
        truth.put("cpu_a_ns", spentA.get()).put("cpu_b_ns", spentB.get()).put("cpu_plain_ns", plainSpent[0])
                .put("spans", spans.get()).write(truthFile);
        System.out.println("workload done");
    }

    private static int slice(char which, int seed) {
        int x = seed;
        long start = Hot.cpu();
        while (Hot.cpu() - start < sliceNs) {
            x += Hot.run(which, Hot.CHUNK / 8, x);
        }
        return x;
    }

    private Labelled() {
    }
}
