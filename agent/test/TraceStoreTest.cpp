#include "store/TraceStore.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "concurrent/SampleRing.h"
#include "store/SampleAccounting.h"
#include "walk/SlotFill.h"

using namespace candor;

namespace {
jmethodID m(uintptr_t id) { return reinterpret_cast<jmethodID>(id); }

using Frames = std::vector<std::pair<jint, uintptr_t>>;  // (bci, method), leaf first

// A cpu tick of `tid` as a producer publishes it: `frames` when code > 0, else the failure `code`.
void publishCpu(SampleRing& ring, int tid, int32_t code, const Frames& frames, uint32_t weight, bool site = false,
                uint32_t labels = 0) {
  SampleSlot* s = ring.tryClaim_signalSafe();
  ASSERT_NE(s, nullptr);
  fillHeader_signalSafe(s, tid, SampleKind::kCpu, ThreadState::kRunning, 0, -1);
  s->site = site ? 1 : 0;
  s->labels = labels;
  s->numFrames = code > 0 ? static_cast<int32_t>(frames.size()) : code;
  for (size_t i = 0; i < frames.size(); i++) s->frames[i] = {frames[i].first, m(frames[i].second)};
  s->weight = weight;
  ring.publish_signalSafe(s);
}
}  // namespace

TEST(TraceStore, DeduplicatesIdenticalStacks) {
  TraceStore store;
  ASGCT_CallFrame a[] = {{10, m(1)}, {20, m(2)}};
  ASGCT_CallFrame b[] = {{11, m(1)}, {20, m(2)}};  // same methods, another bci: a distinct trace
  uint32_t t1 = store.add(a, 2, 100);
  uint32_t t2 = store.add(a, 2, 100);
  uint32_t t3 = store.add(b, 2, 100);
  uint32_t t4 = store.add(a, 2, 200);
  EXPECT_EQ(t1, t2);
  EXPECT_NE(t1, t3);
  EXPECT_EQ(t1, t4) << "the trace is shared across threads; the count is per thread";
  EXPECT_EQ(store.traceCount(), 2u);
  EXPECT_EQ(store.totalSamples(), 4u);
  EXPECT_EQ(*store.counts().find({t1, 100, SampleKind::kCpu, ThreadState::kUnknown}), 2u);
  EXPECT_EQ(*store.counts().find({t1, 200, SampleKind::kCpu, ThreadState::kUnknown}), 1u);
  EXPECT_EQ(*store.counts().find({t3, 100, SampleKind::kCpu, ThreadState::kUnknown}), 1u);
}

TEST(TraceStore, StacksShareTheirCallersAndComeBackLeafFirst) {
  TraceStore store;
  // A recursion 1,000 frames deep sampled at three different leaves, on two threads.
  std::vector<ASGCT_CallFrame> deep(1001);
  for (int i = 1; i <= 1000; i++) deep[i] = {i, m(1000 + i)};
  std::vector<uint32_t> ids;
  for (int leaf = 0; leaf < 3; leaf++) {
    deep[0] = {leaf, m(7)};
    ids.push_back(store.add(deep.data(), 1001, 1));
    ids.push_back(store.add(deep.data(), 1001, 2));
  }
  EXPECT_EQ(store.traceCount(), 3u);
  EXPECT_EQ(store.nodeCount(), 1003u) << "the 1,000 callers are stored once";
  EXPECT_EQ(ids[0], ids[1]) << "the same stack on another thread is the same trace";
  EXPECT_EQ(store.depth(ids[4]), 1001u);
  std::vector<StoredFrame> back = store.frames(ids[4]);
  ASSERT_EQ(back.size(), 1001u);
  EXPECT_EQ(back[0], (StoredFrame{m(7), 2}));
  EXPECT_EQ(back[1], (StoredFrame{m(1001), 1}));
  EXPECT_EQ(back[1000], (StoredFrame{m(2000), 1000}));
  // A thread whose next sample shares nothing with its previous one still finds the shared nodes.
  ASGCT_CallFrame shallow[] = {{5, m(9)}};
  store.add(shallow, 1, 1);
  EXPECT_EQ(store.add(deep.data(), 1001, 1), ids[4]);
  EXPECT_EQ(store.nodeCount(), 1004u);
  EXPECT_EQ(store.totalSamples(), 8u);
}

TEST(TraceStore, AnEmptyStackIsATraceToo) {
  TraceStore store;
  uint32_t t = store.add(nullptr, 0, 3);
  EXPECT_TRUE(store.frames(t).empty());
  EXPECT_EQ(store.traceCount(), 1u);
}

TEST(TraceStore, ReportsEachNewMethodOnce) {
  TraceStore store;
  ASGCT_CallFrame a[] = {{1, m(1)}, {2, m(2)}};
  ASGCT_CallFrame b[] = {{1, m(3)}, {2, m(2)}, {0, nullptr}};
  store.add(a, 2, 1);
  auto first = store.takeNewMethods();
  EXPECT_EQ(first.size(), 2u);
  store.add(a, 2, 1);
  store.add(b, 3, 1);
  auto second = store.takeNewMethods();
  ASSERT_EQ(second.size(), 1u) << "null method ids are not resolvable and not reported";
  EXPECT_EQ(second[0], m(3));
  store.clear();
  EXPECT_EQ(store.traceCount(), 0u);
  EXPECT_EQ(store.totalSamples(), 0u);
}

TEST(SampleAccounting, EveryPublishedSlotLandsInOneBucket) {
  SampleRing ring(64, 8);
  TraceStore store;
  SampleAccounting accounting(store);
  auto publish = [&](int tid, int numFrames) {
    SampleSlot* s = ring.tryClaim_signalSafe();
    ASSERT_NE(s, nullptr);
    s->tid = tid;
    s->numFrames = numFrames;
    for (int i = 0; i < numFrames; i++) s->frames[i] = {i, m(i + 1)};
    ring.publish_signalSafe(s);
  };
  publish(1, 3);
  publish(1, 3);
  publish(2, 0);    // no_java_frame
  publish(2, -2);   // gc_active
  publish(2, -5);   // unknown_java
  publish(3, kNotJavaThreadCode);
  publish(3, -42);  // a code this build does not know
  EXPECT_EQ(accounting.drain(ring), 7u);
  EXPECT_EQ(accounting.recorded(), 2u);
  EXPECT_EQ(accounting.failures(Bucket::kNoJavaFrame), 1u);
  EXPECT_EQ(accounting.failures(Bucket::kGcActive), 1u);
  EXPECT_EQ(accounting.failures(Bucket::kUnknownJava), 1u);
  EXPECT_EQ(accounting.failures(Bucket::kNotJavaThread), 1u);
  EXPECT_EQ(accounting.failures(Bucket::kUnknownError), 1u);
  EXPECT_EQ(accounting.failuresTotal(), 5u);
  EXPECT_EQ(accounting.perThread().at(1).recorded, 2u);
  EXPECT_EQ(accounting.perThread().at(2).ticks, 3u);
  EXPECT_EQ(store.totalSamples(), 2u);
  EXPECT_EQ(accounting.drain(ring), 0u);
}

// The wall sampler repeats an idle thread's last sample without signalling it, across loop=
// intervals too: a repeat after startInterval lands on the stack it repeats (copied into the
// emptied store), a repeated failure on its bucket, and a thread that ended carries nothing.
TEST(SampleAccounting, WallRepeatsKeepTheirOutcomeAcrossIntervals) {
  SampleRing ring(64, 8);
  TraceStore store;
  SampleAccounting accounting(store);
  struct Outcomes : DrainListener {
    std::vector<int32_t> seen;
    void onDrained(const SampleSlot&, uint32_t, int32_t outcome) override { seen.push_back(outcome); }
  } outcomes;
  accounting.setListener(&outcomes);
  auto publish = [&](int tid, int numFrames) {
    SampleSlot* s = ring.tryClaim_signalSafe();
    ASSERT_NE(s, nullptr);
    s->tid = tid;
    s->kind = static_cast<uint8_t>(SampleKind::kWall);
    s->state = static_cast<uint8_t>(ThreadState::kParked);
    s->numFrames = numFrames;
    for (int i = 0; i < numFrames; i++) s->frames[i] = {i, m(i + 1)};
    ring.publish_signalSafe(s);
  };
  publish(1, 3);
  publish(2, -5);  // unknown_java
  publish(3, 2);   // a thread that ends before the interval does
  accounting.drain(ring);
  std::vector<StoredFrame> stack;
  store.counts().forEach([&](const TraceStore::Key& key, uint64_t) {
    if (key.tid == 1) stack = store.frames(key.trace);
  });

  accounting.startInterval(0, {1, 2});
  EXPECT_EQ(store.totalSamples(), 0u);
  outcomes.seen.clear();
  publish(1, kRepeatLastCode);
  publish(2, kRepeatLastCode);
  publish(3, kRepeatLastCode);
  EXPECT_EQ(accounting.drain(ring), 3u);
  EXPECT_EQ(accounting.recorded(), 1u);
  ASSERT_EQ(store.counts().size(), 1u);
  store.counts().forEach([&](const TraceStore::Key& key, uint64_t) { EXPECT_EQ(store.frames(key.trace), stack); });
  EXPECT_EQ(store.traceCount(), 1u);
  EXPECT_EQ(accounting.failures(Bucket::kUnknownJava), 1u);
  EXPECT_EQ(accounting.failures(Bucket::kUnknownState), 1u);
  EXPECT_EQ(outcomes.seen, (std::vector<int32_t>{3, -5, kUnknownStateCode}));
}

// A kernel debt paid away from a system call (kKernelDebtBci on top of the stack where it was
// paid, or kKernelDebtCode at settlement) lands on the thread's last system-call site (a sample
// its producer took in one: the CPU-time timer's [kernel_unsampled] on a C frame, or, percpu,
// sampled kernel frames on it, which give way to the marker); before the thread has one, it stays
// where it was paid, renamed [kernel_unsampled], or is stackless cpu_unsampled. Every tick counts once.
TEST(SampleAccounting, KernelDebtLandsOnTheThreadsLastSystemCallSite) {
  SampleRing ring(64, 8);
  TraceStore store;
  SampleAccounting accounting(store);
  auto publish = [&](int tid, int32_t code, const Frames& frames, uint32_t weight, bool site = false) {
    publishCpu(ring, tid, code, frames, weight, site);
  };
  const std::pair<jint, uintptr_t> java1{2, 3}, java2{3, 4}, libc{kNativeFrameBci, 100}, libjvm{kNativeFrameBci, 200};
  const std::pair<jint, uintptr_t> marker{kKernelUnsampledBci, 0}, debt{kKernelDebtBci, 0};
  const std::pair<jint, uintptr_t> k1{kKernelFrameBci, 901}, k2{kKernelFrameBci, 902};
  publish(1, 1, {debt, {5, 5}, java1}, 2);                      // no site yet: stays on its stack
  publish(1, kKernelDebtCode, {}, 3);                           // no site yet: stackless
  publish(1, 1, {marker, libc, java1, java2}, 1, true);         // the CPU-time timer's placement: a site
  publish(1, 1, {debt, {7, 7}, java1}, 5);                      // to that site
  publish(1, kKernelDebtCode, {}, 4);                           // to that site
  publish(2, kKernelDebtCode, {}, 6);                           // thread 2 has no site
  publish(1, 1, {marker, {9, 9}, java1}, 1);                    // kernel time kept on a Java stack: no site
  publish(1, 1, {debt, {7, 7}, java1}, 2);                      // still to the first site
  publish(3, 1, {k1, k2, libjvm, java1}, 1);                    // a page fault in libjvm: no site
  publish(3, kKernelDebtCode, {}, 2);                           // so stackless
  publish(3, 1, {k1, k2, libc, java2}, 1, true);                // percpu: sampled in a system call
  publish(3, kKernelDebtCode, {}, 3);                           // on its C frame, under the marker
  publish(3, kKernelDebtCode, {}, 1);
  accounting.drain(ring);

  using Stack = std::vector<std::pair<jint, uintptr_t>>;  // (bci, method), leaf first
  std::map<std::pair<int, Stack>, uint64_t> byStack;
  store.counts().forEach([&](const TraceStore::Key& key, uint64_t n) {
    Stack stack;
    for (const StoredFrame& f : store.frames(key.trace)) stack.emplace_back(f.bci, reinterpret_cast<uintptr_t>(f.method));
    byStack[{key.tid, stack}] += n;
  });
  EXPECT_EQ((byStack[{1, {marker, libc, java1, java2}}]), 1u + 5 + 4 + 2);
  EXPECT_EQ((byStack[{1, {marker, {5, 5}, java1}}]), 2u);
  EXPECT_EQ((byStack[{1, {marker, {9, 9}, java1}}]), 1u);
  EXPECT_EQ((byStack[{3, {k1, k2, libjvm, java1}}]), 1u);
  EXPECT_EQ((byStack[{3, {k1, k2, libc, java2}}]), 1u);
  EXPECT_EQ((byStack[{3, {marker, libc, java2}}]), 3u + 1);
  EXPECT_EQ(byStack.size(), 6u) << "no stack keeps the debt marker";
  EXPECT_EQ(accounting.failures(Bucket::kCpuUnsampled), 3u + 6 + 2);
  EXPECT_EQ(accounting.kernelUnsampled(), 15u + 4);
  EXPECT_EQ(accounting.kernelSampled(), 2u);
  EXPECT_EQ(accounting.recorded() + accounting.failuresTotal(), 32u);
  EXPECT_EQ(accounting.perThread().at(1).ticks, 18u);
  EXPECT_EQ(accounting.perThread().at(1).recorded, 15u);
}

// The kernel time a thread owed where it ran (preempted: kKernelWhereItRanCode) lands as
// [kernel_unsampled] on the Java part of its last recorded stack, the kernel and C frames of that
// sample left out; before it has one, stackless cpu_unsampled.
TEST(SampleAccounting, KernelTimeWhereAThreadRanLandsOnItsLastStack) {
  SampleRing ring(64, 8);
  TraceStore store;
  SampleAccounting accounting(store);
  auto publish = [&](int tid, int32_t code, const Frames& frames, uint32_t weight) {
    publishCpu(ring, tid, code, frames, weight);
  };
  const std::pair<jint, uintptr_t> java1{2, 3}, java2{3, 4}, libc{kNativeFrameBci, 100}, k1{kKernelFrameBci, 901};
  const std::pair<jint, uintptr_t> marker{kKernelUnsampledBci, 0};
  publish(4, kKernelWhereItRanCode, {}, 1);         // no stack yet: stackless
  publish(4, 1, {k1, libc, java1, java2}, 1);       // sampled in the kernel under a C frame
  publish(4, kKernelWhereItRanCode, {}, 3);         // on its Java part
  publish(4, 1, {java2}, 1);
  publish(4, kKernelWhereItRanCode, {}, 2);         // the newer stack
  publish(4, kKernelWhereItRanCode, {}, 1);
  accounting.drain(ring);

  using Stack = std::vector<std::pair<jint, uintptr_t>>;
  std::map<Stack, uint64_t> byStack;
  store.counts().forEach([&](const TraceStore::Key& key, uint64_t n) {
    Stack stack;
    for (const StoredFrame& f : store.frames(key.trace)) stack.emplace_back(f.bci, reinterpret_cast<uintptr_t>(f.method));
    byStack[stack] += n;
  });
  EXPECT_EQ((byStack[{marker, java1, java2}]), 3u);
  EXPECT_EQ((byStack[{marker, java2}]), 3u);
  EXPECT_EQ(byStack.size(), 4u);
  EXPECT_EQ(accounting.failures(Bucket::kCpuUnsampled), 1u);
  EXPECT_EQ(accounting.kernelUnsampled(), 6u);
  EXPECT_EQ(accounting.kernelSampled(), 1u);
  EXPECT_EQ(accounting.recorded() + accounting.failuresTotal(), 9u);
}

// Ticks settled later (at a thread's end, after its scopes closed) carry the label set of the
// sample whose stack they land on, in the store and for the listener (the .jfr's labels), not the
// thread's labels at their settlement.
TEST(SampleAccounting, SettledTicksTakeTheLabelsOfTheStackTheyLandOn) {
  SampleRing ring(64, 8);
  TraceStore store;
  SampleAccounting accounting(store);
  struct Labels : DrainListener {
    std::vector<uint32_t> seen;
    void onDrained(const SampleSlot& slot, uint32_t, int32_t) override { seen.push_back(slot.labels); }
  } listener;
  accounting.setListener(&listener);
  auto publish = [&](int32_t code, const Frames& frames, uint32_t labels, bool site) {
    publishCpu(ring, 5, code, frames, 1, site, labels);
  };
  const std::pair<jint, uintptr_t> java1{2, 3}, java2{3, 4}, libc{kNativeFrameBci, 100};
  const std::pair<jint, uintptr_t> marker{kKernelUnsampledBci, 0};
  publish(1, {marker, libc, java1}, 7, true);  // a system-call site under label set 7
  publish(1, {java2}, 8, false);               // where it last ran, under set 8
  publish(kKernelDebtCode, {}, 0, false);      // settled with no label: to the site, set 7
  publish(kKernelWhereItRanCode, {}, 0, false);  // to the last stack, set 8
  accounting.drain(ring);

  EXPECT_EQ(listener.seen, (std::vector<uint32_t>{7, 8, 7, 8}));
  std::map<uint32_t, uint64_t> byLabels;
  store.counts().forEach([&](const TraceStore::Key& key, uint64_t n) { byLabels[key.labels] += n; });
  EXPECT_EQ(byLabels, (std::map<uint32_t, uint64_t>{{7, 2}, {8, 2}}));
  EXPECT_EQ(accounting.kernelUnsampled(), 2u + 1);
}

TEST(TickBuckets, AgctCodesHaveNames) {
  EXPECT_STREQ(bucketName(bucketForCode(0)), "no_java_frame");
  EXPECT_STREQ(bucketName(bucketForCode(-1)), "no_class_load");
  EXPECT_STREQ(bucketName(bucketForCode(-2)), "gc_active");
  EXPECT_STREQ(bucketName(bucketForCode(-3)), "unknown_not_java");
  EXPECT_STREQ(bucketName(bucketForCode(-4)), "not_walkable_not_java");
  EXPECT_STREQ(bucketName(bucketForCode(-5)), "unknown_java");
  EXPECT_STREQ(bucketName(bucketForCode(-6)), "not_walkable_java");
  EXPECT_STREQ(bucketName(bucketForCode(-7)), "unknown_state");
  EXPECT_STREQ(bucketName(bucketForCode(-8)), "thread_exit");
  EXPECT_STREQ(bucketName(bucketForCode(-9)), "deopt");
  EXPECT_STREQ(bucketName(bucketForCode(-10)), "safepoint");
  EXPECT_STREQ(bucketName(bucketForCode(kNotJavaThreadCode)), "not_java_thread");
  EXPECT_STREQ(bucketName(bucketForCode(-11)), "unknown_error");
}

// A walk of a stack `depth` frames deep, writing at most `max` (what AGCT and the walkers do).
auto walkOf(int depth) {
  return [depth](ASGCT_CallFrame* frames, int32_t max) {
    int n = depth < max ? depth : max;
    for (int i = 0; i < n; i++) frames[i] = {i, m(i + 1)};
    return n;
  };
}

// Fills and publishes one sample of a stack `depth` frames deep, as a handler does.
void publishStack(SampleRing& ring, int depth) {
  SampleSlot* s = ring.tryClaim_signalSafe();
  ASSERT_NE(s, nullptr);
  s->tid = 1;
  s->numFrames = fillFrames_signalSafe(ring, s, walkOf(depth));
  ring.publish_signalSafe(s);
}

// Frames stored per trace, and how many traces end in the [truncated] marker.
std::pair<std::vector<size_t>, int> storedDepths(const TraceStore& store) {
  std::vector<size_t> sizes;
  int marked = 0;
  store.counts().forEach([&](const TraceStore::Key& key, uint64_t) {
    std::vector<StoredFrame> f = store.frames(key.trace);
    bool cut = f.back().bci == kTruncatedFrameBci;
    if (cut) {
      EXPECT_EQ(f.back().method, nullptr);
      EXPECT_EQ(f[f.size() - 2], (StoredFrame{m(f.size() - 1), static_cast<int>(f.size()) - 2}));
    }
    marked += cut;
    sizes.push_back(cut ? f.size() - 1 : f.size());
  });
  std::sort(sizes.begin(), sizes.end());
  return {sizes, marked};
}

TEST(SampleAccounting, WithoutSpillBuffersAStackThatFillsItsSlotIsMarkedTruncatedAtItsRoot) {
  SampleRing ring(8, 4);  // slots of 4 frames, no spill buffers: depth=4
  TraceStore store;
  SampleAccounting accounting(store);
  publishStack(ring, 6);
  publishStack(ring, 3);
  accounting.drain(ring);
  EXPECT_EQ(accounting.recorded(), 2u) << "a truncated stack is still a recorded sample";
  auto [sizes, marked] = storedDepths(store);
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 4}));
  EXPECT_EQ(marked, 1);
}

TEST(SampleAccounting, AStackDeeperThanItsSlotContinuesInASpillBufferIntact) {
  SampleRing ring(8, 4, 2, 16);  // slots of 4 frames; 2 spill buffers of 16
  TraceStore store;
  SampleAccounting accounting(store);
  publishStack(ring, 10);
  accounting.drain(ring);
  auto [sizes, marked] = storedDepths(store);
  EXPECT_EQ(sizes, (std::vector<size_t>{10}));
  EXPECT_EQ(marked, 0);
  EXPECT_EQ(ring.spill().lent(), 1u);
  publishStack(ring, 11);  // the buffer came back with the drain
  publishStack(ring, 12);
  accounting.drain(ring);
  EXPECT_EQ(ring.spill().refused(), 0u);
  EXPECT_EQ(storedDepths(store).second, 0);
}

TEST(SampleAccounting, WhenEverySpillBufferIsLentOutTheStackIsCutAtItsSlotAndMarked) {
  SampleRing ring(8, 4, 2, 16);
  TraceStore store;
  SampleAccounting accounting(store);
  publishStack(ring, 10);
  publishStack(ring, 11);
  publishStack(ring, 12);  // both buffers are still lent: not drained yet
  publishStack(ring, 20);
  accounting.drain(ring);
  auto [sizes, marked] = storedDepths(store);
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 10, 11})) << "12 and 20 cut to the same 4 frames: one trace";
  EXPECT_EQ(marked, 1);
  EXPECT_EQ(ring.spill().refused(), 2u);
  publishStack(ring, 20);  // deeper than a spill buffer: cut at 16 and marked
  accounting.drain(ring);
  EXPECT_EQ(storedDepths(store).first, (std::vector<size_t>{4, 10, 11, 16}));
}

TEST(SampleAccounting, AThreadWhoseLastStackWasDeepWalksStraightIntoASpillBuffer) {
  SampleRing ring(8, 4, 2, 16);
  TraceStore store;
  SampleAccounting accounting(store);
  DeepStackHints hints;
  int walks = 0;
  auto publish = [&](int depth) {
    SampleSlot* s = ring.tryClaim_signalSafe();
    ASSERT_NE(s, nullptr);
    s->tid = 1;
    auto walk = walkOf(depth);
    s->numFrames = fillFrames_signalSafe(ring, s, [&](ASGCT_CallFrame* f, int32_t max) { walks++; return walk(f, max); },
                                         &hints, 1);
    ring.publish_signalSafe(s);
    accounting.drain(ring);
  };
  publish(10);
  EXPECT_EQ(walks, 2) << "the first deep stack: into the slot, then into a buffer";
  publish(10);
  EXPECT_EQ(walks, 3) << "expected deep: one walk";
  publish(3);
  EXPECT_EQ(walks, 5) << "shallow again: the buffer walk, then the slot";
  publish(3);
  EXPECT_EQ(walks, 6);
  auto [sizes, marked] = storedDepths(store);
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 10}));
  EXPECT_EQ(marked, 0);
}
