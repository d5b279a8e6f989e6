package dev.candor.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * One Attach API connection to a JVM, through which candor commands are sent as agent option
 * strings: {@code VirtualMachine.loadAgentPath(LIB, "COMMAND,...,reply=FILE")}. Loading a library
 * that is already loaded reaches the same copy's Agent_OnAttach, so this loads the agent the
 * first time and talks to it afterwards. The agent writes its one-line answer to FILE, in a
 * private directory (owner-only, unpredictable name) that the target, running as the same user,
 * can write to. A JVM in a container, or of another user ({@link TargetRoot}), gets the reply file
 * in its stage directory instead, read back through /proc/PID/root.
 */
final class AgentConnection implements AutoCloseable {

    /** The attach protocol's limit for one argument (HotSpot's arg_length_max). */
    static final int MAX_OPTIONS_LENGTH = 1024;

    private final Target target;
    private final VirtualMachine vm;
    private final Path replyDir; // null with a targetRoot: replies go to its stage
    private final TargetRoot targetRoot; // null unless the JVM is in another mount namespace or of another user
    private int replies;

    private AgentConnection(Target target, VirtualMachine vm, Path replyDir, TargetRoot targetRoot) {
        this.target = target;
        this.vm = vm;
        this.replyDir = replyDir;
        this.targetRoot = targetRoot;
    }

    /** Attaches; a JVM that does not accept attach is a target {@link Candor.Failure}. */
    static AgentConnection open(Target target) {
        return open(target, null);
    }

    /** Attaches to a JVM whose files are under ROOT (null: the same mount namespace as candor). */
    static AgentConnection open(Target target, TargetRoot root) {
        VirtualMachine vm;
        String step = root == null ? "" : "step 3, the attach socket (the JDK looks for it in /proc/" + target.pid
                + "/root/tmp): ";
        try {
            vm = VirtualMachine.attach(Long.toString(target.pid));
        } catch (AttachNotSupportedException e) {
            String hint = target.hasOption("-XX:+DisableAttachMechanism") ? " (it runs with -XX:+DisableAttachMechanism)"
                    : "";
            throw new Candor.Failure(Candor.TARGET, step + "JVM " + target.pid + " refuses attach" + hint + ": "
                    + e.getMessage());
        } catch (IOException | RuntimeException e) {
            throw new Candor.Failure(Candor.TARGET, step + "cannot attach to JVM " + target.pid + ": " + e.getMessage());
        }
        if (root != null) {
            try {
                root.stage();
            } catch (Candor.Failure e) {
                detachQuietly(vm);
                throw e;
            }
            return new AgentConnection(target, vm, null, root);
        }
        try {
            Path dir = Files.createTempDirectory("candor-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            dir.toFile().deleteOnExit(); // also when candor is killed before close(); replies are deleted as read
            return new AgentConnection(target, vm, dir, null);
        } catch (IOException | RuntimeException e) {
            detachQuietly(vm);
            throw new Candor.Failure(Candor.PROFILING, "cannot create a private directory for the agent's answer: "
                    + e.getMessage());
        }
    }

    /**
     * Sends OPTIONS (a command and its settings, without reply=) to the agent at LIBRARY and returns
     * its one-line answer ("ok", "idle", "running ..."). Rejected options and failed commands are
     * profiling {@link Candor.Failure}s carrying the agent's own message.
     */
    String send(String library, String options) {
        String name = "reply-" + ProcessHandle.current().pid() + "-" + ++replies;
        String replyInJvm = targetRoot == null ? replyDir.resolve(name).toString() : targetRoot.stage() + "/" + name;
        Path reply = targetRoot == null ? Path.of(replyInJvm) : targetRoot.hostView(replyInJvm);
        // reply= first: the agent stops parsing at a bad option, and must know where to say so
        String all = options.isEmpty() ? "reply=" + replyInJvm : "reply=" + replyInJvm + "," + options;
        int bytes = all.getBytes(StandardCharsets.UTF_8).length;
        if (bytes >= MAX_OPTIONS_LENGTH) {
            throw new Candor.Failure(Candor.USAGE, "the agent options are too long for the attach protocol ("
                    + bytes + " bytes, at most " + (MAX_OPTIONS_LENGTH - 1) + "); use shorter paths");
        }
        try {
            vm.loadAgentPath(library, all);
            String answer = readReply(reply);
            return answer == null ? "ok" : answer;
        } catch (AgentInitializationException e) {
            String answer = readReply(reply);
            if (answer != null && answer.startsWith("error: ")) {
                throw new Candor.Failure(Candor.PROFILING, answer.substring("error: ".length()));
            }
            throw new Candor.Failure(Candor.PROFILING, (targetRoot == null ? "" : "step 4, the agent: ")
                    + "the agent failed in JVM " + target.pid
                    + " (Agent_OnAttach returned " + e.returnValue() + "); see the JVM's stderr");
        } catch (AgentLoadException e) {
            String msg = String.valueOf(e.getMessage());
            if (msg.contains("EnableDynamicAgentLoading") || msg.contains("agent loading is not enabled")) {
                throw new Candor.Failure(Candor.TARGET, dynamicLoadingDisabled(target.pid));
            }
            throw new Candor.Failure(Candor.PROFILING, (targetRoot == null ? "" : "step 4, the agent: ")
                    + "JVM " + target.pid + " could not load " + library + ": " + msg);
        } catch (IOException e) {
            if (!target.isAlive()) {
                throw new Candor.Failure(Candor.TARGET, "JVM " + target.pid + " exited");
            }
            throw new Candor.Failure(Candor.TARGET, "lost the connection to JVM " + target.pid + ": " + e.getMessage());
        }
    }

    static String dynamicLoadingDisabled(long pid) {
        return "JVM " + pid + " does not allow loading agents while it runs (-XX:-EnableDynamicAgentLoading): "
                + "restart it with -XX:+EnableDynamicAgentLoading, or launch it with candor record";
    }

    private static String readReply(Path reply) {
        try {
            String s;
            try (var in = TargetRoot.openWritten(reply)) {
                s = new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8).strip();
            }
            return s.isEmpty() ? null : s.lines().findFirst().orElse(null);
        } catch (IOException e) { // no answer (an agent without reply=, or it could not write)
            return null;
        } finally {
            try {
                Files.deleteIfExists(reply);
            } catch (IOException e) {
                // close() tries again
            }
        }
    }

    @Override
    public void close() {
        detachQuietly(vm);
        if (replyDir == null) {
            return; // replies in a container's stage are deleted as read
        }
        try (Stream<Path> files = Files.walk(replyDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover empty directory in the temp dir is harmless
        }
    }

    private static void detachQuietly(VirtualMachine vm) {
        try {
            vm.detach();
        } catch (IOException e) {
            // already gone
        }
    }
}
