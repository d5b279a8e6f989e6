package dev.candor.demo;

/** One order line. Amounts are in cents. */
record Order(long id, String customer, String sku, int quantity, long unitCents, long totalCents) {
    Order withTotal(long cents) {
        return new Order(id, customer, sku, quantity, unitCents, cents);
    }
}
