package dev.candor.itest.workload;

/**
 * A library that takes over a signal after the profiler started: spins {@code before} seconds,
 * installs its own handler for {@code signal} (as a second profiler loaded later would, here
 * through {@code sun.misc.Signal}), then spins {@code after} seconds and prints "workload done".
 * The truth: the spinning thread's CPU time (ThreadMXBean) before and after the takeover, printed
 * as "cpu before takeover ns: N" and "cpu after takeover ns: N".
 *
 * <p>Arguments: signal name without "SIG" (e.g. VTALRM), before seconds, after seconds.
 */
public final class SignalTakeover {
    private SignalTakeover() {
    }

    public static void main(String[] args) {
        String signal = args[0];
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long start = mx.getCurrentThreadCpuTime();
        spin(Double.parseDouble(args[1]));
        long taken = mx.getCurrentThreadCpuTime();
        sun.misc.Signal.handle(new sun.misc.Signal(signal), s -> { });
        System.out.println("took over SIG" + signal);
        spin(Double.parseDouble(args[2]));
        long end = mx.getCurrentThreadCpuTime();
        System.out.println("cpu before takeover ns: " + (taken - start));
        System.out.println("cpu after takeover ns: " + (end - taken));
        System.out.println("workload done");
    }

    private static void spin(double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        int x = 1;
        while (System.nanoTime() < end) {
            x = Hot.methodA(Hot.CHUNK, x);
        }
        Hot.sink = x;
    }
}
