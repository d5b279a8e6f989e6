package dev.candor.itest;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * A real HTTP receiver for push= (the JDK's own server on 127.0.0.1, any port): it keeps every
 * request and answers as told: 200, 500, or never (until it is closed).
 */
final class Receiver implements AutoCloseable {
    enum Answer { OK, ERROR_500, NEVER }

    /** One request: its method, path, decoded query, content type and body. */
    record Request(String method, String path, Map<String, String> query, String contentType, byte[] body) {
    }

    private final HttpServer server;
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());

    private Receiver(Answer answer) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", exchange -> {
            Map<String, String> query = new LinkedHashMap<>();
            String raw = exchange.getRequestURI().getRawQuery();
            for (String kv : raw == null ? new String[0] : raw.split("&")) {
                String[] p = kv.split("=", 2);
                query.put(p[0], URLDecoder.decode(p.length > 1 ? p[1] : "", StandardCharsets.UTF_8));
            }
            requests.add(new Request(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), query,
                    exchange.getRequestHeaders().getFirst("Content-Type"), exchange.getRequestBody().readAllBytes()));
            if (answer == Answer.NEVER) {
                try {
                    Thread.sleep(120_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            exchange.sendResponseHeaders(answer == Answer.OK ? 200 : 500, -1);
            exchange.close();
        });
        server.start();
    }

    static Receiver start(Answer answer) throws IOException {
        return new Receiver(answer);
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** The requests so far, in the order they arrived. */
    List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
