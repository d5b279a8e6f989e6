#include "engine/Engine.h"

#include <atomic>

#include "base/Ordering.h"

namespace candor {

namespace {
std::atomic<uint32_t> gLatencyCountdown{0};
constexpr uint32_t kLatencyEvery = 8;  // measuring costs a syscall: one tick in eight
}  // namespace

const char* kernelTimeName(KernelTime k) {
  switch (k) {
    case KernelTime::kSampled: return "sampled";
    case KernelTime::kEstimated: return "estimated";
    case KernelTime::kAtSyscallExit: return "at_syscall_exit";
  }
  return "?";
}

void Engine::readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) {
  if (jitterPct_ > 0) {
    rearm_signalSafe(info);
  } else if (addPlain(gLatencyCountdown, 1u) % kLatencyEvery == 0) {  // jittered ticks have no schedule
    batch->latencyNs = latency_signalSafe(info);
  }
}

}  // namespace candor
