// NativeUnwinder's checks on hand-built stacks: rbp chains in an array, with pcs that are in no
// module (so dwarf mode falls back to rbp links too) unless a test uses a real function's row.
// Every way a walk can go astray must end it without reading outside the stack.
#include <gtest/gtest.h>

#include <string>

#include "NativeTestSupport.h"
#include "walk/native/ElfImage.h"
#include "walk/native/NativeUnwinder.h"

using namespace candor;
using candor::testing::processModules;

namespace {
constexpr uintptr_t kPc0 = 0x10000, kPc1 = 0x11000, kPc2 = 0x12000, kPc3 = 0x13000;

struct FakeStack {
  alignas(16) uintptr_t w[64] = {};
  NativeMemory mem;
  FakeStack() {
    mem.read = candor::testing::readStackWord_signalSafe;
    mem.ctx = &mem;
    mem.low = addr(0);
    mem.high = addr(64);
  }
  uintptr_t addr(int i) const { return reinterpret_cast<uintptr_t>(&w[i]); }
  // A frame record at w[i]: saved rbp (a slot index, or -1 for 0) and return address.
  void frame(int i, int next, uintptr_t ra) {
    w[i] = next < 0 ? 0 : addr(next);
    w[i + 1] = ra;
  }
  int walk(CStackMode mode, NativeRegs* r, uintptr_t* pcs, NativeUnwinder::StopAt stop = nullptr, void* ctx = nullptr) {
    return NativeUnwinder(processModules()).unwind_signalSafe(mode, mem, r, pcs, 16, stop, ctx);
  }
};
}  // namespace

TEST(NativeUnwinder, FollowsRbpLinksToTheRoot) {
  FakeStack s;
  s.frame(4, 10, kPc1);
  s.frame(10, 20, kPc2);
  s.frame(20, -1, kPc3);
  for (CStackMode mode : {CStackMode::kFp, CStackMode::kDwarf}) {
    NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
    uintptr_t pcs[16];
    ASSERT_EQ(s.walk(mode, &r, pcs), 4);
    EXPECT_EQ(pcs[0], kPc0);
    EXPECT_EQ(pcs[1], kPc1);
    EXPECT_EQ(pcs[3], kPc3);
    EXPECT_EQ(r.sp, s.addr(22));  // left at the last frame it could reach
  }
  NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
  uintptr_t pcs[16];
  EXPECT_EQ(s.walk(CStackMode::kNo, &r, pcs), 1);
}

TEST(NativeUnwinder, StopsWhereAWalkGoesAstray) {
  uintptr_t pcs[16];
  {  // a link pointing back down the stack: sp must grow, so no loop
    FakeStack s;
    s.frame(4, 10, kPc1);
    s.frame(10, 4, kPc2);
    NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
    EXPECT_EQ(s.walk(CStackMode::kFp, &r, pcs), 3);
  }
  {  // a misaligned rbp
    FakeStack s;
    s.frame(4, 10, kPc1);
    s.w[4] += 3;
    NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
    EXPECT_EQ(s.walk(CStackMode::kFp, &r, pcs), 2);
  }
  {  // a return address of 0 (the root of a thread without CFI)
    FakeStack s;
    s.frame(4, 10, 0);
    NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
    EXPECT_EQ(s.walk(CStackMode::kFp, &r, pcs), 1);
  }
  {  // an rbp outside the stack is never read: the reader would refuse it anyway
    FakeStack s;
    s.frame(4, 10, kPc1);
    s.w[10] = s.addr(64) + 64;
    s.w[11] = kPc2;
    NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
    EXPECT_EQ(s.walk(CStackMode::kFp, &r, pcs), 3);
  }
  {  // a stack copy that ends early: the reader refuses, the walk ends at its edge
    FakeStack s;
    s.frame(4, 10, kPc1);
    s.frame(10, 20, kPc2);
    s.frame(20, -1, kPc3);
    s.mem.high = s.addr(12);
    s.mem.low = s.addr(0);
    NativeMemory unbounded = s.mem;
    unbounded.low = unbounded.high = 0;  // bounds unknown: only the reader knows
    unbounded.ctx = &s.mem;
    NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
    EXPECT_EQ(NativeUnwinder(processModules()).unwind_signalSafe(CStackMode::kFp, unbounded, &r, pcs, 16, nullptr,
                                                                 nullptr),
              3);
  }
}

TEST(NativeUnwinder, StopAtLeavesTheRegistersAtTheFirstNonNativeFrame) {
  FakeStack s;
  s.frame(4, 10, kPc1);
  s.frame(10, 20, kPc2);
  s.frame(20, -1, kPc3);
  NativeRegs r{kPc0, s.addr(0), s.addr(4), true};
  uintptr_t pcs[16];
  auto isJava = [](void*, uintptr_t pc) { return pc == kPc2; };
  ASSERT_EQ(s.walk(CStackMode::kDwarf, &r, pcs, isJava), 2);
  EXPECT_EQ(r.pc, kPc2);
  EXPECT_EQ(r.sp, s.addr(12));
  EXPECT_EQ(r.fp, s.addr(20));
  EXPECT_FALSE(r.interrupted);
}

TEST(NativeUnwinder, DwarfUsesRowsOfRealCode) {
  // At write's first instruction the return address is at rsp: CFA = rsp + 8, rbp untouched.
  FakeStack s;
  s.w[2] = kPc1;
  uintptr_t write = reinterpret_cast<uintptr_t>(candor::testing::libcSymbol("write"));
  NativeRegs r{write, s.addr(2), 0x5555, true};
  NativeUnwinder unwinder(processModules());
  ASSERT_TRUE(unwinder.step_signalSafe(CStackMode::kDwarf, s.mem, &r));
  EXPECT_EQ(r.pc, kPc1);
  EXPECT_EQ(r.sp, s.addr(3));
  EXPECT_EQ(r.fp, 0x5555u);
  // rbp links from the same registers fail: 0x5555 is no frame.
  r = NativeRegs{write, s.addr(2), 0x5555, true};
  EXPECT_FALSE(unwinder.step_signalSafe(CStackMode::kFp, s.mem, &r));
}

TEST(NativeUnwinder, PltStubFrameDependsOnThePush) {
  const NativeModule* libc = processModules().module_signalSafe(uintptr_t(candor::testing::libcSymbol("write")));
  ASSERT_NE(libc, nullptr);
  std::string why;
  auto file = ElfImage::open(libc->path, &why);
  ASSERT_NE(file, nullptr) << why;
  const ElfSection* plt = file->section(".plt");
  ASSERT_NE(plt, nullptr);
  uintptr_t entry = libc->bias + plt->addr + 16;  // PLT1: jmp *GOT; push index; jmp PLT0
  ASSERT_EQ(entry & 15, 0u);
  NativeUnwinder unwinder(processModules());
  FakeStack s;
  s.w[2] = kPc1;  // the return address
  s.w[3] = kPc2;
  NativeRegs before{entry + 4, s.addr(2), 0, true};  // before the push: ra at rsp
  ASSERT_TRUE(unwinder.step_signalSafe(CStackMode::kDwarf, s.mem, &before));
  EXPECT_EQ(before.pc, kPc1);
  NativeRegs after{entry + 12, s.addr(1), 0, true};  // after it: the index is at rsp, ra above
  ASSERT_TRUE(unwinder.step_signalSafe(CStackMode::kDwarf, s.mem, &after));
  EXPECT_EQ(after.pc, kPc1);
  EXPECT_EQ(after.sp, s.addr(3));
}
