package dev.candor.cli;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code candor list}: the JVMs of this user (of every user for root), which {@code candor attach}
 * can reach: from the
 * Attach API's list (hsperfdata) and a /proc scan (which also finds JVMs run with
 * -XX:-UsePerfData), with their main class and whether candor is loaded in them.
 */
@Command(name = "list",
        mixinStandardHelpOptions = true,
        exitCodeOnInvalidInput = Candor.USAGE,
        exitCodeOnExecutionException = Candor.PROFILING,
        description = {"Lists the JVMs that candor can attach to: this user's (every user's as root).",
                "Columns: PID; CANDOR: 'loaded' when candor is in the JVM, '-' when not,",
                "'no-attach' for -XX:+DisableAttachMechanism; MAIN: main class or -jar file;",
                "CONTAINER: the JVM's pid in its own pid namespace, and 'own-fs' when it has its",
                "own mount namespace ('-' when it shares candor's)."})
final class ListJvms implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    record Row(long pid, String candor, String main, String container) {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.printf("%-8s %-9s %-40s %s%n", "PID", "CANDOR", "MAIN", "CONTAINER");
        for (Row r : rows().values()) {
            out.printf("%-8d %-9s %-40s %s%n", r.pid(), r.candor(), r.main(), r.container());
        }
        out.flush();
        return Candor.OK;
    }

    static Map<Long, Row> rows() {
        long self = ProcessHandle.current().pid();
        int uid = Target.ourUid();
        Map<Long, String> names = new TreeMap<>();
        try {
            for (VirtualMachineDescriptor d : VirtualMachine.list()) {
                String display = d.displayName().strip();
                names.put(Long.parseLong(d.id()), display.isEmpty() ? "?" : display.split("\\s+")[0]);
            }
        } catch (RuntimeException e) {
            // the /proc scan below still finds them
        }
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                    .forEach(n -> names.putIfAbsent(Long.parseLong(n), null));
        } catch (IOException e) {
            // nothing more to add
        }
        Map<Long, Row> rows = new TreeMap<>();
        for (Map.Entry<Long, String> e : names.entrySet()) {
            long pid = e.getKey();
            if (pid == self) {
                continue;
            }
            Target t = Target.read(pid);
            if (t == null || (t.uid != uid && uid != 0) || !t.isJvm()) { // root attaches to any user's
                continue;
            }
            String main = e.getValue() != null ? e.getValue() : t.mainClass();
            String candor = t.hasOption("-XX:+DisableAttachMechanism") ? "no-attach"
                    : t.candorLibraries().isEmpty() ? "-" : "loaded";
            rows.put(pid, new Row(pid, candor, main == null ? "?" : main, container(pid)));
        }
        return rows;
    }

    /** "pid 1", "pid 1 own-fs", "own-fs" or "-": where the JVM lives relative to candor. */
    static String container(long pid) {
        long nsPid = TargetRoot.nsPid(pid);
        boolean ownFs = TargetRoot.otherNamespace(Target.proc(pid), "mnt");
        String s = (nsPid != pid ? "pid " + nsPid : "") + (ownFs ? (nsPid != pid ? " " : "") + "own-fs" : "");
        return s.isEmpty() ? "-" : s;
    }
}
