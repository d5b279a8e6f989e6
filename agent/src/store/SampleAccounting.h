// Drains the sample ring into the trace store and keeps the tick accounting:
//   ticks = recorded + dropped + Σ failures
// `ticks` and `dropped` are counted by the signal handler; everything else here, by the consumer.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <unordered_map>

#include "concurrent/SampleRing.h"
#include "store/TickBuckets.h"
#include "store/TraceStore.h"

namespace candor {

struct HandlerCounters {
  alignas(64) std::atomic<uint64_t> ticks{0};
  alignas(64) std::atomic<uint64_t> dropped{0};
};

struct ThreadTicks {
  uint64_t ticks = 0;     // ticks of this thread that reached the ring
  uint64_t recorded = 0;
};

// Sees every tick the consumer drains, in ring order (e.g. the JFR recorder, which keeps
// individual timestamped events while the store keeps only counts). Writer thread only.
class DrainListener {
 public:
  virtual ~DrainListener() = default;
  // traceId is the store's id for a recorded stack, or kNoTrace for a failure (slot.numFrames <= 0).
  virtual void onDrained(const SampleSlot& slot, uint32_t traceId) = 0;
  static constexpr uint32_t kNoTrace = UINT32_MAX;
};

class SampleAccounting {
 public:
  explicit SampleAccounting(TraceStore& store) : store_(store) {}
  void setListener(DrainListener* listener) { listener_ = listener; }

  // Consumer side: moves every published sample out of the ring; returns how many.
  uint64_t drain(SampleRing& ring);

  uint64_t recorded() const { return recorded_; }
  uint64_t failures(Bucket b) const { return failures_[static_cast<int>(b)]; }
  uint64_t failuresTotal() const;
  const std::unordered_map<int, ThreadTicks>& perThread() const { return perThread_; }
  void clear();

 private:
  TraceStore& store_;
  DrainListener* listener_ = nullptr;
  uint64_t recorded_ = 0;
  std::array<uint64_t, static_cast<int>(Bucket::kCount)> failures_{};
  std::unordered_map<int, ThreadTicks> perThread_;
};

}  // namespace candor
