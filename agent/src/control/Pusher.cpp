#include "control/Pusher.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include "base/Log.h"
#include "jvm/AgentThread.h"

namespace candor {

namespace {

bool readFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return static_cast<bool>(in) || in.eof();
}

int64_t nowSec() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

bool Pusher::start(const std::string& url, const std::string& service, double sampleRateHz, std::string* why) {
  if (!parsePushUrl(url, &protocol_, &target_, why)) return false;
  url_ = url;
  service_ = service;
  sampleRateHz_ = sampleRateHz;
  thread_ = AgentThread::start("candor push", false, [this](JNIEnv*) { run(); });
  return true;
}

void Pusher::offer(const std::string& file, int64_t from, int64_t until, bool removeAfter) {
  enqueue({file, std::string(), from, until, removeAfter});
}

void Pusher::offerBody(std::string body, int64_t from, int64_t until) {
  enqueue({std::string(), std::move(body), from, until, false});
}

void Pusher::enqueue(Interval interval) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!thread_.joinable() || stopping_) {
    finish(interval);
    return;
  }
  if (queue_.size() >= kQueue) {  // the backend is behind: the oldest waiting interval goes
    counts_.dropped++;
    failedSinceLog_++;
    finish(queue_.front());
    queue_.pop_front();
  }
  queue_.push_back(std::move(interval));
  wake_.notify_one();
}

void Pusher::stop(int deadlineMs) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_.joinable()) return;
    stopping_ = true;
    auto now = std::chrono::steady_clock::now();
    // A failing backend gets nothing: what it would do with the time is fail again, and the JVM's
    // exit would wait for it. A healthy one gets the deadline for the last intervals.
    bool hung = inFlight_ && now - inFlightSince_ >= std::chrono::milliseconds(kHungMs);
    deadline_ = now + std::chrono::milliseconds(backendFailing_ || hung ? 0 : deadlineMs);
    wake_.notify_one();
  }
  thread_.join();
  if (failedSinceLog_ > 0) {
    logError("push to %s: %llu intervals could not be sent (%llu sent)", url_.c_str(),
             static_cast<unsigned long long>(counts_.failed + counts_.dropped),
             static_cast<unsigned long long>(counts_.sent));
  }
}

Pusher::Counts Pusher::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

void Pusher::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    Interval interval = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    std::string why;
    bool sent = false;
    for (int attempt = 0; attempt < kAttempts && !sent; attempt++) {
      if (attempt > 0) {  // back off 1 s, 2 s; when stopping, no later than the deadline
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1 << (attempt - 1));
        std::unique_lock<std::mutex> wait(mutex_);
        for (;;) {
          auto limit = stopping_ ? std::min(until, deadline_) : until;
          if (std::chrono::steady_clock::now() >= limit) break;
          wake_.wait_until(wait, limit);
        }
        if (stopping_ && std::chrono::steady_clock::now() >= deadline_) break;
      }
      int timeoutMs = kTimeoutMs;
      {
        std::lock_guard<std::mutex> check(mutex_);
        if (stopping_ && std::chrono::steady_clock::now() >= deadline_) break;  // no time left: not even one try
        if (stopping_) {  // the JVM is exiting: the last tries share what is left of the deadline
          auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
          timeoutMs = static_cast<int>(std::clamp<int64_t>(left.count(), 100, kTimeoutMs));
        }
      }
      {
        std::lock_guard<std::mutex> mark(mutex_);
        inFlight_ = true;
        inFlightSince_ = std::chrono::steady_clock::now();
      }
      sent = send(interval, timeoutMs, &why);
      std::lock_guard<std::mutex> mark(mutex_);
      inFlight_ = false;
      backendFailing_ = !sent;
    }
    finish(interval);
    lock.lock();
    if (sent) {
      counts_.sent++;
    } else {
      counts_.failed++;
      failedSinceLog_++;
      int64_t now = nowSec();
      if (now - lastLogSec_ >= 60) {  // one line a minute at most
        lastLogSec_ = now;
        logError("push to %s failed: %s; %llu intervals not sent so far", url_.c_str(), why.c_str(),
                 static_cast<unsigned long long>(counts_.failed + counts_.dropped));
        failedSinceLog_ = 0;
      }
    }
    if (stopping_ && std::chrono::steady_clock::now() >= deadline_) {  // the rest is not sent
      for (const Interval& left : queue_) {
        counts_.failed++;
        failedSinceLog_++;
        finish(left);
      }
      queue_.clear();
      return;
    }
  }
}

bool Pusher::send(const Interval& interval, int timeoutMs, std::string* why) {
  auto pastDeadline = [this] {  // the JVM is exiting and the last intervals' time is up
    std::lock_guard<std::mutex> lock(mutex_);
    return stopping_ && std::chrono::steady_clock::now() >= deadline_;
  };
  if (protocol_ == PushProtocol::kOtlp) {
    if (!httpPost(target_, target_.path, "application/x-protobuf", interval.body, timeoutMs, why, pastDeadline)) {
      return false;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    counts_.bytes += interval.body.size();
    return true;
  }
  std::string jfr;
  if (!readFile(interval.file, &jfr)) {
    *why = "cannot read " + interval.file;
    return false;
  }
  std::mt19937_64 random(std::random_device{}());
  std::string boundary = "candor-" + std::to_string(random());
  std::string body = "--" + boundary +
                     "\r\nContent-Disposition: form-data; name=\"jfr\"; filename=\"jfr\"\r\n"
                     "Content-Type: application/octet-stream\r\n\r\n" +
                     jfr + "\r\n--" + boundary + "--\r\n";
  // spyName: Pyroscope's name for its Java agent's JFR, which is what this body is
  std::string target = target_.path + "?name=" + urlEncode(service_) + "&from=" + std::to_string(interval.from) +
                       "&until=" + std::to_string(std::max(interval.until, interval.from + 1)) +
                       "&format=jfr&sampleRate=" + std::to_string(static_cast<long long>(sampleRateHz_ + 0.5)) +
                       "&spyName=javaspy&units=samples&aggregationType=sum";
  if (!httpPost(target_, target, "multipart/form-data; boundary=" + boundary, body, timeoutMs, why, pastDeadline)) {
    return false;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.bytes += jfr.size();
  return true;
}

void Pusher::finish(const Interval& interval) {
  if (interval.remove) unlink(interval.file.c_str());
}

}  // namespace candor
