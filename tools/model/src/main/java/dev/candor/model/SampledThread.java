package dev.candor.model;

/**
 * The thread a sample was taken on.
 *
 * @param name         the Java thread name (or the OS name when there is none)
 * @param osThreadId   the OS thread id, negative when unknown
 * @param javaThreadId the Java thread id, negative when unknown
 */
public record SampledThread(String name, long osThreadId, long javaThreadId) {
    public SampledThread {
        name = name == null ? "" : name;
    }

    /** The id candor shows: the OS thread id, else the Java thread id, else 0. */
    public long tid() {
        return osThreadId >= 0 ? osThreadId : Math.max(0, javaThreadId);
    }

    /** The thread root frame candor's {@code threads} option writes: {@code [name tid=N]}. */
    public String rootFrame() {
        return "[" + name + " tid=" + tid() + "]";
    }
}
