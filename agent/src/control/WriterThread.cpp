#include "control/WriterThread.h"

#include <chrono>

#include "jvm/AgentThread.h"

namespace candor {

void WriterThread::start(std::function<bool()> step, int periodMs) {
  step_ = std::move(step);
  periodMs_ = periodMs;
  stopping_ = false;
  thread_ = AgentThread::start("candor writer", true, [this](JNIEnv*) { run(); });
}

void WriterThread::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void WriterThread::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  bool hurry = false;
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(hurry ? 1 : periodMs_));
    if (stopping_) break;
    lock.unlock();
    hurry = step_();
    lock.lock();
  }
}

}  // namespace candor
