#include "jvm/ModifiedUtf8.h"

#include <gtest/gtest.h>

using namespace candor;

TEST(ModifiedUtf8, AsciiAndBmpUnchanged) {
  EXPECT_EQ(standardUtf8("java.util.HashMap"), "java.util.HashMap");
  EXPECT_EQ(standardUtf8("caf\xC3\xA9"), "caf\xC3\xA9");              // é
  EXPECT_EQ(standardUtf8("\xE4\xB8\xAD"), "\xE4\xB8\xAD");            // 中
  EXPECT_EQ(standardUtf8(nullptr), "");
}

TEST(ModifiedUtf8, SurrogatePairsBecomeFourByteSequences) {
  // U+1D525 MATHEMATICAL FRAKTUR SMALL H: surrogates D835 DD25 in modified UTF-8.
  EXPECT_EQ(standardUtf8("\xED\xA0\xB5\xED\xB4\xA5"), "\xF0\x9D\x94\xA5");
  EXPECT_EQ(standardUtf8("a\xED\xA0\xB5\xED\xB4\xA5z"), "a\xF0\x9D\x94\xA5z");
}

TEST(ModifiedUtf8, NulAndLoneSurrogates) {
  EXPECT_EQ(standardUtf8("a\xC0\x80z"), "a?z");
  EXPECT_EQ(standardUtf8("\xED\xA0\xB5z"), "\xEF\xBF\xBDz");  // high surrogate alone
  EXPECT_EQ(standardUtf8("\xED\xB4\xA5"), "\xEF\xBF\xBD");     // low surrogate alone
}
