// store/TimelineLog: samples land in 1 ms columns; past the bound the columns widen and merge
// with every weight kept; a column that alone holds more than the bound gives the timeline up.
#include "store/TimelineLog.h"

#include <gtest/gtest.h>

namespace candor {
namespace {

uint64_t sum(const TimelineLog& log) {
  uint64_t s = 0;
  for (const auto& [key, w] : log.entries()) s += w;
  return s;
}

TEST(TimelineLog, OffUntilStarted) {
  TimelineLog log;
  log.add(5'000'000, 1, 0, SampleKind::kCpu, ThreadState::kRunning, 7, Bucket::kNoJavaFrame, 1);
  EXPECT_TRUE(log.entries().empty());
}

TEST(TimelineLog, SamplesOfOneMillisecondThreadAndTraceShareAnEntry) {
  TimelineLog log;
  log.start(1'000'000'000);
  log.add(1'000'000'000 + 2'100'000, 1, 0, SampleKind::kCpu, ThreadState::kRunning, 7, Bucket::kNoJavaFrame, 1);
  log.add(1'000'000'000 + 2'900'000, 1, 0, SampleKind::kCpu, ThreadState::kRunning, 7, Bucket::kNoJavaFrame, 2);
  log.add(1'000'000'000 + 3'000'000, 1, 0, SampleKind::kCpu, ThreadState::kRunning, 7, Bucket::kNoJavaFrame, 1);
  log.add(1'000'000'000 + 3'000'000, 2, 0, SampleKind::kCpu, ThreadState::kRunning, TimelineLog::kNoTrace,
          Bucket::kGcActive, 1);
  log.add(999'000'000, 1, 0, SampleKind::kCpu, ThreadState::kRunning, 7, Bucket::kNoJavaFrame, 1);  // before the start
  ASSERT_EQ(log.entries().size(), 4u);
  auto at = [&](uint32_t bucket, int32_t tid, uint32_t trace, Bucket failure) {
    auto it = log.entries().find({bucket, tid, trace, SampleKind::kCpu, ThreadState::kRunning, failure, 0});
    return it == log.entries().end() ? uint64_t{0} : it->second;
  };
  EXPECT_EQ(at(2, 1, 7, Bucket::kNoJavaFrame), 3u);
  EXPECT_EQ(at(3, 1, 7, Bucket::kNoJavaFrame), 1u);
  EXPECT_EQ(at(3, 2, TimelineLog::kNoTrace, Bucket::kGcActive), 1u);
  EXPECT_EQ(at(0, 1, 7, Bucket::kNoJavaFrame), 1u);
  EXPECT_EQ(log.bucketNs(), 1'000'000u);
}

TEST(TimelineLog, StaysBoundedByWideningColumnsAndKeepsEveryWeight) {
  TimelineLog log;
  log.start(0);
  uint64_t added = 0;
  for (uint64_t ms = 0; ms < 600'000; ms++) {  // ten minutes, two threads, a sample per ms each
    for (int32_t tid = 1; tid <= 2; tid++) {
      log.add(ms * 1'000'000, tid, 0, SampleKind::kCpu, ThreadState::kRunning, static_cast<uint32_t>(ms % 3),
              Bucket::kNoJavaFrame, 1);
      added++;
    }
    ASSERT_LE(log.entries().size(), TimelineLog::kMaxEntries);
  }
  EXPECT_TRUE(log.enabled());
  EXPECT_GT(log.bucketNs(), 1'000'000u);
  EXPECT_LE(log.bucketNs(), 256'000'000u);  // finer than a pixel of a 2000-pixel page over ten minutes
  EXPECT_EQ(sum(log), added);
}

TEST(TimelineLog, GivesUpWhenOneColumnHoldsMoreStacksThanTheBound) {
  TimelineLog log;
  log.start(0);
  for (uint32_t trace = 0; trace <= TimelineLog::kMaxEntries; trace++) {
    log.add(0, 1, 0, SampleKind::kCpu, ThreadState::kRunning, trace, Bucket::kNoJavaFrame, 1);
  }
  EXPECT_FALSE(log.enabled());
  EXPECT_TRUE(log.givenUp());
  EXPECT_TRUE(log.entries().empty());
  log.add(0, 1, 0, SampleKind::kCpu, ThreadState::kRunning, 1, Bucket::kNoJavaFrame, 1);
  EXPECT_TRUE(log.entries().empty());
}

}  // namespace
}  // namespace candor
