#include "engine/AllocSampler.h"
#include "jvm/ClassNames.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace candor;

// Small objects stand for about the mean interval; huge ones for their own size; the expected
// weight of one byte allocated is one byte (the estimator is unbiased for every size).
TEST(AllocSampler, WeightIsSizeOverSamplingProbability) {
  const uint64_t interval = 512 * 1024;
  EXPECT_NEAR(static_cast<double>(AllocSampler::weightOf(16, interval)), interval + 8, 2);
  EXPECT_NEAR(static_cast<double>(AllocSampler::weightOf(100 * interval, interval)), 100.0 * interval, 1);
  EXPECT_EQ(AllocSampler::weightOf(1000, 0), 1000u);  // alloc=0: every allocation, at its size
  for (uint64_t size : {16u, 4096u, 512u * 1024u, 4u * 1024u * 1024u}) {
    double p = -std::expm1(-static_cast<double>(size) / interval);
    EXPECT_NEAR(p * AllocSampler::weightOf(size, interval) / size, 1.0, 1e-6) << size;
  }
}

TEST(ClassNames, JavaNamesOfSignatures) {
  EXPECT_EQ(ClassNames::javaNameOf("[B"), "byte[]");
  EXPECT_EQ(ClassNames::javaNameOf("Ljava/lang/String;"), "java.lang.String");
  EXPECT_EQ(ClassNames::javaNameOf("[[Ljava/lang/Object;"), "java.lang.Object[][]");
  EXPECT_EQ(ClassNames::javaNameOf("[J"), "long[]");
  ClassNames& names = ClassNames::instance();
  uint32_t id = names.intern("Lx/Y$Z;");
  EXPECT_EQ(names.intern("Lx/Y$Z;"), id);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(names.javaName(id), "x.Y$Z");
  EXPECT_EQ(names.signature(id), "Lx/Y$Z;");
  EXPECT_EQ(names.javaName(0), "[unknown class]");
}

// loop=: classes no sample of the last two intervals named are forgotten; ids are never reused.
TEST(ClassNames, ForgetsClassesTheLastTwoIntervalsDidNotName) {
  ClassNames names;
  uint32_t bytes = names.intern("[B");
  uint32_t once = names.intern("Lgen/C1;");
  names.startInterval();  // interval 0 ended: both named in it
  EXPECT_EQ(bytes, names.intern("[B"));
  names.startInterval();  // interval 1 ended: C1 last named in 0, still kept
  EXPECT_EQ("Lgen/C1;", names.signature(once));
  names.intern("[B");
  names.startInterval();  // interval 2 ended: C1 forgotten
  EXPECT_EQ(1u, names.size());
  EXPECT_EQ("", names.signature(once));
  EXPECT_EQ("[unknown class]", names.javaName(once));
  uint32_t again = names.intern("Lgen/C1;");
  EXPECT_NE(once, again);
  EXPECT_EQ("Lgen/C1;", names.signature(again));
}
