package dev.candor.itest.stress;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Shared plumbing of the stress workloads: a deadline, worker threads that run a body until it,
 * and one closing line {@code stress NAME: k=v ...} on stdout with what the workload did (the
 * test copies it into RELIABILITY figures). Any exception in a worker fails the workload (exit 3).
 */
public final class Stress {
    /** Consumes results so loops cannot be removed. */
    public static volatile long sink;

    private final String name;
    private final long deadline;
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private Stress(String name, double seconds) {
        this.name = name;
        this.deadline = System.nanoTime() + (long) (seconds * 1e9);
    }

    /** {@code args[0]} is the run time in seconds. */
    public static Stress of(String name, String[] args) {
        return new Stress(name, args.length > 0 ? Double.parseDouble(args[0]) : 3);
    }

    public boolean running() {
        return System.nanoTime() < deadline && failure.get() == null;
    }

    public void figure(String key, Object value) {
        figures.put(key, value);
    }

    public interface Body {
        void run(int worker) throws Throwable;
    }

    /** Runs BODY repeatedly on N threads named NAME-i until the deadline; returns the rounds. */
    public long workers(int n, Body body) throws InterruptedException {
        long[] rounds = new long[n];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int id = i;
            Thread t = new Thread(() -> {
                try {
                    while (running()) {
                        body.run(id);
                        rounds[id]++;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name + "-" + i);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long total = 0;
        for (long r : rounds) {
            total += r;
        }
        return total;
    }

    /** Prints the closing line and exits: 0, or 3 when a worker failed. */
    public void finish() {
        Throwable t = failure.get();
        StringBuilder sb = new StringBuilder("stress ").append(name).append(":");
        figures.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        System.out.println(sb);
        if (t != null) {
            System.out.println("stress " + name + " FAILED: " + t);
            t.printStackTrace(System.out);
        }
        System.out.flush();
        System.exit(t == null ? 0 : 3);
    }

    /** The bytes of a class file of this package, for defining copies in new loaders. */
    static byte[] classBytes(Class<?> c) throws IOException {
        String resource = c.getName().replace('.', '/') + ".class";
        try (var in = c.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no class file for " + c.getName());
            }
            return in.readAllBytes();
        }
    }

    /** A loader that defines its own copy of the given classes (child first) and delegates the rest. */
    static final class CopyLoader extends ClassLoader {
        private final Map<String, byte[]> own;

        CopyLoader(Map<String, byte[]> own) {
            super(CopyLoader.class.getClassLoader());
            this.own = own;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                byte[] b = own.get(name);
                if (b == null) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = defineClass(name, b, 0, b.length);
                }
                return c;
            }
        }
    }
}
