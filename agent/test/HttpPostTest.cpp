// control/HttpPost: the push= URL grammar, query encoding, and a POST against a socket that
// answers (a tiny server thread) or refuses (a closed port): true only for a 2xx answer.
#include "control/HttpPost.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include <string>
#include <thread>

#include "control/OptionParser.h"

namespace candor {
namespace {

TEST(HttpPost, ParsesHttpUrls) {
  HttpUrl u;
  std::string why;
  ASSERT_TRUE(parseHttpUrl("http://pyroscope:4040", &u, &why)) << why;
  EXPECT_EQ(u.host, "pyroscope");
  EXPECT_EQ(u.port, "4040");
  EXPECT_EQ(u.path, "/");
  ASSERT_TRUE(parseHttpUrl("http://10.0.0.1/base/ingest", &u, &why)) << why;
  EXPECT_EQ(u.port, "80");
  EXPECT_EQ(u.path, "/base/ingest");
  ASSERT_TRUE(parseHttpUrl("http://[::1]:8080/", &u, &why)) << why;
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.port, "8080");
  EXPECT_FALSE(parseHttpUrl("https://pyroscope:4040", &u, &why));
  EXPECT_NE(why.find("https is not supported"), std::string::npos) << why;
  EXPECT_FALSE(parseHttpUrl("pyroscope:4040", &u, &why));
  EXPECT_FALSE(parseHttpUrl("http://host:port", &u, &why));
  EXPECT_FALSE(parseHttpUrl("http://host/x?y=1", &u, &why));
}

TEST(HttpPost, EncodesQueryValues) {
  EXPECT_EQ(urlEncode("app{env=prod,region=eu}"), "app%7Benv%3Dprod%2Cregion%3Deu%7D");
  EXPECT_EQ(urlEncode("a-b_c.d~e"), "a-b_c.d~e");
}

TEST(HttpPost, PushOptions) {
  ParseResult r = parseOptions("push=http://127.0.0.1:4040,service=checkout");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.pushUrl, "http://127.0.0.1:4040");
  EXPECT_EQ(r.options.service, "checkout");
  EXPECT_EQ(r.options.loopNs, 10'000'000'000);  // an interval every 10 s unless loop= says otherwise
  r = parseOptions("push=http://h:1,loop=2s");
  EXPECT_EQ(r.options.loopNs, 2'000'000'000);
  r = parseOptions("push=https://h:1");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("https is not supported"), std::string::npos) << r.error;
  r = parseOptions("push=http://h:1,service=a{b}");
  EXPECT_FALSE(r.ok);
}

TEST(HttpPost, PushUrlsChooseTheProtocolAndItsDefaultPath) {
  HttpUrl u;
  PushProtocol p;
  std::string why;
  ASSERT_TRUE(parsePushUrl("http://pyroscope:4040", &p, &u, &why)) << why;
  EXPECT_EQ(p, PushProtocol::kPyroscope);
  EXPECT_EQ(u.path, "/ingest");
  ASSERT_TRUE(parsePushUrl("http://h/base", &p, &u, &why)) << why;
  EXPECT_EQ(u.path, "/base/ingest");
  ASSERT_TRUE(parsePushUrl("otlp+http://collector:4318", &p, &u, &why)) << why;
  EXPECT_EQ(p, PushProtocol::kOtlp);
  EXPECT_EQ(u.host, "collector");
  EXPECT_EQ(u.port, "4318");
  EXPECT_EQ(u.path, "/v1development/profiles");
  ASSERT_TRUE(parsePushUrl("otlp+http://[::1]:9/otlp/v1/profiles", &p, &u, &why)) << why;
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.path, "/otlp/v1/profiles");  // a path given is the path used
  EXPECT_FALSE(parsePushUrl("otlp+https://c:4318", &p, &u, &why));
  EXPECT_NE(why.find("https is not supported"), std::string::npos) << why;
  EXPECT_FALSE(parsePushUrl("collector:4318", &p, &u, &why));
  EXPECT_NE(why.find("otlp+http://"), std::string::npos) << why;
  ParseResult r = parseOptions("push=otlp+http://127.0.0.1:4318,service=checkout");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.pushUrl, "otlp+http://127.0.0.1:4318");
  r = parseOptions("push=otlp+http://h:x");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("numeric port"), std::string::npos) << r.error;
}

// A server on a loopback port that reads one request and answers `status`.
int serve(const char* answer, std::thread* t, std::string* request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  listen(fd, 1);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *t = std::thread([fd, answer, request] {
    int c = accept(fd, nullptr, nullptr);
    char buf[4096];
    ssize_t n;
    while ((n = recv(c, buf, sizeof buf, 0)) > 0) {
      request->append(buf, static_cast<size_t>(n));
      if (request->find("BODY-END") != std::string::npos) break;
    }
    send(c, answer, strlen(answer), 0);
    close(c);
    close(fd);
  });
  return ntohs(a.sin_port);
}

TEST(HttpPost, TrueOnlyFor2xx) {
  for (auto [answer, ok] : {std::pair{"HTTP/1.1 200 OK\r\n\r\n", true}, std::pair{"HTTP/1.1 503 Busy\r\n\r\n", false}}) {
    std::thread t;
    std::string request, why;
    int port = serve(answer, &t, &request);
    HttpUrl u{"127.0.0.1", std::to_string(port), "/"};
    EXPECT_EQ(httpPost(u, "/ingest?name=x", "text/plain", "BODY-END", 5000, &why), ok) << why;
    t.join();
    EXPECT_EQ(request.rfind("POST /ingest?name=x HTTP/1.1\r\n", 0), 0u) << request;
    EXPECT_NE(request.find("Content-Length: 8\r\n"), std::string::npos) << request;
    if (!ok) {
      EXPECT_EQ(why, "HTTP 503");
    }
  }
}

TEST(HttpPost, RefusedConnectionIsOneReason) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);  // nothing listens there now
  std::string why;
  HttpUrl u{"127.0.0.1", std::to_string(ntohs(a.sin_port)), "/"};
  EXPECT_FALSE(httpPost(u, "/ingest", "text/plain", "x", 2000, &why));
  EXPECT_NE(why.find("Connection refused"), std::string::npos) << why;
}

}  // namespace
}  // namespace candor
