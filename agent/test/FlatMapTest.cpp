#include "store/FlatMap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <tuple>

using namespace candor;

namespace {
// A key with three parts, as the trace store's edges have (parent, method, bci).
struct Key3 {
  uint32_t a = 0;
  uintptr_t b = 0;
  int32_t c = 0;
  bool operator==(const Key3& o) const { return a == o.a && b == o.b && c == o.c; }
};
struct Key3Hash {
  size_t operator()(const Key3& k) const { return mixHash((uint64_t(k.a) * 0x9e3779b97f4a7c15ULL) ^ k.b ^ uint32_t(k.c)); }
};
using Map = FlatMap<Key3, uint32_t, Key3Hash>;
}  // namespace

TEST(FlatMap, EachKeyPartTellsEntriesApart) {
  Map map;
  bool isNew = false;
  EXPECT_EQ(1u, map.findOrInsert({0, 0x1000, 5}, 1, &isNew));
  EXPECT_TRUE(isNew);
  EXPECT_EQ(1u, map.findOrInsert({0, 0x1000, 5}, 99, &isNew));  // found: `fresh` is not used
  EXPECT_FALSE(isNew);
  EXPECT_EQ(2u, map.findOrInsert({1, 0x1000, 5}, 2, &isNew));
  EXPECT_EQ(3u, map.findOrInsert({0, 0x1008, 5}, 3, &isNew));
  EXPECT_EQ(4u, map.findOrInsert({0, 0x1000, -3}, 4, &isNew));
  EXPECT_EQ(5u, map.findOrInsert({0, 0, 0}, 5, &isNew));  // the all-zero key is a key like any other
  EXPECT_TRUE(isNew);
  EXPECT_EQ(5u, map.size());
  EXPECT_EQ(nullptr, map.find({2, 0x1000, 5}));
  EXPECT_EQ(5u, *map.find({0, 0, 0}));
  map.findOrInsert({0, 0, 0}, 0, &isNew) += 10;  // values are updated in place (the store's counts)
  EXPECT_EQ(15u, *map.find({0, 0, 0}));
}

TEST(FlatMap, EveryEntryIsFoundAgainAfterTheTableGrows) {
  Map map;
  EXPECT_EQ(nullptr, map.find({0, 8, 0}));  // empty: no table yet
  // Keys alike in all but one part, as a deep recursion's edges (one method, one bci, parent
  // after parent) and a wide fan-out's (one parent, many methods) are.
  constexpr uint32_t kEntries = 100000;
  bool isNew = false;
  for (uint32_t i = 0; i < kEntries; i++) {
    ASSERT_EQ(i, map.findOrInsert({i % 2 ? i : 0, 8 * (i % 2 ? 1 : i), 7}, i, &isNew));
    ASSERT_TRUE(isNew);
  }
  EXPECT_EQ(kEntries, map.size());
  EXPECT_GE(map.bytes(), 2 * kEntries * 24);  // at most half full
  uint64_t sum = 0;
  size_t seen = 0;
  map.forEach([&](const Key3&, uint32_t v) {
    sum += v;
    seen++;
  });
  EXPECT_EQ(kEntries, seen);
  EXPECT_EQ(uint64_t(kEntries) * (kEntries - 1) / 2, sum);
  for (uint32_t i = 0; i < kEntries; i++) ASSERT_EQ(i, *map.find({i % 2 ? i : 0, 8 * (i % 2 ? 1 : i), 7}));
  map.clear();
  EXPECT_EQ(0u, map.size());
  EXPECT_EQ(0u, map.bytes());
  EXPECT_EQ(nullptr, map.find({0, 0, 7}));
  EXPECT_EQ(3u, map.findOrInsert({0, 0, 7}, 3, &isNew));
  EXPECT_TRUE(isNew);
}

TEST(FlatMap, AgreesWithAStandardMapOnRandomKeys) {
  // Small key domains, so that many keys share two of their three parts and some hash alike.
  Map map;
  std::map<std::tuple<uint32_t, uintptr_t, int32_t>, uint32_t> truth;
  std::mt19937_64 random(14);
  bool isNew = false;
  for (uint32_t i = 0; i < 300000; i++) {
    Key3 k{static_cast<uint32_t>(random() % 5000), 8 * (random() % 64), static_cast<int32_t>(random() % 9) - 4};
    auto [it, inserted] = truth.try_emplace({k.a, k.b, k.c}, i);
    ASSERT_EQ(it->second, map.findOrInsert(k, i, &isNew));
    ASSERT_EQ(inserted, isNew);
  }
  EXPECT_EQ(truth.size(), map.size());
  for (const auto& [key, value] : truth) {
    ASSERT_EQ(value, *map.find({std::get<0>(key), std::get<1>(key), std::get<2>(key)}));
  }
}
