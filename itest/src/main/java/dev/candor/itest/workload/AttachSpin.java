package dev.candor.itest.workload;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Long-lived target for the {@code candor attach} tests. Prints {@code ready} once warmed up, then
 * keeps a thread, {@value #THREAD}, busy in {@link Hot#methodA} until the STOP file appears
 * (exit 0), or gives up after GIVE_UP_SECONDS (exit 1), so a failed test never leaves it behind.
 *
 * <p>Usage: {@code AttachSpin STOP_FILE GIVE_UP_SECONDS}.
 */
public final class AttachSpin {
    public static final String THREAD = "spin-worker";

    public static void main(String[] args) throws Exception {
        Path stop = Path.of(args[0]);
        long giveUp = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        Hot.warmUp();
        int[] status = {0};
        Thread worker = new Thread(() -> {
            int x = 0;
            for (long n = 0; ; n++) {
                x += Hot.methodA(Hot.CHUNK, x);
                if (n % 20 == 0) {
                    if (Files.exists(stop)) {
                        break;
                    }
                    if (System.nanoTime() > giveUp) {
                        status[0] = 1;
                        break;
                    }
                }
            }
            Hot.sink = x;
        }, THREAD);
        worker.start();
        System.out.println("ready");
        System.out.flush();
        worker.join();
        System.out.println(status[0] == 0 ? "workload done" : "workload gave up waiting for " + stop);
        System.exit(status[0]);
    }

    private AttachSpin() {
    }
}
