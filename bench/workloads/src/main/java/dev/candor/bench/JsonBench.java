package dev.candor.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Jackson (com.fasterxml.jackson.core:jackson-databind): JSON round trips of a POJO graph. Each unit of
 * work generates {@code --orders} orders (customer with address and tags, 1-8 lines with options, a
 * map of attributes) and then, {@code --rounds} times: serializes them to bytes (data binding),
 * deserializes the bytes back into POJOs, checks the round trip, parses the bytes into a tree and
 * walks it, and writes the tree back as a String.
 *
 * <pre>jackson [--orders 500] [--rounds 250] [--seconds S]</pre>
 */
final class JsonBench {
    private JsonBench() {}

    public static final class Address {
        public String street;
        public String city;
        public String zip;
        public String country;
    }

    public static final class Customer {
        public int id;
        public String name;
        public String email;
        public boolean vip;
        public List<String> tags;
        public Address address;
    }

    public static final class Line {
        public String sku;
        public int qty;
        public double price;
        public List<String> options;
    }

    public static final class Order {
        public long id;
        public long created;
        public String status;
        public Customer customer;
        public List<Line> lines;
        public Map<String, String> attributes;
        public double total;
        public String note;
    }

    static final String[] STATUS = {"new", "paid", "shipped", "delivered", "returned"};

    static void main(String[] args) throws Exception {
        int orders = Main.intOpt(args, "--orders", 500);
        int rounds = Main.intOpt(args, "--rounds", 250);
        ObjectMapper mapper = new ObjectMapper();
        String[] words = LibRun.vocabulary(2000, 7);
        LibRun.run("jackson", String.format("orders=%d rounds=%d", orders, rounds), args,
                loop -> work(mapper, words, orders, rounds, loop));
    }

    static List<Order> generate(String[] words, int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Order> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Order o = new Order();
            o.id = 1_000_000L + i;
            o.created = 1_700_000_000_000L + rnd.nextInt(1_000_000_000);
            o.status = STATUS[rnd.nextInt(STATUS.length)];
            Customer c = new Customer();
            c.id = rnd.nextInt(100_000);
            c.name = words[LibRun.zipf(rnd, words.length)] + " " + words[rnd.nextInt(words.length)];
            c.email = words[rnd.nextInt(words.length)] + "@" + words[LibRun.zipf(rnd, 50)] + ".example";
            c.vip = rnd.nextInt(10) == 0;
            c.tags = new ArrayList<>();
            for (int t = rnd.nextInt(4); t > 0; t--) {
                c.tags.add(words[LibRun.zipf(rnd, 100)]);
            }
            Address a = new Address();
            a.street = rnd.nextInt(300) + " " + words[rnd.nextInt(words.length)] + " street";
            a.city = words[LibRun.zipf(rnd, 200)];
            a.zip = String.format("%05d", rnd.nextInt(100_000));
            a.country = words[LibRun.zipf(rnd, 30)].toUpperCase();
            c.address = a;
            o.customer = c;
            o.lines = new ArrayList<>();
            double total = 0;
            for (int l = 1 + rnd.nextInt(8); l > 0; l--) {
                Line line = new Line();
                line.sku = "SKU-" + Integer.toString(rnd.nextInt(1 << 20), 36);
                line.qty = 1 + rnd.nextInt(5);
                line.price = rnd.nextInt(100_000) / 100.0;
                line.options = new ArrayList<>();
                for (int k = rnd.nextInt(3); k > 0; k--) {
                    line.options.add(words[LibRun.zipf(rnd, 40)]);
                }
                total += line.qty * line.price;
                o.lines.add(line);
            }
            o.total = total;
            o.attributes = new LinkedHashMap<>();
            for (int k = rnd.nextInt(6); k > 0; k--) {
                o.attributes.put(words[LibRun.zipf(rnd, 60)], words[rnd.nextInt(words.length)]);
            }
            StringBuilder note = new StringBuilder();
            for (int k = rnd.nextInt(30); k > 0; k--) {
                note.append(words[LibRun.zipf(rnd, words.length)]).append(k % 7 == 0 ? ". " : " ");
            }
            o.note = note.toString();
            out.add(o);
        }
        return out;
    }

    static long work(ObjectMapper mapper, String[] words, int orders, int rounds, int loop) throws Exception {
        List<Order> batch = generate(words, orders, 11);
        TypeReference<List<Order>> type = new TypeReference<>() {};
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            byte[] json = mapper.writeValueAsBytes(batch);
            List<Order> back = mapper.readValue(json, type);
            if (back.size() != batch.size() || back.get(r % back.size()).lines.size()
                    != batch.get(r % batch.size()).lines.size()) {
                throw new IllegalStateException("round trip changed the data");
            }
            JsonNode tree = mapper.readTree(json);
            long qty = 0;
            for (JsonNode o : tree) {
                for (JsonNode l : o.get("lines")) {
                    qty += l.get("qty").asInt();
                }
                sum += o.get("customer").get("address").get("city").asText().length();
            }
            String text = mapper.writeValueAsString(tree);
            sum = sum * 31 + json.length + qty + text.length() + back.get(r % back.size()).note.length();
            batch = back; // the next round serializes what was just read
        }
        return sum;
    }
}
