package dev.candor.itest.stress;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * JNI-heavy: the JDK's native code (zlib Deflater/Inflater, CRC32 and Adler32 on direct
 * buffers), System.arraycopy of many sizes, and a tiny JNI library of our own (stressjni.c) that
 * burns CPU in native code, calls back into Java from native and pins arrays with
 * GetPrimitiveArrayCritical. Usage: {@code JniStorm SECONDS [LIBSTRESSJNI.so]}.
 */
public final class JniStorm {
    static boolean haveLib;

    static native long spin(int n, int depth);

    static native long sumCritical(int[] a);

    static long callback(int n, int depth) {
        long x = 0;
        for (int i = 0; i < 500; i++) {
            x += (long) i * n;
        }
        return x + spin(n, depth);
    }

    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("jnistorm", args);
        if (args.length > 1) {
            System.load(args[1]);
            haveLib = true;
        }
        AtomicLong nativeCalls = new AtomicLong();
        s.workers(3, w -> {
            long calls = 0;
            switch (w) {
                case 0 -> {
                    byte[] input = new byte[64 * 1024];
                    for (int i = 0; i < input.length; i++) {
                        input[i] = (byte) ((i * 31) ^ (i >>> 5));
                    }
                    byte[] packed = new byte[80 * 1024];
                    byte[] unpacked = new byte[input.length];
                    Deflater d = new Deflater(1 + (int) (System.nanoTime() & 7));
                    d.setInput(input);
                    d.finish();
                    int n = d.deflate(packed);
                    d.end();
                    Inflater inf = new Inflater();
                    inf.setInput(packed, 0, n);
                    int m = inf.inflate(unpacked);
                    inf.end();
                    if (m != input.length) {
                        throw new IllegalStateException("inflate gave " + m);
                    }
                    calls += 4;
                }
                case 1 -> {
                    ByteBuffer direct = ByteBuffer.allocateDirect(32 * 1024);
                    CRC32 crc = new CRC32();
                    Adler32 adler = new Adler32();
                    int[] ints = new int[4096];
                    int[] copy = new int[4096];
                    for (int i = 0; i < 50; i++) {
                        direct.clear();
                        crc.update(direct);
                        direct.clear();
                        adler.update(direct);
                        System.arraycopy(ints, i, copy, 0, ints.length - i);
                        System.arraycopy(copy, 0, copy, 1 + i % 7, 64 + i);
                        calls += 4;
                    }
                    Stress.sink += crc.getValue() + adler.getValue();
                }
                default -> {
                    if (haveLib) {
                        int[] arr = new int[8192];
                        for (int i = 0; i < 20; i++) {
                            Stress.sink += spin(2000 + i, i % 4);
                            Stress.sink += sumCritical(arr);
                            calls += 2 + i % 4;
                        }
                    } else {
                        Thread.sleep(1);
                    }
                }
            }
            nativeCalls.addAndGet(calls);
        });
        s.figure("native_calls", nativeCalls.get());
        s.figure("own_jni_library", haveLib);
        s.finish();
    }

    private JniStorm() {
    }
}
