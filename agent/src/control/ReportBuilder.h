// Turns the writer-side state of a session (trace store, accounting, threads) into the plain
// ProfileReport that the output writers consume. Resolves method names: writer side only.
#pragma once
#include <vector>

#include "control/Options.h"
#include "engine/ThreadRegistry.h"
#include "jvm/MethodResolver.h"
#include "output/ProfileReport.h"
#include "store/SampleAccounting.h"
#include "store/TraceStore.h"

namespace candor {

struct SessionTotals {
  uint64_t ticks;
  uint64_t dropped;
  uint64_t durationNs;
  uint64_t processCpuNs;
  int signal;
};

ProfileReport buildReport(const Options& options, const SessionTotals& totals, const TraceStore& store,
                          const SampleAccounting& accounting, const std::vector<ThreadRecord>& threads,
                          MethodResolver& resolver);

}  // namespace candor
