package dev.candor.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A regex/text pipeline on java.util.regex: each unit of work generates {@code --lines} log lines
 * (timestamp, level, thread, key=value pairs with e-mail addresses, IPs and a quoted message) and
 * then, {@code --rounds} times: splits the text into lines, parses each line with a pattern with
 * named groups, extracts its key=value pairs, masks e-mail addresses and IPs with replaceAll,
 * tokenizes the message into words (lower-cased, counted in a HashMap), splits a comma list, and
 * normalizes whitespace with String.replaceAll/split (which compile their pattern on every call).
 *
 * <pre>regex [--lines 20000] [--rounds 4] [--seconds S]</pre>
 */
final class RegexBench {
    private RegexBench() {}

    static final Pattern LINE = Pattern.compile(
            "^(?<ts>\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z) +(?<level>[A-Z]+) +\\[(?<thread>[\\w-]+)] +(?<rest>.*)$");
    static final Pattern KV = Pattern.compile("(\\w+)=(\"[^\"]*\"|\\S+)");
    static final Pattern EMAIL = Pattern.compile("[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+");
    static final Pattern IP = Pattern.compile("\\b\\d{1,3}(?:\\.\\d{1,3}){3}\\b");
    static final Pattern WORD = Pattern.compile("\\p{L}+(?:'\\p{L}+)?");
    static final Pattern LIST = Pattern.compile("\\s*[,;]\\s*");
    static final Pattern NEWLINE = Pattern.compile("\\R");
    static final String[] LEVELS = {"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};
    static final String[] ACTIONS = {"login", "logout", "search", "checkout", "view", "update", "delete"};

    static void main(String[] args) throws Exception {
        int lines = Main.intOpt(args, "--lines", 20000);
        int rounds = Main.intOpt(args, "--rounds", 4);
        String[] words = LibRun.vocabulary(3000, 9);
        LibRun.run("regex", String.format("lines=%d rounds=%d", lines, rounds), args,
                loop -> work(words, lines, rounds));
    }

    static String generate(String[] words, int lines, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder(lines * 200);
        for (int i = 0; i < lines; i++) {
            int s = i * 7;
            sb.append(String.format("2026-11-%02dT%02d:%02d:%02d.%03dZ ", 1 + (s / 86400) % 28, (s / 3600) % 24,
                    (s / 60) % 60, s % 60, rnd.nextInt(1000)));
            sb.append(LEVELS[rnd.nextInt(LEVELS.length)]).append(" [worker-").append(rnd.nextInt(32)).append("] ");
            sb.append("user=").append(words[LibRun.zipf(rnd, words.length)]).append('@')
                    .append(words[LibRun.zipf(rnd, 20)]).append(".example.com ");
            sb.append("ip=").append(10 + rnd.nextInt(200)).append('.').append(rnd.nextInt(256)).append('.')
                    .append(rnd.nextInt(256)).append('.').append(rnd.nextInt(256)).append(' ');
            sb.append("action=").append(ACTIONS[rnd.nextInt(ACTIONS.length)]).append(' ');
            sb.append("latency_ms=").append(rnd.nextInt(5000)).append(' ');
            sb.append("tags=");
            for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                sb.append(words[LibRun.zipf(rnd, 50)]).append(k > 1 ? (rnd.nextBoolean() ? ", " : ";") : " ");
            }
            sb.append("msg=\"");
            for (int k = 5 + rnd.nextInt(15); k > 0; k--) {
                sb.append(words[LibRun.zipf(rnd, words.length)]);
                sb.append(k % 5 == 0 ? ",  " : " ");
            }
            sb.append("contact ").append(words[rnd.nextInt(words.length)]).append("@mail.example.org\"\n");
        }
        return sb.toString();
    }

    static long work(String[] words, int lines, int rounds) {
        String text = generate(words, lines, 13);
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            sum = sum * 31 + pipeline(text);
        }
        return sum;
    }

    /** One pass of the pipeline over {@code text} (also the jetty workload's /regex endpoint); a checksum. */
    static long pipeline(String text) {
        long sum = 0;
        Map<String, Integer> counts = new HashMap<>();
        Map<String, Integer> levels = new HashMap<>();
        long latency = 0;
        for (String line : NEWLINE.split(text)) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            levels.merge(m.group("level"), 1, Integer::sum);
            String rest = m.group("rest");
            Matcher kv = KV.matcher(rest);
            String msg = "";
            while (kv.find()) {
                switch (kv.group(1)) {
                    case "latency_ms" -> latency += Integer.parseInt(kv.group(2));
                    case "msg" -> msg = kv.group(2);
                    case "tags" -> sum += LIST.split(kv.group(2)).length;
                    default -> sum += kv.group(2).length();
                }
            }
            String masked = IP.matcher(EMAIL.matcher(rest).replaceAll("<email>")).replaceAll("<ip>");
            sum += masked.length();
            Matcher w = WORD.matcher(msg);
            while (w.find()) {
                counts.merge(w.group().toLowerCase(), 1, Integer::sum);
            }
            String norm = msg.replaceAll("\\s+", " ").trim();
            sum += norm.split(" ").length;
        }
        sum = sum * 31 + counts.size() + latency + levels.getOrDefault("ERROR", 0);
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (e.getValue() > 1000) {
                sum += e.getKey().hashCode();
            }
        }
        return sum;
    }
}
