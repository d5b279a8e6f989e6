package dev.candor.itest.stress;

import com.sun.tools.attach.VirtualMachine;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Profiling started and stopped many times in one JVM: the workload attaches to itself
 * ({@code -Djdk.attach.allowAttachSelf=true}) and loads the same agent path again and again,
 * which reaches the already loaded copy's Agent_OnAttach with {@code start,...} and {@code stop}
 * (and now and then {@code status} and {@code dump}), while busy threads keep the signals coming.
 * Each cycle writes DIR/cycle-N.collapsed and DIR/cycle-N.json.
 * Usage: {@code StartStop SECONDS_MAX AGENT DIR CYCLES INTERVAL}.
 */
public final class StartStop {
    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("startstop", args);
        String agent = args[1];
        Path dir = Path.of(args[2]);
        int cycles = Integer.parseInt(args[3]);
        String interval = args[4];
        Thread[] busy = new Thread[2];
        for (int i = 0; i < busy.length; i++) {
            busy[i] = new Thread(() -> {
                long x = 0;
                while (s.running()) {
                    for (int j = 0; j < 100_000; j++) {
                        x = x * 6364136223846793005L + j;
                    }
                    Stress.sink += x;
                }
            }, "startstop-busy-" + i);
            busy[i].setDaemon(true);
            busy[i].start();
        }
        VirtualMachine vm = VirtualMachine.attach(String.valueOf(ProcessHandle.current().pid()));
        int done = 0;
        long t0 = System.nanoTime();
        try {
            for (int c = 0; c < cycles && s.running(); c++) {
                String base = dir.resolve("cycle-" + c).toString();
                vm.loadAgentPath(agent, "start,quiet,interval=" + interval + ",file=" + base + ".collapsed,stats="
                        + base + ".json");
                Thread.sleep(5 + c % 20);
                if (c % 10 == 3) {
                    vm.loadAgentPath(agent, "status,reply=" + base + ".status");
                }
                if (c % 10 == 7) {
                    vm.loadAgentPath(agent, "dump,file=" + base + "-dump.collapsed");
                }
                vm.loadAgentPath(agent, "stop");
                done++;
            }
        } finally {
            vm.detach();
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        s.figure("cycles", done);
        s.figure("seconds", String.format("%.1f", secs));
        Files.writeString(dir.resolve("cycles.txt"), done + "\n");
        s.finish();
    }

    private StartStop() {
    }
}
