package dev.candor.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * With {@code -Dcandor.bench.threads=true}, prints the CPU time of every thread of this process
 * (from /proc/self/task, so JIT, GC and agent threads are included), grouped by thread name with
 * digits removed. A diagnostic for where a profiler's overhead lands; off by default.
 */
final class ProcThreads {
    private ProcThreads() {}

    /** USER_HZ on Linux x86-64: the unit of utime and stime in /proc/.../stat. */
    static final long HZ = 100;

    /** {utime, stime} in clock ticks from the text of a /proc/.../stat file. */
    static long[] cpuTicks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    }

    static void reportIfAsked() {
        if (!Boolean.getBoolean("candor.bench.threads")) {
            return;
        }
        Map<String, long[]> byName = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            List<Path> list = new ArrayList<>(tasks.toList());
            for (Path t : list) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread exited
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+", "#");
                long[] cpu = cpuTicks(stat);
                long ticks = cpu[0] + cpu[1];
                long[] acc = byName.computeIfAbsent(name, k -> new long[2]);
                acc[0] += ticks;
                acc[1]++;
            }
        } catch (IOException e) {
            System.out.println("threads: cannot read /proc/self/task: " + e);
            return;
        }
        StringBuilder sb = new StringBuilder("threads (ms of CPU):");
        byName.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                .forEach(e -> sb.append(String.format(" [%s x%d] %d;", e.getKey(), e.getValue()[1],
                        e.getValue()[0] * 1000 / HZ)));
        System.out.println(sb);
    }
}
