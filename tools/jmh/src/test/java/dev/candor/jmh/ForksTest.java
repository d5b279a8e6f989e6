package dev.candor.jmh;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class ForksTest {

    @Test
    void hostNumbersForksPerBenchmarkWarmupForksFirst() {
        Forks f = new Forks();
        assertEquals("warmup", f.next("B.a-Throughput", 1));
        assertEquals("1", f.next("B.a-Throughput", 1));
        assertEquals("2", f.next("B.a-Throughput", 1));
        assertEquals("1", f.next("B.b-Throughput", 0), "another benchmark counts from 1");
    }

    @Test
    void benchmarkSideSuffix() {
        assertEquals("", Forks.suffix(null, 5), "-f 0: the benchmark runs in JMH's JVM, no property");
        assertEquals("", Forks.suffix("1", 1), "one fork: plain names");
        assertEquals("-fork3", Forks.suffix("3", 5));
        assertNull(Forks.suffix("warmup", 5), "warmup forks are not profiled");
    }
}
