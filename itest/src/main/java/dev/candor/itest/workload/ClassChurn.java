package dev.candor.itest.workload;

import java.io.InputStream;
import java.util.function.IntUnaryOperator;

/**
 * Class churn, as servers with generated classes (proxies, scripts, lambdas of reloaded code)
 * have it: every slice loads a fresh copy of {@link Task} in a new class loader, runs its hot
 * method for a few milliseconds of CPU (so the profiler samples and names it) and drops the
 * loader; a full GC every second lets the JVM unload the copies. Each copy is a new class with
 * new methods: a profiler that names every method it ever saw grows with the run.
 *
 * <p>Usage: {@code ClassChurn SECONDS}. Prints the number of copies loaded.
 */
public final class ClassChurn {

    /** The churned class: loaded again and again, each time by its own loader. */
    public static final class Task implements IntUnaryOperator {
        @Override
        public int applyAsInt(int seed) {
            int x = seed;
            for (int i = 0; i < 20_000; i++) {
                x = x * 31 + (x >>> 7) + i;
            }
            return x;
        }
    }

    private static final class CopyLoader extends ClassLoader {
        private final byte[] bytes;

        CopyLoader(byte[] bytes) {
            super(ClassChurn.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(Task.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, bytes, 0, bytes.length);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        byte[] bytes;
        try (InputStream in = ClassChurn.class.getResourceAsStream("ClassChurn$Task.class")) {
            bytes = in.readAllBytes();
        }
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long nextGc = System.nanoTime() + 1_000_000_000L;
        int copies = 0;
        int x = 0;
        while (System.nanoTime() < end) {
            IntUnaryOperator task = (IntUnaryOperator) new CopyLoader(bytes).loadClass(Task.class.getName())
                    .getDeclaredConstructor().newInstance();
            long t = System.nanoTime();
            while (System.nanoTime() - t < 5_000_000) {
                x += task.applyAsInt(x);
            }
            copies++;
            if (System.nanoTime() > nextGc) {
                System.gc();
                nextGc = System.nanoTime() + 1_000_000_000L;
            }
        }
        Hot.sink = x;
        System.out.println("copies " + copies);
    }

    private ClassChurn() {
    }
}
