// Filling a claimed ring slot with a stack of any depth, for every walker that writes into the
// ring (AGCT, walk=vm, walk=remote, the JVMTI sampler).
#pragma once
#include <algorithm>
#include <cstdint>

#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "concurrent/SampleRing.h"
#include "concurrent/ThreadLabels.h"
#include "store/SampleAccounting.h"
#include "walk/DeepStackHints.h"

namespace candor {

// Signal-handler path: the fields every producer sets before the frames, the thread's labels
// (Candor.label scopes) among them.
inline void fillHeader_signalSafe(SampleSlot* slot, int32_t tid, SampleKind kind, ThreadState state, uint64_t timeNs,
                                  int64_t latencyNs) {
  slot->tid = tid;
  slot->labels = ThreadLabels::process().of_signalSafe(tid);
  slot->kind = static_cast<uint8_t>(kind);
  slot->state = static_cast<uint8_t>(state);
  slot->site = 0;
  slot->timeNs = timeNs;
  slot->latencyNs = latencyNs;
}

// Signal-handler path: a slot for `weight` ticks that are already counted, or nullptr with them
// counted as dropped when the ring is full.
inline SampleSlot* claimOrDrop_signalSafe(SampleRing& ring, HandlerCounters& counters, SampleKind kind,
                                          uint32_t weight = 1) {
  SampleSlot* slot = ring.tryClaim_signalSafe();
  if (slot == nullptr) {
    addPlain(counters.dropped[static_cast<int>(kind)], uint64_t{weight});
  } else {
    slot->weight = weight;
    slot->value = 0;
  }
  return slot;
}

// Signal-handler path: counts `weight` ticks of `kind`, then claimOrDrop_signalSafe.
inline SampleSlot* claimForTick_signalSafe(SampleRing& ring, HandlerCounters& counters, SampleKind kind,
                                           uint32_t weight = 1) {
  addPlain(counters.ticks[static_cast<int>(kind)], uint64_t{weight});
  return claimOrDrop_signalSafe(ring, counters, kind, weight);
}

// Signal-handler path: `weight` ticks (already counted) that land in a named failure, or are
// counted dropped when the ring is full.
inline void recordCodeInRing_signalSafe(SampleRing& ring, HandlerCounters& counters, int32_t code, int32_t tid,
                                        SampleKind kind, ThreadState state, uint64_t timeNs, int64_t latencyNs,
                                        uint32_t weight = 1) {
  SampleSlot* slot = claimOrDrop_signalSafe(ring, counters, kind, weight);
  if (slot == nullptr) return;
  fillHeader_signalSafe(slot, tid, kind, state, timeNs, latencyNs);
  slot->numFrames = code;
  ring.publish_signalSafe(slot);
}

// Signal-handler path (and the writer's settlements): `weight` CPU ticks estimated from a CPU
// clock, not sampled, so without a stack: counted as ticks and as estimated, then recorded as the
// named failure `code` (cpu_unsampled, signal_lost), or dropped when the ring is full.
inline void recordEstimatedCode_signalSafe(SampleRing& ring, HandlerCounters& counters, int32_t code, int32_t tid,
                                           uint64_t timeNs, uint32_t weight) {
  addPlain(counters.ticks[static_cast<int>(SampleKind::kCpu)], uint64_t{weight});
  addPlain(counters.estimated, uint64_t{weight});
  recordCodeInRing_signalSafe(ring, counters, code, tid, SampleKind::kCpu, ThreadState::kRunning, timeNs, -1, weight);
}

// Signal-handler path: the index of the first frame of `frames` that is neither a kernel nor a
// native C frame: where the Java part of a stack begins.
inline int32_t firstJavaFrame(const ASGCT_CallFrame* frames, int32_t n) {
  int32_t i = 0;
  while (i < n && (frames[i].lineno == kKernelFrameBci || frames[i].lineno == kNativeFrameBci)) i++;
  return i;
}

// Signal-handler path: `weight` more ticks of the thread that filled `src` (a slot it has not
// published yet), whose stack is what `writeTop(frames, max)` writes over src's frames from index
// `from` on; when src holds a failure, the top frames alone (what is known of these ticks), or
// src's failure if there are none. Counts the ticks; dropped when the ring is full. A copy that
// does not fit a slot is cut and marked truncated. Its latency is not measured again (-1).
template <typename WriteTop>
inline void recordOnTopOf_signalSafe(SampleRing& ring, HandlerCounters& counters, const SampleSlot* src,
                                     int32_t from, uint32_t weight, WriteTop&& writeTop) {
  constexpr int32_t kTopRoom = 80;  // the most frames writeTop writes (kernel frames, a marker)
  auto kind = static_cast<SampleKind>(src->kind);
  SampleSlot* slot = claimForTick_signalSafe(ring, counters, kind, weight);
  if (slot == nullptr) return;
  fillHeader_signalSafe(slot, src->tid, kind, static_cast<ThreadState>(src->state), src->timeNs, -1);
  int32_t rest = src->numFrames > 0 ? src->numFrames - from : 0;
  ASGCT_CallFrame* dst = slot->frames;
  auto room = static_cast<int32_t>(ring.depth());
  if (rest + kTopRoom > room) {  // a deep stack: copy it whole into a spill buffer, as its walk did
    int buffer = ring.maxDepth() > ring.depth() ? ring.spill().tryClaim_signalSafe() : -1;
    if (buffer >= 0) {
      dst = ring.spill().buffer(buffer);
      room = static_cast<int32_t>(std::min(ring.maxDepth(), ring.spill().frames()));
      slot->spill = static_cast<int16_t>(buffer);
    }
  }
  int32_t n = writeTop(dst, room);
  if (src->numFrames <= 0) {
    slot->numFrames = n > 0 ? n : src->numFrames;
  } else {
    const ASGCT_CallFrame* frames = ring.framesOf(src);
    int32_t copy = std::min(rest, room - n);
    for (int32_t i = 0; i < copy; i++) dst[n + i] = frames[from + i];
    slot->truncated = src->truncated != 0 || copy < rest ? 1 : 0;
    slot->numFrames = n + copy;
  }
  ring.publish_signalSafe(slot);
}

// Signal-handler path: walks into spill buffer `buffer` and keeps the result in it; false (and
// the buffer given back) when the walk failed or fitted a slot after all.
template <typename Walk>
inline bool walkIntoSpill_signalSafe(SampleRing& ring, SampleSlot* slot, int buffer, Walk& walk, int32_t* n) {
  SpillPool& spill = ring.spill();
  auto max = static_cast<int32_t>(std::min(ring.maxDepth(), spill.frames()));
  int32_t m = walk(spill.buffer(buffer), max);
  if (m <= static_cast<int32_t>(ring.depth())) {
    spill.release_signalSafe(buffer);
    *n = m;
    return false;
  }
  slot->spill = static_cast<int16_t>(buffer);
  slot->truncated = m >= max ? 1 : 0;
  *n = m;
  return true;
}

// Signal-handler path. `walk(frames, max)` writes at most `max` frames and returns how many, or a
// failure code (<= 0). A stack that fills the slot is walked again, into a buffer borrowed from
// the ring's SpillPool, up to ring.maxDepth() frames: only deep stacks pay for the second walk,
// and a thread whose last stack was deep (`hints`) walks straight into a buffer, once.
// A stack cut at a limit (the slot when no buffer is free, or maxDepth) is marked truncated.
// Returns what the caller stores in slot->numFrames.
template <typename Walk>
inline int32_t fillFrames_signalSafe(SampleRing& ring, SampleSlot* slot, Walk&& walk, DeepStackHints* hints = nullptr,
                                     int32_t tid = 0) {
  auto inSlot = static_cast<int32_t>(ring.depth());
  bool canSpill = ring.maxDepth() > ring.depth();
  int32_t n;
  if (canSpill && hints != nullptr && hints->expectDeep_signalSafe(tid)) {
    int buffer = ring.spill().tryClaim_signalSafe();
    if (buffer >= 0) {
      bool deep = walkIntoSpill_signalSafe(ring, slot, buffer, walk, &n);
      if (deep || n <= 0) {
        if (n > 0) hints->note_signalSafe(tid, true);
        return n;
      }
      // It fits a slot now: walk it there, the ordinary way, and stop expecting depth.
    }
  }
  n = walk(slot->frames, inSlot);
  bool deep = n >= inSlot;
  if (hints != nullptr && n > 0) hints->note_signalSafe(tid, deep);
  if (!deep) return n;
  int buffer = canSpill ? ring.spill().tryClaim_signalSafe() : -1;
  int32_t m;
  if (buffer >= 0 && walkIntoSpill_signalSafe(ring, slot, buffer, walk, &m)) return m;
  // The second walk found a stack that fits a slot: the walks differ (walk=copy: the first went on
  // into the live stack, the second did not keep that). The slot gets the stack the second saw.
  if (buffer >= 0 && m > 0 && m < inSlot) return walk(slot->frames, inSlot);
  slot->truncated = 1;  // no buffer free, no room beyond the slot, or the second walk failed
  return n;
}

}  // namespace candor
