package dev.candor.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A toy order pipeline for candor's demo: orders are parsed from text, priced and signed with a
 * checksum; an audit thread summarizes batches of finished orders. {@link Checksum#sign} is the
 * hot path: it takes well over half of the CPU time, which a profile should show at a glance.
 *
 * <p>Usage: {@code java -jar candor-demo.jar [SECONDS]} (default 4), or {@code --orders N} for a
 * fixed amount of work instead of a fixed time (what a benchmark needs: a profiler's cost then
 * shows as extra CPU time rather than as fewer orders). Prints one line at the end.
 */
public final class Main {

    public static void main(String[] args) throws InterruptedException {
        double seconds = 4.0;
        long fixedOrders = -1;
        try {
            if (args.length == 2 && args[0].equals("--orders")) {
                fixedOrders = Long.parseLong(args[1]);
            } else if (args.length == 1) {
                seconds = Double.parseDouble(args[0]);
            } else if (args.length != 0) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            System.err.println("usage: java -jar candor-demo.jar [SECONDS] | --orders N");
            System.exit(1);
        }
        long t0 = System.nanoTime();
        long deadline = fixedOrders >= 0 ? Long.MAX_VALUE : t0 + (long) (seconds * 1e9);
        long maxOrders = fixedOrders >= 0 ? fixedOrders : Long.MAX_VALUE;

        BlockingQueue<List<Order>> toAudit = new ArrayBlockingQueue<>(64);
        Auditor auditor = new Auditor(toAudit);
        Thread audit = new Thread(auditor, "audit");
        audit.start();

        OrderFeed feed = new OrderFeed(42);
        long orders = 0;
        long signature = 0;
        List<Order> batch = new ArrayList<>();
        while (orders < maxOrders && System.nanoTime() < deadline) {
            String line = feed.next();
            Order order = OrderParser.parse(line);
            long cents = Pricer.price(order);
            signature ^= Checksum.sign(order, cents);
            batch.add(order.withTotal(cents));
            orders++;
            if (batch.size() == 256) {
                if (fixedOrders >= 0) {
                    toAudit.put(batch); // fixed work: every batch is audited
                } else {
                    toAudit.offer(batch, 10, TimeUnit.MILLISECONDS); // drop the batch if the auditor lags
                }
                batch = new ArrayList<>();
            }
        }
        toAudit.put(List.of()); // end marker
        audit.join();
        System.out.printf("demo: %d orders in %.1f s, %d audited, signature %016x%n",
                orders, (System.nanoTime() - t0) / 1e9, auditor.audited(), signature);
    }

    private Main() {
    }
}
