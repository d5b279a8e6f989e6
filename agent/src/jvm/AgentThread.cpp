#include "jvm/AgentThread.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <string>

#include "base/Ordering.h"
#include "jvm/Jvm.h"

namespace candor {

namespace {
// Bit n set: signal n is one of candor's sampling signals. Written by the control thread at
// start, read by threads as they start (which the std::thread constructor orders after it).
std::atomic<uint64_t> gSamplingSignals{(uint64_t{1} << SIGPROF) | (uint64_t{1} << SIGVTALRM)};

void blockSamplingSignals() {
  sigset_t mask;
  AgentThread::samplingSignals(&mask);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
}
}  // namespace

void AgentThread::addSamplingSignal(int sig) {
  if (sig > 0 && sig < 64) orOrdered(gSamplingSignals, uint64_t{1} << sig);
}

void AgentThread::samplingSignals(sigset_t* out) {
  sigemptyset(out);
  uint64_t bits = lv(gSamplingSignals);
  for (int sig = 1; sig < 64; sig++) {
    if (bits & (uint64_t{1} << sig)) sigaddset(out, sig);
  }
}

std::thread AgentThread::start(const char* name, bool attachToJvm, std::function<void(JNIEnv*)> body) {
  std::string threadName = name;
  return std::thread([threadName, attachToJvm, body = std::move(body)] {
    Jvm::markAgentThread();
    pthread_setname_np(pthread_self(), threadName.substr(0, 15).c_str());  // the kernel keeps 15 characters
    blockSamplingSignals();
    JNIEnv* env = nullptr;
    if (attachToJvm && Jvm::vm() != nullptr) {
      JavaVMAttachArgs args = {JNI_VERSION_1_6, const_cast<char*>(threadName.c_str()), nullptr};
      if (Jvm::vm()->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), &args) != JNI_OK) env = nullptr;
    }
    body(env);
    if (env != nullptr) Jvm::vm()->DetachCurrentThread();
  });
}

}  // namespace candor
