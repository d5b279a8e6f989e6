#include "control/WriterThread.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>

#include "jvm/Jvm.h"

namespace candor {


void WriterThread::start(std::function<bool()> step, int periodMs) {
  step_ = std::move(step);
  periodMs_ = periodMs;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
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
  Jvm::markAgentThread();
  pthread_setname_np(pthread_self(), "candor writer");
  // The sampling signal is for Java threads; block it here (itimer may pick any thread).
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGPROF);
  sigaddset(&mask, SIGVTALRM);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
  JNIEnv* env = nullptr;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, const_cast<char*>("candor writer"), nullptr};
  bool attached = Jvm::vm()->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), &args) == JNI_OK;
  std::unique_lock<std::mutex> lock(mutex_);
  bool hurry = false;
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(hurry ? 1 : periodMs_));
    if (stopping_) break;
    lock.unlock();
    hurry = step_();
    lock.lock();
  }
  lock.unlock();
  if (attached) Jvm::vm()->DetachCurrentThread();
}

}  // namespace candor
