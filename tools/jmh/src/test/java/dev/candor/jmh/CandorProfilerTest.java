package dev.candor.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.ProfilerException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CandorProfilerTest {

    @Test
    void badOptionsAreAProfilerExceptionWithOneLine() {
        ProfilerException e = assertThrows(ProfilerException.class, () -> new CandorProfiler("intervl=1ms;file=x"));
        assertEquals("candor: option 'file' is set by the JMH profiler itself (files go to dir=, one set per "
                + "benchmark; see help)", e.getMessage());
    }

    @Test
    void helpIsTheUsageText() {
        ProfilerException e = assertThrows(ProfilerException.class, () -> new CandorProfiler("help"));
        assertEquals(ProfilerOptions.HELP, e.getMessage());
    }

    @Test
    void constructionLoadsNoAgent() throws ProfilerException {
        // the host JVM constructs profilers too (to check options): it must not load the agent
        new CandorProfiler("event=cpu;interval=1ms");
        assertEquals(null, dev.candor.api.Candor.library());
    }

    @Test
    void featureRelease() {
        assertEquals(17, CandorProfiler.feature("17.0.15"));
        assertEquals(25, CandorProfiler.feature("25"));
        assertEquals(8, CandorProfiler.feature("1.8.0_402"));
        assertEquals(0, CandorProfiler.feature(null));
        assertEquals(0, CandorProfiler.feature("weird"));
    }
}
