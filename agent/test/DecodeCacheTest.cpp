// The own walker's per-pc decode cache: hits, misses, the nmethod identity check, invalidation by
// unloaded code address, and that an entry being written is never returned (also under a
// multi-threaded stress of writers, readers and invalidations on colliding keys).
#include "walk/vm/DecodeCache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace candor;

namespace {

DecodeKey key(uintptr_t pc, bool top = false, int32_t compileId = 7) {
  uintptr_t begin = pc & ~uintptr_t{0xFFF};
  return DecodeKey{pc, top, begin, begin + 0x1000, compileId};
}

// Frames that can be told apart by their key: a torn entry mixes two keys' frames.
int32_t framesFor(const DecodeKey& k, ASGCT_CallFrame* f) {
  int32_t n = 1 + static_cast<int32_t>((k.pc >> 4) % DecodeCache::kMaxFrames);
  for (int32_t i = 0; i < n; i++) {
    f[i] = {static_cast<jint>((k.pc >> 4) * 31 + i + k.compileId),
            reinterpret_cast<jmethodID>((k.pc << 8) + static_cast<uintptr_t>(i) * 8 + (k.top ? 1 : 0))};
  }
  return n;
}

bool sameFrames(const ASGCT_CallFrame* a, const ASGCT_CallFrame* b, int32_t n) {
  for (int32_t i = 0; i < n; i++) {
    if (a[i].lineno != b[i].lineno || a[i].method_id != b[i].method_id) return false;
  }
  return true;
}

void put(DecodeCache& c, const DecodeKey& k) {
  ASGCT_CallFrame f[DecodeCache::kMaxFrames];
  int32_t n = framesFor(k, f);
  c.store_signalSafe(k, f, n, c.ticket_signalSafe());
}

int32_t get(const DecodeCache& c, const DecodeKey& k, ASGCT_CallFrame* out, int32_t room = DecodeCache::kMaxFrames) {
  DecodeCache::Tally t;
  return c.lookup_signalSafe(k, out, room, &t);
}

}  // namespace

TEST(DecodeCache, MissThenHitGivesTheStoredFrames) {
  DecodeCache c;
  ASSERT_TRUE(c.init(64));
  ASGCT_CallFrame out[DecodeCache::kMaxFrames], want[DecodeCache::kMaxFrames];
  DecodeKey k = key(0x7f0000001230);
  DecodeCache::Tally t;
  EXPECT_EQ(c.lookup_signalSafe(k, out, DecodeCache::kMaxFrames, &t), 0);
  put(c, k);
  int32_t n = framesFor(k, want);
  EXPECT_EQ(c.lookup_signalSafe(k, out, DecodeCache::kMaxFrames, &t), n);
  EXPECT_TRUE(sameFrames(out, want, n));
  EXPECT_EQ(t.misses, 1u);
  EXPECT_EQ(t.hits, 1u);
  c.count_signalSafe(t);
  DecodeCacheStats s = c.takeStats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(c.takeStats().hits, 0u);  // taken: counted from zero again
}

TEST(DecodeCache, KeyIsPcAndTop) {
  DecodeCache c;
  ASSERT_TRUE(c.init(64));
  ASGCT_CallFrame out[DecodeCache::kMaxFrames];
  put(c, key(0x7f0000001230, false));
  EXPECT_EQ(get(c, key(0x7f0000001230, true), out), 0);
  EXPECT_EQ(get(c, key(0x7f0000001238, false), out), 0);
  EXPECT_GT(get(c, key(0x7f0000001230, false), out), 0);
}

TEST(DecodeCache, RoomCutsTheCopy) {
  DecodeCache c;
  ASSERT_TRUE(c.init(64));
  DecodeKey k = key(0x7f0000001230);  // (pc >> 4) % 14 = 5: six frames
  ASGCT_CallFrame out[DecodeCache::kMaxFrames], want[DecodeCache::kMaxFrames];
  ASSERT_EQ(framesFor(k, want), 6);
  put(c, k);
  EXPECT_EQ(get(c, k, out, 3), 3);
  EXPECT_TRUE(sameFrames(out, want, 3));
}

TEST(DecodeCache, AnotherNmethodAtTheSamePcIsStale) {
  DecodeCache c;
  ASSERT_TRUE(c.init(64));
  ASGCT_CallFrame out[DecodeCache::kMaxFrames], want[DecodeCache::kMaxFrames];
  put(c, key(0x7f0000001230, false, 7));
  DecodeCache::Tally t;
  DecodeKey recompiled = key(0x7f0000001230, false, 8);  // same place, another compilation
  EXPECT_EQ(c.lookup_signalSafe(recompiled, out, DecodeCache::kMaxFrames, &t), 0);
  DecodeKey moved = key(0x7f0000001230, false, 7);
  moved.codeBegin -= 0x10;  // same pc, another blob
  EXPECT_EQ(c.lookup_signalSafe(moved, out, DecodeCache::kMaxFrames, &t), 0);
  EXPECT_EQ(t.stale, 2u);
  EXPECT_EQ(t.hits + t.misses, 0u);
  put(c, recompiled);  // replaces the stale entry
  int32_t n = framesFor(recompiled, want);
  EXPECT_EQ(get(c, recompiled, out), n);
  EXPECT_TRUE(sameFrames(out, want, n));
  EXPECT_EQ(get(c, key(0x7f0000001230, false, 7), out), 0);
}

TEST(DecodeCache, UnloadClearsEveryEntryOfThatNmethodOnly) {
  DecodeCache c;
  ASSERT_TRUE(c.init(256));
  ASGCT_CallFrame out[DecodeCache::kMaxFrames];
  for (uintptr_t off = 0; off < 0x1000; off += 0x100) {
    put(c, key(0x7f0000001000 + off));
    put(c, key(0x7f0000003000 + off, true));
  }
  c.invalidate(0x7f0000001000);  // CompiledMethodUnload names the start of the code
  c.invalidate(0x7f0000003400);  // any address inside the nmethod's code will do
  c.invalidate(0x7f0000005000);  // nothing cached there
  for (uintptr_t off = 0; off < 0x1000; off += 0x100) {
    EXPECT_EQ(get(c, key(0x7f0000001000 + off), out), 0);
    EXPECT_EQ(get(c, key(0x7f0000003000 + off, true), out), 0);
  }
  DecodeCacheStats s = c.takeStats();
  EXPECT_EQ(s.unloads, 3u);
  EXPECT_EQ(s.invalidated, 32u);

  put(c, key(0x7f0000001100));
  put(c, key(0x7f0000002100));
  c.invalidate(0x7f0000002000);
  EXPECT_GT(get(c, key(0x7f0000001100), out), 0);
  EXPECT_EQ(get(c, key(0x7f0000002100), out), 0);
}

TEST(DecodeCache, AnUnloadDuringTheDecodeIsNotCached) {
  DecodeCache c;
  ASSERT_TRUE(c.init(64));
  ASGCT_CallFrame f[DecodeCache::kMaxFrames], out[DecodeCache::kMaxFrames];
  DecodeKey k = key(0x7f0000001230);
  uint64_t ticket = c.ticket_signalSafe();  // taken before the nmethod was read
  int32_t n = framesFor(k, f);
  c.invalidate(0x7f0000009000);  // any unload: the decode may have read freed code
  c.store_signalSafe(k, f, n, ticket);
  EXPECT_EQ(get(c, k, out), 0);
  EXPECT_EQ(c.takeStats().skipped, 1u);
}

TEST(DecodeCache, AnEntryBeingWrittenIsNeitherReadNorOverwritten) {
  DecodeCache c;
  ASSERT_TRUE(c.init(64));
  ASGCT_CallFrame out[DecodeCache::kMaxFrames], want[DecodeCache::kMaxFrames];
  DecodeKey k = key(0x7f0000001230);
  put(c, k);
  c.setBusyForTest(k, true);
  EXPECT_EQ(get(c, k, out), 0);
  put(c, key(0x7f0000001230, false, 9));  // a writer finding it busy skips caching
  EXPECT_EQ(c.takeStats().skipped, 1u);
  c.setBusyForTest(k, false);
  int32_t n = framesFor(k, want);
  EXPECT_EQ(get(c, k, out), n);
  EXPECT_TRUE(sameFrames(out, want, n));
}

TEST(DecodeCache, RefusesWhatItCannotHold) {
  DecodeCache off;  // never initialised: the walker decodes every frame
  ASGCT_CallFrame f[DecodeCache::kMaxFrames + 1] = {};
  DecodeKey k = key(0x7f0000001230);
  off.store_signalSafe(k, f, 1, off.ticket_signalSafe());
  EXPECT_EQ(get(off, k, f), 0);
  EXPECT_FALSE(off.enabled_signalSafe());
  DecodeCache c;
  EXPECT_FALSE(c.init(100));  // not a power of two
  ASSERT_TRUE(c.init(64));
  c.store_signalSafe(k, f, DecodeCache::kMaxFrames + 1, c.ticket_signalSafe());
  c.store_signalSafe(k, f, 0, c.ticket_signalSafe());
  EXPECT_EQ(get(c, k, f), 0);
}

// Writers and readers on a table of four sets with 48 keys that collide all the time, and an
// invalidating thread: every frame a hit returns must be exactly the frames of the key asked for.
TEST(DecodeCache, StressNeverReturnsATornEntry) {
  DecodeCache c;
  ASSERT_TRUE(c.init(8));
  std::vector<DecodeKey> keys;
  for (uintptr_t i = 0; i < 24; i++) {
    keys.push_back(key(0x7f0000010000 + i * 0x1010, false, 3));
    keys.push_back(key(0x7f0000010000 + i * 0x1010, true, 4));
  }
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> hits{0}, torn{0};
  auto writer = [&](int seed) {
    uint32_t r = 2463534242u + seed;
    while (!stop.load(std::memory_order_relaxed)) {
      r ^= r << 13, r ^= r >> 17, r ^= r << 5;
      put(c, keys[r % keys.size()]);
    }
  };
  auto reader = [&](int seed) {
    uint32_t r = 88675123u + seed;
    ASGCT_CallFrame out[DecodeCache::kMaxFrames], want[DecodeCache::kMaxFrames];
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
    for (int i = 0; (i & 1023) != 0 || std::chrono::steady_clock::now() < end; i++) {
      r ^= r << 13, r ^= r >> 17, r ^= r << 5;
      const DecodeKey& k = keys[r % keys.size()];
      int32_t n = get(c, k, out);
      if (n == 0) continue;
      hits.fetch_add(1, std::memory_order_relaxed);
      if (n != framesFor(k, want) || !sameFrames(out, want, n)) torn.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::thread invalidator([&] {
    for (int i = 0; !stop.load(std::memory_order_relaxed); i++) {
      c.invalidate(keys[i % keys.size()].pc);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; i++) threads.emplace_back(writer, i);
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; i++) readers.emplace_back(reader, i);
  for (auto& t : readers) t.join();
  stop = true;
  for (auto& t : threads) t.join();
  invalidator.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_GT(hits.load(), 0u);
}
