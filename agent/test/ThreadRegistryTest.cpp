// ThreadRegistry's loop= retirement: threads that ended leave the registry two intervals later,
// without taking their CPU out of the session's running total.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/ThreadRegistry.h"

namespace candor {
namespace {

int ownTid() { return static_cast<int>(syscall(SYS_gettid)); }

void burnCpu() {
  volatile uint64_t x = 1;
  for (int i = 0; i < 5'000'000; i++) x = x * 6364136223846793005ULL + i;
}

size_t recordsOf(ThreadRegistry& registry, int tid) {
  size_t n = 0;
  for (const ThreadRecord& r : registry.snapshot()) n += r.tid == tid ? 1 : 0;
  return n;
}

TEST(ThreadRegistry, EndedThreadsLeaveAfterTheNextInterval) {
  ThreadRegistry registry;
  registry.begin(nullptr, Options{}, false);
  int self = ownTid();
  registry.add(self, "worker", ThreadKind::kJava);
  registry.add(1001, "idle", ThreadKind::kJava);
  burnCpu();
  registry.remove(self, nullptr);
  uint64_t total = registry.armedCpuNs();
  EXPECT_GT(total, 0u);

  registry.retireEnded();  // the interval it ended in closes: kept, marked
  ASSERT_EQ(1u, recordsOf(registry, self));
  for (const ThreadRecord& r : registry.snapshot()) EXPECT_EQ(r.tid == self, r.endedBeforeInterval);
  EXPECT_EQ(total, registry.armedCpuNs());

  registry.retireEnded();  // the next one closes: forgotten, its CPU still counted
  EXPECT_EQ(0u, recordsOf(registry, self));
  EXPECT_EQ(1u, recordsOf(registry, 1001));  // a live thread stays, however many intervals pass
  EXPECT_EQ(total, registry.armedCpuNs());
  registry.end(nullptr);
}

TEST(ThreadRegistry, AThreadThatComesBackIsNotRetired) {
  ThreadRegistry registry;
  registry.begin(nullptr, Options{}, false);
  registry.add(1002, "pool-1", ThreadKind::kJava);
  registry.remove(1002, nullptr);
  registry.retireEnded();
  registry.add(1002, "pool-1", ThreadKind::kJava);  // the same tid re-attached (or reused)
  registry.retireEnded();
  std::vector<ThreadRecord> records = registry.snapshot();
  ASSERT_EQ(1u, records.size());
  EXPECT_TRUE(records[0].live);
  EXPECT_FALSE(records[0].endedBeforeInterval);
  registry.end(nullptr);
}

}  // namespace
}  // namespace candor
