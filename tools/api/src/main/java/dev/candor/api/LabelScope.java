package dev.candor.api;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A label scope of the current thread, opened by {@link Candor#label(String, String)}: while it
 * is open, every sample candor takes of this thread (cpu, wall, alloc, lock) carries the thread's
 * labels, and closing it restores the labels the thread had before. Scopes nest; an inner scope
 * may override a key of an outer one. Use try-with-resources:
 *
 * <pre>{@code
 * try (var scope = Candor.label("endpoint", "/users")) {
 *     handle(request);
 * }
 * }</pre>
 *
 * <p>The thread's labels reach the agent with one JNI call per open and close (no system call,
 * no allocation in the agent's signal handler, which copies a 32-bit id). When no candor agent is
 * in this JVM, scopes only keep the thread's labels here and cost no native call; an agent that
 * arrives later (attach) sees a thread's labels from its next scope on.
 */
public final class LabelScope implements AutoCloseable {

    private static final ThreadLocal<TreeMap<String, String>> CURRENT = ThreadLocal.withInitial(TreeMap::new);
    private static final long RECHECK_NANOS = 1_000_000_000L;
    private static volatile boolean linked;     // the agent's library is loaded: setLabels0 is callable
    private static volatile long nextCheckNanos; // when to look for an agent again (attach may bring one)

    private final Thread owner;
    private final TreeMap<String, String> previous;
    private boolean closed;

    private LabelScope(Thread owner, TreeMap<String, String> previous) {
        this.owner = owner;
        this.previous = previous;
    }

    static LabelScope open(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("a label key must not be empty");
        }
        TreeMap<String, String> previous = CURRENT.get();
        TreeMap<String, String> next = new TreeMap<>(previous);
        next.put(key, value);
        apply(next);
        return new LabelScope(Thread.currentThread(), previous);
    }

    /** The current thread's labels, sorted by key. */
    static Map<String, String> current() {
        return Collections.unmodifiableMap(CURRENT.get());
    }

    /** Restores the labels the thread had when this scope opened. */
    @Override
    public void close() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("a label scope must be closed by the thread that opened it");
        }
        if (closed) {
            return;
        }
        closed = true;
        apply(previous);
    }

    private static void apply(TreeMap<String, String> labels) {
        CURRENT.set(labels);
        if (!agentPresent()) {
            return;
        }
        String[] keyValues = new String[labels.size() * 2];
        int i = 0;
        for (Map.Entry<String, String> e : labels.entrySet()) {
            keyValues[i++] = e.getKey();
            keyValues[i++] = e.getValue();
        }
        Candor.setLabels(keyValues);
    }

    // The agent is in this JVM: loaded by the API already, or found mapped (-agentpath, attach),
    // looked for at most once a second so that label scopes stay cheap without an agent. One thread
    // looks at a time, and the others wait for its answer: when the look moved the next check on
    // before it was done, the scopes other threads opened meanwhile went unlabelled (15-20 ms of
    // samples of a pool's requests at start-up in LabelsTest).
    private static boolean agentPresent() {
        if (linked) {
            return true;
        }
        if (System.nanoTime() - nextCheckNanos < 0) {
            // Read linked again: a look may have ended since the first read, and it writes linked
            // before nextCheckNanos, so a new next check seen here comes with its answer.
            return linked;
        }
        synchronized (LabelScope.class) {
            if (linked) {
                return true;
            }
            if (System.nanoTime() - nextCheckNanos < 0) {
                return false; // another thread looked just now and found none
            }
            try {
                java.nio.file.Path agent = Candor.library() != null ? Candor.library() : Candor.loadedInThisJvm();
                if (agent == null) {
                    return false;
                }
                Candor.load(agent);
                linked = true;
                return true;
            } catch (RuntimeException e) {
                return false; // labels are kept here; the application goes on
            } finally {
                nextCheckNanos = System.nanoTime() + RECHECK_NANOS;
            }
        }
    }
}
