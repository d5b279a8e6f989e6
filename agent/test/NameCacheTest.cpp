#include <gtest/gtest.h>

#include "jvm/MethodResolver.h"

using namespace candor;

namespace {
jmethodID id(uintptr_t n) { return reinterpret_cast<jmethodID>(n); }
MethodInfo named(const char* name) {
  MethodInfo m;
  m.className = "a.B";
  m.methodName = name;
  return m;
}
}  // namespace

// loop=: the cache keeps what the last two intervals named, so that days of rotation with class
// churn (generated classes, unloaded ones) do not grow it.
TEST(NameCache, ForgetsMethodsTheLastTwoIntervalsDidNotName) {
  MethodResolver r(nullptr);
  r.rememberForTest(id(0x10), named("hot"));
  r.rememberForTest(id(0x20), named("once"));
  size_t both = r.bytes();
  EXPECT_GT(both, 0u);
  r.startInterval();  // interval 0 ends: both were named in it
  EXPECT_EQ(2u, r.size());
  EXPECT_EQ("hot", r.resolve(id(0x10)).methodName);  // named in interval 1
  r.startInterval();  // interval 1 ends: "once" was named in 0, still within two intervals
  EXPECT_EQ(2u, r.size());
  r.resolve(id(0x10));
  r.startInterval();  // interval 2 ends: "once" last named in 0
  EXPECT_EQ(1u, r.size());
  EXPECT_EQ("hot", r.resolve(id(0x10)).methodName);
  EXPECT_LT(r.bytes(), both);
}
