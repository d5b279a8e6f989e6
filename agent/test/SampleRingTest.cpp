#include "concurrent/SampleRing.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

using namespace candor;

namespace {
// Each producer stamps its samples with (producer, sequence) so the consumer can prove that
// nothing was lost, duplicated or torn.
void produce(SampleRing& ring, int producer, int count, std::atomic<uint64_t>& dropped, std::atomic<bool>& go) {
  while (!go.load()) {
  }
  for (int i = 0; i < count; i++) {
    SampleSlot* s = ring.tryClaim_signalSafe();
    if (s == nullptr) {
      dropped.fetch_add(1);
      continue;
    }
    s->tid = producer;
    s->numFrames = 3;
    for (int f = 0; f < 3; f++) {
      s->frames[f].lineno = i;
      s->frames[f].method_id = reinterpret_cast<jmethodID>(static_cast<uintptr_t>(producer * 1000 + f));
    }
    s->timeNs = static_cast<uint64_t>(i);
    ring.publish_signalSafe(s);
  }
}
}  // namespace

TEST(SampleRing, RejectsCapacityThatIsNotAPowerOfTwo) {
  EXPECT_FALSE(SampleRing(1000, 4).ok());
  EXPECT_FALSE(SampleRing(0, 4).ok());
  EXPECT_TRUE(SampleRing(1024, 4).ok());
}

TEST(SampleRing, SingleThreadRoundTrip) {
  SampleRing ring(16, 8);
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(ring.peek(), nullptr);
  SampleSlot* s = ring.tryClaim_signalSafe();
  ASSERT_NE(s, nullptr);
  s->tid = 7;
  EXPECT_EQ(ring.peek(), nullptr) << "a claimed slot is invisible until published";
  ring.publish_signalSafe(s);
  SampleSlot* r = ring.peek();
  ASSERT_EQ(r, s);
  EXPECT_EQ(r->tid, 7);
  ring.release(r);
  EXPECT_EQ(ring.peek(), nullptr);
}

TEST(SampleRing, FullRingDropsExactly) {
  SampleRing ring(16, 4);
  int claimed = 0, dropped = 0;
  for (int i = 0; i < 40; i++) {
    SampleSlot* s = ring.tryClaim_signalSafe();
    if (s == nullptr) {
      dropped++;
      continue;
    }
    claimed++;
    ring.publish_signalSafe(s);
  }
  EXPECT_EQ(claimed, 16);
  EXPECT_EQ(dropped, 24);
  // Draining frees every slot again.
  int drained = 0;
  while (SampleSlot* s = ring.peek()) {
    ring.release(s);
    drained++;
  }
  EXPECT_EQ(drained, 16);
  EXPECT_NE(ring.tryClaim_signalSafe(), nullptr);
}

TEST(SampleRing, MultiProducerNoLossWhileNotFull) {
  constexpr int kProducers = 4, kPerProducer = 2000;
  SampleRing ring(8192, 4);  // more slots than samples: never full
  std::atomic<uint64_t> dropped{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; p++) threads.emplace_back(produce, std::ref(ring), p, kPerProducer, std::ref(dropped), std::ref(go));
  go = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(dropped.load(), 0u);
  std::set<std::pair<int, int>> seen;
  while (SampleSlot* s = ring.peek()) {
    ASSERT_EQ(s->numFrames, 3);
    for (int f = 0; f < 3; f++) {
      ASSERT_EQ(s->frames[f].lineno, static_cast<int>(s->timeNs)) << "torn sample";
      ASSERT_EQ(reinterpret_cast<uintptr_t>(s->frames[f].method_id), static_cast<uintptr_t>(s->tid * 1000 + f));
    }
    EXPECT_TRUE(seen.insert({s->tid, static_cast<int>(s->timeNs)}).second) << "duplicate sample";
    ring.release(s);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kProducers * kPerProducer));
}

TEST(SampleRing, MultiProducerWithConcurrentConsumerAccountsForEveryTick) {
  constexpr int kProducers = 4, kPerProducer = 50000;
  SampleRing ring(64, 4);  // small: drops must happen
  std::atomic<uint64_t> dropped{0};
  std::atomic<bool> go{false}, done{false};
  uint64_t consumed = 0;
  std::thread consumer([&] {
    while (true) {
      bool finished = done.load();
      while (SampleSlot* s = ring.peek()) {
        ASSERT_EQ(s->frames[2].lineno, static_cast<int>(s->timeNs));
        ring.release(s);
        consumed++;
      }
      if (finished) break;
    }
  });
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; p++) threads.emplace_back(produce, std::ref(ring), p, kPerProducer, std::ref(dropped), std::ref(go));
  go = true;
  for (auto& t : threads) t.join();
  done = true;
  consumer.join();
  EXPECT_EQ(consumed + dropped.load(), static_cast<uint64_t>(kProducers * kPerProducer));
  EXPECT_GT(consumed, 0u);
}
