#include "control/HttpPost.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/Version.h"

namespace candor {

namespace {

using Clock = std::chrono::steady_clock;

int remainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// The request's cancellation check, for the waits below (one request per thread at a time).
thread_local const std::function<bool()>* tCancelled = nullptr;

// Waits until fd is ready for `events`, the deadline passes, or the request is cancelled.
bool waitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    int left = remainingMs(deadline);
    if (left == 0 || (tCancelled != nullptr && *tCancelled && (*tCancelled)())) return false;
    pollfd p{fd, events, 0};
    // 20 ms slices: a cancelled request (the JVM exiting) ends within 20 ms; a wait on a slow
    // backend costs the pusher thread 50 wake-ups a second, nothing to the JVM's threads.
    int rc = poll(&p, 1, std::min(left, 20));
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) return false;
  }
}

int connectTo(const HttpUrl& url, Clock::time_point deadline, std::string* why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int rc = getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &list);
  if (rc != 0) {
    *why = "cannot resolve " + url.host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = list; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    int err = errno;
    if (err == EINPROGRESS && waitFor(fd, POLLOUT, deadline)) {
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) break;
    }
    *why = err == EINPROGRESS ? "timed out connecting to " + url.host + ":" + url.port
                              : "cannot connect to " + url.host + ":" + url.port + ": " + strerror(err);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(list);
  return fd;
}

bool sendAll(int fd, const char* data, size_t size, Clock::time_point deadline, std::string* why) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!waitFor(fd, POLLOUT, deadline)) return *why = "timed out sending", false;
    } else {
      return *why = std::string("send: ") + strerror(errno), false;
    }
  }
  return true;
}

}  // namespace

bool httpPost(const HttpUrl& url, const std::string& target, const std::string& contentType, const std::string& body,
              int timeoutMs, std::string* why, const std::function<bool()>& cancelled) {
  Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  struct Scope {  // the waits below see this request's cancellation check
    explicit Scope(const std::function<bool()>* c) { tCancelled = c; }
    ~Scope() { tCancelled = nullptr; }
  } scope(&cancelled);
  int fd = connectTo(url, deadline, why);
  if (fd < 0) return false;
  std::string hostHeader = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  std::string head = "POST " + target + " HTTP/1.1\r\nHost: " + hostHeader + ":" + url.port +
                     "\r\nUser-Agent: candor/" + version() + "\r\nContent-Type: " + contentType +
                     "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  bool ok = sendAll(fd, head.data(), head.size(), deadline, why) && sendAll(fd, body.data(), body.size(), deadline, why);
  std::string answer;
  while (ok && answer.find("\r\n") == std::string::npos) {  // the status line is all we need
    if (!waitFor(fd, POLLIN, deadline)) {
      *why = "timed out waiting for the answer";
      ok = false;
      break;
    }
    char buf[512];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *why = n == 0 ? "the server closed the connection without an answer" : std::string("recv: ") + strerror(errno);
      ok = false;
      break;
    }
    answer.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (!ok) return false;
  // "HTTP/1.1 200 OK"
  size_t sp = answer.find(' ');
  int status = sp != std::string::npos ? atoi(answer.c_str() + sp + 1) : 0;
  if (status < 200 || status > 299) {
    *why = "HTTP " + (status > 0 ? std::to_string(status) : std::string("answer not understood"));
    return false;
  }
  return true;
}

}  // namespace candor
