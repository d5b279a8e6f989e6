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

    /** One live thread of this process: its tid, its name (comm, cut at 15 characters), its CPU in clock ticks. */
    record Task(String tid, String name, long ticks) {}

    /** Every live thread of this process, from /proc/self/task (a thread that exits meanwhile is left out). */
    static List<Task> tasks() throws IOException {
        List<Task> out = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread exited
                }
                long[] cpu = cpuTicks(stat);
                out.add(new Task(t.getFileName().toString(), stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
                        cpu[0] + cpu[1]));
            }
        }
        return out;
    }

    /**
     * The CPU (clock ticks, user + system) of each live JIT compiler thread ({@code C1 CompilerThre},
     * {@code C2 CompilerThre}), by tid. HotSpot hides them from ThreadMXBean.
     */
    static Map<String, Long> compilerTicks() throws IOException {
        Map<String, Long> byTid = new TreeMap<>();
        for (Task t : tasks()) {
            if (t.name().matches("C[12] CompilerThre.*")) {
                byTid.put(t.tid(), t.ticks());
            }
        }
        return byTid;
    }

    static void reportIfAsked() {
        if (!Boolean.getBoolean("candor.bench.threads")) {
            return;
        }
        Map<String, long[]> byName = new TreeMap<>();
        try {
            for (Task t : tasks()) {
                long[] acc = byName.computeIfAbsent(t.name().replaceAll("[0-9]+", "#"), k -> new long[2]);
                acc[0] += t.ticks();
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
