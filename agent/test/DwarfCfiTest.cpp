// DwarfCfi: rows of real modules (libc's write at its entry, a function of this binary with a
// frame pointer, libc's PLT and signal trampoline) checked against readelf's own decoding of
// libc's .eh_frame, and hand-assembled CFA programs for each rule the parser must get right.
#include "walk/native/DwarfCfi.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "NativeTestSupport.h"
#include "walk/native/CfaProgram.h"

using namespace candor;
using candor::testing::processModules;

namespace {

const NativeModule* moduleOf(const void* code) { return processModules().module_signalSafe(uintptr_t(code)); }

const CfiRow* rowAt(const void* code) {
  NativeHit hit;
  return processModules().find_signalSafe(uintptr_t(code), &hit) ? hit.row : nullptr;
}

// Runs a hand-assembled FDE program over code [0x1000, 0x1100) after the usual x86-64 CIE
// (CFA = rsp + 8, return address at CFA - 8).
std::vector<CfiRow> run(std::vector<uint8_t> fde, CfiStats* stats = nullptr, bool signalFrame = false) {
  static const uint8_t kCie[] = {0x0c, 0x07, 0x08, 0x90, 0x01};  // def_cfa rsp 8; offset r16 cfa-8
  CieInfo cie;
  cie.initial = ByteReader(kCie, sizeof kCie, 0);
  cie.signalFrame = signalFrame;
  std::vector<CfiRow> rows;
  CfiStats local;
  CfaProgram(cie, &rows, stats != nullptr ? stats : &local).run(0x1000, 0x100, ByteReader(fde.data(), fde.size(), 0));
  return rows;
}

std::string describe(const std::vector<CfiRow>& rows) {
  std::ostringstream out;
  for (const CfiRow& r : rows) {
    out << std::hex << r.pc << std::dec << ":" << int(r.kind()) << "/" << r.cfaOffset() << "/";
    if (r.rbp == CfiRow::kRbpUnchanged) out << "same ";
    else if (r.rbp == CfiRow::kRbpUnknown) out << "unknown ";
    else out << r.rbp << " ";
  }
  return out.str();
}

__attribute__((noinline)) int framedWork(int n) {
  volatile int sink = 0;
  for (int i = 0; i < n; i++) sink = sink + (getpid() & 1);
  return sink;
}

}  // namespace

TEST(DwarfCfi, LibcWriteStartsWithCfaRspPlus8) {
  void* write = candor::testing::libcSymbol("write");
  ASSERT_NE(write, nullptr);
  const NativeModule* libc = moduleOf(write);
  ASSERT_NE(libc, nullptr);
  EXPECT_EQ(libc->name, "libc.so.6");
  const CfiRow* row = rowAt(write);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->kind(), CfaKind::kRsp);
  EXPECT_EQ(row->cfaOffset(), 8);
  EXPECT_EQ(row->rbp, CfiRow::kRbpUnchanged);
}

TEST(DwarfCfi, FramedFunctionOfThisBinaryMovesCfaToRbp) {
  ASSERT_GT(framedWork(1), -1);
  auto fn = reinterpret_cast<const uint8_t*>(&framedWork);
  ASSERT_NE(rowAt(fn), nullptr);
  EXPECT_EQ(rowAt(fn)->kind(), CfaKind::kRsp);
  bool sawRbp = false;
  for (int i = 0; i < 32 && !sawRbp; i++) {
    const CfiRow* r = rowAt(fn + i);
    sawRbp = r != nullptr && r->kind() == CfaKind::kRbp && r->cfaOffset() == 16 && r->rbp == -16;
  }
  EXPECT_TRUE(sawRbp) << "push rbp; mov rbp, rsp must give CFA = rbp + 16, rbp saved at CFA - 16";
}

TEST(DwarfCfi, LoadedImageAndFileGiveTheSameRows) {
  const NativeModule* libc = moduleOf(candor::testing::libcSymbol("write"));
  ASSERT_NE(libc, nullptr);
  std::string why;
  auto file = ElfImage::open(libc->path, &why);
  ASSERT_NE(file, nullptr) << why;
  DwarfCfi fromFile = DwarfCfi::parse(*file);
  ASSERT_EQ(fromFile.rows().size(), libc->rows.size());
  for (size_t i = 0; i < libc->rows.size(); i++) {
    ASSERT_EQ(fromFile.rows()[i].pc, libc->rows[i].pc);
    ASSERT_TRUE(fromFile.rows()[i].sameRule(libc->rows[i]));
  }
  EXPECT_GT(libc->stats.fdes, 1000u);
  EXPECT_EQ(libc->stats.badFdes, 0u);
}

TEST(DwarfCfi, LibcPltSignalTrampolineAndThreadRootsHaveTheirKinds) {
  const NativeModule* libc = moduleOf(candor::testing::libcSymbol("write"));
  ASSERT_NE(libc, nullptr);
  EXPECT_GE(libc->stats.pltRows, 1u);
  EXPECT_GE(libc->stats.signalRows, 1u);     // __restore_rt
  EXPECT_GE(libc->stats.outermostRows, 1u);  // clone, clone3
  std::string why;
  auto file = ElfImage::open(libc->path, &why);
  ASSERT_NE(file, nullptr) << why;
  const ElfSection* plt = file->section(".plt");
  ASSERT_NE(plt, nullptr);
  const CfiRow* row = DwarfCfi::find_signalSafe(libc->rows.data(), uint32_t(libc->rows.size()), plt->addr + 16);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->kind(), CfaKind::kPlt);
  EXPECT_EQ(row->cfaOffset(), 11);  // the push of the relocation index ends 11 bytes into an entry
}

TEST(CfaProgram, PrologueWithFramePointer) {
  // advance 1; def_cfa_offset 16; offset rbp cfa-16; advance 3; def_cfa_register rbp
  auto rows = run({0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06});
  EXPECT_EQ(describe(rows), "1000:1/8/same 1001:1/16/-16 1004:2/16/-16 1100:0/0/same ");
}

TEST(CfaProgram, RememberAndRestoreStateAroundAnEarlyReturn) {
  // advance 1; cfa+16; remember; advance 1; cfa+8; advance 1; restore; advance 1; cfa+8
  auto rows = run({0x41, 0x0e, 0x10, 0x0a, 0x41, 0x0e, 0x08, 0x41, 0x0b, 0x41, 0x0e, 0x08});
  EXPECT_EQ(describe(rows), "1000:1/8/same 1001:1/16/same 1002:1/8/same 1003:1/16/same 1004:1/8/same 1100:0/0/same ");
}

TEST(CfaProgram, PltExpressionGetsItsThreshold) {
  auto rows = run({0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22});
  EXPECT_EQ(describe(rows), "1000:3/11/same 1100:0/0/same ");
  auto other = run({0x0f, 0x03, 0x77, 0x10, 0x06});  // breg7 16; deref: no rule the table can hold
  EXPECT_EQ(describe(other), "1000:6/0/same 1100:0/0/same ");
}

TEST(CfaProgram, SignalTrampolineOnlyInSignalFrameCie) {
  std::vector<uint8_t> restoreRt = {0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06};  // breg7 160; deref
  EXPECT_EQ(describe(run(restoreRt, nullptr, true)), "1000:4/0/same 1100:0/0/same ");
  EXPECT_EQ(describe(run(restoreRt, nullptr, false)), "1000:6/0/same 1100:0/0/same ");
}

TEST(CfaProgram, UndefinedReturnAddressIsTheOutermostFrame) {
  EXPECT_EQ(describe(run({0x07, 0x10})), "1000:5/0/same 1100:0/0/same ");
}

TEST(CfaProgram, RulesTheUnwinderCannotFollowAreUnsupported) {
  EXPECT_EQ(describe(run({0x0c, 0x0a, 0x00})), "1000:6/0/same 1100:0/0/same ");  // DRAP: CFA = r10
  EXPECT_EQ(describe(run({0x90, 0x02})), "1000:6/0/same 1100:0/0/same ");        // ra at CFA - 16
  // rbp saved in another register: the CFA is still usable, the caller's rbp is not.
  EXPECT_EQ(describe(run({0x09, 0x06, 0x03})), "1000:1/8/unknown 1100:0/0/same ");
}

TEST(CfaProgram, MalformedProgramsMarkTheWholeRangeUnsupported) {
  CfiStats stats;
  const std::vector<std::vector<uint8_t>> bad = {
      {0x41, 0x0e, 0x10, 0x20},  // an opcode x86-64 compilers never emit
      {0x41, 0x0b},              // restore_state with nothing remembered
      {0x41, 0x0e},              // an operand cut off
      {0x0f, 0x7f, 0x77},        // an expression longer than the FDE
  };
  for (const auto& program : bad) {
    EXPECT_EQ(describe(run(program, &stats)), "1000:6/0/unknown 1100:0/0/same ");
  }
  EXPECT_EQ(stats.badFdes, bad.size());
}

// readelf decodes the same .eh_frame independently: every row it shows with a plain register
// rule must be the rule our table has at that address.
TEST(DwarfCfi, AgreesWithReadelfOnEveryPlainRowOfLibc) {
  const NativeModule* libc = moduleOf(candor::testing::libcSymbol("write"));
  ASSERT_NE(libc, nullptr);
  std::string cmd = "readelf --debug-dump=frames-interp '" + libc->path + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::vector<std::string> header;
  char buf[1024];
  int compared = 0, mismatched = 0;
  while (fgets(buf, sizeof buf, p) != nullptr) {
    std::istringstream line(buf);
    std::vector<std::string> f;
    for (std::string t; line >> t;) {
      if (!f.empty() && t[0] == '(' && f.back()[0] == 'r') f.back() += t;  // "r10 (r10)"
      else f.push_back(t);
    }
    if (!f.empty() && f[0] == "LOC") header = f;
    if (f.size() != header.size() || f.size() < 3 || f[0].size() != 16 || header.empty()) continue;
    std::map<std::string, std::string> col;
    for (size_t i = 0; i < f.size(); i++) col[header[i]] = f[i];
    const std::string& cfa = col["CFA"];
    if (col["ra"] != "c-8" || (cfa.rfind("rsp+", 0) != 0 && cfa.rfind("rbp+", 0) != 0)) continue;
    if (col.count("rbp") && col["rbp"] != "u" && col["rbp"][0] != 'c') continue;
    uint64_t loc = std::stoull(f[0], nullptr, 16);
    if (loc == 0) continue;  // a CIE's initial rule, printed before any FDE's code
    const CfiRow* r = DwarfCfi::find_signalSafe(libc->rows.data(), uint32_t(libc->rows.size()), loc);
    int32_t rbp = col.count("rbp") && col["rbp"] != "u" ? std::stoi(col["rbp"].substr(1)) : CfiRow::kRbpUnchanged;
    CfaKind kind = cfa[1] == 's' ? CfaKind::kRsp : CfaKind::kRbp;
    compared++;
    if (r == nullptr || r->kind() != kind || r->cfaOffset() != std::stoi(cfa.substr(4)) || r->rbp != rbp) {
      if (++mismatched < 5) ADD_FAILURE() << "at " << f[0] << " readelf says " << cfa << " rbp " << rbp;
    }
  }
  pclose(p);
  if (compared == 0) GTEST_SKIP() << "readelf not available";
  EXPECT_GT(compared, 10000);
  EXPECT_EQ(mismatched, 0) << "of " << compared;
}
