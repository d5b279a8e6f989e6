// What a compiled frame decodes to, cached per (pc, top): the frames emitCompiled_signalSafe
// writes (one per inlined scope, innermost first, as jmethodID + bci). On deep compiled stacks
// the same return addresses come back sample after sample; a hit replaces the PcDesc search, the
// ScopeDesc chain and a Method* → jmethodID check per scope by one table probe.
//
// A fixed table of 2-way sets, mmapped once by init() (pages are touched only where entries
// land). Readers and writers are signal handlers on any thread and the remote walker thread;
// invalidate() runs on the JVMTI CompiledMethodUnload thread.
//
// Ordering argument (names from concurrent/Ordering.h). Each entry has a SeqLock (its argument is
// in concurrent/SeqLock.h); every other field is an atomic accessed relaxed (lp/sp).
//   Writer: claims the entry's lock (its seq_cst CAS also serves the epoch below: its acquire half
//   makes the previous writer's field stores happen-before ours, so ours are later in every
//   field's modification order), stores the fields, ends the write. A writer that finds the entry
//   being written, or loses the CAS, skips caching: a handler never waits.
//   Reader: an entry read while being written is a miss, and the frame is decoded as usual.
//   A hit is also checked against the nmethod the lookup found now (its code address and compile
//   id, read by FrameWalker): an nmethod freed and replaced at the same address, whose unload
//   event is late or was never posted, misses instead of giving another method's stack.
//   Unload: invalidate() bumps `epoch_` (seq_cst), then claims every entry whose nmethod code
//   contains the unloaded address (waiting, on its ordinary thread, for a writer in progress)
//   and empties it. A writer takes the epoch before it reads the nmethod (ticket_signalSafe) and
//   re-reads it after its seq_cst claim: either it sees the new epoch and empties its entry, or
//   its claim precedes the invalidator's scan of that entry in the seq_cst order, so the scan
//   waits for it and clears what it wrote. No entry decoded before an unload outlives it.
// The cache reads only its own memory, so no fault can leave an entry odd.
#pragma once
#include <atomic>
#include <cstdint>

#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "concurrent/SeqLock.h"

namespace candor {

// One compiled pc as FrameWalker found it. pc and top are the key; the rest identify the nmethod.
struct DecodeKey {
  uintptr_t pc;
  bool top;                        // an interrupted pc, not a return address: decodes differently
  uintptr_t codeBegin, codeEnd;    // the nmethod's instructions
  int32_t compileId;               // unique per compilation: tells a new nmethod at the same place
};

struct DecodeCacheStats {
  uint64_t hits = 0, misses = 0;
  uint64_t stale = 0;     // the pc was cached for another nmethod (a missed or late unload)
  uint64_t skipped = 0;   // writes skipped: the entry was being written, or an unload raced
  uint64_t unloads = 0, invalidated = 0;  // CompiledMethodUnload events, entries they cleared
};

class DecodeCache {
 public:
  static constexpr int32_t kMaxFrames = 14;  // deeper inlining chains are decoded every time
  // A walk counts locally and adds once at its end: no shared cache line per frame.
  struct Tally {
    uint32_t hits = 0, misses = 0, stale = 0;
  };

  // The table is never unmapped: handlers and JVMTI callbacks may still run during exit.
  DecodeCache() = default;
  DecodeCache(const DecodeCache&) = delete;
  DecodeCache& operator=(const DecodeCache&) = delete;

  // Ordinary thread, once, before any handler may use it: `entries` (a power of two >= 2).
  bool init(uint32_t entries);
  bool enabled_signalSafe() const { return lv(table_) != nullptr; }

  // Signal-handler path. Copies up to `room` cached frames for k into `out`; 0 on a miss.
  int32_t lookup_signalSafe(const DecodeKey& k, ASGCT_CallFrame* out, int32_t room, Tally* t) const;
  // Take before reading the nmethod whose decode will be stored.
  uint64_t ticket_signalSafe() const { return lvSc(epoch_); }
  // Caches the complete decode `frames[0..n)` of k (n <= kMaxFrames, no null method ids).
  void store_signalSafe(const DecodeKey& k, const ASGCT_CallFrame* frames, int32_t n, uint64_t ticket);
  void count_signalSafe(const Tally& t);

  // Ordinary thread (CompiledMethodUnload): forgets every entry whose nmethod contains codeAddr.
  void invalidate(uintptr_t codeAddr);
  // Counters since the last call.
  DecodeCacheStats takeStats();
  // For tests: marks the entries k may use as being written (busy) or not.
  void setBusyForTest(const DecodeKey& k, bool busy);

 private:
  struct Frame {
    std::atomic<uintptr_t> id;
    std::atomic<int32_t> bci;
  };
  struct alignas(64) Entry {
    SeqLock lock;
    std::atomic<uint32_t> meta;  // frame count (0: empty) | top << 8
    std::atomic<int32_t> compileId;
    std::atomic<uint32_t> codeSize;
    std::atomic<uintptr_t> pc;
    std::atomic<uintptr_t> codeBegin;
    Frame frames[kMaxFrames];
  };
  Entry* set_signalSafe(const DecodeKey& k) const;

  std::atomic<Entry*> table_{nullptr};
  uint32_t sets_ = 0;
  std::atomic<uint64_t> epoch_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0}, stale_{0}, skipped_{0}, unloads_{0}, invalidated_{0};
};

}  // namespace candor
