import dev.candor.api.Candor;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU cost of one candor sample on the thread that takes it, measured inside one JVM: after a
 * warm-up, the same fixed work runs in alternating phases with profiling off and on (candor's
 * Java API starts and stops the agent), and the thread's own CPU time (ThreadMXBean) of each
 * phase is compared. The JIT has settled before the first phase and the process is the same, so
 * the phases differ by candor's signals and handler only, not by the run-to-run noise of whole
 * JVMs that hides a 1 ms sampler's cost. The writer thread's CPU is not counted.
 *
 * <p>Usage: {@code java -agentpath:libcandor.so -cp candor-api.jar bench/paired/PairedCost.java
 * OPTIONS PAIRS WORK}, e.g. {@code event=cpu,interval=1ms 10 300000}. Prints one line per pair and
 * a summary line {@code paired: ...}.
 */
public final class PairedCost {
    static volatile long sink;

    public static void main(String[] args) {
        String options = args[0];
        int pairs = Integer.parseInt(args[1]);
        int work = Integer.parseInt(args[2]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 5; i++) phase(work);  // warm-up: let the JIT settle
        List<Double> off = new ArrayList<>(), on = new ArrayList<>(), perTick = new ArrayList<>();
        List<Long> ticks = new ArrayList<>();
        for (int p = 0; p < pairs; p++) {
            long t0 = mx.getCurrentThreadCpuTime();
            phase(work);
            long t1 = mx.getCurrentThreadCpuTime();
            Candor.start(options + ",file=/dev/null.collapsed,quiet".replace("/dev/null.collapsed", tmp()));
            long t2 = mx.getCurrentThreadCpuTime();
            phase(work);
            long t3 = mx.getCurrentThreadCpuTime();
            long n = ticksOf(Candor.status());
            Candor.stop();
            double a = (t1 - t0) / 1e9, b = (t3 - t2) / 1e9;
            off.add(a);
            on.add(b);
            ticks.add(n);
            perTick.add(n > 0 ? (b - a) / n * 1e6 : Double.NaN);
            System.out.printf("pair %d: off %.4f s, on %.4f s, %d ticks, %.1f us per tick%n", p, a, b, n,
                    perTick.get(perTick.size() - 1));
        }
        System.out.printf("paired: %s, %d pairs: off %.4f s, on %.4f s (medians), ticks %d, extra per tick %.1f us"
                        + " (median of pairs; min %.1f, max %.1f)%n", options, pairs, median(off), median(on),
                (long) medianL(ticks), median(perTick), Collections.min(perTick), Collections.max(perTick));
    }

    static String tmp() {
        return Path.of(System.getProperty("java.io.tmpdir"), "candor-paired-" + ProcessHandle.current().pid() + ".collapsed")
                .toString();
    }

    static long ticksOf(String status) {
        Matcher m = Pattern.compile("ticks=(\\d+)").matcher(status);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** Fixed work: hashing through a few small methods, so stacks are a few frames deep. */
    static void phase(int work) {
        long x = 1;
        for (int i = 0; i < work; i++) x = outer(x, i);
        sink = x;
    }

    static long outer(long x, int i) {
        return middle(x, i) ^ (x >>> 7);
    }

    static long middle(long x, int i) {
        long h = x;
        for (int k = 0; k < 64; k++) h = inner(h, k + i);
        return h;
    }

    static long inner(long h, int k) {
        h ^= k;
        h *= 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }

    static double medianL(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
