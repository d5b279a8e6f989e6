package dev.candor.bench;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.SplittableRandom;

/**
 * H2 (com.h2database:h2) in memory: order-entry transactions over JDBC. Each unit of work creates a
 * fresh in-memory database with customers and products, then runs {@code --txns} transactions (look
 * up the customer, insert an order and 1-5 order lines, read and update each product's stock,
 * update the order total and the customer's balance; 1 in 20 rolls back), and every
 * {@code --report-every} transactions two reporting queries (a join + GROUP BY per region, a top-10
 * of products by quantity sold).
 *
 * <pre>h2 [--txns 12000] [--customers 2000] [--products 1000] [--report-every 500] [--seconds S]</pre>
 */
final class H2Bench {
    private H2Bench() {}

    static final String[] REGIONS = {"north", "south", "east", "west", "center", "islands"};

    static void main(String[] args) throws Exception {
        int txns = Main.intOpt(args, "--txns", 12000);
        int customers = Main.intOpt(args, "--customers", 2000);
        int products = Main.intOpt(args, "--products", 1000);
        int reportEvery = Main.intOpt(args, "--report-every", 500);
        LibRun.run("h2", String.format("txns=%d customers=%d products=%d", txns, customers, products), args,
                loop -> work(txns, customers, products, reportEvery, loop));
    }

    static long work(int txns, int customers, int products, int reportEvery, int loop) throws Exception {
        SplittableRandom rnd = new SplittableRandom(42);
        long sum = 0;
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:bench" + loop + ";DB_CLOSE_DELAY=0", "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE customer(id INT PRIMARY KEY, name VARCHAR(64), region VARCHAR(16), "
                        + "balance DECIMAL(15,2))");
                s.execute("CREATE TABLE product(id INT PRIMARY KEY, sku VARCHAR(32), price DECIMAL(10,2), stock INT)");
                s.execute("CREATE TABLE orders(id BIGINT AUTO_INCREMENT PRIMARY KEY, customer_id INT, created BIGINT, "
                        + "total DECIMAL(15,2))");
                s.execute("CREATE TABLE order_line(order_id BIGINT, line INT, product_id INT, qty INT, "
                        + "amount DECIMAL(15,2), PRIMARY KEY(order_id, line))");
                s.execute("CREATE INDEX orders_customer ON orders(customer_id)");
                s.execute("CREATE INDEX line_product ON order_line(product_id)");
            }
            c.setAutoCommit(false);
            try (PreparedStatement ic = c.prepareStatement("INSERT INTO customer VALUES(?,?,?,?)");
                 PreparedStatement ip = c.prepareStatement("INSERT INTO product VALUES(?,?,?,?)")) {
                for (int i = 0; i < customers; i++) {
                    ic.setInt(1, i);
                    ic.setString(2, "customer-" + i);
                    ic.setString(3, REGIONS[i % REGIONS.length]);
                    ic.setBigDecimal(4, BigDecimal.ZERO);
                    ic.addBatch();
                }
                ic.executeBatch();
                for (int i = 0; i < products; i++) {
                    ip.setInt(1, i);
                    ip.setString(2, "SKU-" + Integer.toString(i * 7919, 36).toUpperCase());
                    ip.setBigDecimal(3, BigDecimal.valueOf(100 + rnd.nextInt(99900), 2));
                    ip.setInt(4, 1_000_000);
                    ip.addBatch();
                }
                ip.executeBatch();
            }
            c.commit();
            try (PreparedStatement selCust = c.prepareStatement("SELECT name, region, balance FROM customer WHERE id = ?");
                 PreparedStatement insOrder = c.prepareStatement(
                         "INSERT INTO orders(customer_id, created, total) VALUES(?,?,0)", Statement.RETURN_GENERATED_KEYS);
                 PreparedStatement selProd = c.prepareStatement("SELECT price, stock FROM product WHERE id = ?");
                 PreparedStatement insLine = c.prepareStatement("INSERT INTO order_line VALUES(?,?,?,?,?)");
                 PreparedStatement updStock = c.prepareStatement("UPDATE product SET stock = stock - ? WHERE id = ?");
                 PreparedStatement updOrder = c.prepareStatement("UPDATE orders SET total = ? WHERE id = ?");
                 PreparedStatement updCust = c.prepareStatement("UPDATE customer SET balance = balance + ? WHERE id = ?");
                 PreparedStatement byRegion = c.prepareStatement(
                         "SELECT c.region, COUNT(*), SUM(o.total) FROM orders o JOIN customer c ON c.id = o.customer_id "
                                 + "GROUP BY c.region ORDER BY c.region");
                 PreparedStatement topProducts = c.prepareStatement(
                         "SELECT p.sku, SUM(l.qty) q FROM order_line l JOIN product p ON p.id = l.product_id "
                                 + "WHERE l.order_id > ? GROUP BY p.sku ORDER BY q DESC, p.sku LIMIT 10")) {
                for (int t = 0; t < txns; t++) {
                    int cust = rnd.nextInt(customers);
                    selCust.setInt(1, cust);
                    try (ResultSet rs = selCust.executeQuery()) {
                        if (rs.next()) {
                            sum += rs.getString(1).length() + rs.getString(2).hashCode();
                        }
                    }
                    insOrder.setInt(1, cust);
                    insOrder.setLong(2, 1_700_000_000_000L + t * 1000L);
                    insOrder.executeUpdate();
                    long orderId;
                    try (ResultSet keys = insOrder.getGeneratedKeys()) {
                        keys.next();
                        orderId = keys.getLong(1);
                    }
                    BigDecimal total = BigDecimal.ZERO;
                    int lines = 1 + rnd.nextInt(5);
                    for (int l = 0; l < lines; l++) {
                        int prod = LibRun.zipf(rnd, products);
                        int qty = 1 + rnd.nextInt(4);
                        BigDecimal price;
                        selProd.setInt(1, prod);
                        try (ResultSet rs = selProd.executeQuery()) {
                            rs.next();
                            price = rs.getBigDecimal(1);
                            sum += rs.getInt(2);
                        }
                        BigDecimal amount = price.multiply(BigDecimal.valueOf(qty));
                        total = total.add(amount);
                        insLine.setLong(1, orderId);
                        insLine.setInt(2, l);
                        insLine.setInt(3, prod);
                        insLine.setInt(4, qty);
                        insLine.setBigDecimal(5, amount);
                        insLine.executeUpdate();
                        updStock.setInt(1, qty);
                        updStock.setInt(2, prod);
                        updStock.executeUpdate();
                    }
                    updOrder.setBigDecimal(1, total);
                    updOrder.setLong(2, orderId);
                    updOrder.executeUpdate();
                    updCust.setBigDecimal(1, total);
                    updCust.setInt(2, cust);
                    updCust.executeUpdate();
                    if (t % 20 == 19) {
                        c.rollback();
                    } else {
                        c.commit();
                        sum += total.unscaledValue().longValue();
                    }
                    if (t % reportEvery == reportEvery - 1) {
                        try (ResultSet rs = byRegion.executeQuery()) {
                            while (rs.next()) {
                                sum = sum * 31 + rs.getLong(2) + rs.getBigDecimal(3).unscaledValue().longValue();
                            }
                        }
                        topProducts.setLong(1, Math.max(0, orderId - 5L * reportEvery));
                        try (ResultSet rs = topProducts.executeQuery()) {
                            while (rs.next()) {
                                sum = sum * 31 + rs.getString(1).hashCode() + rs.getLong(2);
                            }
                        }
                        c.commit();
                    }
                }
            }
        }
        return sum;
    }
}
