package dev.candor.itest.workload;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Target for the attach test. Prints {@code ready} once warmed up, then keeps a thread,
 * {@value #THREAD}, busy in {@link Hot#methodA} until the GO file appears, and for
 * SECONDS_AFTER seconds after that; then exits. Gives up (exit 1) after 60 s without GO.
 *
 * <p>Usage: {@code AttachTarget GO_FILE SECONDS_AFTER}.
 */
public final class AttachTarget {
    public static final String THREAD = "attach-worker";

    public static void main(String[] args) throws Exception {
        Path go = Path.of(args[0]);
        long afterNs = (long) (Double.parseDouble(args[1]) * 1e9);
        Hot.warmUp();
        long giveUp = System.nanoTime() + 60_000_000_000L;
        int[] status = {0};
        Thread worker = new Thread(() -> {
            int x = 0;
            long stopAt = Long.MAX_VALUE;
            while (System.nanoTime() < stopAt) {
                for (int i = 0; i < 10; i++) {
                    x += Hot.methodA(Hot.CHUNK, x);
                }
                if (stopAt == Long.MAX_VALUE) {
                    if (Files.exists(go)) {
                        stopAt = System.nanoTime() + afterNs;
                    } else if (System.nanoTime() > giveUp) {
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
        System.out.println(status[0] == 0 ? "workload done" : "workload gave up waiting for " + go);
        System.exit(status[0]);
    }

    private AttachTarget() {
    }
}
