package dev.candor.demo;

/** Parses order lines: allocation-heavy (split, substrings, boxed map-free field matching). */
final class OrderParser {
    static Order parse(String line) {
        long id = 0;
        String customer = null;
        String sku = null;
        int qty = 0;
        long unit = 0;
        for (String field : line.split(";")) {
            int eq = field.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("malformed field '" + field + "' in '" + line + "'");
            }
            String key = field.substring(0, eq);
            String value = field.substring(eq + 1);
            switch (key) {
                case "id" -> id = Long.parseLong(value);
                case "customer" -> customer = value;
                case "sku" -> sku = value;
                case "qty" -> qty = Integer.parseInt(value);
                case "unit" -> unit = Long.parseLong(value);
                default -> throw new IllegalArgumentException("unknown field '" + key + "'");
            }
        }
        return new Order(id, customer, sku, qty, unit, 0);
    }

    private OrderParser() {
    }
}
