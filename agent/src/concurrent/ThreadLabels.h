// The label set each thread is in, by OS thread id: written by the thread itself when it enters
// or leaves a Candor.label scope (control/JavaApi, through store/LabelSets), read by whoever takes
// a sample of that thread (the signal handler on the thread, the remote and JVMTI samplers on
// theirs). One 32-bit id per possible tid (Linux's pid_max is at most 2^22): 16 MB of
// zero-initialized static storage, touched only where tids fall. Id 0 is "no labels".
//
// Ordering argument. The id's meaning (its key/value pairs) is interned by LabelSets under its
// mutex before the id is stored here, and it is read back only by the writer thread, under the
// same mutex, after the sample went through the ring (whose publish/peek is release/acquire).
// So the id itself carries no data that needs ordering: a plain (relaxed) store and load suffice,
// and a sample taken as a scope opens may carry the old or the new id — either is true of the
// moment the tick was taken, to within that store.
#pragma once
#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

class ThreadLabels {
 public:
  static constexpr uint32_t kMaxTid = 1u << 22;

  void set(int tid, uint32_t id) {
    if (valid(tid)) sp(ids_[uint32_t(tid)], id);
  }
  // Signal-handler path: one load.
  uint32_t of_signalSafe(int tid) const { return valid(tid) ? lp(ids_[uint32_t(tid)]) : 0; }

  // The process's one table (the handler reaches it without a pointer chase).
  static ThreadLabels& process() { return process_; }

 private:
  static bool valid(int tid) { return tid > 0 && uint32_t(tid) < kMaxTid; }
  std::atomic<uint32_t> ids_[kMaxTid] = {};
  static ThreadLabels process_;
};

}  // namespace candor
