#include "engine/SettleRequests.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "engine/SignalHandler.h"

namespace candor {

void SettleRequests::start(int signal) {
  signal_ = signal;
  pid_ = getpid();
}

bool SettleRequests::send(int tid) const {
  if (signal_ <= 0 || SignalHandler::isReplaced(signal_)) return false;
  siginfo_t info = {};
  info.si_signo = signal_;
  info.si_code = SI_QUEUE;
  info.si_pid = pid_;
  info.si_uid = getuid();
  info.si_value.sival_int = kValue;
  return syscall(SYS_rt_tgsigqueueinfo, pid_, tid, signal_, &info) == 0;
}

void SettleRequests::sendAndWait(const std::vector<int>& tids) {
  uint64_t before = lvSc(handled_);
  uint64_t sent = 0;
  for (int tid : tids) sent += send(tid) ? 1 : 0;
  uint64_t deadline = monotonicNs() + 200'000'000;
  while (lvSc(handled_) - before < sent && monotonicNs() < deadline) {
    timespec pause = {0, 1'000'000};
    nanosleep(&pause, nullptr);
  }
}

}  // namespace candor
