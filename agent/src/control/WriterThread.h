// The ordinary thread that keeps the ring drained: it wakes every few milliseconds, runs the
// profiler's drain step, and is attached to the JVM (as a daemon) so that step may call JVMTI.
#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace candor {

class WriterThread {
 public:
  // `step` runs on the writer thread every `periodMs` until stop(); when it returns true (the
  // ring is filling up) the next step comes after 1 ms instead.
  void start(std::function<bool()> step, int periodMs);
  void stop();

 private:
  void run();
  std::function<bool()> step_;
  int periodMs_ = 5;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace candor
