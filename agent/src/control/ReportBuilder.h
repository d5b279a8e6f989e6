// Turns the writer-side state of a session (trace store, accounting, threads) into the plain
// ProfileReport that the output writers consume. Resolves method names: writer side only.
#pragma once
#include <array>
#include <vector>

#include "base/Options.h"
#include "engine/ThreadRegistry.h"
#include "engine/ThreadSampler.h"
#include "jvm/MethodResolver.h"
#include "output/FrameNamer.h"
#include "output/ProfileReport.h"
#include "store/LabelSets.h"
#include "store/SampleAccounting.h"
#include "store/TraceStore.h"

namespace candor {

struct SessionTotals {
  std::array<uint64_t, kKinds> ticks{};
  std::array<uint64_t, kKinds> dropped{};
  uint64_t merged = 0;
  uint64_t estimated = 0;  // kernel ticks estimated from CPU clocks, in any bucket
  uint64_t durationNs = 0;
  uint64_t processCpuNs = 0;
  int signal = 0;      // the CPU engine's, 0 without one
  std::string timers = "none";  // the CPU engine's timers: per-thread, per-cpu or process
  int wallSignal = 0;  // 0 without a wall sampler
  bool hasSampler = false;
  SamplerStats sampler;
  KernelReport kernel;  // mode and reason (the tick counts come from the accounting)
  DepthReport depth;  // limit, slot size and spill counts (truncated and deepest come from the accounting)
  std::array<uint64_t, kKinds> droppedValue{};  // bytes, ns of the value samples the full ring dropped
  MemoryReport memory;
};

ProfileReport buildReport(const Options& options, const SessionTotals& totals, const TraceStore& store,
                          const SampleAccounting& accounting, const std::vector<ThreadRecord>& threads,
                          FrameNamer& names, const LabelSets& labels);

}  // namespace candor
