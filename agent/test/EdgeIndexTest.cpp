#include "store/EdgeIndex.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <tuple>

using namespace candor;

namespace {
const void* method(uintptr_t id) { return reinterpret_cast<const void*>(id); }
}  // namespace

TEST(EdgeIndex, EachKeyPartTellsEdgesApart) {
  EdgeIndex index;
  bool isNew = false;
  EXPECT_EQ(1u, index.findOrInsert(0, method(0x1000), 5, 1, &isNew));
  EXPECT_TRUE(isNew);
  EXPECT_EQ(1u, index.findOrInsert(0, method(0x1000), 5, 99, &isNew));  // found: `fresh` is not used
  EXPECT_FALSE(isNew);
  EXPECT_EQ(2u, index.findOrInsert(1, method(0x1000), 5, 2, &isNew));  // another parent
  EXPECT_EQ(3u, index.findOrInsert(0, method(0x1008), 5, 3, &isNew));  // another method
  EXPECT_EQ(4u, index.findOrInsert(0, method(0x1000), -3, 4, &isNew)); // another bci (a native frame's)
  EXPECT_EQ(5u, index.findOrInsert(0, nullptr, 5, 5, &isNew));          // no method (a failure frame)
  EXPECT_EQ(5u, index.size());
  EXPECT_EQ(EdgeIndex::kAbsent, index.find(2, method(0x1000), 5));
  EXPECT_EQ(5u, index.find(0, nullptr, 5));
}

TEST(EdgeIndex, EveryEdgeIsFoundAgainAfterTheTableGrows) {
  EdgeIndex index;
  EXPECT_EQ(EdgeIndex::kAbsent, index.find(0, method(8), 0));  // empty: no table yet
  // Keys alike in all but one part, as a deep recursion's (one method, one bci, parent after parent)
  // and a wide fan-out's (one parent, many methods) are.
  constexpr uint32_t kEdges = 100000;
  bool isNew = false;
  for (uint32_t i = 0; i < kEdges; i++) {
    ASSERT_EQ(i, index.findOrInsert(i % 2 ? i : 0, method(8 * (i % 2 ? 1 : i)), 7, i, &isNew));
    ASSERT_TRUE(isNew);
  }
  EXPECT_EQ(kEdges, index.size());
  EXPECT_GE(index.bytes(), 2 * kEdges * 24);  // at most half full
  for (uint32_t i = 0; i < kEdges; i++) ASSERT_EQ(i, index.find(i % 2 ? i : 0, method(8 * (i % 2 ? 1 : i)), 7));
  index.clear();
  EXPECT_EQ(0u, index.size());
  EXPECT_EQ(0u, index.bytes());
  EXPECT_EQ(EdgeIndex::kAbsent, index.find(0, method(0), 7));
  EXPECT_EQ(3u, index.findOrInsert(0, method(0), 7, 3, &isNew));
  EXPECT_TRUE(isNew);
}

TEST(EdgeIndex, AgreesWithAStandardMapOnRandomEdges) {
  // Small key domains, so that many keys share two of their three parts and some hash alike.
  EdgeIndex index;
  std::map<std::tuple<uint32_t, uintptr_t, int32_t>, uint32_t> truth;
  std::mt19937_64 random(14);
  bool isNew = false;
  for (uint32_t i = 0; i < 300000; i++) {
    uint32_t parent = static_cast<uint32_t>(random() % 5000);
    uintptr_t m = 8 * (random() % 64);
    auto bci = static_cast<int32_t>(random() % 9) - 4;
    auto [it, inserted] = truth.try_emplace({parent, m, bci}, i);
    ASSERT_EQ(it->second, index.findOrInsert(parent, method(m), bci, i, &isNew));
    ASSERT_EQ(inserted, isNew);
  }
  EXPECT_EQ(truth.size(), index.size());
  for (const auto& [key, child] : truth) {
    ASSERT_EQ(child, index.find(std::get<0>(key), method(std::get<1>(key)), std::get<2>(key)));
  }
}
