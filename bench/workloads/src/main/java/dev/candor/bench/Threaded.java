package dev.candor.bench;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread-heavy fixed-work workloads for the overhead bench.
 *
 * <ul>
 *   <li>{@code server [--threads 256] [--requests 200000]}: a server-like pool of many worker threads
 *       taking small requests (hash + parse + format, a few tens of µs each) from one queue; most
 *       threads wait most of the time, as in a thread-per-request server.</li>
 *   <li>{@code shortthreads [--threads 10000] [--work 200]}: every task runs on a new thread that
 *       lives for a fraction of a millisecond (the worst case for per-thread timers).</li>
 *   <li>{@code deepstack [--depth 600] [--calls 25000]}: the work happens at the bottom of a
 *       recursion several hundred frames deep (every sample walks a long stack).</li>
 * </ul>
 * Each prints one line with its own elapsed time.
 */
final class Threaded {
    private Threaded() {}

    static volatile long sink;

    static long request(MessageDigest md, int i) {
        byte[] in = ("GET /orders/" + i + "?customer=" + (i * 7919 % 1000) + "&page=" + (i % 17)).getBytes();
        byte[] d = null;
        for (int k = 0; k < 8; k++) {
            md.update(in);
            d = md.digest(d == null ? in : d);
        }
        StringBuilder sb = new StringBuilder(64);
        for (byte b : d) sb.append(Integer.toHexString(b & 0xff));
        return Long.parseLong(sb.substring(0, 12), 16);
    }

    static void server(String[] args) throws Exception {
        int threads = Main.intOpt(args, "--threads", 256);
        int requests = Main.intOpt(args, "--requests", 200000);
        BlockingQueue<Integer> q = new ArrayBlockingQueue<>(1024);
        AtomicLong acc = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        long t0 = System.nanoTime();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    MessageDigest md = MessageDigest.getInstance("SHA-256");
                    long local = 0;
                    for (;;) {
                        int i = q.take();
                        if (i < 0) break;
                        local += request(md, i);
                    }
                    acc.addAndGet(local);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                } finally {
                    done.countDown();
                }
            }, "worker-" + t);
            th.start();
            ts.add(th);
        }
        for (int i = 0; i < requests; i++) q.put(i);
        for (int t = 0; t < threads; t++) q.put(-1);
        done.await();
        sink = acc.get();
        System.out.printf("server: %d requests on %d threads in %.3f s%n", requests, threads, (System.nanoTime() - t0) / 1e9);
    }

    static void shortThreads(String[] args) throws Exception {
        int threads = Main.intOpt(args, "--threads", 10000);
        int work = Main.intOpt(args, "--work", 200);
        long t0 = System.nanoTime();
        AtomicLong acc = new AtomicLong();
        Thread[] window = new Thread[8];
        for (int i = 0; i < threads; i++) {
            final int n = i;
            Thread old = window[i % window.length];
            if (old != null) old.join();
            Thread th = new Thread(() -> {
                long x = n;
                for (int k = 0; k < work; k++) x = x * 6364136223846793005L + 1442695040888963407L ^ (x >>> 13);
                acc.addAndGet(Long.toString(x).hashCode());
            }, "short-" + i);
            th.start();
            window[i % window.length] = th;
        }
        for (Thread th : window) if (th != null) th.join();
        sink = acc.get();
        System.out.printf("shortthreads: %d threads in %.3f s%n", threads, (System.nanoTime() - t0) / 1e9);
    }

    static long deep(int depth, long x) {
        if (depth == 0) {
            for (int k = 0; k < 2000; k++) x = x * 6364136223846793005L + 1442695040888963407L ^ (x >>> 17);
            return x;
        }
        return depth % 3 == 0 ? deepA(depth - 1, x) : deep(depth - 1, x + 1);
    }

    static long deepA(int depth, long x) {
        return deep(depth, x ^ depth) + 1;
    }

    static void deepStack(String[] args) {
        int depth = Main.intOpt(args, "--depth", 600);
        int calls = Main.intOpt(args, "--calls", 25000);
        long t0 = System.nanoTime();
        long x = 1;
        for (int i = 0; i < calls; i++) {
            for (int k = 0; k < 20; k++) x = deep(depth, x);
        }
        sink = x;
        System.out.printf("deepstack: %d calls at depth %d in %.3f s%n", calls, depth, (System.nanoTime() - t0) / 1e9);
    }
}
