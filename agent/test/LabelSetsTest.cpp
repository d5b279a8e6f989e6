#include "store/LabelSets.h"

#include <gtest/gtest.h>

#include "concurrent/Clock.h"
#include "concurrent/ThreadLabels.h"

using namespace candor;

namespace {
uint32_t seen(int tid) { return ThreadLabels::process().of_signalSafe(tid); }
}  // namespace

TEST(LabelSets, OneIdPerSetPublishedForTheThread) {
  LabelSets sets;
  uint32_t a = sets.enter(101, {{"endpoint", "/a"}});
  uint32_t b = sets.enter(102, {{"endpoint", "/b"}, {"span", "7"}});
  EXPECT_NE(a, LabelSets::kNone);
  EXPECT_NE(a, b);
  EXPECT_EQ(a, sets.enter(103, {{"endpoint", "/a"}}));  // the same set, the same id
  EXPECT_EQ(a, seen(101));
  EXPECT_EQ(b, seen(102));
  EXPECT_EQ((LabelPairs{{"endpoint", "/b"}, {"span", "7"}}), sets.pairs(b));
  ASSERT_NE(nullptr, sets.value(b, "span"));
  EXPECT_EQ("7", *sets.value(b, "span"));
  EXPECT_EQ(nullptr, sets.value(a, "span"));
  EXPECT_EQ(LabelSets::kNone, sets.enter(101, {}));  // leaving every scope
  EXPECT_EQ(LabelSets::kNone, seen(101));
  EXPECT_TRUE(sets.pairs(LabelSets::kNone).empty());
  sets.forget(102);
  EXPECT_EQ(LabelSets::kNone, seen(102));
  sets.forget(103);
}

TEST(LabelSets, BoundedWithTheOverflowCounted) {
  LabelSets sets(2);
  uint32_t one = sets.enter(201, {{"k", "1"}});
  sets.enter(201, {{"k", "2"}});
  EXPECT_EQ(LabelSets::kOverflow, sets.enter(201, {{"k", "3"}}));
  EXPECT_EQ(LabelSets::kOverflow, seen(201));
  EXPECT_EQ((LabelPairs{{"candor.labels", "overflow"}}), sets.pairs(LabelSets::kOverflow));
  EXPECT_EQ(1u, sets.refused());
  EXPECT_EQ(one, sets.enter(201, {{"k", "1"}}));  // known sets still resolve
  sets.forget(201);
}

TEST(LabelSets, PruneKeepsOnlyTheSetsThreadsAreIn) {
  LabelSets sets;
  uint32_t gone = sets.enter(301, {{"span", "1"}});
  uint32_t kept = sets.enter(302, {{"span", "2"}});
  sets.enter(301, {});
  sets.prune();
  EXPECT_EQ(1u, sets.size());
  EXPECT_TRUE(sets.pairs(gone).empty());  // a forgotten id: no labels
  EXPECT_EQ((LabelPairs{{"span", "2"}}), sets.pairs(kept));
  uint32_t again = sets.enter(301, {{"span", "1"}});
  EXPECT_NE(gone, again);  // ids are never reused
  sets.forget(301);
  sets.forget(302);
}

TEST(LabelSets, TextSplitsBackUnambiguously) {
  EXPECT_EQ("endpoint=/a,span=7", labelText({{"endpoint", "/a"}, {"span", "7"}}));
  EXPECT_EQ("q=a%3Db%2Cc%25", labelText({{"q", "a=b,c%"}}));
  EXPECT_EQ("", labelText({}));
}

// walk=copy reads a sample long after it was taken: the set at the sample's time, not the current.
TEST(LabelSets, HistoryGivesTheSetInForceAtASamplesTime) {
  LabelSets sets;
  sets.keepHistory(true);
  uint64_t before = monotonicNs();
  uint32_t a = sets.enter(401, {{"endpoint", "/a"}});
  uint64_t inA = monotonicNs();
  uint32_t b = sets.enter(401, {{"endpoint", "/b"}});
  uint64_t inB = monotonicNs();
  sets.enter(401, {});
  EXPECT_EQ(LabelSets::kNone, sets.idAt(401, before));  // before its first scope
  EXPECT_EQ(a, sets.idAt(401, inA));
  EXPECT_EQ(b, sets.idAt(401, inB));
  EXPECT_EQ(LabelSets::kNone, sets.idAt(401, monotonicNs()));
  EXPECT_EQ(LabelSets::kNone, sets.idAt(402, inA));  // a thread that never changed: its current set
  sets.prune();
  EXPECT_EQ((LabelPairs{{"endpoint", "/b"}}), sets.pairs(b));  // still in the history: kept
  // More changes than are kept: a sample older than the oldest is unknown, never a wrong set.
  for (int i = 0; i < static_cast<int>(LabelSets::kMaxChanges) + 5; i++) sets.enter(401, {{"i", std::to_string(i)}});
  EXPECT_EQ(LabelSets::kUnknown, sets.idAt(401, inA));
  EXPECT_EQ((LabelPairs{{"candor.labels", "unknown"}}), sets.pairs(LabelSets::kUnknown));
  sets.forget(401);
}

// A session that starts while a thread is in a scope (candor attach start, a second session): the
// history starts empty, and the thread's first change after it must not make its earlier samples
// unlabelled: before that change the thread was in the set it had at the start.
TEST(LabelSets, HistoryStartedInAScopeKeepsThatScopeBeforeTheFirstChange) {
  LabelSets sets;
  uint32_t a = sets.enter(403, {{"endpoint", "/a"}});  // no session yet: no history
  sets.keepHistory(true);                              // the session starts
  uint64_t sampled = monotonicNs();                    // a sample the reader reads later
  sets.enter(403, {});                                 // the scope closes
  uint32_t b = sets.enter(403, {{"endpoint", "/b"}});
  EXPECT_EQ(a, sets.idAt(403, sampled));
  EXPECT_EQ(b, sets.idAt(403, monotonicNs()));
  sets.enter(404, {{"endpoint", "/b"}});               // not in a scope before: none, as before
  uint64_t inB = monotonicNs();
  EXPECT_EQ(b, sets.idAt(404, inB));
  EXPECT_EQ(LabelSets::kNone, sets.idAt(404, sampled));
  sets.prune();  // no thread is in /a any more, but a sample from its time may still be read
  EXPECT_EQ((LabelPairs{{"endpoint", "/a"}}), sets.pairs(a));
  sets.forget(403);
  sets.forget(404);
}

// The reader tells how far it has read; the history keeps what it may still ask for: the change in
// force then and every later one, however many (a thread with 100 us scopes makes 1,000 in a pass).
TEST(LabelSets, HistoryKeepsWhatTheReaderHasNotRead) {
  LabelSets sets;
  sets.keepHistory(true);
  uint32_t a = sets.enter(701, {{"endpoint", "/a"}});
  uint64_t inA = monotonicNs();
  sets.readUpTo(inA);  // every sample before inA is read; one at inA may come yet
  std::vector<std::pair<uint64_t, uint32_t>> later;
  for (int i = 0; i < 1000; i++) {
    uint32_t id = sets.enter(701, {{"i", std::to_string(i)}});
    later.emplace_back(monotonicNs(), id);
  }
  EXPECT_EQ(a, sets.idAt(701, inA));
  for (const auto& [time, id] : later) ASSERT_EQ(id, sets.idAt(701, time));
  sets.readUpTo(later[500].first);  // read further: the changes before the 501st may go
  sets.enter(701, {});
  EXPECT_EQ(LabelSets::kUnknown, sets.idAt(701, inA));
  EXPECT_EQ(later[500].second, sets.idAt(701, later[500].first));
  EXPECT_EQ(later[999].second, sets.idAt(701, later[999].first));
  sets.forget(701);
}

// Threads that end without ever entering a scope (most threads of most services) leave no history
// behind: a thread pool churning threads would otherwise grow it by one entry per thread.
TEST(LabelSets, ThreadsNeverInAScopeKeepNoHistory) {
  LabelSets sets;
  sets.keepHistory(true);
  for (int tid = 500; tid < 600; tid++) sets.forget(tid);
  EXPECT_EQ(0u, sets.threadsWithHistory());
  uint32_t a = sets.enter(601, {{"endpoint", "/a"}});
  uint64_t inA = monotonicNs();
  sets.forget(601);  // ended in a scope: its end is noted, so a late sample still finds its set
  EXPECT_EQ(1u, sets.threadsWithHistory());
  EXPECT_EQ(a, sets.idAt(601, inA));
  EXPECT_EQ(LabelSets::kNone, sets.idAt(601, monotonicNs()));
  EXPECT_EQ(LabelSets::kNone, sets.idAt(550, inA));  // ended without a scope: none
}
