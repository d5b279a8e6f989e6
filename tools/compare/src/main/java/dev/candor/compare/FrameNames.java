package dev.candor.compare;

import dev.candor.model.Frame;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Normalizes the names of dynamically generated classes, which differ from run to run (and
 * between producers), and the names producers give the same generated machine code, so that
 * their frames match across profiles.
 *
 * <table>
 * <caption>Rewrites</caption>
 * <tr><th>seen</th><th>becomes</th></tr>
 * <tr><td>{@code a.B$$Lambda$123/0x0000000800c0b000.run} (JDK 17 hidden class),
 *   {@code a.B$$Lambda$123.0x0000000800c0b000.run} (its JVMTI signature, as agents print it),
 *   {@code a.B$$Lambda/0x…}, {@code a.B$$Lambda.0x…} (JDK 21+), {@code a.B$$Lambda+0x….1805093475}
 *   (JDK JFR's name for hidden classes), {@code a.B$$Lambda$14/1234} (JDK 8)</td>
 *   <td>{@code a.B$$Lambda.run}</td></tr>
 * <tr><td>other hidden classes: {@code java.lang.invoke.LambdaForm$MH/0x…} or {@code .0x…}</td>
 *   <td>{@code java.lang.invoke.LambdaForm$MH}</td></tr>
 * <tr><td>proxies: {@code jdk.proxy2.$Proxy12}, {@code com.sun.proxy.$Proxy7}</td>
 *   <td>{@code jdk.proxy.$Proxy}, {@code com.sun.proxy.$Proxy}</td></tr>
 * <tr><td>reflection accessors: {@code GeneratedMethodAccessor12}, {@code GeneratedConstructorAccessor3},
 *   {@code GeneratedSerializationConstructorAccessor5}</td><td>the same without the number</td></tr>
 * <tr><td>byte-code generators: {@code $$EnhancerByCGLIB$$1a2b3c}, {@code $$FastClassByCGLIB$$…},
 *   {@code $$SpringCGLIB$$0}, {@code $ByteBuddy$AbC123}, {@code $HibernateProxy$XyZ}</td>
 *   <td>{@code $$EnhancerByCGLIB}, …, {@code $ByteBuddy}, {@code $HibernateProxy}</td></tr>
 * <tr><td>glibc's aliases of one function: {@code __GI_write}, {@code __write}, {@code ___pthread_cond_signal};
 *   versioned symbols {@code pthread_mutex_lock@@GLIBC_2.2.5}; the vDSO's {@code __vdso_clock_gettime}</td>
 *   <td>{@code write}, {@code pthread_cond_signal}, {@code pthread_mutex_lock}, {@code clock_gettime}</td></tr>
 * <tr><td>glibc's other names for one function: {@code __libc_malloc}, {@code __pread64} (large-file aliases),
 *   {@code __memcpy_avx_unaligned_erms}</td><td>{@code malloc}, {@code pread}, {@code memmove_avx_unaligned_erms}</td></tr>
 * <tr><td>C2's runtime stubs: candor's {@code [stub] _new_array_Java}, async-profiler's {@code _new_array_Java}</td>
 *   <td>{@code new_array_Java}</td></tr>
 * <tr><td>a C++ template instance with its return type: {@code CompLevel CompilationPolicy::common<LoopPredicate>}</td>
 *   <td>{@code CompilationPolicy::common<LoopPredicate>}, as candor names it</td></tr>
 * <tr><td>candor's frames of generated code: {@code [stub] StubRoutines::sha256_implCompressMB},
 *   {@code [stub] itable stub}</td><td>{@code sha256_implCompressMB}, {@code itable stub}, as
 *   async-profiler names them; async-profiler's {@code I2C/C2I adapters(0xb)}</td>
 *   <td>{@code I2C/C2I adapters}</td></tr>
 * <tr><td>a library without symbols: {@code libz.so.1}, {@code /usr/lib/x86_64-linux-gnu/libz.so.1.2.13}</td>
 *   <td>{@code libz.so}</td></tr>
 * </table>
 *
 * Pseudo-frames in square brackets are left alone. Method names are not changed: javac's
 * {@code lambda$main$0} and {@code access$000} are stable between runs of the same build.
 */
public final class FrameNames {
    private FrameNames() {
    }

    private static final String STUB_ROUTINES = "StubRoutines::";

    // A plain C symbol (no class, no C++ scope, not a kernel frame): libc and other C libraries.
    private static boolean isCSymbol(String frame) {
        return frame.indexOf('.') < 0 && frame.indexOf(':') < 0 && frame.indexOf(' ') < 0
                && !frame.endsWith(Frame.KERNEL_SUFFIX);
    }

    /**
     * glibc gives one function several names ({@code write}, {@code __write}, {@code __GI_write},
     * {@code __GI___writev}, {@code ___pthread_cond_signal}); a producer that reads libc's debug
     * symbols shows an internal alias, one that reads its exports the public name. Matched by the
     * name without the {@code __GI_} prefix and leading underscores.
     */
    static String cSymbol(String frame) {
        String s = frame.startsWith("__GI_") ? frame.substring(5) : frame.startsWith(VDSO) ? frame.substring(VDSO.length()) : frame;
        int i = 0;
        while (i < s.length() - 1 && s.charAt(i) == '_') {
            i++;
        }
        s = s.substring(i);
        if (i > 0 && s.startsWith(LIBC) && s.length() > LIBC.length()) {
            s = s.substring(LIBC.length());  // __libc_malloc is malloc, __libc_open64 open64
        }
        if (s.endsWith("64") && LARGE_FILE_ALIASES.contains(s.substring(0, s.length() - 2))) {
            s = s.substring(0, s.length() - 2);
        }
        Matcher memcpy = MEMCPY_ALIAS.matcher(s);
        return memcpy.matches() ? "memmove_" + memcpy.group(1) : s;
    }

    private static final String LIBC = "libc_";
    // glibc on 64-bit: the large-file functions are aliases of the plain ones (pread64 is pread).
    private static final Set<String> LARGE_FILE_ALIASES = Set.of("pread", "pwrite", "preadv", "pwritev", "lseek",
            "mmap", "open", "openat", "creat", "fopen", "freopen", "fseeko", "ftello", "fgetpos", "fsetpos", "stat",
            "fstat", "lstat", "fstatat", "statfs", "fstatfs", "statvfs", "fstatvfs", "truncate", "ftruncate",
            "readdir", "readdir_r", "scandir", "getdents", "getrlimit", "setrlimit", "prlimit", "posix_fadvise",
            "posix_fallocate", "fallocate", "sendfile", "tmpfile", "mkstemp", "lockf", "glob", "ftw", "nftw");
    // glibc's unaligned memcpy variants are aliases of the memmove ones at the same address.
    private static final Pattern MEMCPY_ALIAS = Pattern.compile("memcpy_(\\w*unaligned\\w*)");

    /**
     * A C++ function as a demangler prints a template instance, with its return type
     * ({@code CompLevel CompilationPolicy::common<LoopPredicate>}); candor prints it without
     * ({@code CompilationPolicy::common<LoopPredicate>}). Matched by the name after the last
     * space outside template arguments and parentheses; operators are left alone.
     */
    static String withoutReturnType(String frame) {
        if (frame.contains("operator")) {
            return frame;
        }
        int depth = 0;
        int cut = -1;
        for (int i = 0; i < frame.length(); i++) {
            char c = frame.charAt(i);
            if (c == '<' || c == '(') {
                depth++;
            } else if (c == '>' || c == ')') {
                depth--;
            } else if (c == ' ' && depth == 0) {
                cut = i;
            }
        }
        if (cut < 0 || depth != 0) {
            return frame;
        }
        String name = frame.substring(cut + 1);
        return name.contains("::") ? name : frame;
    }

    // The vDSO exports each function twice (clock_gettime and __vdso_clock_gettime at one
    // address): candor shows the first, async-profiler the second.
    private static final String VDSO = "__vdso_";

    /**
     * candor names generated code {@code [stub] StubRoutines::sha256_implCompressMB} or
     * {@code [stub] itable stub}; async-profiler names the same code {@code sha256_implCompressMB}
     * and {@code itable stub} (and some blobs with their size, {@code I2C/C2I adapters(0xb)}):
     * matched by the bare name.
     */
    static String stubName(String frame) {
        String s = frame.substring(Frame.STUB_PREFIX.length());
        return s.startsWith(STUB_ROUTINES) ? s.substring(STUB_ROUTINES.length()) : s;
    }

    // A frame in a library without symbols: candor names the library by its file name
    // (libz.so.1), async-profiler by its path (/usr/lib/x86_64-linux-gnu/libz.so.1.2.13).
    private static final Pattern LIBRARY_ONLY = Pattern.compile("(?:.*/)?(lib[^/;]*?\\.so)(?:\\.[0-9]+)*");
    // async-profiler's size annotation on some code blobs: "I2C/C2I adapters(0xb)"
    private static final Pattern BLOB_SIZE = Pattern.compile("\\(0x[0-9a-f]+\\)$");

    private record Rule(Pattern pattern, String replacement) {
    }

    private static final List<Rule> RULES = List.of(
            // lambda proxies: the counter (JDK ≤ 17) goes, the hidden-class suffix is handled below
            new Rule(Pattern.compile("\\$\\$Lambda\\$\\d+"), "\\$\\$Lambda"),
            // hidden-class suffix: "/0x…" (Class.getName), ".0x…" (JVMTI signature), "+0x…" with an
            // optional ".1234" identity hash (JDK JFR); JDK 8's "/1234"
            new Rule(Pattern.compile("\\+0x[0-9a-fA-F]+(?:[./]\\d+)?(?=[.$;]|$)"), ""),
            new Rule(Pattern.compile("[/.]0x[0-9a-fA-F]+(?=[.$;]|$)"), ""),
            new Rule(Pattern.compile("/\\d+(?=[.$;]|$)"), ""),
            // proxies and their dynamic modules
            new Rule(Pattern.compile("\\bjdk\\.proxy\\d+\\."), "jdk.proxy."),
            new Rule(Pattern.compile("\\$Proxy\\d+"), "\\$Proxy"),
            // reflection accessors generated by the JDK (JDK ≤ 17 after the inflation threshold)
            new Rule(Pattern.compile("(Generated(?:Serialization)?(?:Method|Constructor)Accessor)\\d+"), "$1"),
            // byte-code generation libraries
            new Rule(Pattern.compile("\\$\\$([A-Za-z]*CGLIB[A-Za-z]*)\\$\\$[0-9a-zA-Z_]+"), "\\$\\$$1"),
            new Rule(Pattern.compile("\\$(ByteBuddy|HibernateProxy|MockitoMock)\\$[0-9A-Za-z_]+"), "\\$$1"));

    /**
     * The normalized name of a frame (a Java frame {@code package.Class.method}, optionally with
     * {@code :line}); pseudo-frames {@code [..]} come back unchanged.
     */
    public static String normalize(String frame) {
        if (frame.startsWith(Frame.STUB_PREFIX)) {
            // C2's runtime stubs: candor's [stub] _new_array_Java is async-profiler's _new_array_Java,
            // whose leading underscore goes as any C symbol's does
            String stub = BLOB_SIZE.matcher(stubName(frame)).replaceFirst("");
            return isCSymbol(stub) ? cSymbol(stub) : stub;
        }
        if (frame.isEmpty() || frame.charAt(0) == '[') {
            return frame;
        }
        Matcher library = LIBRARY_ONLY.matcher(frame);
        if (library.matches()) {
            return library.group(1);
        }
        if (frame.endsWith(")") && frame.contains(" ")) {
            return BLOB_SIZE.matcher(frame).replaceFirst("");
        }
        if (frame.indexOf(' ') > 0 && frame.contains("::") && !frame.endsWith(Frame.KERNEL_SUFFIX)) {
            return withoutReturnType(frame);
        }
        if (isCSymbol(frame)) {
            return cSymbol(frame);
        }
        Matcher versioned = Frame.VERSIONED_SYMBOL.matcher(frame);
        if (versioned.matches()) {
            return cSymbol(versioned.group(1));
        }
        if (frame.indexOf('$') < 0 && frame.indexOf('/') < 0 && !frame.contains("0x")
                && !frame.contains("Generated")) {
            return frame;  // the common case: nothing generated
        }
        String s = frame;
        for (Rule r : RULES) {
            Matcher m = r.pattern.matcher(s);
            if (m.find()) {
                s = m.replaceAll(r.replacement);
            }
        }
        return s;
    }
}
