package dev.candor.itest.stress;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deoptimization storm: each round defines a fresh copy of {@link StormTemplate} (fresh methods,
 * fresh profiles), trains its methods until they are compiled with speculations (only Integers,
 * a branch never taken), then breaks the speculations (Strings, other objects, the rare branch)
 * so the compiled code hits uncommon traps and is deoptimized while samples arrive. A second
 * kind of round breaks class-hierarchy assumptions by loading a new implementation of an
 * interface a compiled loop called monomorphically. Usage: {@code DeoptStorm SECONDS}.
 */
public final class DeoptStorm {
    interface Shape {
        int area(int n);
    }

    static final class Square implements Shape {
        public int area(int n) {
            return n * n;
        }
    }

    static final class Circle implements Shape {
        public int area(int n) {
            return 3 * n * n;
        }
    }

    static final class Tri implements Shape {
        public int area(int n) {
            return n * n / 2;
        }
    }

    static int sum(Shape[] shapes, int n) {
        int x = 0;
        for (int r = 0; r < n; r++) {
            for (Shape s : shapes) {
                x += s.area(r);
            }
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("deoptstorm", args);
        Map<String, byte[]> own = Map.of(StormTemplate.class.getName(), Stress.classBytes(StormTemplate.class));
        AtomicLong rounds = new AtomicLong();
        Object[] breakers = {"a string", new Object(), 3.5, 'c'};
        s.workers(2, w -> {
            if (w == 0) {
                Class<?> c = new Stress.CopyLoader(own).loadClass(StormTemplate.class.getName());
                Storm storm = (Storm) c.getDeclaredConstructor().newInstance();
                long x = 0;
                for (int i = 0; i < 60_000; i++) {
                    x += storm.dispatch(i, i);
                    x += storm.branchy(i, false);
                }
                for (Object b : breakers) {
                    x += storm.dispatch(b, 1);
                }
                x += storm.branchy(1, true);
                Stress.sink += x;
            } else {
                // Megamorphic flips: monomorphic, then bimorphic, then megamorphic receivers.
                Shape[] mono = {new Square(), new Square()};
                Shape[] bi = {new Square(), new Circle()};
                Shape[] mega = {new Square(), new Circle(), new Tri()};
                long x = 0;
                for (int i = 0; i < 200; i++) {
                    x += sum(mono, 100);
                }
                x += sum(bi, 100);
                x += sum(mega, 100);
                Stress.sink += x;
            }
            rounds.incrementAndGet();
        });
        s.figure("rounds", rounds.get());
        s.finish();
    }

    private DeoptStorm() {
    }
}
