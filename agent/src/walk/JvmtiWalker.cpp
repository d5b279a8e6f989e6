#include "walk/JvmtiWalker.h"

#include <time.h>

#include <algorithm>

#include "base/Vocabulary.h"
#include "walk/SlotFill.h"

namespace candor {

void JvmtiWalker::record(int tid, SampleKind kind, ThreadState state, uint64_t intendedNs,
                         const jvmtiFrameInfo* frames, int count, jvmtiError error, bool cut) {
  SampleSlot* slot = claimForTick_signalSafe(ring_, counters_, kind);
  if (slot == nullptr) return;
  uint64_t now = monotonicNs();
  fillHeader_signalSafe(slot, tid, kind, state, now, static_cast<int64_t>(now - intendedNs));
  if (error == JVMTI_ERROR_THREAD_NOT_ALIVE) {
    slot->numFrames = -8;  // thread_exit
  } else if (error != JVMTI_ERROR_NONE) {
    slot->numFrames = -7;  // unknown_state
  } else {
    slot->numFrames = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* out, int32_t max) {
      int n = std::min<int>(count, max);
      for (int i = 0; i < n; i++) {
        out[i].method_id = frames[i].method;
        // JVMTI reports -1 for a native method's location; AGCT's convention is -3.
        out[i].lineno = frames[i].location < 0 ? kNativeMethodBci : static_cast<jint>(frames[i].location);
      }
      return n;  // 0 frames: no_java_frame
    });
    if (cut) slot->truncated = 1;
  }
  ring_.publish_signalSafe(slot);
}

void JvmtiWalker::recordValued(int tid, SampleKind kind, ThreadState state, const jvmtiFrameInfo* frames, int count,
                               jvmtiError error, uint32_t classId, uint64_t value, bool cut) {
  SampleSlot* slot = claimForTick_signalSafe(ring_, counters_, kind);
  if (slot == nullptr) {  // counted as a dropped sample; the bytes or ns it stood for are counted too
    addPlain(counters_.droppedValue[static_cast<int>(kind)], value);
    return;
  }
  fillHeader_signalSafe(slot, tid, kind, state, monotonicNs(), -1);
  slot->value = value;
  // The sample is the current thread's own. Refused as not alive, it is past its ThreadEnd, where no
  // Java frame is left: a thread's exit waits for the monitor of its own Thread object (HotSpot's
  // ensure_join, while a joiner holds it), and JDK 21+ refuse GetStackTrace there, where JDK 17 gives
  // 0 frames. Either way the wait keeps its lock's class on an empty stack, as JFR records it (a
  // churn of joined threads put 99.98% of its lock samples in thread_exit on JDK 25, none on 17).
  if (error == JVMTI_ERROR_THREAD_NOT_ALIVE) count = 0;
  if (error == JVMTI_ERROR_WRONG_PHASE) {
    slot->numFrames = -8;  // thread_exit: the VM is past its live phase
  } else if (error != JVMTI_ERROR_NONE && error != JVMTI_ERROR_THREAD_NOT_ALIVE) {
    slot->numFrames = -7;  // unknown_state
  } else {
    // The allocated or locked class is the innermost frame, above the method that allocated
    // or waited.
    slot->numFrames = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* out, int32_t max) {
      if (max < 1) return 0;
      out[0].lineno = kObjectClassBci;
      out[0].method_id = reinterpret_cast<jmethodID>(static_cast<uintptr_t>(classId));
      int n = std::min<int>(count, max - 1);
      for (int i = 0; i < n; i++) {
        out[i + 1].method_id = frames[i].method;
        out[i + 1].lineno = frames[i].location < 0 ? kNativeMethodBci : static_cast<jint>(frames[i].location);
      }
      return n + 1;
    });
    if (cut) slot->truncated = 1;
  }
  ring_.publish_signalSafe(slot);
}

void JvmtiWalker::recordRepeat(int tid, ThreadState state, uint64_t intendedNs) {
  SampleSlot* slot = claimForTick_signalSafe(ring_, counters_, SampleKind::kWall);
  if (slot == nullptr) return;
  uint64_t now = monotonicNs();
  fillHeader_signalSafe(slot, tid, SampleKind::kWall, state, now, static_cast<int64_t>(now - intendedNs));
  slot->numFrames = kRepeatLastCode;
  ring_.publish_signalSafe(slot);
}

void JvmtiWalker::recordSignalLost(int tid, ThreadState state, uint64_t intendedNs, uint32_t weight) {
  addPlain(counters_.ticks[static_cast<int>(SampleKind::kWall)], uint64_t{weight});
  uint64_t now = monotonicNs();
  recordCodeInRing_signalSafe(ring_, counters_, kSignalLostCode, tid, SampleKind::kWall, state, now,
                              static_cast<int64_t>(now - intendedNs), weight);
}

}  // namespace candor
