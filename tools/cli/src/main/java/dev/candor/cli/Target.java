package dev.candor.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A process as /proc shows it: owner, name, command line, and whether libjvm.so and candor's
 * library are mapped. Everything {@code attach} checks before it talks to a JVM, so that each
 * problem is one clear line (and so that the Attach API never sends SIGQUIT to a process that
 * is not a JVM: that would kill it).
 */
final class Target {
    static final String LIBRARY_NAME = "libcandor.so";

    final long pid;
    final int uid;
    final int gid;
    final String name;
    final List<String> cmdline;
    final List<String> maps; // the path column of /proc/PID/maps, one entry per mapping with a path

    private Target(long pid, int uid, int gid, String name, List<String> cmdline, List<String> maps) {
        this.pid = pid;
        this.uid = uid;
        this.gid = gid;
        this.name = name;
        this.cmdline = cmdline;
        this.maps = maps;
    }

    static Path proc(long pid) {
        return Path.of("/proc", Long.toString(pid));
    }

    /** Reads the process; null when there is no such process (or it has just exited). */
    static Target read(long pid) {
        Path dir = proc(pid);
        try {
            int uid = effectiveUid(dir);
            int gid = effectiveId(dir, "Gid:");
            String name = Files.readString(dir.resolve("comm"), StandardCharsets.UTF_8).strip();
            List<String> cmd = List.of(new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8)
                    .split("\0"));
            List<String> maps = new ArrayList<>();
            if (uid == ourUid() || ourUid() == 0) {
                for (String line : Files.readAllLines(dir.resolve("maps"), StandardCharsets.UTF_8)) {
                    int slash = line.indexOf('/');
                    if (slash >= 0) {
                        maps.add(line.substring(slash));
                    }
                }
            }
            return new Target(pid, uid, gid, name, cmd.size() == 1 && cmd.get(0).isEmpty() ? List.of() : cmd, maps);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            // present but unreadable (another user's process): owner and name are enough then
            try {
                return new Target(pid, effectiveUid(dir), effectiveId(dir, "Gid:"),
                        Files.readString(dir.resolve("comm")).strip(), List.of(), List.of());
            } catch (IOException gone) {
                return null;
            }
        }
    }

    /** The checks before an attach; throws a target {@link Candor.Failure} with one line. */
    static Target forAttach(long pid) {
        if (pid == ProcessHandle.current().pid()) {
            throw new Candor.Failure(Candor.TARGET, "process " + pid + " is candor itself");
        }
        Target t = read(pid);
        if (t == null) {
            throw new Candor.Failure(Candor.TARGET, "no such process: " + pid);
        }
        if (t.uid != ourUid() && ourUid() != 0) {
            throw new Candor.Failure(Candor.TARGET, "process " + pid + " (" + t.name + ") belongs to user "
                    + userName(t.uid) + " (uid " + t.uid + ") and candor runs as " + userName(ourUid()) + " (uid "
                    + ourUid() + "): a JVM can only be attached by its own user or root; run candor as "
                    + userName(t.uid) + " or with sudo");
        }
        if (!t.isJvm()) {
            throw new Candor.Failure(Candor.TARGET, "process " + pid + " (" + t.name + ") is not a JVM"
                    + " (no libjvm.so in /proc/" + pid + "/maps)");
        }
        return t;
    }

    boolean isAlive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    boolean isJvm() {
        return maps.stream().anyMatch(p -> p.endsWith("/libjvm.so"));
    }

    /** Paths of candor libraries mapped into the process (normally none or one). */
    Set<String> candorLibraries() {
        Set<String> paths = new LinkedHashSet<>();
        for (String p : maps) {
            String file = p.endsWith(" (deleted)") ? p.substring(0, p.length() - 10) : p;
            if (file.substring(file.lastIndexOf('/') + 1).equals(LIBRARY_NAME)) {
                paths.add(p);
            }
        }
        return paths;
    }

    /** How many mappings of candor libraries the process has (a second copy would double it). */
    long candorMappings() {
        return maps.stream().filter(p -> p.endsWith("/" + LIBRARY_NAME) || p.endsWith("/" + LIBRARY_NAME + " (deleted)"))
                .count();
    }

    /** Whether the command line has this JVM option, e.g. -XX:+DisableAttachMechanism. */
    boolean hasOption(String option) {
        return cmdline.contains(option);
    }

    /** The main class, -jar file or module of a java command line; "?" when it cannot be told. */
    String mainClass() {
        return mainClass(cmdline);
    }

    static String mainClass(List<String> cmd) {
        // options of the java launcher that take the next argument as their value
        Set<String> withValue = Set.of("-cp", "-classpath", "--class-path", "-p", "--module-path",
                "--upgrade-module-path", "--add-modules", "--add-exports", "--add-opens", "--add-reads",
                "--patch-module", "--limit-modules", "--enable-native-access", "--source");
        for (int i = 1; i < cmd.size(); i++) {
            String a = cmd.get(i);
            if (a.equals("-jar") || a.equals("-m") || a.equals("--module")) {
                return i + 1 < cmd.size() ? cmd.get(i + 1) : "?";
            }
            if (a.startsWith("--module=")) {
                return a.substring("--module=".length());
            }
            if (withValue.contains(a)) {
                i++;
            } else if (!a.startsWith("-")) {
                return a;
            }
        }
        return "?";
    }

    static int ourUid() {
        try {
            return effectiveUid(Path.of("/proc/self"));
        } catch (IOException e) {
            return -1;
        }
    }

    // The effective uid, from the Uid: line of /proc/PID/status (real, effective, saved, fs).
    private static int effectiveUid(Path dir) throws IOException {
        return effectiveId(dir, "Uid:");
    }

    // The effective id of a Uid: or Gid: line of /proc/PID/status.
    private static int effectiveId(Path dir, String key) throws IOException {
        for (String line : Files.readAllLines(dir.resolve("status"), StandardCharsets.UTF_8)) {
            if (line.startsWith(key)) {
                return Integer.parseInt(line.substring(key.length()).strip().split("\\s+")[1]);
            }
        }
        throw new IOException("no " + key + " line in " + dir.resolve("status"));
    }

    static String userName(int uid) {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/passwd"), StandardCharsets.UTF_8)) {
                String[] f = line.split(":");
                if (f.length > 2 && f[2].equals(Integer.toString(uid))) {
                    return f[0];
                }
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        return "uid" + uid;
    }
}
