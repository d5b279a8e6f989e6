#include "store/SampleAccounting.h"

#include <algorithm>

namespace candor {

uint32_t SampleAccounting::landInBucket(SampleSlot& slot, const ASGCT_CallFrame* frames, SampleKind kind,
                                        ThreadState state, int32_t* outcome) {
  int k = static_cast<int>(kind);
  uint64_t w = slot.weight;  // ticks the slot stands for; every count below is in ticks
  *outcome = slot.numFrames;
  if (isValueKind(kind)) return landValued(slot, frames, kind, state);
  ThreadTicks& t = perThread_[slot.tid];
  t.ticks += w;
  states_[k][static_cast<int>(state)] += w;
  int32_t code = slot.numFrames;
  uint32_t trace = DrainListener::kNoTrace;
  if (code == kRepeatLastCode) {
    repeated_ += w;
    auto it = lastWall_.find(slot.tid);
    if (it == lastWall_.end()) {
      code = kUnknownStateCode;  // nothing to repeat (the sampler only repeats after a sample)
    } else if (it->second.code > 0) {
      *outcome = it->second.code;
      return recordAgain(slot, it->second.trace, kind, state, t);
    } else {
      code = it->second.code;
    }
  } else if (code == kKernelDebtCode || (code > 0 && frames[0].lineno == kKernelDebtBci)) {
    trace = landDebtAtSite(slot, &frames, &code, kind, state, t);
    if (trace != DrainListener::kNoTrace) {
      *outcome = code;
      return trace;
    }
  } else if (code == kKernelWhereItRanCode) {
    trace = landWhereItRan(slot, &code, kind, state, t);
    if (trace != DrainListener::kNoTrace) {
      *outcome = code;
      return trace;
    }
  }
  if (code > 0) {
    // A stack cut at the depth limit has lost its outermost frames: say so in the profile.
    trace = store_.add(frames, code, slot.tid, kind, state, w, slot.truncated != 0, slot.labels);
    truncated_ += slot.truncated != 0 ? w : 0;
    deepest_ = std::max<uint64_t>(deepest_, static_cast<uint64_t>(code));
    recorded_[k] += w;
    t.recorded += w;
    if (frames[0].lineno == kKernelFrameBci) kernelSampled_ += w;
    if (frames[0].lineno == kKernelUnsampledBci) kernelUnsampled_ += w;
    if (slot.site != 0) noteKernelSite(slot, trace, frames, code);
    if (kind == SampleKind::kCpu) {
      WhereItRan& last = lastCpuStack_[slot.tid];
      if (last.trace != trace) last = WhereItRan{trace};
      last.labels = slot.labels;
    }
    timeline_.add(slot.timeNs, slot.tid, slot.labels, kind, state, trace, Bucket::kNoJavaFrame, w);
  }
  if (code <= 0) {
    Bucket bucket = bucketForCode(code);
    failures_[k][static_cast<int>(bucket)] += w;
    failuresBy_[FailureKey{slot.tid, kind, state, bucket, slot.labels}] += w;
    timeline_.add(slot.timeNs, slot.tid, slot.labels, kind, state, TimelineLog::kNoTrace, bucket, w);
  }
  if (kind == SampleKind::kWall) lastWall_[slot.tid] = LastResult{trace, code};
  *outcome = code;
  return trace;
}

void SampleAccounting::noteKernelSite(const SampleSlot& slot, uint32_t trace, const ASGCT_CallFrame* frames,
                                      int32_t code) {
  // The producer saw the thread in a system call (SampleSlot::site); the kernel's part of its stack,
  // the CPU-time timer's marker or the sampled kernel frames, sits on the call's C frame.
  int32_t kernel = 0;
  if (frames[0].lineno == kKernelUnsampledBci) {
    kernel = 1;
  } else {
    while (kernel < code && frames[kernel].lineno == kKernelFrameBci) kernel++;
  }
  if (kernel == 0 || kernel >= code || frames[kernel].lineno != kNativeFrameBci) return;
  lastKernelSite_[slot.tid] = KernelSite{trace, code, frames[0].lineno == kKernelUnsampledBci ? 0 : kernel, slot.labels};
}

uint32_t SampleAccounting::landWhereItRan(SampleSlot& slot, int32_t* code, SampleKind kind, ThreadState state,
                                          ThreadTicks& t) {
  auto last = lastCpuStack_.find(slot.tid);
  if (last == lastCpuStack_.end()) {
    *code = kCpuUnsampledCode;
    return DrainListener::kNoTrace;
  }
  WhereItRan& w = last->second;
  if (w.marked == DrainListener::kNoTrace) {
    // The Java part of the stack (its C frames too, when it has none), under the marker: the
    // kernel's and the C frames on top were that sample's, not this time's.
    std::vector<StoredFrame> stack = store_.frames(w.trace);
    auto isKernel = [](const StoredFrame& f) { return f.bci == kKernelFrameBci || f.bci == kKernelUnsampledBci; };
    size_t from = 0;
    while (from < stack.size() && isKernel(stack[from])) from++;
    size_t java = from;
    while (java < stack.size() && stack[java].bci == kNativeFrameBci) java++;
    if (java < stack.size()) from = java;
    w.marked = internUnderMarker(stack, from, &w.markedCode);
  }
  kernelUnsampled_ += slot.weight;
  *code = w.markedCode;
  slot.labels = w.labels;
  return recordAgain(slot, w.marked, kind, state, t);
}

uint32_t SampleAccounting::internUnderMarker(const std::vector<StoredFrame>& stack, size_t from, int32_t* code) {
  std::vector<StoredFrame> marked = {StoredFrame{nullptr, kKernelUnsampledBci}};
  marked.insert(marked.end(), stack.begin() + static_cast<ptrdiff_t>(std::min(from, stack.size())), stack.end());
  *code = static_cast<int32_t>(marked.size());
  return store_.intern(marked);
}

uint32_t SampleAccounting::recordAgain(const SampleSlot& slot, uint32_t trace, SampleKind kind, ThreadState state,
                                       ThreadTicks& t) {
  uint64_t w = slot.weight;
  store_.addAgain(trace, slot.tid, kind, state, w, slot.labels);
  recorded_[static_cast<int>(kind)] += w;
  t.recorded += w;
  timeline_.add(slot.timeNs, slot.tid, slot.labels, kind, state, trace, Bucket::kNoJavaFrame, w);
  return trace;
}

uint32_t SampleAccounting::landDebtAtSite(SampleSlot& slot, const ASGCT_CallFrame** frames, int32_t* code,
                                          SampleKind kind, ThreadState state, ThreadTicks& t) {
  auto site = lastKernelSite_.find(slot.tid);
  if (site != lastKernelSite_.end()) {
    KernelSite& s = site->second;
    if (s.kernelFrames > 0) {  // a sampled site: its kernel frames are not this time's, the marker is
      std::vector<StoredFrame> stack = store_.frames(s.trace);
      s.trace = internUnderMarker(stack, static_cast<size_t>(s.kernelFrames), &s.code);
      s.kernelFrames = 0;
    }
    kernelUnsampled_ += slot.weight;
    *code = s.code;
    slot.labels = s.labels;
    return recordAgain(slot, s.trace, kind, state, t);
  }
  if (*code == kKernelDebtCode) {
    *code = kCpuUnsampledCode;
    return DrainListener::kNoTrace;
  }
  scratch_.assign(*frames, *frames + *code);
  scratch_[0].lineno = kKernelUnsampledBci;
  *frames = scratch_.data();
  return DrainListener::kNoTrace;
}

// An allocation or lock sample: its stack counts its value (bytes, ns) in the store, the sample
// in samples here. It stays out of the per-thread tick counts, which are about CPU time.
uint32_t SampleAccounting::landValued(const SampleSlot& slot, const ASGCT_CallFrame* frames, SampleKind kind,
                                      ThreadState state) {
  int k = static_cast<int>(kind);
  int32_t code = slot.numFrames;
  states_[k][static_cast<int>(state)] += slot.weight;
  if (code > 0) {
    uint32_t trace = store_.add(frames, code, slot.tid, kind, state, slot.value, slot.truncated != 0, slot.labels);
    truncated_ += slot.truncated != 0 ? slot.weight : 0;
    recorded_[k] += slot.weight;
    recordedValue_[k] += slot.value;
    timeline_.add(slot.timeNs, slot.tid, slot.labels, kind, state, trace, Bucket::kNoJavaFrame, slot.value);
    return trace;
  }
  Bucket bucket = bucketForCode(code);
  failures_[k][static_cast<int>(bucket)] += slot.weight;
  failedValue_[k][static_cast<int>(bucket)] += slot.value;
  timeline_.add(slot.timeNs, slot.tid, slot.labels, kind, state, TimelineLog::kNoTrace, bucket, slot.value);
  return DrainListener::kNoTrace;
}

uint64_t SampleAccounting::drain(SampleRing& ring) {
  uint64_t n = 0;
  for (SampleSlot* slot; (slot = ring.peek()) != nullptr; n++) {
    auto kind = static_cast<SampleKind>(slot->kind < kKinds ? slot->kind : 0);
    auto state = static_cast<ThreadState>(slot->state < kStates ? slot->state : 0);
    int32_t outcome;
    uint32_t trace = landInBucket(*slot, ring.framesOf(slot), kind, state, &outcome);
    if (slot->latencyNs >= 0) {
      int k = static_cast<int>(kind);
      latency_[k].recordCorrected(static_cast<uint64_t>(slot->latencyNs), schedule_[k]);
    }
    if (slot->handlerNs != 0) handler_[static_cast<int>(kind)].record(slot->handlerNs);
    if (listener_ != nullptr) listener_->onDrained(*slot, trace, outcome);
    ring.release(slot);
  }
  return n;
}

void SampleAccounting::startInterval(uint64_t nowNs, const std::vector<int>& liveTids) {
  struct Kept {
    int tid;
    LastResult last;
    std::vector<StoredFrame> stack;  // leaf first; empty for a failure
  };
  std::vector<Kept> kept;
  for (int tid : liveTids) {  // a thread that ended repeats nothing: its entry goes
    auto it = lastWall_.find(tid);
    if (it == lastWall_.end()) continue;
    kept.push_back({tid, it->second, it->second.code > 0 ? store_.frames(it->second.trace) : std::vector<StoredFrame>{}});
  }
  std::array<uint64_t, kKinds> schedule = schedule_;
  bool timeline = timeline_.enabled();
  clear();
  store_.clear();
  schedule_ = schedule;
  if (timeline) timeline_.start(nowNs);
  for (Kept& k : kept) {
    if (k.last.code > 0) k.last.trace = store_.intern(k.stack);
    lastWall_[k.tid] = k.last;
  }
}

uint64_t SampleAccounting::recorded() const {
  uint64_t sum = 0;
  for (uint64_t r : recorded_) sum += r;
  return sum;
}

uint64_t SampleAccounting::failures(Bucket b) const {
  uint64_t sum = 0;
  for (const auto& perKind : failures_) sum += perKind[static_cast<int>(b)];
  return sum;
}

uint64_t SampleAccounting::failuresTotal() const {
  uint64_t sum = 0;
  for (const auto& perKind : failures_) {
    for (uint64_t f : perKind) sum += f;
  }
  return sum;
}

void SampleAccounting::clear() {
  recorded_.fill(0);
  for (auto& f : failures_) f.fill(0);
  for (auto& s : states_) s.fill(0);
  for (auto& h : latency_) h.clear();
  for (auto& h : handler_) h.clear();
  repeated_ = 0;
  truncated_ = 0;
  deepest_ = 0;
  kernelSampled_ = 0;
  kernelUnsampled_ = 0;
  recordedValue_.fill(0);
  for (auto& f : failedValue_) f.fill(0);
  schedule_.fill(0);
  perThread_.clear();
  failuresBy_.clear();
  lastWall_.clear();
  lastKernelSite_.clear();
  lastCpuStack_.clear();
  timeline_.clear();
}

}  // namespace candor
