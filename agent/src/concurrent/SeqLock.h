// A sequence lock for data that signal handlers read (and may write) without ever waiting.
// The sequence is odd while a writer changes the data. The data itself is read and written with
// relaxed atomic accesses (lp/sp, or lpRaw/spRaw on plain fields).
//
// Ordering argument. Writer: a CAS makes the sequence odd (seq_cst, so a writer's claim is
// ordered with anything else a caller orders by seq_cst, e.g. DecodeCache's epoch), then a
// release fence, the relaxed data stores, and so(seq, even) publishes. Reader: lv(seq) even,
// relaxed data loads, an acquire fence, then lp(seq) unchanged. If a data load saw a value of a
// later write, the reader's fence pairs with that writer's release fence, so the writer's odd
// sequence happens-before the re-read, which then differs (Boehm, "Can seqlocks get along with
// programming language memory models?", MSPC 2012). A reader therefore never accepts torn data:
// a read that overlapped a write is retried or, on the handler path, treated as a miss.
//
// Usage:
//   reader:  uint32_t s = lock.readBegin_signalSafe(); if (SeqLock::busy(s)) miss;
//            ...relaxed loads...; if (!lock.readValid_signalSafe(s)) miss;
//   writer:  uint32_t s = lock.sequence(); if (SeqLock::busy(s) || !lock.tryWriteBegin_signalSafe(s)) skip;
//            ...relaxed stores...; lock.writeEnd_signalSafe(s);
#pragma once
#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

class SeqLock {
 public:
  static bool busy(uint32_t seq) { return (seq & 1) != 0; }

  // The sequence as it is now, for a writer deciding whether to claim (relaxed).
  uint32_t sequence() const { return lp(seq_); }
  // The same, in the seq_cst order (a writer that must see claims ordered before its own step).
  uint32_t sequenceSc() const { return lvSc(seq_); }

  // Signal-handler path, reader.
  uint32_t readBegin_signalSafe() const { return lv(seq_); }
  bool readValid_signalSafe(uint32_t begin) const {
    acquireFence();
    return lp(seq_) == begin;
  }

  // Signal-handler path, writer: claims the lock if its sequence is still `seen` (even); false
  // when another writer got there first. Never waits.
  bool tryWriteBegin_signalSafe(uint32_t seen) {
    if (busy(seen) || !casSc(seq_, seen, seen + 1)) return false;
    releaseFence();  // the odd sequence before any data store
    return true;
  }
  // Ends the write begun at `seen`.
  void writeEnd_signalSafe(uint32_t seen) { so(seq_, seen + 2); }

  // For tests: makes the lock look held (or free) without writing anything.
  void setBusyForTest(bool held) {
    if (busy(lp(seq_)) != held) seq_.fetch_add(1, std::memory_order_acq_rel);
  }

 private:
  std::atomic<uint32_t> seq_{0};
};

}  // namespace candor
