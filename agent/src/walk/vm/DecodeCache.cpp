#include "walk/vm/DecodeCache.h"

#include <sched.h>
#include <sys/mman.h>

#include "base/Ordering.h"

namespace candor {

namespace {
constexpr uint32_t kTopBit = 1u << 8;
constexpr uint32_t kCountMask = 0xFF;

uint32_t metaOf(const DecodeKey& k, int32_t n) { return static_cast<uint32_t>(n) | (k.top ? kTopBit : 0); }
}  // namespace

bool DecodeCache::init(uint32_t entries) {
  if (lp(table_) != nullptr) return true;
  if (entries < 2 || (entries & (entries - 1)) != 0) return false;
  void* p = mmap(nullptr, size_t{entries} * sizeof(Entry), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  sets_ = entries / 2;
  so(table_, static_cast<Entry*>(p));  // zero pages: every entry empty
  return true;
}

// The first of the two entries of k's set.
DecodeCache::Entry* DecodeCache::set_signalSafe(const DecodeKey& k) const {
  Entry* table = lv(table_);  // before sets_, which init() wrote first
  uint64_t h = (static_cast<uint64_t>(k.pc) ^ (k.top ? 0x5bd1e995u : 0)) * 0x9E3779B97F4A7C15ull;
  return table + 2 * ((h >> 32) & (sets_ - 1));
}

int32_t DecodeCache::lookup_signalSafe(const DecodeKey& k, ASGCT_CallFrame* out, int32_t room, Tally* t) const {
  if (!enabled_signalSafe()) return 0;
  Entry* set = set_signalSafe(k);
  for (int way = 0; way < 2; way++) {
    Entry& e = set[way];
    uint32_t s0 = e.lock.readBegin_signalSafe();
    if (SeqLock::busy(s0)) continue;
    uint32_t meta = lp(e.meta);
    int32_t n = static_cast<int32_t>(meta & kCountMask);
    if (lp(e.pc) != k.pc || meta != metaOf(k, n) || n == 0 || n > kMaxFrames) continue;
    bool same = lp(e.codeBegin) == k.codeBegin && lp(e.compileId) == k.compileId;
    int32_t copy = n < room ? n : room;
    for (int32_t i = 0; same && i < copy; i++) {
      out[i] = {lp(e.frames[i].bci), reinterpret_cast<jmethodID>(lp(e.frames[i].id))};
    }
    if (!e.lock.readValid_signalSafe(s0)) continue;  // written meanwhile: what we copied may be torn
    if (!same) {
      t->stale++;
      return 0;
    }
    t->hits++;
    return copy;
  }
  t->misses++;
  return 0;
}

void DecodeCache::store_signalSafe(const DecodeKey& k, const ASGCT_CallFrame* frames, int32_t n, uint64_t ticket) {
  if (!enabled_signalSafe() || n <= 0 || n > kMaxFrames) return;
  Entry* set = set_signalSafe(k);
  // The way already holding this key (stale), else an empty one, else one picked by the first
  // way's write count (a cheap alternation, so three hot pcs of one set do not pin one way).
  int way = (set[0].lock.sequence() >> 1) & 1;
  for (int w = 1; w >= 0; w--) {
    if (lp(set[w].meta) == 0) way = w;
  }
  for (int w = 0; w < 2; w++) {
    if (lp(set[w].pc) == k.pc && (lp(set[w].meta) & kTopBit) == (k.top ? kTopBit : 0)) way = w;
  }
  Entry& e = set[way];
  uint32_t seq = e.lock.sequence();
  if (!e.lock.tryWriteBegin_signalSafe(seq)) {
    addPlain(skipped_, uint64_t{1});
    return;
  }
  if (lvSc(epoch_) != ticket) {  // an unload raced the decode
    sp(e.meta, 0u);
    e.lock.writeEnd_signalSafe(seq);
    addPlain(skipped_, uint64_t{1});
    return;
  }
  sp(e.pc, k.pc);
  sp(e.codeBegin, k.codeBegin);
  sp(e.codeSize, static_cast<uint32_t>(k.codeEnd - k.codeBegin));
  sp(e.compileId, k.compileId);
  for (int32_t i = 0; i < n; i++) {
    sp(e.frames[i].id, reinterpret_cast<uintptr_t>(frames[i].method_id));
    sp(e.frames[i].bci, static_cast<int32_t>(frames[i].lineno));
  }
  sp(e.meta, metaOf(k, n));
  e.lock.writeEnd_signalSafe(seq);
}

void DecodeCache::count_signalSafe(const Tally& t) {
  if (t.hits) addPlain(hits_, uint64_t{t.hits});
  if (t.misses) addPlain(misses_, uint64_t{t.misses});
  if (t.stale) addPlain(stale_, uint64_t{t.stale});
}

void DecodeCache::invalidate(uintptr_t codeAddr) {
  Entry* table = lv(table_);
  if (table == nullptr) return;
  addPlain(unloads_, uint64_t{1});
  addSc(epoch_, uint64_t{1});  // writers that decoded before this will not store
  uint64_t cleared = 0;
  for (uint32_t i = 0; i < 2 * sets_; i++) {
    Entry& e = table[i];
    for (int spins = 0;; spins++) {
      uint32_t s = e.lock.sequenceSc();
      if (SeqLock::busy(s)) {  // a handler is writing it; it finishes without waiting for anything
        if (spins > 64) sched_yield();
        continue;
      }
      uintptr_t begin = lp(e.codeBegin);
      if (lp(e.meta) == 0 || codeAddr < begin || codeAddr - begin >= lp(e.codeSize)) break;
      if (!e.lock.tryWriteBegin_signalSafe(s)) continue;
      sp(e.meta, 0u);
      e.lock.writeEnd_signalSafe(s);
      cleared++;
      break;
    }
  }
  addPlain(invalidated_, cleared);
}

DecodeCacheStats DecodeCache::takeStats() {
  DecodeCacheStats s;
  s.hits = xchgPlain(hits_, uint64_t{0});
  s.misses = xchgPlain(misses_, uint64_t{0});
  s.stale = xchgPlain(stale_, uint64_t{0});
  s.skipped = xchgPlain(skipped_, uint64_t{0});
  s.unloads = xchgPlain(unloads_, uint64_t{0});
  s.invalidated = xchgPlain(invalidated_, uint64_t{0});
  return s;
}

void DecodeCache::setBusyForTest(const DecodeKey& k, bool busy) {
  Entry* set = set_signalSafe(k);
  for (int w = 0; w < 2; w++) set[w].lock.setBusyForTest(busy);
}

}  // namespace candor
