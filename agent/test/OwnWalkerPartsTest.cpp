// The pieces of walk=vm that need no JVM: the option, the walk_fault bucket, stub-frame tags.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "base/Vocabulary.h"
#include "control/OptionParser.h"
#include "jvm/StubNames.h"
#include "output/StatsWriter.h"
#include "output/SummaryWriter.h"
#include "walk/vm/ScopeDecoder.h"
#include "walk/vm/VmLayout.h"

using namespace candor;

TEST(OwnWalker, WalkOption) {
  EXPECT_EQ(parseOptions("").options.walk, WalkMode::kVm);
  EXPECT_EQ(parseOptions("walk=vm").options.walk, WalkMode::kVm);
  EXPECT_EQ(parseOptions("walk=agct").options.walk, WalkMode::kAgct);
  EXPECT_EQ(parseOptions("walk=remote").options.walk, WalkMode::kRemote);
  ParseResult bad = parseOptions("walk=remote2");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("agct, vm or remote"), std::string::npos) << bad.error;
  EXPECT_NE(optionsHelp().find("walk"), std::string::npos);
  EXPECT_STREQ(walkModeName(WalkMode::kVm), "vm");
  EXPECT_STREQ(walkModeName(WalkMode::kRemote), "remote");
}

TEST(OwnWalker, WalkFaultIsANamedFailure) {
  EXPECT_EQ(bucketForCode(kWalkFaultCode), Bucket::kWalkFault);
  EXPECT_STREQ(bucketName(bucketForCode(kRemoteBusyCode)), "remote_busy");
  EXPECT_STREQ(bucketName(bucketForCode(kRemoteTimeoutCode)), "remote_timeout");
  EXPECT_STREQ(bucketName(Bucket::kWalkFault), "walk_fault");
  EXPECT_STREQ(bucketName(bucketForCode(-11)), "unknown_error");
}

TEST(OwnWalker, StubTagsAreNeverMethodIds) {
  StubNames::clearForTest();
  static const char kCode[256] = {};
  StubNames::addRange(kCode + 16, 32, "updateBytesCRC32");
  StubNames::addRange(kCode + 128, 64, "jlong_disjoint_arraycopy");
  jmethodID crc = StubNames::tagFor_signalSafe(reinterpret_cast<uintptr_t>(kCode + 20), "StubRoutines (1)", true);
  ASSERT_TRUE(StubNames::isStub(crc));
  EXPECT_EQ(StubNames::nameOf(crc), "StubRoutines::updateBytesCRC32");
  jmethodID copy = StubNames::tagFor_signalSafe(reinterpret_cast<uintptr_t>(kCode + 191), "x", false);
  EXPECT_EQ(StubNames::nameOf(copy), "jlong_disjoint_arraycopy");
  // No range covers it: the blob's own name (a string in a loaded image) is used.
  static const char kBlobName[] = "_new_array_Java";
  jmethodID blob = StubNames::tagFor_signalSafe(reinterpret_cast<uintptr_t>(kCode + 100), kBlobName, false);
  ASSERT_TRUE(StubNames::isStub(blob));
  EXPECT_EQ(StubNames::nameOf(blob), "_new_array_Java");
  EXPECT_EQ(StubNames::tagFor_signalSafe(reinterpret_cast<uintptr_t>(kCode + 101), kBlobName, false), blob);
  int aligned = 0;
  EXPECT_FALSE(StubNames::isStub(reinterpret_cast<jmethodID>(&aligned)));  // real ids are aligned
  StubNames::clearForTest();
}

TEST(OwnWalker, LayoutLoadFailsWithoutAJvm) {
  VmLayout layout;
  std::string missing;
  EXPECT_FALSE(VmLayoutLoader::load(&layout, &missing));
  EXPECT_NE(missing.find("gHotSpotVMStructs"), std::string::npos) << missing;
}

TEST(OwnWalker, OutputsSayWhichWalkerRan) {
  ProfileReport r;
  r.walker = "vm";
  std::ostringstream stats, summary;
  writeStats(r, stats);
  writeSummary(r, summary, 5);
  EXPECT_NE(stats.str().find("\"walker\": \"vm\""), std::string::npos) << stats.str();
  EXPECT_NE(summary.str().find("walker:    vm"), std::string::npos) << summary.str();
}

namespace {
// HotSpot's writers: CompressedWriteStream::write_int of JDK 17 (Pack200, X = 0, L = 192) and
// UNSIGNED5::write_uint of JDK 21+ (X = 1, L = 191), both with H = 64 and at most 5 bytes.
std::vector<uint8_t> encode(uint32_t value, bool excludes0) {
  const uint32_t x = excludes0 ? 1 : 0, l = 192 - x, h = 64;
  std::vector<uint8_t> out;
  uint32_t sum = value;
  for (int i = 0;; i++) {
    if (sum < l || i == 4) {
      out.push_back(static_cast<uint8_t>(x + sum));
      return out;
    }
    sum -= l;
    out.push_back(static_cast<uint8_t>(x + l + (sum % h)));
    sum >>= 6;
  }
}
}  // namespace

TEST(OwnWalker, DebugInfoIntsDecodeInBothForms) {
  const uint32_t values[] = {0, 1, 63, 190, 191, 192, 193, 1000, 12345, 100000, 1u << 24, 0x7FFFFFFF};
  for (bool excludes0 : {false, true}) {
    std::vector<uint8_t> stream;
    for (uint32_t v : values) {
      std::vector<uint8_t> e = encode(v, excludes0);
      stream.insert(stream.end(), e.begin(), e.end());
    }
    if (excludes0) EXPECT_EQ(std::count(stream.begin(), stream.end(), 0), 0);  // the point of X = 1
    auto p = reinterpret_cast<uintptr_t>(stream.data());
    for (uint32_t v : values) {
      EXPECT_EQ(static_cast<uint32_t>(ScopeDecoder::readUnsigned5_signalSafe(&p, excludes0)), v)
          << "excludes0=" << excludes0;
    }
    EXPECT_EQ(p, reinterpret_cast<uintptr_t>(stream.data() + stream.size()));
  }
}
