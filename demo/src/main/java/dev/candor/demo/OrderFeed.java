package dev.candor.demo;

import java.util.SplittableRandom;

/** Produces order lines as text, e.g. {@code id=17;customer=acme-4;sku=SKU-0042;qty=3;unit=1250}. */
final class OrderFeed {
    private static final String[] CUSTOMERS = {"acme", "globex", "initech", "umbrella", "hooli", "stark"};

    private final SplittableRandom random;
    private long nextId = 1;

    OrderFeed(long seed) {
        this.random = new SplittableRandom(seed);
    }

    private static String pad4(int n) {
        String s = Integer.toString(n);
        return "0000".substring(s.length()) + s;
    }

    String next() {
        return "id=" + nextId++
                + ";customer=" + CUSTOMERS[random.nextInt(CUSTOMERS.length)] + "-" + random.nextInt(100)
                + ";sku=SKU-" + pad4(random.nextInt(5000))
                + ";qty=" + (1 + random.nextInt(20))
                + ";unit=" + (99 + random.nextInt(50_000));
    }
}
