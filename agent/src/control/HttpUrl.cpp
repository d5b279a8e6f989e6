#include "control/HttpPost.h"

#include <cctype>

// The URL grammar and query encoding of push=, apart from the client so that the option parser
// (and its fuzzer) need nothing else.
namespace candor {

bool parseHttpUrl(const std::string& url, HttpUrl* out, std::string* why) {
  const std::string scheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    *why = "https is not supported; push to an http:// endpoint (a local collector or proxy)";
    return false;
  }
  if (url.rfind(scheme, 0) != 0) {
    *why = "an http:// URL such as http://pyroscope:4040";
    return false;
  }
  std::string rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  out->path = slash == std::string::npos ? "/" : rest.substr(slash);
  if (out->path.find_first_of("?#") != std::string::npos) {
    *why = "a URL without a query or fragment";
    return false;
  }
  out->port = "80";
  if (!authority.empty() && authority[0] == '[') {  // [IPv6]:port
    size_t close = authority.find(']');
    if (close == std::string::npos) return *why = "a URL with a closing ']' after an IPv6 address", false;
    out->host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return *why = "':port' after the IPv6 address", false;
      out->port = authority.substr(close + 2);
    }
  } else {
    size_t colon = authority.rfind(':');
    out->host = authority.substr(0, colon);
    if (colon != std::string::npos) out->port = authority.substr(colon + 1);
  }
  if (out->host.empty() || out->port.empty() || out->port.find_first_not_of("0123456789") != std::string::npos) {
    *why = "an http:// URL with a host and an optional numeric port";
    return false;
  }
  return true;
}

bool parsePushUrl(const std::string& url, PushProtocol* protocol, HttpUrl* out, std::string* why) {
  const std::string otlp = "otlp+";
  bool isOtlp = url.rfind(otlp, 0) == 0;
  if (!parseHttpUrl(isOtlp ? url.substr(otlp.size()) : url, out, why)) {
    if (!isOtlp && url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {  // another scheme, or none
      *why = "an http:// or otlp+http:// URL such as http://pyroscope:4040 or otlp+http://collector:4318";
    }
    return false;
  }
  *protocol = isOtlp ? PushProtocol::kOtlp : PushProtocol::kPyroscope;
  const std::string tail = isOtlp ? "/v1development/profiles" : "/ingest";
  if (isOtlp) {
    if (out->path == "/") out->path = tail;
  } else if (out->path.size() < tail.size() ||
             out->path.compare(out->path.size() - tail.size(), tail.size(), tail) != 0) {
    out->path = (out->path == "/" ? "" : out->path) + tail;
  }
  return true;
}

std::string urlEncode(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace candor
