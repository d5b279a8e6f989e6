package dev.candor.itest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.candor.itest.workload.Hot;
import dev.candor.model.CollapsedProfile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * For the report tests: runs {@code candor report} from the build's candor.jar on a given JDK,
 * reads its outputs, and drives headless Chromium and {@code go tool pprof} on them.
 */
final class ReportTool {
    static final ObjectMapper JSON_MAPPER = new ObjectMapper();
    static final Pattern DAMAGED_AT = Pattern.compile("damaged at byte (\\d+)");
    /**
     * A Java stack trace: its frames, its cause, or its first line (a class name ending in Exception or
     * Error, alone or before ": message"). Not the word alone: a report names events such as
     * jdk.JavaExceptionThrow and methods of exception classes.
     */
    static final Pattern STACK_TRACE = Pattern.compile(
            "(?m)^(\\s+at [\\w$.<>/]+\\(|Caused by: |Exception in thread |[\\w$]+(\\.[\\w$]+)+(Exception|Error)(: |$))");
    /** An exception's name anywhere (IllegalStateException; not jdk.JavaExceptionThrow): no candor line shows one. */
    static final Pattern EXCEPTION_NAME = Pattern.compile("\\w*Exception\\b");

    record Ran(List<String> command, int exitCode, String stdout, String stderr) {
        String describe() {
            return "command: " + String.join(" ", command) + "\nexit code: " + exitCode + "\n--- stdout ---\n"
                    + abbreviate(stdout) + "\n--- stderr ---\n" + abbreviate(stderr);
        }

        /** The stderr must be exactly one line {@code candor: ...}, no stack trace. */
        String oneCandorLine() {
            List<String> lines = stderr.lines().toList();
            assertEquals(1, lines.size(), "expected one line on stderr\n" + describe());
            assertTrue(lines.get(0).startsWith("candor: "), describe());
            assertFalse(hasStackTrace(stderr) || EXCEPTION_NAME.matcher(stderr).find(), describe());
            return lines.get(0);
        }

        /** N of "damaged at byte N" in the one stderr line. */
        long damagedAt() {
            Matcher m = DAMAGED_AT.matcher(oneCandorLine());
            assertTrue(m.find(), "no 'damaged at byte N' in\n" + describe());
            return Long.parseLong(m.group(1));
        }

        private static String abbreviate(String s) {
            return s.length() > 4000 ? s.substring(0, 2000) + "\n...\n" + s.substring(s.length() - 2000) : s;
        }
    }

    static boolean hasStackTrace(String s) {
        return STACK_TRACE.matcher(s).find();
    }

    /** {@code java -jar candor.jar report ARGS} on this JDK, in DIR. */
    static Ran report(Jdks.Jdk jdk, Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(jdk.java().toString(), "-jar", Build.file("candor.jar").toString(),
                "report"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "report-", ".out");
        Path err = Files.createTempFile(dir, "report-", ".err");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("candor report did not finish within 120 s: " + String.join(" ", cmd));
        }
        return new Ran(cmd, p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Share of samples with the method on the stack, among all samples of the collapsed file. */
    static double share(CollapsedProfile p, String method) {
        return p.total() == 0 ? 0 : (double) p.countAny(CollapsedProfile.method(method)) / p.total();
    }

    /** The method of the first row under "Top methods by self time" in flat output. */
    static String topSelfMethod(String flat) {
        List<String> lines = flat.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("Top methods by self time")) {
                String row = lines.get(i + 2).strip();
                return row.substring(row.lastIndexOf("  ") + 2);
            }
        }
        fail("no 'Top methods by self time' table in:\n" + flat);
        return null;
    }

    // ---- go tool pprof ----------------------------------------------------------------------

    /** The go command, or null when Go is not installed. */
    static Path go() {
        for (String candidate : List.of("/usr/local/go/bin/go", "/usr/lib/go/bin/go", "/usr/bin/go")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(":")) {
                if (!d.isEmpty() && Files.isExecutable(Path.of(d, "go"))) {
                    return Path.of(d, "go");
                }
            }
        }
        return null;
    }

    /** Output of {@code go tool pprof -top FILE} (stdout and stderr). */
    static String pprofTop(Path go, Path file, Path dir) throws IOException, InterruptedException {
        return pprof(go, dir, "pprof-top.txt", "-top", file.toString());
    }

    /** Output of {@code go tool pprof ARGS} (stdout and stderr), kept in DIR/OUT_NAME. */
    static String pprof(Path go, Path dir, String outName, String... args) throws IOException, InterruptedException {
        Path out = dir.resolve(outName);
        List<String> cmd = new ArrayList<>(List.of(go.toString(), "tool", "pprof"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        // the first use may build the pprof tool
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("go tool pprof did not finish within 300 s");
        }
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + text);
        return text;
    }

    /** The function of the first row of {@code pprof -top}'s table. */
    static String pprofFirstFunction(String top) {
        List<String> lines = top.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().startsWith("flat") && lines.get(i).contains("cum%")) {
                String[] cols = lines.get(i + 1).strip().split("\\s+", 6);
                return cols[5];
            }
        }
        fail("no table in pprof -top output:\n" + top);
        return null;
    }

    // ---- headless Chromium -------------------------------------------------------------------

    /** The Chromium executable, or null when it is not installed. */
    static Path chromium() {
        for (String c : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")) {
            if (Files.isExecutable(Path.of(c))) {
                return Path.of(c);
            }
        }
        return null;
    }

    /**
     * Opens a copy of the page with {@code checks} (JavaScript that fills the object {@code r}, with
     * {@code v = window.candorViewer}) appended, in headless Chromium, and returns {@code r} as
     * JSON, read back from the DOM Chromium dumps.
     */
    static JsonNode inBrowser(Path chromium, Path page, String checks, Path dir) throws IOException,
            InterruptedException {
        return inBrowser(chromium, page, checks, dir, null);
    }

    /**
     * As {@link #inBrowser(Path, Path, String, Path)}, and when {@code screenshot} is not null, a
     * second run of the same page (checks included: they run before the capture) is saved there
     * as a PNG of the 1200x800 window.
     */
    static JsonNode inBrowser(Path chromium, Path page, String checks, Path dir, Path screenshot) throws IOException,
            InterruptedException {
        String html = Files.readString(page, StandardCharsets.UTF_8);
        int body = html.lastIndexOf("</body>");
        assertTrue(body > 0, page + " has no </body>");
        String script = "<pre id=\"candor-test-result\"></pre>\n<script>\n(function () {\n"
                + "  const r = {};\n"
                + "  try {\n"
                + "    const v = window.candorViewer;\n"
                + "    if (!v) throw new Error('no window.candorViewer');\n"
                + checks + "\n"
                + "  } catch (e) { r.error = String(e && e.stack || e); }\n"
                + "  document.getElementById('candor-test-result').textContent = JSON.stringify(r)\n"
                + "    .replace(/</g, '\\\\u003c').replace(/>/g, '\\\\u003e').replace(/&/g, '\\\\u0026');\n"
                + "})();\n</script>\n";
        Path copy = dir.resolve("browser-" + page.getFileName());
        Files.writeString(copy, html.substring(0, body) + script + html.substring(body), StandardCharsets.UTF_8);
        Path profileDir = Files.createTempDirectory(dir, "chromium-profile-");
        List<String> cmd = List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profileDir, "--window-size=1200,800", "--dump-dom",
                "--virtual-time-budget=5000", copy.toUri().toString());
        Path out = dir.resolve("chromium-dom.html");
        Path err = dir.resolve("chromium-stderr.txt");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        try {
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("chromium did not finish within 90 s: " + String.join(" ", cmd));
            }
        } finally {
            deleteTree(profileDir);
        }
        if (screenshot != null) {
            Path shotProfile = Files.createTempDirectory(dir, "chromium-profile-");
            List<String> shot = List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--user-data-dir=" + shotProfile, "--window-size=1200,800", "--hide-scrollbars",
                    "--screenshot=" + screenshot, "--virtual-time-budget=5000", copy.toUri().toString());
            Process sp = new ProcessBuilder(shot).directory(dir.toFile()).redirectOutput(dir.resolve("chromium-shot.txt").toFile())
                    .redirectErrorStream(true).start();
            try {
                if (!sp.waitFor(90, TimeUnit.SECONDS)) {
                    sp.destroyForcibly();
                    fail("chromium did not take the screenshot within 90 s");
                }
            } finally {
                deleteTree(shotProfile);
            }
            assertTrue(Files.size(screenshot) > 0, "no screenshot at " + screenshot);
        }
        String dom = Files.readString(out, StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("<pre id=\"candor-test-result\">([^<]*)</pre>").matcher(dom);
        assertTrue(m.find(), "no test result in the DOM Chromium dumped (exit " + p.exitValue() + ")\n--- stderr tail ---\n"
                + tail(Files.readString(err)));
        String text = m.group(1).replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<")
                .replace("&gt;", ">").replace("&amp;", "&");
        JsonNode r = JSON_MAPPER.readTree(text);
        assertFalse(r.has("error"), "the checks threw in the browser: " + r.path("error").asText());
        return r;
    }

    private static String tail(String s) {
        return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }

    static final String METHOD_A = Hot.METHOD_A;
    static final String METHOD_B = Hot.METHOD_B;

    private ReportTool() {
    }
}
