package dev.candor.itest.stress;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Allocation-heavy: short-lived objects, arrays of many sizes, a retained window that survives
 * into the old generation, humongous arrays now and then; run it under G1, Parallel and ZGC.
 * Usage: {@code AllocStorm SECONDS}.
 */
public final class AllocStorm {
    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("allocstorm", args);
        long[] bytes = new long[3];
        s.workers(3, w -> {
            Object[] window = new Object[4096];
            long b = 0;
            for (int i = 0; i < 20_000; i++) {
                Object o;
                switch (i % 6) {
                    case 0 -> o = new byte[16 + (i % 512)];
                    case 1 -> o = new long[8 + (i % 64)];
                    case 2 -> {
                        Map<Integer, String> m = new HashMap<>();
                        for (int k = 0; k < 8; k++) {
                            m.put(k, "v" + k + i);
                        }
                        o = m;
                    }
                    case 3 -> {
                        List<Integer> l = new ArrayList<>();
                        for (int k = 0; k < 16; k++) {
                            l.add(k * i);
                        }
                        o = l;
                    }
                    case 4 -> o = (i % 5000 == 4) ? new byte[2 << 20] : new Object[32];   // humongous now and then
                    default -> o = Integer.toHexString(i).repeat(4);
                }
                b += 64;
                window[(i * 7) & (window.length - 1)] = o;   // a part survives for a while
            }
            Stress.sink += window.length;
            bytes[w] += b;
        });
        long collections = 0;
        StringBuilder names = new StringBuilder();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collections += Math.max(0, gc.getCollectionCount());
            names.append(names.length() == 0 ? "" : "+").append(gc.getName().replace(' ', '_'));
        }
        s.figure("gc", names);
        s.figure("collections", collections);
        s.finish();
    }

    private AllocStorm() {
    }
}
