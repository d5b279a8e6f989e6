package dev.candor.itest;

import dev.candor.itest.workload.ManyAllocators;
import dev.candor.model.CollapsedProfile;
import dev.candor.model.ProfileStats;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What candor's per-thread state costs a server: {@link ManyAllocators} runs 200 threads that
 * allocate and contend for locks, once without the agent and once with {@code event=cpu,alloc,lock}
 * (the allocation and lock samplers take each stack on the sampled thread itself, into a buffer of
 * that thread), and compares the process's peak RSS (the heap pre-touched, so it weighs the same in
 * both). The agent may add its own fixed memory, not a deep-stack buffer per thread: each used to be
 * sized for depth= (262144 frames, 4 MB, zero-filled), 1.6 GB for a 200-thread server. A thread
 * allocating 3,000 frames deep still gets whole stacks: the buffer grows where a stack needs it.
 */
class ThreadMemoryTest {
    private static final int THREADS = 200;
    private static final int DEPTH = 3000;
    private static final long ADDED_LIMIT_MB = 150;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.candor.itest.Jdks#all")
    void twoHundredSamplingThreadsAddNoPerThreadDeepBuffers(Jdks.Jdk jdk) throws Exception {
        jdk.assumePresent();
        String name = "thread memory " + jdk;
        Path dir = Build.runDir("thread-memory-" + jdk.label());
        long without = peakRssKb(run(jdk, dir.resolve("none"), null), name + " without the agent");
        Path collapsed = dir.resolve("with/p.collapsed");
        Path stats = dir.resolve("with/p.json");
        Jvm.Result with = run(jdk, dir.resolve("with"),
                "start,event=cpu,alloc,lock,alloc=64k,lock=0,threads,file=" + collapsed + ",stats=" + stats);
        long peak = peakRssKb(with, name);
        ProfileStats s = Profiles.stats(stats, with);
        // each kind has its own file: p.collapsed (cpu), p-alloc.collapsed, p-lock.collapsed
        CollapsedProfile allocs = Profiles.collapsed(dir.resolve("with/p-alloc.collapsed"), with);
        long lockSamples = Profiles.collapsed(dir.resolve("with/p-lock.collapsed"), with).total();
        CollapsedProfile deep = Profiles.threadSubtree(allocs, "deep", name);
        long deepAllocs = deep.count(st -> st.leaf().equals("byte[]"));
        long deepWhole = deep.count(st -> st.leaf().equals("byte[]") && st.anyFrame(f -> f.endsWith(".deepRoot")));
        long truncated = deep.count(st -> st.anyFrame(f -> f.equals("[truncated]")));
        long addedMb = (peak - without) / 1024;
        Figures.line(String.format("%s: peak RSS %d MB without the agent, %d MB with event=cpu,alloc,lock (+%d MB, %d"
                        + " threads; %d allocation stacks, lock profile weight %d); deep thread: %d of %d allocated bytes"
                        + " have deepRoot on the stack, %d [truncated]", name, without / 1024, peak / 1024, addedMb, THREADS,
                allocs.stacks().size(), lockSamples, deepWhole, deepAllocs, truncated));

        Profiles.assertIdentity(s, name);
        assertTrue(addedMb <= ADDED_LIMIT_MB, name + ": the agent added " + addedMb + " MB of peak RSS with " + THREADS
                + " sampling threads (limit " + ADDED_LIMIT_MB + ")");
        assertTrue(deepAllocs > 0, name + ": no allocation sample of the deep thread");
        assertEquals(deepAllocs, deepWhole, name + ": allocation stacks of the deep thread cut short");
        assertEquals(0, truncated, name + ": stacks of the deep thread marked [truncated]");
    }

    private static Jvm.Result run(Jdks.Jdk jdk, Path dir, String agent) throws Exception {
        java.nio.file.Files.createDirectories(dir);
        Jvm jvm = Jvm.of(jdk, dir).jvmArg("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch");
        if (agent != null) {
            jvm.agent(agent);
        }
        Jvm.Result r = jvm.main(ManyAllocators.class, String.valueOf(THREADS), "3", String.valueOf(DEPTH))
                .run(Duration.ofSeconds(90));
        assertEquals(0, r.exitCode(), r.describe());
        return r;
    }

    private static long peakRssKb(Jvm.Result run, String name) {
        Matcher m = Pattern.compile("peak rss kb: (\\d+)").matcher(run.stdout());
        assertTrue(m.find(), name + ": no peak RSS in the workload's output\n" + run.describe());
        return Long.parseLong(m.group(1));
    }
}
