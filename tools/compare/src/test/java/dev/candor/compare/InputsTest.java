package dev.candor.compare;

import dev.candor.model.Cct;
import dev.candor.model.CollapsedProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Name normalization, the pseudo-frame policy, focus, merge, the comparison text and the diff page. */
class InputsTest {
    @TempDir
    Path dir;

    static Inputs.Loaded load(String collapsed, Inputs.Options o) throws Exception {
        return Inputs.of("<test>", CollapsedProfile.parse(collapsed), o);
    }

    @Test
    void generatedNamesAreNormalized() {
        String[][] cases = {
                {"a.B$$Lambda$123/0x0000000800c0b000.run", "a.B$$Lambda.run"},
                {"a.B$$Lambda$123.0x0000000800c0b000.run", "a.B$$Lambda.run"},
                {"a.B$$Lambda/0x000071f2c8001234.apply", "a.B$$Lambda.apply"},
                {"a.B$$Lambda.0x000071f2c8001234.apply:12", "a.B$$Lambda.apply:12"},
                {"a.B$$Lambda$14/1234567.run", "a.B$$Lambda.run"},
                {"a.B$$Lambda+0x00007f9f5400e000.1805093475.applyAsLong", "a.B$$Lambda.applyAsLong"},
                {"java.lang.invoke.LambdaForm$DMH+0x00007f9f5400c400.439215501.invokeStatic",
                        "java.lang.invoke.LambdaForm$DMH.invokeStatic"},
                {"java.lang.invoke.LambdaForm$MH/0x0000000800c05000.invoke", "java.lang.invoke.LambdaForm$MH.invoke"},
                {"java.lang.invoke.LambdaForm$DMH.0x0000000800c05400.invokeStatic",
                        "java.lang.invoke.LambdaForm$DMH.invokeStatic"},
                {"jdk.proxy2.$Proxy12.compute", "jdk.proxy.$Proxy.compute"},
                {"com.sun.proxy.$Proxy7.compute", "com.sun.proxy.$Proxy.compute"},
                {"jdk.internal.reflect.GeneratedMethodAccessor12.invoke",
                        "jdk.internal.reflect.GeneratedMethodAccessor.invoke"},
                {"jdk.internal.reflect.GeneratedSerializationConstructorAccessor5.newInstance",
                        "jdk.internal.reflect.GeneratedSerializationConstructorAccessor.newInstance"},
                {"a.Service$$EnhancerBySpringCGLIB$$1a2b3c4d.run", "a.Service$$EnhancerBySpringCGLIB.run"},
                {"a.Service$$SpringCGLIB$$0.run", "a.Service$$SpringCGLIB.run"},
                {"a.Service$ByteBuddy$AbC123.run", "a.Service$ByteBuddy.run"},
                // left alone: ordinary names, javac's synthetic methods, anonymous classes, pseudo-frames
                {"a.B.lambda$main$0", "a.B.lambda$main$0"},
                {"a.B$1.run", "a.B$1.run"},
                {"a.B.hot:42", "a.B.hot:42"},
                {"[unknown_java]", "[unknown_java]"},
                {"[main tid=0x12]", "[main tid=0x12]"},
        };
        for (String[] c : cases) {
            assertEquals(c[1], FrameNames.normalize(c[0]), c[0]);
        }
    }

    @Test
    void lambdaFramesOfTwoRunsMatch() throws Exception {
        Inputs.Loaded a = load("t.Main.main;t.Main$$Lambda$14/0x0000000800c0b000.run;t.Main.lambda$main$0 10\n",
                Inputs.Options.DEFAULT);
        Inputs.Loaded b = load("t.Main.main;t.Main$$Lambda.0x00007f00c8004321.run;t.Main.lambda$main$0 7\n",
                Inputs.Options.DEFAULT);
        assertEquals(1.0, Metrics.overlap(a.cct(), b.cct()), 1e-12);
        Inputs.Options raw = Inputs.Options.DEFAULT.withNormalize(false);
        assertEquals(0.0, Metrics.overlap(load("t.M$$Lambda$1/0x1.run 1\n", raw).cct(),
                load("t.M$$Lambda$2/0x2.run 1\n", raw).cct()), 0);
    }

    @Test
    void contextRootsGoFailuresStay() throws Exception {
        String text = "[w tid=5];a.Main.run;a.Main.hot 70\n"
                + "[v tid=6];[state=running];a.Main.run;a.Main.hot 20\n"
                + "[gc_active] 5\n[dropped] 5\n";
        Inputs.Loaded in = load(text, Inputs.Options.DEFAULT);
        assertEquals(100, in.kept(), 0);
        assertEquals(10, in.failures(), 0);
        assertEquals(90, in.cct().find(List.of("a.Main.run", "a.Main.hot")).self(), 0);
        assertNotNull(in.cct().find(List.of("[gc_active]")));
        assertNull(in.cct().find(List.of("[w tid=5]")));

        Inputs.Loaded dropped = load(text, Inputs.Options.DEFAULT.withDropFailures(true));
        assertEquals(90, dropped.kept(), 0);
        assertEquals(10, dropped.droppedOther(), 0);
    }

    @Test
    void labelRootsAreContextRootsToo() throws Exception {
        // the agent's split=thread+state+label:endpoint: [thread];[state];[KEY=VALUE] roots, then the stack
        String text = "[w tid=5];[state=running];[endpoint=/users];a.Main.run;a.Main.hot 60\n"
                + "[w tid=5];[endpoint=/orders];a.Main.run;a.Main.hot 30\n"
                + "[endpoint=(none)];[gc_active] 6\n[v tid=6];[endpoint=(none)];[dropped] 4\n";
        Inputs.Loaded in = load(text, Inputs.Options.DEFAULT);
        assertEquals(100, in.kept(), 0);
        assertEquals(10, in.failures(), 0);
        assertEquals(90, in.cct().find(List.of("a.Main.run", "a.Main.hot")).self(), 0);
        assertEquals(6, in.cct().find(List.of("[gc_active]")).self(), 0);
        assertEquals(4, in.cct().find(List.of("[dropped]")).self(), 0);
        assertEquals(3, in.cct().root().childCount(), in.cct().toString());
        Inputs.Loaded noFailures = load(text, Inputs.Options.DEFAULT.withDropFailures(true));
        assertEquals(90, noFailures.kept(), 0);
        // the thread filter still sees the thread root before the label root
        Inputs.Loaded v = load(text, Inputs.Options.DEFAULT.withThreads(Pattern.compile("^v$")));
        assertEquals(10, v.kept(), 0);  // w's 90 dropped; v's 4 and the 6 without a thread kept
        // merge of two runs with different label values: the same code matches
        Cct a = load("[endpoint=/a];m;x 1\n", Inputs.Options.DEFAULT).cct();
        Cct b = load("[endpoint=/b];m;x 3\n", Inputs.Options.DEFAULT).cct();
        assertEquals("m;x 1000\n", Merger.toCollapsed(Merger.average(List.of(a, b)), 1000));
    }

    @Test
    void mixedKindsCompareOneKind() throws Exception {
        String text = "[cpu];[w tid=5];a.Main.hot 60\n[wall];[w tid=5];a.Main.sleep 30\n"
                + "[cpu];[safepoint] 4\n[wall];[w tid=5];[state=sleeping];a.Main.idle 6\n";
        Inputs.Loaded cpu = load(text, Inputs.Options.DEFAULT);
        assertEquals("cpu", cpu.kind());
        assertEquals(64, cpu.kept(), 0);
        assertEquals(36, cpu.otherKinds(), 0);
        // "[safepoint]" after a kind root is the failure bucket, not a kind
        assertEquals(4, cpu.cct().find(List.of("[safepoint]")).self(), 0);
        assertTrue(cpu.notes().get(0).contains("--kind"), cpu.notes().toString());
        Inputs.Loaded wall = load(text, Inputs.Options.DEFAULT.withKind("wall"));
        assertEquals(36, wall.kept(), 0);
        assertNotNull(wall.cct().find(List.of("a.Main.idle")));
        assertThrows(IllegalArgumentException.class, () -> load(text, Inputs.Options.DEFAULT.withKind("handshake")));
    }

    @Test
    void focusReRootsAtTheOutermostMatch() throws Exception {
        String text = "java.lang.Thread.run;w.Case.work;w.Case.hot 8\n"
                + "java.lang.Thread.run;x.Other.loop;w.Case.work;w.Case.hot 2\n"
                + "java.lang.Thread.run;w.Case.work;w.Case.work;w.Case.cold 1\n"
                + "java.lang.Thread.run;x.Other.idle 5\n[unknown_java] 3\n";
        Inputs.Loaded in = load(text, Inputs.Options.DEFAULT.withFocus(Pattern.compile("\\.Case\\.work$")));
        assertEquals(10, in.cct().find(List.of("w.Case.work", "w.Case.hot")).self(), 0);
        assertEquals(1, in.cct().find(List.of("w.Case.work", "w.Case.work", "w.Case.cold")).self(), 0);
        assertEquals(5, in.unfocused(), 0);
        assertEquals(3, in.cct().find(List.of("[unknown_java]")).self(), 0);  // failures kept under a focus
        assertEquals(14, in.kept(), 0);

        Inputs.Loaded none = load("a.b 1\n", Inputs.Options.DEFAULT.withFocus(Pattern.compile("zzz")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Comparison.requireSamples(none, "A"));
        assertTrue(e.getMessage().contains("no frame matching the focus"), e.getMessage());
    }

    /** A cut stack may have run under the focus: kept as one [truncated] edge, counted as a failure. */
    @Test
    void focusKeepsStacksCutBeforeTheirCallersAsOneEdge() throws Exception {
        String text = "java.lang.Thread.run;w.Case.work;w.Case.bottom 6\n"
                + "[truncated];w.Case.descend;w.Case.bottom 3\n"           // cut below work: unknown
                + "[w1 tid=5];[truncated];w.Case.descend;w.Case.spin 1\n"  // the same under a thread root
                + "[truncated];w.Case.work;w.Case.descend;w.Case.bottom 2\n"  // cut, but work is in it
                + "java.lang.Thread.run;x.Other.idle 4\n";
        Inputs.Loaded in = load(text, Inputs.Options.DEFAULT.withFocus(Pattern.compile("\\.Case\\.work$")));
        assertEquals(4, in.cct().find(List.of("[truncated]")).self(), 0);
        assertEquals(4, in.failures(), 0);
        assertEquals(4, in.unfocused(), 0);  // the uncut stack without work
        assertEquals(8, in.cct().find(List.of("w.Case.work", "w.Case.bottom")).self()
                + in.cct().find(List.of("w.Case.work", "w.Case.descend", "w.Case.bottom")).self(), 0);
        assertTrue(in.notes().stream().anyMatch(n -> n.contains("cut before any frame matching the focus")),
                in.notes().toString());

        Inputs.Loaded dropped = load(text, Inputs.Options.DEFAULT.withFocus(Pattern.compile("\\.Case\\.work$"))
                .withDropFailures(true));
        assertNull(dropped.cct().find(List.of("[truncated]")));
        assertEquals(8, dropped.kept(), 0);
        // without a focus a cut stack is an ordinary stack
        Inputs.Loaded all = load(text, Inputs.Options.DEFAULT);
        assertEquals(3, all.cct().find(List.of("[truncated]", "w.Case.descend", "w.Case.bottom")).self(), 0);
        assertEquals(0, all.failures(), 0);
    }

    @Test
    void threadsFilterAndFoldingLibraryFrames() throws Exception {
        String text = "[w1 tid=5];a.Main.run;a.Main.copy;java.lang.System.arraycopy 6\n"
                + "[w1 tid=5];a.Main.run;a.Main.crc;java.util.zip.CRC32.update;java.util.zip.CRC32.updateBytes 3\n"
                + "[main tid=1];java.lang.Thread.join 5\n[unknown_java] 2\n";
        Inputs.Loaded in = load(text, Inputs.Options.DEFAULT.withThreads(Pattern.compile("^w"))
                .withFold(Pattern.compile("^java\\.")));
        assertEquals(6, in.cct().find(List.of("a.Main.run", "a.Main.copy")).self(), 0);
        assertEquals(3, in.cct().find(List.of("a.Main.run", "a.Main.crc")).self(), 0);
        assertEquals(2, in.cct().find(List.of("[unknown_java]")).self(), 0);  // no thread: kept
        assertEquals(5, in.droppedOther(), 0);                                    // main's samples
        // folding keeps the outermost frame, and leaves pseudo-frames alone
        Inputs.Loaded all = load(text, Inputs.Options.DEFAULT.withFold(Pattern.compile("^java\\.")));
        assertEquals(5, all.cct().find(List.of("java.lang.Thread.join")).self(), 0);
    }

    @Test
    void linesOptionSeparatesLines() throws Exception {
        String text = "a.M.run:10;a.M.hot:20 5\na.M.run:10;a.M.hot:21 5\n";
        assertEquals(2, load(text, Inputs.Options.DEFAULT).cct().edgeCount());
        assertEquals(3, load(text, Inputs.Options.DEFAULT.withLines(true)).cct().edgeCount());
    }

    @Test
    void emptyInputIsAClearError() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.collapsed"), "");
        Inputs.Loaded in = Inputs.load(empty, Inputs.Options.DEFAULT);
        Inputs.Loaded other = load("a.b 1\n", Inputs.Options.DEFAULT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Comparison.of(in, other, 0.1));
        assertTrue(e.getMessage().startsWith("A (" + empty + ") has no samples to compare"), e.getMessage());
    }

    @Test
    void comparisonTextNamesTheNumbersAndTheBiggestDifferences() throws Exception {
        Inputs.Loaded a = load("m;a 6\nm;b 3\nm 1\n", Inputs.Options.DEFAULT);
        Inputs.Loaded b = load("m;a 2\nm;c 4\nm 2\nm;b 2\n", Inputs.Options.DEFAULT);
        Comparison c = Comparison.of(a, b, 0.5);
        assertEquals(0.5, c.overlap(), 1e-12);
        String text = c.text(10, Inputs.Options.DEFAULT.describe());
        assertTrue(text.contains("overlap(A,B)        0.500"), text);
        assertTrue(text.contains("hotcover(A,B,0.5)"), text);
        assertTrue(text.contains("0.500   (2 of B's 4 hot edges are hot in A)"), text);
        assertTrue(text.contains("1.000   (2 of A's 2 hot edges are hot in B)"), text);
        // biggest change first: m;a from 60% to 20% and m;c new at 40%
        assertEquals(java.util.Set.of(List.of("m", "a"), List.of("m", "c")),
                java.util.Set.of(c.edges().get(0).path(), c.edges().get(1).path()));
        assertEquals(0.4, Math.abs(c.edges().get(0).delta()), 1e-12);
        assertEquals(java.util.Set.of("a", "c"), java.util.Set.of(c.methods().get(0).name(), c.methods().get(1).name()));
    }

    @Test
    void mergeAveragesNormalizedTrees() throws Exception {
        Cct a = load("m;a 6\nm;b 4\n", Inputs.Options.DEFAULT).cct();       // a .6, b .4
        Cct b = load("m;a 100\nm;c 300\n", Inputs.Options.DEFAULT).cct();   // a .25, c .75
        Cct m = Merger.average(List.of(a, b));
        assertEquals(1.0, m.total(), 1e-12);
        assertEquals(0.425, m.find(List.of("m", "a")).self(), 1e-12);
        assertEquals(0.2, m.find(List.of("m", "b")).self(), 1e-12);
        assertEquals(0.375, m.find(List.of("m", "c")).self(), 1e-12);
        String out = Merger.toCollapsed(m, 1000);
        assertEquals("m;a 425\nm;b 200\nm;c 375\n", out);
        // largest-remainder rounding keeps the exact total
        Cct thirds = load("x 1\ny 1\nz 1\n", Inputs.Options.DEFAULT).cct();
        String t = Merger.toCollapsed(Merger.average(List.of(thirds)), 100);
        assertEquals(100, CollapsedProfile.parse(t).total());
        assertThrows(IllegalArgumentException.class, () -> Merger.average(List.of()));
        assertThrows(IllegalArgumentException.class, () -> Merger.average(List.of(a, Cct.empty())));
    }

    @Test
    void diffPageKeepsTheViewerContract() throws Exception {
        Inputs.Loaded a = load("p.M.m;p.A.a 6\np.M.m;p.G.gone 4\np.M.m;write;do_syscall_64_[k] 2\n",
                Inputs.Options.DEFAULT);
        Inputs.Loaded b = load("p.M.m;p.A.a 5\np.M.m;p.N.new</script> 5\n", Inputs.Options.DEFAULT);
        String json = DiffFlameGraph.json(a, b, "t", "s");
        assertTrue(json.contains("\"diff\":{\"a\":\"<test>\"".replace("<", "\\u003c")), json);
        assertTrue(json.contains("{\"n\":\"all\",\"v\":1000000,\"k\":\"r\",\"w\":[1,1]"), json);
        assertTrue(json.contains("{\"n\":\"p.G.gone\",\"v\":166666.667,\"k\":\"j\""), json);
        assertTrue(json.contains("\"n\":\"p.N.new\\u003c/script>\""), json);
        // C frames are native, kernel frames kernel, as the viewer colours them
        assertTrue(json.contains("{\"n\":\"write\",\"v\":83333.333,\"k\":\"n\""), json);
        assertTrue(json.contains("{\"n\":\"do_syscall_64_[k]\",\"v\":83333.333,\"k\":\"k\""), json);
        String html = DiffFlameGraph.html(a, b, "t", "s");
        assertTrue(html.contains("window.candorData = {\"title\":\"t\""), html.substring(0, 200));
        assertTrue(!html.contains("/*CANDOR:DATA*/null"));
    }

    @Test
    void glibcAliasesAndCppReturnTypesNormalize() {
        assertEquals("malloc", FrameNames.normalize("__libc_malloc"));
        assertEquals("malloc", FrameNames.normalize("malloc"));
        assertEquals("libc_start_main", FrameNames.normalize("libc_start_main"));  // no underscore, no alias
        assertEquals("pread", FrameNames.normalize("__pread64"));
        assertEquals("open", FrameNames.normalize("__libc_open64"));
        assertEquals("sha3_64", FrameNames.normalize("sha3_64"));  // not a large-file alias
        assertEquals("memmove_evex_unaligned_erms", FrameNames.normalize("__memcpy_evex_unaligned_erms"));
        assertEquals("memcpy_chk", FrameNames.normalize("__memcpy_chk"));
        assertEquals("new_instance_Java", FrameNames.normalize("[stub] _new_instance_Java"));
        assertEquals("sha256_implCompressMB", FrameNames.normalize("[stub] StubRoutines::sha256_implCompressMB"));
        assertEquals("CompilationPolicy::common<CallPredicate>",
                FrameNames.normalize("CompLevel CompilationPolicy::common<CallPredicate>"));
        assertEquals("JVMFlagAccess::set<bool, 0>", FrameNames.normalize("JVMFlag::Error JVMFlagAccess::set<bool, 0>"));
        String barrier = "AccessInternal::PostRuntimeDispatch<G1BarrierSet::AccessBarrier<594020ul, G1BarrierSet>, "
                + "(AccessInternal::BarrierType)2, 594020ul>::oop_access_barrier";
        assertEquals(barrier, FrameNames.normalize(barrier));
        assertEquals(barrier, FrameNames.normalize("oopDesc* " + barrier));
        assertEquals("operator new", FrameNames.normalize("operator new"));
        assertEquals("Arena::operator new", FrameNames.normalize("Arena::operator new"));
        assertEquals("[stub] monitorenter_nofpu Runtime1 stub".substring(7),
                FrameNames.normalize("[stub] monitorenter_nofpu Runtime1 stub"));
    }

    @Test
    void candorAndAsyncProfilerNamesMatch() throws Exception {
        // the same stacks as candor and async-profiler (with `ann`) write them
        String candor = "a.Main.main;java.security.MessageDigest.digest;[stub] StubRoutines::sha256_implCompressMB 5\n"
                + "a.Main.main;a.Main.call;[stub] itable stub 2\n"
                + "a.Main.main;java.io.FileOutputStream.writeBytes;Java_java_io_FileOutputStream_writeBytes;write;"
                + "do_syscall_64_[k] 3\n"
                + "a.Main.main;java.util.zip.Deflater.deflateBytesBytes;libz.so.1 4\n"
                + "a.Main.main;a.Main.call;[stub] I2C/C2I adapters 1\n"
                + "a.Main.main;a.Main.lock;pthread_mutex_lock 6\n"
                + "a.Main.main;a.Main.time;clock_gettime;clock_gettime 7\n"
                + "a.Main.main;a.Main.alloc;[stub] _new_array_nozero_Java;OptoRuntime::new_array_nozero_C;os::malloc;malloc 8\n"
                + "a.Main.main;a.Main.sync;[stub] _complete_monitor_locking_Java;ObjectMonitor::enter 9\n"
                + "a.Main.main;a.Main.read;Java_sun_nio_ch_FileDispatcherImpl_pread0;pread 10\n"
                + "a.Main.main;a.Main.copy;__memcpy_avx_unaligned_erms 11\n"
                + "a.Main.main;a.Main.jit;CompilationPolicy::common<LoopPredicate> 12\n";
        String ap = "a/Main.main_[j];java/security/MessageDigest.digest_[j];sha256_implCompressMB 5\n"
                + "a/Main.main_[j];a/Main.call_[j];itable stub 2\n"
                + "a/Main.main_[j];java/util/zip/Deflater.deflateBytesBytes_[j];/usr/lib/x86_64-linux-gnu/libz.so.1.2.13 4\n"
                + "a/Main.main_[j];a/Main.call_[j];I2C/C2I adapters(0xb) 1\n"
                + "a/Main.main_[j];java/io/FileOutputStream.writeBytes_[j];Java_java_io_FileOutputStream_writeBytes;"
                + "__GI_write;do_syscall_64_[k] 3\n"
                + "a/Main.main_[j];a/Main.lock_[j];pthread_mutex_lock@@GLIBC_2.2.5 6\n"
                + "a/Main.main_[j];a/Main.time_[j];clock_gettime@@GLIBC_2.17;__vdso_clock_gettime 7\n"
                + "a/Main.main_[j];a/Main.alloc_[j];_new_array_nozero_Java;OptoRuntime::new_array_nozero_C;os::malloc;"
                + "__GI___libc_malloc 8\n"
                + "a/Main.main_[j];a/Main.sync_[j];_complete_monitor_locking_Java;ObjectMonitor::enter 9\n"
                + "a/Main.main_[j];a/Main.read_[j];Java_sun_nio_ch_FileDispatcherImpl_pread0;__pread64 10\n"
                + "a/Main.main_[j];a/Main.copy_[j];__memmove_avx_unaligned_erms 11\n"
                + "a/Main.main_[j];a/Main.jit_[j];CompLevel CompilationPolicy::common<LoopPredicate> 12\n";
        Inputs.Loaded a = load(candor, Inputs.Options.DEFAULT);
        Inputs.Loaded b = load(ap, Inputs.Options.DEFAULT);
        assertEquals(1.0, Metrics.overlap(a.cct(), b.cct()), 1e-9);
        // --java-only: native code and kernel frames go, their time counts for the Java caller
        Inputs.Loaded aj = load(candor, Inputs.Options.DEFAULT.withJavaOnly(true));
        Inputs.Loaded bj = load(ap, Inputs.Options.DEFAULT.withJavaOnly(true));
        assertEquals(1.0, Metrics.overlap(aj.cct(), bj.cct()), 1e-9);
        assertEquals(3.0, aj.cct().find(List.of("a.Main.main", "java.io.FileOutputStream.writeBytes")).self(), 1e-9);
        assertEquals(4.0, aj.cct().find(List.of("a.Main.main", "java.util.zip.Deflater.deflateBytesBytes")).self(), 1e-9);
        Inputs.Loaded marker = load("a.Main.main;a.Main.io;[kernel_unsampled] 4\na.Main.main 1\n",
                Inputs.Options.DEFAULT.withJavaOnly(true));
        assertEquals(4.0, marker.cct().find(List.of("a.Main.main", "a.Main.io")).self(), 1e-9);
        // --drop-failures: the marker's ticks were estimated, not recorded: they go, with or without --java-only
        for (boolean javaOnly : new boolean[] {false, true}) {
            Inputs.Loaded recorded = load("a.Main.main;a.Main.io;[kernel_unsampled] 4\na.Main.main;a.Main.io 2\n"
                    + "a.Main.main 1\n", Inputs.Options.DEFAULT.withDropFailures(true).withJavaOnly(javaOnly));
            assertEquals(3, recorded.kept(), 0);
            assertEquals(4, recorded.droppedOther(), 0);
            assertEquals(2.0, recorded.cct().find(List.of("a.Main.main", "a.Main.io")).self(), 1e-9);
        }
    }
}
