package dev.candor.itest.workload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;

/**
 * Four threads in four states for wall-clock profiling: {@code busy} computes, {@code blocked}
 * waits to enter a monitor that {@code main} holds, {@code sleeper} sleeps, {@code reader}
 * blocks reading a pipe nobody writes to. Runs for the given seconds (default 3), then exits.
 */
public final class WallStates {
    static final Object LOCK = new Object();
    static volatile int sink;

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        Pipe pipe = Pipe.open();
        synchronized (LOCK) {
            start("busy", () -> {
                int x = 0;
                while (System.nanoTime() < end) x = Hot.methodA(1 << 16, x);
                sink = x;
            });
            start("blocked", () -> {
                synchronized (LOCK) {
                    sink++;
                }
            });
            start("sleeper", () -> {
                try {
                    Thread.sleep(Long.MAX_VALUE / 2_000_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            start("reader", () -> {
                try {
                    pipe.source().read(ByteBuffer.allocate(16));
                } catch (IOException e) {
                    // closed at exit
                }
            });
            while (System.nanoTime() < end) Thread.sleep(20);
        }
        System.exit(0);
    }

    static void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private WallStates() {
    }
}
