// push=URL: sends each loop= interval, in one of two protocols (PushProtocol, by the URL):
//   http://       the interval's recording (a .jfr file that loop= rotation finished) to a
//                 Pyroscope-compatible ingest endpoint: POST /ingest?name=SERVICE&from=&until=&
//                 format=jfr&sampleRate=&spyName=, the file as the "jfr" part of a
//                 multipart/form-data body, as Pyroscope's own Java agent sends it;
//   otlp+http://  the interval's profile as OTLP (output/OtlpWriter, encoded by the writer thread)
//                 to an OTLP/HTTP receiver: POST /v1development/profiles, Content-Type
//                 application/x-protobuf, the ExportProfilesServiceRequest as the body.
//
// A slow or dead backend never reaches the JVM: the writer thread only queues a file name or
// the encoded body (offer() never blocks; past kQueue intervals the oldest waiting one is dropped, counted). The
// pusher's own ordinary thread sends, with kAttempts tries per interval (back-off 1 s, 2 s) and a
// timeout per try; an interval that could not be sent is counted as failed, and at most one log
// line a minute says so. stop() gives the queue a deadline, then counts what is left as failed.
// Files the pusher recorded itself (no .jfr among the outputs) are deleted once handled.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "control/HttpPost.h"

namespace candor {

class Pusher {
 public:
  static constexpr size_t kQueue = 8;
  static constexpr int kAttempts = 3;
  static constexpr int kTimeoutMs = 10'000;
  static constexpr int kStopDeadlineMs = 2'000;  // what stopping (the JVM's exit) waits at most for the last intervals
  static constexpr int kHungMs = 1'000;          // a request in flight this long at the exit counts as failing

  struct Counts {
    uint64_t sent = 0, failed = 0, dropped = 0, bytes = 0;
  };

  ~Pusher() { stop(0); }
  // Starts the sending thread; false with the reason when the URL is unusable.
  bool start(const std::string& url, const std::string& service, double sampleRateHz, std::string* why);
  // Writer thread: a finished interval [from, until) (epoch seconds) in `file` (Pyroscope).
  void offer(const std::string& file, int64_t from, int64_t until, bool removeAfter);
  // Writer thread: a finished interval's OTLP request (otlp+http://).
  void offerBody(std::string body, int64_t from, int64_t until);
  PushProtocol protocol() const { return protocol_; }
  // Sends what is queued until `deadlineMs` has passed, then stops; the rest counts as failed.
  void stop(int deadlineMs);
  Counts counts() const;
  const std::string& url() const { return url_; }

 private:
  struct Interval {
    std::string file;  // Pyroscope: the .jfr; empty for OTLP, whose request is `body`
    std::string body;
    int64_t from, until;
    bool remove;
  };
  void enqueue(Interval interval);
  void run();
  bool send(const Interval& interval, int timeoutMs, std::string* why);
  void finish(const Interval& interval);

  std::string url_, service_;
  HttpUrl target_;
  PushProtocol protocol_ = PushProtocol::kPyroscope;
  double sampleRateHz_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Interval> queue_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point deadline_;
  // How the backend did lately, for the exit: a backend whose last try failed, or whose request
  // has hung for a while, gets no time at the exit (the JVM's run time stays its own).
  bool backendFailing_ = false;
  bool inFlight_ = false;
  std::chrono::steady_clock::time_point inFlightSince_;
  Counts counts_;
  int64_t lastLogSec_ = 0;
  uint64_t failedSinceLog_ = 0;
  std::thread thread_;
};

}  // namespace candor
