package dev.candor.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Checks the agent library before any JVM is asked to load it: present, readable, and an ELF
 * shared object for this machine. A JVM's own message for a library of the wrong architecture
 * is a long dlopen error, or nothing at all through the attach protocol.
 */
final class AgentLibrary {

    private static final Map<Integer, String> MACHINES = Map.of(
            3, "x86 (32-bit)", 62, "x86-64", 40, "ARM (32-bit)", 183, "aarch64", 243, "riscv",
            21, "ppc64", 22, "s390x", 8, "mips", 2, "sparc", 43, "sparcv9");

    /** Throws a profiling {@link Candor.Failure} with one line unless PATH is a loadable agent here. */
    static void check(Path path) {
        if (!Files.exists(path)) {
            throw fail("agent library not found: " + path + " (build it with make, or give its path with --agent PATH)");
        }
        if (!Files.isRegularFile(path)) {
            throw fail("agent library " + path + " is not a regular file");
        }
        byte[] h = new byte[20];
        int n;
        try (InputStream in = Files.newInputStream(path)) {
            n = in.readNBytes(h, 0, h.length);
        } catch (IOException e) {
            throw fail("cannot read the agent library " + path + ": " + e.getMessage());
        }
        if (n < h.length || h[0] != 0x7f || h[1] != 'E' || h[2] != 'L' || h[3] != 'F') {
            throw fail("agent library " + path + " is not an ELF shared library");
        }
        ByteOrder order = h[5] == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        ByteBuffer b = ByteBuffer.wrap(h).order(order);
        int type = Short.toUnsignedInt(b.getShort(16));
        int machine = Short.toUnsignedInt(b.getShort(18));
        int expected = expectedMachine();
        if (expected != 0 && (machine != expected || h[4] != bitsClass() || h[5] != 1)) {
            String built = MACHINES.getOrDefault(machine, "machine type " + machine)
                    + (h[4] == 1 ? ", 32-bit" : "") + (h[5] == 2 ? ", big-endian" : "");
            throw fail("agent library " + path + " is built for " + built + ", not for this machine ("
                    + MACHINES.getOrDefault(expected, System.getProperty("os.arch")) + ")");
        }
        if (type != 3) { // ET_DYN
            throw fail("agent library " + path + " is an ELF file but not a shared library (e_type " + type + ")");
        }
    }

    /** e_machine of this JVM's architecture; 0 when unknown (then only the ELF magic is checked). */
    static int expectedMachine() {
        return switch (System.getProperty("os.arch", "").toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> 62;
            case "aarch64", "arm64" -> 183;
            case "riscv64" -> 243;
            case "ppc64le" -> 21;
            case "s390x" -> 22;
            default -> 0;
        };
    }

    private static byte bitsClass() {
        return (byte) ("64".equals(System.getProperty("sun.arch.data.model", "64")) ? 2 : 1);
    }

    private static Candor.Failure fail(String message) {
        return new Candor.Failure(Candor.PROFILING, message);
    }

    private AgentLibrary() {
    }
}
