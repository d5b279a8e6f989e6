package dev.candor.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The files of a JVM in another mount namespace (a container). Every path candor hands the agent
 * is resolved by the JVM in its own root, and every file the agent writes lands there: so the
 * agent library is copied in, and the reply and outputs are read back, through /proc/PID/root.
 *
 * <p>Everything lives in one stage directory of the target, {@code /tmp/.candor-UID}, so that a
 * later {@code stop} finds what {@code start} left (the table of outputs). Its name is
 * predictable, so it is trusted only when it is a real directory (no symlink), ours, and
 * owner-only; anything else is refused with one line.
 *
 * <p>A JVM in the same mount namespace needs none of this: {@link #of} returns null then.
 */
final class TargetRoot {
    private final long pid;
    private final long nsPid;
    private final Path root; // /proc/PID/root: the target's "/" as seen from here
    private final String stage; // the stage directory, as the target names it

    private TargetRoot(long pid, long nsPid, Path root, String stage) {
        this.pid = pid;
        this.nsPid = nsPid;
        this.root = root;
        this.stage = stage;
    }

    /** The target's root when it is in another mount namespace than candor; null when not. */
    static TargetRoot of(Target target) {
        Path proc = Target.proc(target.pid);
        if (!otherNamespace(proc, "mnt")) {
            return null;
        }
        return new TargetRoot(target.pid, nsPid(target.pid), proc.resolve("root"), "/tmp/.candor-" + Target.ourUid());
    }

    /** Whether PROC's namespace of KIND differs from ours; false when it cannot be read. */
    static boolean otherNamespace(Path proc, String kind) {
        try {
            Path own = Files.readSymbolicLink(Path.of("/proc/self/ns", kind));
            return !own.equals(Files.readSymbolicLink(proc.resolve("ns").resolve(kind)));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** The pid the process has in its own pid namespace (the last NSpid field); PID when the same. */
    static long nsPid(long pid) {
        try {
            for (String line : Files.readAllLines(Target.proc(pid).resolve("status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("NSpid:")) {
                    String[] f = line.substring(6).strip().split("\\s+");
                    return Long.parseLong(f[f.length - 1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // below
        }
        return pid;
    }

    /** How the JVM is named in messages: "JVM 1234 (pid 1 in its container)". */
    String describe() {
        return "JVM " + pid + (nsPid != pid ? " (pid " + nsPid + " in its container)" : " (in a container)");
    }

    /** Where the JVM's path TARGETPATH is seen from here. */
    Path hostView(String targetPath) {
        return root.resolve(targetPath.startsWith("/") ? targetPath.substring(1) : targetPath);
    }

    /** The stage directory as the target names it; created (owner-only) and checked before use. */
    String stage() {
        Path dir = hostView(stage);
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            boolean ours = ((Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)) == Target.ourUid();
            if (!a.isDirectory() || a.isSymbolicLink() || !ours
                    || !a.permissions().equals(PosixFilePermissions.fromString("rwx------"))) {
                throw fail("step 1, a private directory in its /tmp: " + stage + " exists but is not a directory "
                        + "owned by " + Target.userName(Target.ourUid()) + " with mode 700; remove it");
            }
        } catch (IOException e) {
            throw fail("step 1, a private directory in its /tmp: cannot create " + dir + ": " + e.getMessage());
        }
        return stage;
    }

    /**
     * Copies the agent at HOSTLIBRARY into the stage; returns the path the JVM loads it from. Each
     * build gets its own subdirectory (named by its content hash) and a copy is never replaced,
     * so that another JVM of the container that maps an older build keeps reaching its copy.
     */
    String installLibrary(Path hostLibrary) {
        String dir = stage() + "/" + contentHash(hostLibrary);
        String target = dir + "/" + Target.LIBRARY_NAME;
        if (Files.isRegularFile(hostView(target), LinkOption.NOFOLLOW_LINKS)) {
            return target;
        }
        Path tmp = hostView(dir + "/." + Target.LIBRARY_NAME + "." + ProcessHandle.current().pid());
        try {
            Files.createDirectories(hostView(dir));
            Files.copy(hostLibrary, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, hostView(target), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw fail("step 2, the agent library: cannot copy " + hostLibrary + " to " + hostView(target) + ": "
                    + e.getMessage());
        }
        return target;
    }

    private String contentHash(Path file) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
            return HexFormat.of().formatHex(d, 0, 6);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw fail("step 2, the agent library: cannot read " + file + ": " + e.getMessage());
        }
    }

    /**
     * Rewrites the file= and stats= parts of ITEMS to paths in the stage, so that the JVM can
     * write them; the table target → host path is kept in the stage for {@link #fetchOutputs}.
     * Relative host paths are taken from BASE.
     */
    List<String> redirectOutputs(List<String> items, Path base, boolean replaceTable) {
        Map<String, String> table = replaceTable ? new LinkedHashMap<>() : readTable();
        List<String> out = new ArrayList<>();
        int n = table.size();
        for (String item : items) {
            List<String> parts = new ArrayList<>();
            for (String part : item.split(",")) {
                int eq = part.indexOf('=');
                String key = eq < 0 ? "" : part.substring(0, eq + 1);
                if (key.equals("file=") || key.equals("stats=")) {
                    Path host = base.resolve(part.substring(eq + 1)).toAbsolutePath().normalize();
                    String inJvm = stage() + "/out-" + nsPid + "-" + ++n + "-" + host.getFileName();
                    table.put(inJvm, host.toString());
                    part = key + inJvm;
                }
                parts.add(part);
            }
            out.add(String.join(",", parts));
        }
        writeTable(table);
        return out;
    }

    /** Moves every output the JVM has written out of the stage to its host path; the paths moved. */
    List<String> fetchOutputs(boolean forget) {
        Map<String, String> table = readTable();
        List<String> moved = new ArrayList<>();
        for (Map.Entry<String, String> e : table.entrySet()) {
            Path from = hostView(e.getKey());
            if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
                continue; // not written (yet): dump before the first sample, or the agent said why
            }
            try {
                Files.copy(from, Path.of(e.getValue()), StandardCopyOption.REPLACE_EXISTING);
                Files.delete(from);
                moved.add(e.getValue());
            } catch (IOException ex) {
                throw fail("step 5, the outputs: cannot copy " + e.getKey() + " (in the JVM's filesystem) to "
                        + e.getValue() + ": " + ex.getMessage());
            }
        }
        if (forget) {
            try {
                Files.deleteIfExists(tableFile());
            } catch (IOException e) {
                // a stale table only names files that no longer exist
            }
        }
        return moved;
    }

    private Path tableFile() {
        return hostView(stage() + "/outputs-" + nsPid);
    }

    private Map<String, String> readTable() {
        Map<String, String> table = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(tableFile(), StandardCharsets.UTF_8)) {
                int tab = line.indexOf('\t');
                if (tab > 0) {
                    table.put(line.substring(0, tab), line.substring(tab + 1));
                }
            }
        } catch (IOException e) {
            // no table yet
        }
        return table;
    }

    private void writeTable(Map<String, String> table) {
        StringBuilder sb = new StringBuilder();
        table.forEach((k, v) -> sb.append(k).append('\t').append(v).append('\n'));
        try {
            Files.writeString(tableFile(), sb.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw fail("step 1, a private directory in its /tmp: cannot write " + tableFile() + ": " + e.getMessage());
        }
    }

    private Candor.Failure fail(String what) {
        return new Candor.Failure(Candor.PROFILING, describe() + " runs in another mount namespace; " + what);
    }
}
