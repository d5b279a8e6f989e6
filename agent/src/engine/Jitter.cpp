#include <atomic>
#include <cstdint>

#include "base/Ordering.h"
#include "engine/Engine.h"

namespace candor {

namespace {
std::atomic<uint64_t> gJitterState{0x9e3779b97f4a7c15ULL};

uint64_t nextRandom_signalSafe() {
  uint64_t z = addPlain(gJitterState, 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

long long jitteredInterval_signalSafe(long long intervalNs, int jitterPct) {
  if (jitterPct <= 0) return intervalNs;
  long long span = intervalNs * jitterPct / 100;  // ± span
  long long offset = static_cast<long long>(nextRandom_signalSafe() % (2 * span + 1)) - span;
  return intervalNs + offset;
}

}  // namespace candor
