package dev.candor.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The same code gets the same name whatever produced the file: candor, async-profiler, JDK JFR. */
class FrameNamingTest {

    @Test
    void kernelFramesFromFoldedText() {
        Frame k = Frame.parse("do_syscall_64_[k]");
        assertEquals(Frame.Type.KERNEL, k.type());
        assertEquals("do_syscall_64", k.methodName());
        assertEquals("do_syscall_64_[k]", k.name());
        assertTrue(k.isNativeCode());
        assertEquals('k', k.viewerKind());
    }

    @Test
    void asyncProfilerAnnotationsReadAsCandorNamesJavaFrames() {
        for (String text : new String[] {"java/lang/Thread.run_[j]", "java/lang/Thread.run_[i]",
                "java/lang/Thread.run_[0]", "java/lang/Thread.run_[1]", "java/lang/Thread.run", "java.lang.Thread.run"}) {
            Frame f = Frame.parse(text);
            assertEquals("java.lang.Thread.run", f.name(), text);
            assertEquals(Frame.Type.JAVA, f.type(), text);
            assertFalse(f.isNativeCode(), text);
        }
    }

    @Test
    void cFramesAndStubsAreNativeCode() {
        Frame write = Frame.parse("write");
        assertEquals(Frame.Type.NATIVE, write.type());
        assertTrue(write.isNativeCode());
        assertEquals('n', write.viewerKind());
        Frame cpp = Frame.parse("JavaThread::thread_main_inner");
        assertEquals(Frame.Type.CPP, cpp.type());
        assertEquals("JavaThread::thread_main_inner", cpp.name());
        Frame stub = Frame.parse("[stub] StubRoutines::sha256_implCompressMB");
        assertTrue(stub.isNativeCode());
        assertFalse(stub.isPseudo());
        assertEquals("[stub] StubRoutines::sha256_implCompressMB", stub.name());
        assertTrue(Frame.parse("libjvm.so").isNativeCode());
    }

    @Test
    void jfrCFramesAreNamedByTheirSymbolWhateverLibraryTheyAreIn() {
        // async-profiler's JFR: class = the library, method = the symbol
        Frame ap = Frame.of("libc.so.6", "writev", "", 0, -1, Frame.Type.fromJfr("Native"));
        Frame candor = Frame.of("libc.so.6", "writev", "", 0, -1, Frame.Type.fromJfr("Native"));
        assertEquals("writev", ap.name());
        assertEquals(ap.name(), candor.name());
        assertTrue(ap.isNativeCode());
        Frame kernel = Frame.of("", "do_syscall_64", "", 0, -1, Frame.Type.fromJfr("Kernel"));
        assertEquals("do_syscall_64_[k]", kernel.name());
        // a Java native method keeps its class: it is Java code's own frame
        Frame nativeMethod = Frame.of("java.io.FileOutputStream", "writeBytes", "", 0, -1, Frame.Type.fromJfr("Native"));
        assertEquals("java.io.FileOutputStream.writeBytes", nativeMethod.name());
        assertFalse(nativeMethod.isNativeCode());
    }

    @Test
    void kernelUnsampledMarkerIsKernelTime() {
        Frame m = Frame.parse("[kernel_unsampled]");
        assertTrue(m.isPseudo());
        assertTrue(m.isKernelUnsampled());
        assertEquals('k', m.viewerKind());
        assertFalse(Frame.parse("[gc_active]").isKernelUnsampled());
    }
}
