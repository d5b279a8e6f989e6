package dev.candor.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A real HTTP server for the server bench: Jetty 12 (core Handler API) on 127.0.0.1, a
 * QueuedThreadPool of {@code --threads} threads (all started up front, as a busy server has them),
 * the endpoints of {@link Endpoints}, driven from outside by wrk (bench/server/pace.lua).
 *
 * <pre>jetty [--threads 200] [--port-file F] [--bodies DIR] [--timeout S]</pre>
 *
 * <p>It listens on a free port, writes the request bodies the wrk script sends into DIR, then the port
 * into F (atomically: when F exists the server is ready) and prints {@code jetty: listening on
 * 127.0.0.1:PORT}. Two admin requests frame the measurement: {@code POST /admin/mark} starts the
 * window (after the driver's warm-up; unmarked, it starts when the server is up), {@code POST /admin/stop} ends it, answers with the result and
 * stops the server; the process then prints the same result as {@code jetty: {json}} and exits.
 * The result has the requests served in the window (admin requests not counted), the process's CPU
 * in the window from /proc/self/stat (user and system apart: everything, JIT, GC and a profiler's
 * threads included) and its JIT compiler threads' part ({@code jit_cpu_s}), the process's CPU since
 * start, and the CPU of the live Java threads (ThreadMXBean: the threads a Java-only profiler
 * samples; JIT compiler threads are not among them).
 * {@code endpoint_cpu_s} is the known answer for the profiles: each endpoint's CPU (user + system,
 * its thread's CPU clock around the endpoint's method, {@code Endpoints.json} and the others), since
 * the server started, as the profiles and the Java threads' CPU cover the whole run.
 * Without a stop within {@code --timeout} seconds (default 1800) it exits with status 3.
 */
final class JettyServer extends Handler.Abstract {
    private static final String[] ENDPOINTS = {"json", "regex", "hash", "mix"};

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<String, LongAdder> served = new LinkedHashMap<>();
    private final Map<String, LongAdder> endpointCpuNs = new LinkedHashMap<>(); // since start, for the profiles' truth
    private final LongAdder errors = new LongAdder();
    private final Server server;
    private final QueuedThreadPool pool;
    private volatile Snapshot mark;
    private volatile String result;

    private JettyServer(Server server, QueuedThreadPool pool) {
        this.server = server;
        this.pool = pool;
        for (String e : ENDPOINTS) {
            served.put(e, new LongAdder());
            endpointCpuNs.put(e, new LongAdder());
        }
    }

    static void main(String[] args) throws Exception {
        int threads = Main.intOpt(args, "--threads", 200);
        String portFile = strOpt(args, "--port-file");
        String bodies = strOpt(args, "--bodies");
        long timeout = Main.intOpt(args, "--timeout", 1800);

        QueuedThreadPool pool = new QueuedThreadPool(threads, threads);
        pool.setName("jetty");
        Server server = new Server(pool);
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        JettyServer handler = new JettyServer(server, pool);
        server.setHandler(handler);
        server.start();
        handler.mark = handler.snapshot(); // the window until /admin/mark moves it

        if (bodies != null) {
            Files.createDirectories(Path.of(bodies));
            for (Map.Entry<String, byte[]> e : Endpoints.bodies(8).entrySet()) {
                Files.write(Path.of(bodies, e.getKey()), e.getValue());
            }
        }
        int port = connector.getLocalPort();
        if (portFile != null) {
            Path tmp = Path.of(portFile + ".tmp");
            Files.writeString(tmp, port + "\n");
            Files.move(tmp, Path.of(portFile), StandardCopyOption.ATOMIC_MOVE);
        }
        System.out.println("jetty: listening on 127.0.0.1:" + port + " with " + threads + " pool threads");
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(timeout * 1000);
                System.out.println("jetty: no /admin/stop within " + timeout + " s; exiting");
                System.exit(3);
            } catch (InterruptedException e) {
                // stopped in time
            }
        }, "jetty-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        server.join();
        watchdog.interrupt();
        System.out.println("jetty: " + handler.result);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        byte[] out;
        try {
            if (path.startsWith("/admin/")) {
                out = admin(path.substring("/admin/".length()));
            } else {
                String name = path.substring(1);
                LongAdder count = served.get(name);
                if (count == null) {
                    Response.writeError(request, response, callback, 404, "endpoints: /json /regex /hash /mix");
                    return true;
                }
                byte[] body = bytes(Content.Source.asByteBuffer(request));
                long cpu = THREADS.getCurrentThreadCpuTime();
                out = serve(name, body);
                endpointCpuNs.get(name).add(THREADS.getCurrentThreadCpuTime() - cpu);
                count.increment();
            }
        } catch (Exception e) {
            errors.increment();
            Response.writeError(request, response, callback, e);
            return true;
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        // /admin/stop stops the server only once its answer is written, so that the driver gets it
        boolean stop = path.equals("/admin/stop");
        response.write(true, ByteBuffer.wrap(out), stop ? Callback.from(callback, this::stopServer) : callback);
        return true;
    }

    private void stopServer() {
        Thread stopper = new Thread(() -> {
            try {
                server.stop();
            } catch (Exception e) {
                System.out.println("jetty: stop failed: " + e);
            }
        }, "jetty-stopper");
        stopper.start();
    }

    private static byte[] serve(String endpoint, byte[] body) throws Exception {
        return switch (endpoint) {
            case "json" -> Endpoints.json(body);
            case "regex" -> Endpoints.regex(body);
            case "hash" -> Endpoints.hash(body);
            default -> Endpoints.mix(body);
        };
    }

    private byte[] admin(String what) throws Exception {
        switch (what) {
            case "mark" -> mark = snapshot();
            case "stop" -> {
                result = report(mark, snapshot());
                return result.getBytes(StandardCharsets.UTF_8);
            }
            default -> throw new IllegalArgumentException("admin: mark or stop, not " + what);
        }
        return "{}".getBytes(StandardCharsets.UTF_8);
    }

    /** Requests served, the process's CPU and its live JIT compiler threads' CPU (by tid) at one moment. */
    private record Snapshot(long nanos, long requests, long userTicks, long sysTicks, Map<String, Long> byEndpoint,
                            Map<String, Long> compilerTicks) {}

    private Snapshot snapshot() throws Exception {
        long[] ticks = ProcThreads.cpuTicks(Files.readString(Path.of("/proc/self/stat")));
        Map<String, Long> by = new LinkedHashMap<>();
        long total = 0;
        for (Map.Entry<String, LongAdder> e : served.entrySet()) {
            by.put(e.getKey(), e.getValue().sum());
            total += e.getValue().sum();
        }
        return new Snapshot(System.nanoTime(), total, ticks[0], ticks[1], by, ProcThreads.compilerTicks());
    }

    static boolean isProfilerThread(String name) {
        return name.startsWith("candor ") || name.startsWith("JFR ");
    }

    private String report(Snapshot from, Snapshot to) throws Exception {
        double hz = ProcThreads.HZ;
        long requests = to.requests - from.requests;
        double user = (to.userTicks - from.userTicks) / hz;
        double sys = (to.sysTicks - from.sysTicks) / hz;
        ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
        long javaCpu = 0;
        long javaUser = 0;
        long[] ids = tmx.getAllThreadIds();
        for (java.lang.management.ThreadInfo info : tmx.getThreadInfo(ids)) {
            // The application's threads: a profiler's own Java threads (candor's writer and
            // sampler, JFR's recorder threads) are not what it samples.
            if (info == null || isProfilerThread(info.getThreadName())) {
                continue;
            }
            javaCpu += Math.max(0, tmx.getThreadCpuTime(info.getThreadId()));
            javaUser += Math.max(0, tmx.getThreadUserTime(info.getThreadId()));
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("requests", requests);
        Map<String, Long> by = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : to.byEndpoint.entrySet()) {
            by.put(e.getKey(), e.getValue() - from.byEndpoint.getOrDefault(e.getKey(), 0L));
        }
        r.put("by_endpoint", by);
        r.put("errors", errors.sum());
        r.put("window_s", (to.nanos - from.nanos) / 1e9);
        r.put("cpu_s", user + sys);
        r.put("user_s", user);
        r.put("sys_s", sys);
        r.put("cpu_us_per_request", requests > 0 ? (user + sys) / requests * 1e6 : null);
        // The JIT compiler threads' CPU in the window (those alive at its end; a compiler thread that ended in
        // it takes its share along): after a short warm-up C2 may still use a quarter of the server's CPU, and
        // how much varies run to run far more than a profiler's cost.
        long jitTicks = 0;
        for (Map.Entry<String, Long> e : to.compilerTicks.entrySet()) {
            jitTicks += Math.max(0, e.getValue() - from.compilerTicks.getOrDefault(e.getKey(), 0L));
        }
        r.put("jit_cpu_s", jitTicks / hz);
        r.put("process_cpu_s", (to.userTicks + to.sysTicks) / hz);
        r.put("process_user_s", to.userTicks / hz);
        r.put("process_sys_s", to.sysTicks / hz);
        r.put("java_threads", ids.length);
        r.put("java_threads_cpu_s", javaCpu / 1e9);
        r.put("java_threads_user_s", javaUser / 1e9);
        r.put("pool_threads", pool.getThreads());
        Map<String, Double> endpointCpu = new LinkedHashMap<>();
        endpointCpuNs.forEach((k, v) -> endpointCpu.put(k, v.sum() / 1e9));
        r.put("endpoint_cpu_s", endpointCpu);
        return Endpoints.MAPPER.writeValueAsString(r);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static String strOpt(String[] args, String name) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return null;
    }
}
