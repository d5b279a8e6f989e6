package dev.candor.demo;

import java.nio.charset.StandardCharsets;

/**
 * Signs an order with a deliberately expensive keyed hash: many rounds of mixing over the order's
 * bytes. This is the demo's hot path.
 */
final class Checksum {
    static final int ROUNDS = 48;

    static long sign(Order order, long cents) {
        byte[] bytes = (order.id() + "|" + order.sku() + "|" + order.customer() + "|" + cents)
                .getBytes(StandardCharsets.UTF_8);
        long h = 0x9E3779B97F4A7C15L ^ cents;
        for (int round = 0; round < ROUNDS; round++) {
            for (byte b : bytes) {
                h ^= b;
                h *= 0x100000001B3L;
                h = Long.rotateLeft(h, 27) + round;
            }
        }
        return h;
    }

    private Checksum() {
    }
}
