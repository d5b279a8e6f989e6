// The pieces of walk=vm that need no JVM: the option, the walk_fault bucket, stub-frame tags.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
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
    if (excludes0) {
      EXPECT_EQ(std::count(stream.begin(), stream.end(), 0), 0);  // the point of X = 1
    }
    auto p = reinterpret_cast<uintptr_t>(stream.data());
    for (uint32_t v : values) {
      EXPECT_EQ(static_cast<uint32_t>(ScopeDecoder::readUnsigned5_signalSafe(&p, excludes0)), v)
          << "excludes0=" << excludes0;
    }
    EXPECT_EQ(p, reinterpret_cast<uintptr_t>(stream.data() + stream.size()));
  }
}

namespace {
// A JDK 17-shaped nmethod in plain memory: PcDescs (pc offset, scope offset) and a scope stream
// of (sender, method index, bci + 1) triples; method "pointers" are ids the decoder only copies.
struct FakeNmethod {
  static constexpr int kPcDescSize = 16;
  alignas(8) uint8_t blob[512] = {};
  uint8_t code[128] = {};  // the instructions, zero (no jmp) unless a test writes some
  std::vector<uint8_t> scopes{0};  // offset 0 is serialized_null
  int pcDescs = 0;
  VmLayout layout;
  FakeNmethod() {
    layout.immutableData = false;
    layout.nmMethod = 0;
    layout.nmPcsBegin = {8, 4};
    layout.nmPcsEnd = {12, 4};
    layout.nmScopesData = {16, 8};
    layout.nmMetadata = {24, 4};
    layout.pcDescSize = kPcDescSize;
    layout.pcDescPcOffset = 0;
    layout.pcDescScopeOffset = 4;
    put<uint64_t>(0, 0xA000);  // the nmethod's own Method*
    put<int32_t>(8, 64);
    put<int32_t>(24, 384);
    for (int i = 1; i <= 8; i++) put<uint64_t>(384 + (i - 1) * 8, 0x1000u * i);  // method index i
    addPcDesc(-1, 0);  // HotSpot's sentinel
  }
  template <typename T>
  void put(int at, T v) { memcpy(blob + at, &v, sizeof v); }
  int scope(int sender, int methodIndex, int bci) {
    int at = static_cast<int>(scopes.size());
    for (int v : {sender, methodIndex, bci + 1}) scopes.push_back(static_cast<uint8_t>(v));  // < 192: one byte
    return at;
  }
  void addPcDesc(int pc, int scopeOffset) {
    put<int32_t>(64 + pcDescs * kPcDescSize, pc);
    put<int32_t>(64 + pcDescs * kPcDescSize + 4, scopeOffset);
    put<int32_t>(12, 64 + ++pcDescs * kPcDescSize);
    put<uint64_t>(16, reinterpret_cast<uintptr_t>(scopes.data()));
  }
  // "method@bci;..." innermost first.
  std::string decode(int pcOffset, bool top) {
    put<uint64_t>(16, reinterpret_cast<uintptr_t>(scopes.data()));
    BlobInfo b;
    b.blob = reinterpret_cast<uintptr_t>(blob);
    b.codeBegin = reinterpret_cast<uintptr_t>(code);
    b.codeEnd = b.codeBegin + sizeof code;
    JavaScope out[8];
    int n = ScopeDecoder(layout).decode_signalSafe(b, b.codeBegin + pcOffset, top, out, 8);
    std::string s;
    for (int i = 0; i < n; i++) s += (i ? ";" : "") + std::to_string(out[i].method / 0x1000) + "@" + std::to_string(out[i].bci);
    return s;
  }
};
}  // namespace

// A return address with no PcDesc of its own is a leaf call (a stub such as arraycopy or SHA-256,
// a C function): its frame gets only the inlined scopes that the PcDescs on both sides share.
TEST(OwnWalker, LeafCallGetsTheScopesBothNeighboursShare) {
  FakeNmethod nm;
  int root5 = nm.scope(0, 1, 5);
  int a = nm.scope(root5, 2, 7);
  nm.addPcDesc(10, nm.scope(a, 3, 2));  // 1@5 → 2@7 → 3@2
  nm.addPcDesc(30, nm.scope(a, 4, 1));  // 1@5 → 2@7 → 4@1
  nm.addPcDesc(50, nm.scope(nm.scope(0, 1, 9), 5, 0));  // 1@9 → 5@0
  int root6 = nm.scope(0, 1, 6);
  nm.addPcDesc(70, nm.scope(root6, 2, 7));  // 1@6 → 2@7: method 2 again, inlined at another bci
  nm.addPcDesc(90, a);                      // 1@5 → 2@7
  EXPECT_EQ(nm.decode(30, false), "4@1;2@7;1@5");  // a call's own PcDesc
  EXPECT_EQ(nm.decode(20, false), "2@7;1@5");      // between two calls inside method 2
  EXPECT_EQ(nm.decode(40, false), "1@5");          // between inlinings that share only the root
  EXPECT_EQ(nm.decode(60, false), "1@9");          // other methods under the root: the root, bci from before
  EXPECT_EQ(nm.decode(80, false), "1@6");          // method 2 on both sides, but two inlinings of it
  EXPECT_EQ(nm.decode(100, false), "2@7;1@5");     // past the last PcDesc: the one before
  EXPECT_EQ(nm.decode(5, false), "3@2;2@7;1@5");   // before the first: the one after
  EXPECT_EQ(nm.decode(20, true), "4@1;2@7;1@5");   // an interrupted pc: the PcDesc at or after it
}

// C2 may lay a leaf call's block out of line, among unrelated code (the AVX-512 arraycopy stub's
// call after the method's return, between PcDescs of an inlined constructor), and jump back right
// after the call: the PcDescs around the jump's target frame the call, not those around it.
TEST(OwnWalker, OutOfLineLeafCallGetsTheScopesAroundWhereItJumpsBack) {
  FakeNmethod nm;
  int root = nm.scope(0, 1, 9);
  nm.addPcDesc(10, nm.scope(root, 2, 41));                 // 1@9 -> 2@41 (copyOfRange's allocation)
  int ctor = nm.scope(nm.scope(0, 1, 13), 3, 6);           // 1@13 -> 3@6 (the constructor's store)
  nm.addPcDesc(40, ctor);
  nm.addPcDesc(60, nm.scope(nm.scope(0, 1, 13), 3, 0));    // 1@13 -> 3@0
  nm.addPcDesc(90, ctor);
  nm.addPcDesc(100, nm.scope(0, 1, 20));                   // 1@20
  EXPECT_EQ(nm.decode(70, false), "3@0;1@13");  // falls through: the neighbours' shared scopes
  nm.code[70] = 0xEB;                           // jmp rel8 back to 20
  nm.code[71] = static_cast<uint8_t>(20 - 72);
  EXPECT_EQ(nm.decode(70, false), "1@9");
  nm.code[70] = 0xE9;                           // jmp rel32 to 90, which ends a PcDesc's code
  int32_t rel = 90 - 75;
  memcpy(nm.code + 71, &rel, 4);
  EXPECT_EQ(nm.decode(70, false), "1@13");      // around 90: the PcDescs at 90 and at 100
  rel = 1000;                                   // out of the code: no merge point
  memcpy(nm.code + 71, &rel, 4);
  EXPECT_EQ(nm.decode(70, false), "3@0;1@13");
  EXPECT_EQ(nm.decode(60, false), "3@0;1@13");  // a call with its own PcDesc never looks at the jump
  EXPECT_EQ(nm.decode(70, true), "3@6;1@13");   // nor does an interrupted pc
}
