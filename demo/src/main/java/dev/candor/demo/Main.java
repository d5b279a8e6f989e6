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
 * <p>Usage: {@code java -jar candor-demo.jar [SECONDS]} (default 4). Prints one line at the end.
 */
public final class Main {

    public static void main(String[] args) throws InterruptedException {
        double seconds = 4.0;
        if (args.length > 0) {
            try {
                seconds = Double.parseDouble(args[0]);
            } catch (NumberFormatException e) {
                System.err.println("usage: java -jar candor-demo.jar [SECONDS]");
                System.exit(1);
            }
        }
        long deadline = System.nanoTime() + (long) (seconds * 1e9);

        BlockingQueue<List<Order>> toAudit = new ArrayBlockingQueue<>(64);
        Auditor auditor = new Auditor(toAudit);
        Thread audit = new Thread(auditor, "audit");
        audit.start();

        OrderFeed feed = new OrderFeed(42);
        long orders = 0;
        long signature = 0;
        List<Order> batch = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            String line = feed.next();
            Order order = OrderParser.parse(line);
            long cents = Pricer.price(order);
            signature ^= Checksum.sign(order, cents);
            batch.add(order.withTotal(cents));
            orders++;
            if (batch.size() == 256) {
                toAudit.offer(batch, 10, TimeUnit.MILLISECONDS); // drop the batch if the auditor lags
                batch = new ArrayList<>();
            }
        }
        toAudit.put(List.of()); // end marker
        audit.join();
        System.out.printf("demo: %d orders in %.1f s, %d audited, signature %016x%n",
                orders, seconds, auditor.audited(), signature);
    }

    private Main() {
    }
}
