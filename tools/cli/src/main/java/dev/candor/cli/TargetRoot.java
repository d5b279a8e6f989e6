package dev.candor.cli;

import java.io.IOException;
import java.io.InputStream;
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
 * The files of a JVM that cannot simply share candor's: one in another mount namespace (a
 * container), or, when candor runs as root, one of another user. Every path candor hands the
 * agent is resolved by the JVM in its own root and opened with its own user's rights, and every
 * file the agent writes lands there: so the agent library is copied where the JVM can read it,
 * and the reply and outputs are written to a stage directory the JVM can write, then read back
 * through /proc/PID/root.
 *
 * <p>Candor's own directory of the target, {@code /tmp/.candor-UID} (UID: candor's), holds the
 * library copies and the table of outputs, so that a later {@code stop} finds what {@code start}
 * left. Its name is predictable, so it is trusted only when it is a real directory (no symlink),
 * ours, and owner-only; anything else is refused with one line. For a JVM of the same user the
 * stage is that same directory.
 *
 * <p>Another user's JVM (candor as root; the JDK lets root attach to any JVM since JDK 11) gets
 * its stage {@code /tmp/.candor-TUID}, owned by that user (TUID) and owner-only, and the library
 * in {@code /tmp/.candor-lib-UID}, ours and readable by all. Nothing of candor's is written into
 * the user's stage: the table stays in candor's own directory (a table the user could edit would
 * let it choose where root writes), and replies and outputs are read from the stage without
 * following links, only when they are regular files.
 *
 * <p>A JVM of candor's user in the same mount namespace needs none of this: {@link #of} returns
 * null then.
 */
final class TargetRoot {
    private static final String PRIVATE = "rwx------";
    private static final String SHARED = "rwxr-xr-x";

    private final long pid;
    private final long nsPid;
    private final Path root; // /proc/PID/root: the target's "/" as seen from here
    private final boolean container; // another mount namespace
    private final int user; // the JVM's uid, the stage's owner
    private final int group; // the JVM's gid, the stage's group
    private final String own; // candor's own directory, as the target names it
    private final String stage; // where the JVM writes replies and outputs, as the target names it

    private TargetRoot(Target target, boolean container, int group) {
        this.pid = target.pid;
        this.nsPid = nsPid(target.pid);
        this.root = Target.proc(target.pid).resolve("root");
        this.container = container;
        this.user = target.uid;
        this.group = group;
        this.own = "/tmp/.candor-" + Target.ourUid();
        this.stage = otherUser() ? "/tmp/.candor-" + target.uid : own;
    }

    /** The target's files when they are not simply candor's: another mount namespace or user; else null. */
    static TargetRoot of(Target target) {
        boolean container = otherNamespace(Target.proc(target.pid), "mnt");
        if (!container && target.uid == Target.ourUid()) {
            return null;
        }
        return new TargetRoot(target, container, target.gid);
    }

    private boolean otherUser() {
        return user != Target.ourUid();
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

    /** How the JVM is named in messages: "JVM 1234 (pid 1 in its container)", "JVM 1234 of user nobody". */
    String describe() {
        String where = !container ? "" : nsPid != pid ? " (pid " + nsPid + " in its container)" : " (in a container)";
        return "JVM " + pid + where + (otherUser() ? " of user " + Target.userName(user) : "");
    }

    /** Where the JVM's path TARGETPATH is seen from here. */
    Path hostView(String targetPath) {
        return root.resolve(targetPath.startsWith("/") ? targetPath.substring(1) : targetPath);
    }

    /** Candor's own directory (library copies of a JVM of our user, tables), created and checked. */
    private String own() {
        directory(own, Target.ourUid(), -1, PRIVATE);
        return own;
    }

    /** The stage directory as the target names it; created (owner-only, the JVM's user's) and checked before use. */
    String stage() {
        if (!otherUser()) {
            return own();
        }
        directory(stage, user, group, PRIVATE);
        return stage;
    }

    /**
     * Creates PATH (in the target's root) when missing, with MODE and, when GID is not -1, owned
     * by OWNER:GID; then refuses it unless it is a real directory of OWNER with exactly MODE.
     */
    private void directory(String path, int owner, int gid, String mode) {
        Path dir = hostView(path);
        String whose = Target.userName(owner);
        String step = mode.equals(PRIVATE) ? "step 1, a private directory in its /tmp: " : "step 2, the agent library: ";
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(PRIVATE)));
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(mode));
                if (gid != -1) {
                    Files.setAttribute(dir, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
                    Files.setAttribute(dir, "unix:uid", owner, LinkOption.NOFOLLOW_LINKS);
                }
            }
            PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            boolean owned = ((Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS)) == owner;
            if (!a.isDirectory() || a.isSymbolicLink() || !owned
                    || !a.permissions().equals(PosixFilePermissions.fromString(mode))) {
                throw fail(step + path + " exists but is not a directory owned by " + whose + " with mode "
                        + octal(mode) + "; remove it");
            }
        } catch (IOException e) {
            throw fail(step + "cannot create " + dir + ": " + e.getMessage());
        }
    }

    private static String octal(String mode) {
        return mode.equals(PRIVATE) ? "700" : "755";
    }

    /**
     * Copies the agent at HOSTLIBRARY into the stage; returns the path the JVM loads it from. Each
     * build gets its own subdirectory (named by its content hash) and a copy is never replaced,
     * so that another JVM of the container that maps an older build keeps reaching its copy.
     */
    String installLibrary(Path hostLibrary) {
        String base = own();
        if (otherUser()) { // the JVM's user must read it, and nobody but us may change it
            base = "/tmp/.candor-lib-" + Target.ourUid();
            directory(base, Target.ourUid(), -1, SHARED);
        }
        String dir = base + "/" + contentHash(hostLibrary);
        String target = dir + "/" + Target.LIBRARY_NAME;
        if (Files.isRegularFile(hostView(target), LinkOption.NOFOLLOW_LINKS)) {
            return target;
        }
        Path tmp = hostView(dir + "/." + Target.LIBRARY_NAME + "." + ProcessHandle.current().pid());
        try {
            Files.createDirectories(hostView(dir));
            Files.copy(hostLibrary, tmp, StandardCopyOption.REPLACE_EXISTING);
            if (otherUser()) {
                Files.setPosixFilePermissions(hostView(dir), PosixFilePermissions.fromString(SHARED));
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
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

    /**
     * Moves every output the JVM has written out of the stage to its host path, with the files the
     * agent writes beside an output (allocation and lock profiles: x-alloc.html; loop= rotations:
     * x-20261127-060000.html), which go beside the host path under the same names; the paths moved.
     */
    List<String> fetchOutputs(boolean forget) {
        Map<String, String> table = readTable();
        List<String> moved = new ArrayList<>();
        List<String> staged = stagedNames();
        for (Map.Entry<String, String> e : table.entrySet()) {
            String inJvm = e.getKey();
            String dir = inJvm.substring(0, inJvm.lastIndexOf('/') + 1);
            Path host = Path.of(e.getValue());
            String[] stagedName = stemAndExtension(inJvm.substring(dir.length()));
            String[] hostName = stemAndExtension(host.getFileName().toString());
            for (String name : staged) {
                String middle = name.equals(stagedName[0] + stagedName[1]) ? ""
                        : name.startsWith(stagedName[0] + "-") && name.endsWith(stagedName[1])
                        && name.length() > stagedName[0].length() + stagedName[1].length() + 1
                        ? name.substring(stagedName[0].length(), name.length() - stagedName[1].length()) : null;
                if (middle != null) {
                    Path to = host.resolveSibling(hostName[0] + middle + hostName[1]);
                    if (fetch(dir + name, to)) {
                        moved.add(to.toString());
                    }
                }
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

    // The names in the stage now; none when it cannot be listed.
    private List<String> stagedNames() {
        try (var files = Files.list(hostView(stage()))) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    // NAME as the agent splits it to name a file beside it: {"x", ".html"}, {"x", ""}.
    private static String[] stemAndExtension(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? new String[] {name, ""} : new String[] {name.substring(0, dot), name.substring(dot)};
    }

    // Moves one staged file to TO; false when it is not a regular file (then it is removed, never read).
    private boolean fetch(String inJvm, Path to) {
        Path from = hostView(inJvm);
        if (!Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) { // not the agent's: it writes regular files
            deleteQuietly(from);
            return false;
        }
        try (InputStream in = openWritten(from)) {
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
            Files.delete(from);
            return true;
        } catch (IOException ex) {
            throw fail("step 5, the outputs: cannot copy " + inJvm + " (in the JVM's filesystem) to " + to + ": "
                    + ex.getMessage());
        }
    }

    /**
     * Opens a file the JVM wrote in the stage: a regular file, the link itself never followed (in
     * another user's stage, that user could have put a link to a file only root may read there).
     */
    static InputStream openWritten(Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(file + " is not a regular file");
        }
        return Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // left in the stage; never copied
        }
    }

    private Path tableFile() {
        return hostView(own() + "/outputs-" + nsPid);
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
        return new Candor.Failure(Candor.PROFILING, describe() + (container ? " runs in another mount namespace; "
                : " runs as another user; ") + what);
    }
}
