package dev.candor.demo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;

/** The second thread: summarizes batches of finished orders (sorting and grouping). */
final class Auditor implements Runnable {
    private final BlockingQueue<List<Order>> batches;
    private volatile long audited;
    private long biggestSeen;

    Auditor(BlockingQueue<List<Order>> batches) {
        this.batches = batches;
    }

    long audited() {
        return audited;
    }

    @Override
    public void run() {
        try {
            while (true) {
                List<Order> batch = batches.take();
                if (batch.isEmpty()) {
                    return;
                }
                audit(batch);
                audited += batch.size();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void audit(List<Order> batch) {
        Map<String, Long> perCustomer = new HashMap<>();
        for (Order o : batch) {
            perCustomer.merge(o.customer(), o.totalCents(), Long::sum);
        }
        List<Order> sorted = new ArrayList<>(batch);
        sorted.sort(Comparator.comparingLong(Order::totalCents).reversed().thenComparing(Order::sku));
        biggestSeen = Math.max(biggestSeen, sorted.get(0).totalCents());
    }
}
