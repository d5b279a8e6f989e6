package dev.candor.itest;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The hypervisor's steal time of the whole machine (/proc/stat's steal column). perf's cpu-clock runs on
 * while a vCPU is stolen from the thread on it, the thread's CPU clock does not: tests whose truth is a
 * CPU clock add it to their upper bounds, and print it. On this bursty KVM guest it reached hundreds of
 * milliseconds in a few seconds' run.
 */
final class MachineSteal {

    private MachineSteal() {
    }

    /** The steal time so far (in USER_HZ = 100 ticks), in ns; 0 if unknown. */
    static long nowNs() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            return f.length > 8 ? Long.parseLong(f[8]) * 10_000_000L : 0;
        } catch (Exception e) {
            return 0;
        }
    }
}
