package dev.candor.itest.workload;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Method-handle-heavy workload: one thread, {@value #THREAD}, calls five different method handles
 * through one call site ({@code invokeExact} on a handle read from an array). The site is
 * megamorphic, so the JIT compiles it as a call to the VM's own {@code MethodHandle.invokeBasic}
 * (a Method* outside MethodHandle's method array) instead of inlining the target: about a fifth of
 * the thread's samples end there.
 *
 * <p>Usage: {@code HandleCalls SECONDS}.
 */
public final class HandleCalls {
    public static final String THREAD = "handle-worker";
    public static final String INVOKE_BASIC = "java.lang.invoke.MethodHandle.invokeBasic";
    public static volatile int sink;

    public static void main(String[] args) throws Exception {
        long endNs = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        MethodType type = MethodType.methodType(int.class, int.class);
        MethodHandle[] handles = new MethodHandle[5];
        for (int k = 0; k < handles.length; k++) {
            handles[k] = lookup.findStatic(HandleCalls.class, "f" + k, type);
        }
        handles[3] = MethodHandles.filterReturnValue(handles[3], handles[1]);
        handles[4] = MethodHandles.filterArguments(handles[4], 0, handles[2]);
        Thread worker = new Thread(() -> {
            int acc = 0;
            int i = 0;
            try {
                while (System.nanoTime() < endNs) {
                    for (int k = 0; k < 10_000; k++) {
                        i = (i + 1) % handles.length;
                        acc += (int) handles[i].invokeExact(acc);
                    }
                }
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            sink = acc;
        }, THREAD);
        worker.start();
        worker.join();
        System.out.println("workload done");
    }

    static int f0(int x) {
        return x + 1;
    }

    static int f1(int x) {
        return x * 3;
    }

    static int f2(int x) {
        return x ^ 7;
    }

    static int f3(int x) {
        return x - 5;
    }

    static int f4(int x) {
        return Integer.rotateLeft(x, 3);
    }
}
