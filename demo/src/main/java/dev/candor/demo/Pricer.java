package dev.candor.demo;

/** Applies volume discounts, a customer tier and tax. Light work. */
final class Pricer {
    static long price(Order order) {
        long gross = order.unitCents() * order.quantity();
        int tier = Math.floorMod(order.customer().hashCode(), 4);
        long discountBasisPoints = switch (tier) {
            case 0 -> 0;
            case 1 -> 250;
            case 2 -> 500;
            default -> 1000;
        };
        if (order.quantity() >= 10) {
            discountBasisPoints += 300;
        }
        long net = gross - gross * discountBasisPoints / 10_000;
        long tax = Math.round(net * 0.19);
        return net + tax;
    }

    private Pricer() {
    }
}
