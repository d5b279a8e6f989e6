package dev.candor.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.bench.JsonBench.Line;
import dev.candor.bench.JsonBench.Order;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * The work behind the jetty workload's endpoints: request body in, response body out, no I/O, so
 * that every request of one kind costs the same and the server's CPU per request means something.
 * Called on Jetty's pool threads; the mapper is thread-safe, digests are per call.
 *
 * <ul>
 * <li>{@code /json}: a batch of orders (JSON array, a few KB) bound to POJOs, invoiced (line totals,
 *   tax, status change) and serialized back whole;</li>
 * <li>{@code /regex}: log lines through {@link RegexBench#pipeline} (named-group parse, key=value
 *   extraction, e-mail/IP masking, word counts);</li>
 * <li>{@code /hash}: SHA-256 of the body, hex;</li>
 * <li>{@code /mix}: /json's work, then masks and counts the words of every order's note with the
 *   regex pipeline's patterns, then hashes the serialized result.</li>
 * </ul>
 */
final class Endpoints {
    private Endpoints() {}

    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<List<Order>> ORDERS = new TypeReference<>() {};

    /** The request bodies the wrk script sends: {@code json-N.json} and {@code log-N.txt}, N = 0..variants-1. */
    static Map<String, byte[]> bodies(int variants) throws Exception {
        String[] words = LibRun.vocabulary(2000, 7);
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (int i = 0; i < variants; i++) {
            out.put("json-" + i + ".json", MAPPER.writeValueAsBytes(JsonBench.generate(words, 6, 100 + i)));
            out.put("log-" + i + ".txt", RegexBench.generate(words, 24, 200 + i).getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    static byte[] json(byte[] body) throws Exception {
        return MAPPER.writeValueAsBytes(invoice(MAPPER.readValue(body, ORDERS)));
    }

    static byte[] regex(byte[] body) {
        long sum = RegexBench.pipeline(new String(body, StandardCharsets.UTF_8));
        return ("{\"checksum\":" + sum + "}").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] hash(byte[] body) {
        return ("{\"sha256\":\"" + HexFormat.of().formatHex(sha256().digest(body)) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    static byte[] mix(byte[] body) throws Exception {
        List<Order> orders = invoice(MAPPER.readValue(body, ORDERS));
        Map<String, Integer> words = new LinkedHashMap<>();
        for (Order o : orders) {
            o.note = RegexBench.EMAIL.matcher(o.note + " " + o.customer.email).replaceAll("<email>");
            Matcher w = RegexBench.WORD.matcher(o.note);
            while (w.find()) {
                words.merge(w.group().toLowerCase(), 1, Integer::sum);
            }
        }
        byte[] doc = MAPPER.writeValueAsBytes(orders);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("orders", orders.size());
        out.put("distinct_words", words.size());
        out.put("bytes", doc.length);
        out.put("sha256", HexFormat.of().formatHex(sha256().digest(doc)));
        return MAPPER.writeValueAsBytes(out);
    }

    private static List<Order> invoice(List<Order> orders) {
        for (Order o : orders) {
            double subtotal = 0;
            for (Line l : o.lines) {
                subtotal += l.qty * l.price;
            }
            double tax = Math.round(subtotal * 19.0) / 100.0;
            o.total = subtotal + tax;
            o.attributes.put("tax", Double.toString(tax));
            o.status = "invoiced";
        }
        return orders;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
