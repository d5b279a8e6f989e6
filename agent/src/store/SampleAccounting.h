// Drains the sample ring into the trace store and keeps the tick accounting:
//   ticks = recorded + dropped + Σ failures
// `ticks` and `dropped` are counted where a tick is taken (signal handler or sampler thread);
// everything else here, by the consumer. Counts are kept per sample kind as well.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "base/Vocabulary.h"
#include "concurrent/SampleRing.h"
#include "store/LatencyHistogram.h"
#include "store/TimelineLog.h"
#include "store/TraceStore.h"

namespace candor {

struct ThreadTicks {
  uint64_t ticks = 0;     // ticks of this thread that reached the ring
  uint64_t recorded = 0;
};

// Sees every tick the consumer drains, in ring order (e.g. the JFR recorder, which keeps
// individual timestamped events while the store keeps only counts). Writer thread only.
class DrainListener {
 public:
  virtual ~DrainListener() = default;
  // traceId is the store's id for a recorded stack, or kNoTrace for a failure; `outcome` is > 0
  // for a stack, else the failure's code. Use these, not slot.frames and slot.numFrames: a
  // repeated wall sample (numFrames == kRepeatLastCode) carries neither, and they say what it
  // repeated as the accounting resolved it.
  virtual void onDrained(const SampleSlot& slot, uint32_t traceId, int32_t outcome) = 0;
  static constexpr uint32_t kNoTrace = UINT32_MAX;
};

class SampleAccounting {
 public:
  explicit SampleAccounting(TraceStore& store) : store_(store) {}
  void setListener(DrainListener* listener) { listener_ = listener; }
  // Samples of `kind` follow a fixed schedule of this period: their latencies get the
  // coordinated-omission correction (see LatencyHistogram::recordCorrected).
  void setSchedule(SampleKind kind, uint64_t intervalNs) { schedule_[static_cast<int>(kind)] = intervalNs; }

  // Consumer side: moves every published sample out of the ring; returns how many.
  uint64_t drain(SampleRing& ring);

  uint64_t recorded() const;
  uint64_t recorded(SampleKind k) const { return recorded_[static_cast<int>(k)]; }
  uint64_t failures(Bucket b) const;
  uint64_t failures(SampleKind k, Bucket b) const { return failures_[static_cast<int>(k)][static_cast<int>(b)]; }
  uint64_t failuresTotal() const;
  uint64_t repeated() const { return repeated_; }
  uint64_t truncated() const { return truncated_; }  // recorded stacks cut at the depth limit
  uint64_t deepest() const { return deepest_; }      // frames of the deepest recorded stack
  // Recorded ticks whose innermost frame is in the kernel (sampled), or the marker of kernel
  // time that perf did not let candor sample (estimated from the thread's CPU clock).
  uint64_t kernelSampled() const { return kernelSampled_; }
  uint64_t kernelUnsampled() const { return kernelUnsampled_; }
  // Value kinds (isValueKind: allocations, locks): what recorded samples stand for (bytes, ns),
  // and failed ones by bucket. The store counts their stacks in that value; every other count
  // here is in samples.
  uint64_t recordedValue(SampleKind k) const { return recordedValue_[static_cast<int>(k)]; }
  uint64_t failedValue(SampleKind k, Bucket b) const { return failedValue_[static_cast<int>(k)][static_cast<int>(b)]; }
  uint64_t samplesInState(SampleKind k, ThreadState s) const { return states_[static_cast<int>(k)][static_cast<int>(s)]; }
  const LatencyHistogram& latency(SampleKind k) const { return latency_[static_cast<int>(k)]; }
  // Time candor's handler spent per tick, for ticks whose producer measured it.
  const LatencyHistogram& handlerTime(SampleKind k) const { return handler_[static_cast<int>(k)]; }
  const std::unordered_map<int, ThreadTicks>& perThread() const { return perThread_; }
  // Failed ticks by where they happened, for outputs split by thread or state.
  struct FailureKey {
    int32_t tid;
    SampleKind kind;
    ThreadState state;
    Bucket bucket;
    uint32_t labels = 0;  // the thread's label set (store/LabelSets id)
    bool operator==(const FailureKey& o) const {
      return tid == o.tid && kind == o.kind && state == o.state && bucket == o.bucket && labels == o.labels;
    }
  };
  struct FailureKeyHash {
    size_t operator()(const FailureKey& k) const {
      return ((uint64_t(uint32_t(k.tid)) << 24) ^ (uint32_t(k.kind) << 16) ^ (uint32_t(k.state) << 8) ^
              uint32_t(k.bucket)) + uint64_t(k.labels) * 0x9E3779B97F4A7C15ull;
    }
  };
  const std::unordered_map<FailureKey, uint64_t, FailureKeyHash>& failuresByThread() const { return failuresBy_; }
  // When the samples happened (for the page's timeline); off until started.
  TimelineLog& timeline() { return timeline_; }
  const TimelineLog& timeline() const { return timeline_; }
  void clear();
  // loop=: a new interval. Everything counted so far goes, and the store is emptied; the sampling
  // schedule stays and the timeline (if on) restarts at `nowNs`. The last wall outcome of each
  // thread in `liveTids` stays too, its stack copied into the emptied store uncounted: the wall
  // sampler repeats an idle thread's last sample without signalling it, maybe for many intervals,
  // and each repeat must land on the stack it repeats (without this, on unknown_state).
  void startInterval(uint64_t nowNs, const std::vector<int>& liveTids);

 private:
  struct LastResult {
    uint32_t trace;
    int32_t code;  // > 0: a stack (trace is valid); <= 0: the failure code
  };
  // `frames`: the slot's stack, in the slot or in its spill buffer. Returns the trace, or kNoTrace
  // with the failure's code in *outcome (> 0 with a trace).
  // Settled ticks placed on an earlier stack take that stack's label set into the slot (see
  // KernelSite), so the listener sees the labels the store counted.
  uint32_t landInBucket(SampleSlot& slot, const ASGCT_CallFrame* frames, SampleKind kind, ThreadState state,
                        int32_t* outcome);
  uint32_t landValued(const SampleSlot& slot, const ASGCT_CallFrame* frames, SampleKind kind, ThreadState state);
  // A kernel debt (kKernelDebtBci on top, or kKernelDebtCode): on the thread's last system-call
  // site, when it has one (returns its trace), else kNoTrace with `frames` renamed into scratch_
  // (*frames then points there) or, stackless, *code made cpu_unsampled.
  uint32_t landDebtAtSite(SampleSlot& slot, const ASGCT_CallFrame** frames, int32_t* code, SampleKind kind,
                          ThreadState state, ThreadTicks& t);
  // The trace of [kernel_unsampled] over `stack` from its frame `from` on (leaf first); *code its frames.
  uint32_t internUnderMarker(const std::vector<StoredFrame>& stack, size_t from, int32_t* code);
  // The slot's ticks, counted, on a trace already stored; returns it.
  uint32_t recordAgain(const SampleSlot& slot, uint32_t trace, SampleKind kind, ThreadState state, ThreadTicks& t);
  // kKernelWhereItRanCode: on the thread's last recorded stack (returns the trace), else kNoTrace.
  uint32_t landWhereItRan(SampleSlot& slot, int32_t* code, SampleKind kind, ThreadState state, ThreadTicks& t);
  // Remembers a recorded stack as its thread's last system-call site if it is one.
  void noteKernelSite(const SampleSlot& slot, uint32_t trace, const ASGCT_CallFrame* frames, int32_t code);

  TraceStore& store_;
  DrainListener* listener_ = nullptr;
  std::array<uint64_t, kKinds> recorded_{};
  std::array<std::array<uint64_t, kBuckets>, kKinds> failures_{};
  std::array<std::array<uint64_t, kStates>, kKinds> states_{};
  std::array<LatencyHistogram, kKinds> latency_{};
  std::array<LatencyHistogram, kKinds> handler_{};
  std::array<uint64_t, kKinds> schedule_{};
  uint64_t repeated_ = 0;
  uint64_t truncated_ = 0;
  uint64_t deepest_ = 0;
  uint64_t kernelSampled_ = 0;
  uint64_t kernelUnsampled_ = 0;
  std::array<uint64_t, kKinds> recordedValue_{};
  std::array<std::array<uint64_t, kBuckets>, kKinds> failedValue_{};
  std::unordered_map<int, ThreadTicks> perThread_;
  std::unordered_map<FailureKey, uint64_t, FailureKeyHash> failuresBy_;
  std::unordered_map<int, LastResult> lastWall_;  // per tid: the last wall sample's outcome
  // Where a thread was last found in a system call: a trace with [kernel_unsampled] on top of the
  // call's C frame (kernelFrames 0: the CPU-time timer's placement, or one derived from a sample),
  // or a sampled one with `kernelFrames` kernel frames on top of it. The ticks that land on a
  // site or where a thread ran take that sample's label set, not the one of their settlement: it
  // comes later, maybe after the thread's scopes closed (LabelsTest: 9-12 settled ticks of a
  // pool thread's last request fell under no label as the thread ended).
  struct KernelSite {
    uint32_t trace;
    int32_t code;
    int32_t kernelFrames;
    uint32_t labels;
  };
  // Per tid: its last system-call site, where its kernel debts land (kKernelDebtBci, kKernelDebtCode).
  std::unordered_map<int, KernelSite> lastKernelSite_;
  // Per tid: its last recorded cpu stack, where the kernel time it owes where it ran lands
  // (kKernelWhereItRanCode), and that stack with [kernel_unsampled] over its Java part, once needed.
  struct WhereItRan {
    uint32_t trace = DrainListener::kNoTrace;
    uint32_t marked = DrainListener::kNoTrace;
    int32_t markedCode = 0;
    uint32_t labels = 0;
  };
  std::unordered_map<int, WhereItRan> lastCpuStack_;
  std::vector<ASGCT_CallFrame> scratch_;  // a debt's stack with its marker renamed, when it has no site
  TimelineLog timeline_;
};

}  // namespace candor
