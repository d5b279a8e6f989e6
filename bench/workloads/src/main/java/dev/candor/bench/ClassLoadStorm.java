package dev.candor.bench;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A class-loading-heavy start-up that exits right away: the kind of start-up where a profiler's
 * per-class work (jmethodID preloading in ClassPrepare) shows.
 *
 * <ol>
 *   <li>Generates {@code --generated} tiny classes (each with a constructor and {@code --methods}
 *       methods), defines them with {@link ClassLoader#defineClass} in loaders of 500 classes each,
 *       initializes them (so they are linked and prepared) and calls one method of each.</li>
 *   <li>Loads the first {@code --jdk} classes of the {@code java.base} module, listed from
 *       {@code jrt:/}, with {@code Class.forName(name, false, null)} and links them (via
 *       {@code getDeclaredFields}, which links without running static initializers).</li>
 * </ol>
 */
public final class ClassLoadStorm {
    private ClassLoadStorm() {}

    public static void main(String[] args) throws Exception {
        int generated = Main.intOpt(args, "--generated", 4000);
        int methods = Main.intOpt(args, "--methods", 10);
        int jdk = Main.intOpt(args, "--jdk", 3000);
        long t0 = System.nanoTime();

        long check = 0;
        GenLoader loader = null;
        for (int i = 0; i < generated; i++) {
            if (i % 500 == 0) {
                loader = new GenLoader();
            }
            String name = "gen.C" + i;
            byte[] bytes = classBytes(name.replace('.', '/'), methods);
            Class<?> c = loader.define(name, bytes);
            Class.forName(name, true, loader); // link + prepare + initialize
            Object o = c.getDeclaredConstructor().newInstance();
            Method m = c.getMethod("m" + (i % methods), int.class);
            check += (Integer) m.invoke(o, i);
        }
        long t1 = System.nanoTime();

        int jdkLoaded = 0;
        int jdkFailed = 0;
        for (String name : javaBaseClassNames(jdk)) {
            try {
                Class<?> c = Class.forName(name, false, null);
                c.getDeclaredFields(); // links the class (ClassPrepare) without initializing it
                jdkLoaded++;
            } catch (Throwable t) {
                jdkFailed++;
            }
        }
        long t2 = System.nanoTime();
        System.out.printf("classload: generated=%d methods=%d gen_ms=%d jdk_loaded=%d jdk_failed=%d jdk_ms=%d"
                        + " elapsed_ms=%d checksum=%d%n",
                generated, methods, (t1 - t0) / 1_000_000, jdkLoaded, jdkFailed, (t2 - t1) / 1_000_000,
                (t2 - t0) / 1_000_000, check);
    }

    static final class GenLoader extends ClassLoader {
        GenLoader() {
            super(ClassLoadStorm.class.getClassLoader());
        }

        Class<?> define(String name, byte[] b) {
            return defineClass(name, b, 0, b.length);
        }
    }

    static List<String> javaBaseClassNames(int limit) throws IOException {
        List<String> names = new ArrayList<>();
        if (limit <= 0) {
            return names;
        }
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        Path root = jrt.getPath("/modules/java.base");
        try (Stream<Path> s = Files.walk(root)) {
            s.map(p -> root.relativize(p).toString())
                    .filter(p -> p.endsWith(".class") && !p.equals("module-info.class"))
                    .sorted()
                    .limit(limit)
                    .forEach(p -> names.add(p.substring(0, p.length() - 6).replace('/', '.')));
        }
        return names;
    }

    /**
     * A minimal class file (version 52, so no stack map frames are needed for straight-line code):
     * {@code public class NAME { public NAME() {} public int mK(int x) { return x + K; } ... }}.
     */
    static byte[] classBytes(String internalName, int methods) throws IOException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream(256 + 24 * methods);
        DataOutputStream out = new DataOutputStream(bos);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0); // minor
        out.writeShort(52); // major: Java 8
        int fixed = 10; // entries #1..#10 below
        out.writeShort(1 + fixed + methods); // constant_pool_count
        utf8(out, internalName);               // #1
        out.writeByte(7); out.writeShort(1);    // #2 Class this
        utf8(out, "java/lang/Object");         // #3
        out.writeByte(7); out.writeShort(3);    // #4 Class super
        utf8(out, "<init>");                   // #5
        utf8(out, "()V");                      // #6
        out.writeByte(12); out.writeShort(5); out.writeShort(6); // #7 NameAndType <init>()V
        out.writeByte(10); out.writeShort(4); out.writeShort(7); // #8 Methodref Object.<init>
        utf8(out, "Code");                     // #9
        utf8(out, "(I)I");                     // #10
        for (int k = 0; k < methods; k++) {
            utf8(out, "m" + k);                // #11 + k
        }
        out.writeShort(0x0021); // ACC_PUBLIC | ACC_SUPER
        out.writeShort(2);      // this_class
        out.writeShort(4);      // super_class
        out.writeShort(0);      // interfaces
        out.writeShort(0);      // fields
        out.writeShort(1 + methods);
        // public <init>()V { aload_0; invokespecial Object.<init>; return }
        out.writeShort(0x0001); out.writeShort(5); out.writeShort(6); out.writeShort(1);
        code(out, 1, 1, new byte[] {0x2a, (byte) 0xb7, 0, 8, (byte) 0xb1});
        for (int k = 0; k < methods; k++) {
            // public int mK(int) { iload_1; sipush K; iadd; ireturn }
            out.writeShort(0x0001); out.writeShort(11 + k); out.writeShort(10); out.writeShort(1);
            code(out, 2, 2, new byte[] {0x1b, 0x11, (byte) (k >> 8), (byte) k, 0x60, (byte) 0xac});
        }
        out.writeShort(0); // class attributes
        out.flush();
        return bos.toByteArray();
    }

    private static void utf8(DataOutputStream out, String s) throws IOException {
        out.writeByte(1);
        out.writeUTF(s);
    }

    private static void code(DataOutputStream out, int maxStack, int maxLocals, byte[] code) throws IOException {
        out.writeShort(9); // "Code"
        out.writeInt(2 + 2 + 4 + code.length + 2 + 2);
        out.writeShort(maxStack);
        out.writeShort(maxLocals);
        out.writeInt(code.length);
        out.write(code);
        out.writeShort(0); // exception table
        out.writeShort(0); // attributes
    }
}
