// A minimal HTTP/1.1 client for pushing profiles (push=URL): plain http:// only, one POST per
// connection (Connection: close), bounded by a timeout at every step. Ordinary thread only (the
// pusher's): it blocks, allocates and resolves names. Never raises SIGPIPE (MSG_NOSIGNAL).
#pragma once
#include <functional>
#include <string>

namespace candor {

struct HttpUrl {
  std::string host;  // a name, an IPv4 address, or an IPv6 address without its brackets
  std::string port;  // "80" when the URL has none
  std::string path;  // "/" when the URL has none; no query
};

// "http://host[:port][/path]"; false with the reason for anything else (https: not supported).
bool parseHttpUrl(const std::string& url, HttpUrl* out, std::string* why);

// What push= sends: each interval's .jfr to Pyroscope's /ingest (http://), or its profile as an
// OTLP ExportProfilesServiceRequest (otlp+http://).
enum class PushProtocol { kPyroscope, kOtlp };

// push=URL: "http://host[:port][/path]" (a base address gets /ingest, as Pyroscope's clients'
// serverAddress does) or "otlp+http://host[:port][/path]" (default path /v1development/profiles,
// the OTLP/HTTP exporter's); false with the reason for anything else.
bool parsePushUrl(const std::string& url, PushProtocol* protocol, HttpUrl* out, std::string* why);

// Percent-encodes a query value (RFC 3986 unreserved characters stay).
std::string urlEncode(const std::string& text);

// POSTs `body` to url.host:url.port at `target` (path and query). True when the server answered
// 2xx; else false with the reason ("connection refused", "HTTP 500", "timed out"). `cancelled`,
// asked every 100 ms while waiting on the network, ends the request early (a backend that hangs
// must not hold up the JVM's exit).
bool httpPost(const HttpUrl& url, const std::string& target, const std::string& contentType, const std::string& body,
              int timeoutMs, std::string* why, const std::function<bool()>& cancelled = nullptr);

}  // namespace candor
