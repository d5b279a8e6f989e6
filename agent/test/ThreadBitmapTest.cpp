#include "concurrent/ThreadBitmap.h"

#include <gtest/gtest.h>

using namespace candor;

TEST(ThreadBitmap, AddRemoveContains) {
  static ThreadBitmap set;  // 512 KB: static, as in the agent
  EXPECT_FALSE(set.contains_signalSafe(1234));
  set.add(1234);
  set.add(1235);
  EXPECT_TRUE(set.contains_signalSafe(1234));
  EXPECT_TRUE(set.contains_signalSafe(1235));
  EXPECT_FALSE(set.contains_signalSafe(1236));
  set.remove(1234);
  EXPECT_FALSE(set.contains_signalSafe(1234));
  EXPECT_TRUE(set.contains_signalSafe(1235));
  set.add(ThreadBitmap::kMaxTid - 1);
  EXPECT_TRUE(set.contains_signalSafe(ThreadBitmap::kMaxTid - 1));
  for (int bad : {0, -5, static_cast<int>(ThreadBitmap::kMaxTid)}) {
    set.add(bad);
    EXPECT_FALSE(set.contains_signalSafe(bad)) << bad;
  }
  set.clear();
  EXPECT_FALSE(set.contains_signalSafe(1235));
}
