package dev.candor.itest.stress;

import java.lang.invoke.CallSite;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * Class loading and unloading storm: one thread defines copies of {@link StormTemplate} in fresh
 * class loaders, one defines it as hidden classes, one spins new lambda classes through
 * LambdaMetafactory; every class is used (so it runs, and may get compiled) and dropped, and a
 * System.gc() now and then unloads them. Usage: {@code ClassStorm SECONDS}.
 */
public final class ClassStorm {
    public static void main(String[] args) throws Exception {
        Stress s = Stress.of("classstorm", args);
        byte[] bytes = Stress.classBytes(StormTemplate.class);
        Map<String, byte[]> own = Map.of(StormTemplate.class.getName(), bytes);
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        MethodHandle impl = lookup.findStatic(ClassStorm.class, "make", MethodType.methodType(Object.class));
        AtomicLong defined = new AtomicLong();
        s.workers(3, w -> {
            for (int i = 0; i < 20; i++) {
                switch (w) {
                    case 0 -> {
                        Class<?> c = new Stress.CopyLoader(own).loadClass(StormTemplate.class.getName());
                        IntUnaryOperator op = (IntUnaryOperator) c.getDeclaredConstructor().newInstance();
                        Stress.sink += op.applyAsInt(i);
                    }
                    case 1 -> {
                        Class<?> c = lookup.defineHiddenClass(bytes, true).lookupClass();
                        IntUnaryOperator op = (IntUnaryOperator) c.getDeclaredConstructor().newInstance();
                        Stress.sink += op.applyAsInt(i);
                    }
                    default -> {
                        CallSite site = LambdaMetafactory.metafactory(lookup, "get",
                                MethodType.methodType(Supplier.class), MethodType.methodType(Object.class), impl,
                                MethodType.methodType(Object.class));
                        Supplier<?> sup = (Supplier<?>) site.getTarget().invokeExact();
                        Stress.sink += sup.get().hashCode();
                    }
                }
                defined.incrementAndGet();
            }
            if (w == 0 && defined.get() % 2000 < 20) {
                System.gc();
            }
        });
        System.gc();
        ClassLoadingMXBean cl = ManagementFactory.getClassLoadingMXBean();
        s.figure("classes_defined", defined.get());
        s.figure("jvm_loaded_total", cl.getTotalLoadedClassCount());
        s.figure("jvm_unloaded", cl.getUnloadedClassCount());
        s.finish();
    }

    static Object make() {
        return new Object();
    }

    private ClassStorm() {
    }
}
