// NativeUnwinder on a real stack: a signal raised from a qsort comparator is unwound from the
// handler's ucontext through libc (no frame pointers) back to the test's own functions, with
// DWARF and with rbp links; and from inside the handler through the signal trampoline. Then
// the sanity checks on hand-built stacks: every way a walk can go astray ends it.
#include "walk/native/NativeUnwinder.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <ucontext.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "NativeTestSupport.h"
#include "walk/native/ElfImage.h"
#include "walk/native/NativeSymbols.h"

using namespace candor;
using candor::testing::currentStackMemory;
using candor::testing::processModules;

namespace candor_native_test {

constexpr int kMaxFrames = 128;
struct Walk {
  uintptr_t pcs[kMaxFrames];
  int count = 0;
};
struct Captured {
  Walk dwarf, fp, fromHandler;
};
Captured gCaptured;
NativeMemory gStack;
std::atomic<int> gCompares{0};

// The registers its caller will have after this call returns (needs frame pointers: this file).
__attribute__((noinline)) NativeRegs callerRegs() {
  auto fp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return NativeRegs{reinterpret_cast<uintptr_t>(__builtin_return_address(0)), fp + 16,
                    *reinterpret_cast<uintptr_t*>(fp), false};
}

void onSignal(int, siginfo_t*, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  NativeRegs interrupted{uintptr_t(uc->uc_mcontext.gregs[REG_RIP]), uintptr_t(uc->uc_mcontext.gregs[REG_RSP]),
                         uintptr_t(uc->uc_mcontext.gregs[REG_RBP]), true};
  NativeUnwinder unwinder(processModules());
  NativeRegs r = interrupted;
  gCaptured.dwarf.count = unwinder.unwind_signalSafe(CStackMode::kDwarf, gStack, &r, gCaptured.dwarf.pcs, kMaxFrames,
                                                     nullptr, nullptr);
  r = interrupted;
  gCaptured.fp.count =
      unwinder.unwind_signalSafe(CStackMode::kFp, gStack, &r, gCaptured.fp.pcs, kMaxFrames, nullptr, nullptr);
  r = callerRegs();
  gCaptured.fromHandler.count = unwinder.unwind_signalSafe(CStackMode::kDwarf, gStack, &r, gCaptured.fromHandler.pcs,
                                                           kMaxFrames, nullptr, nullptr);
}

__attribute__((noinline)) int compareRaising(const void* a, const void* b) {
  if (gCompares.fetch_add(1) == 20) raise(SIGUSR1);
  int x = *static_cast<const int*>(a), y = *static_cast<const int*>(b);
  return (x > y) - (x < y);
}

__attribute__((noinline)) int sortWithRaise() {
  int values[64];
  for (int i = 0; i < 64; i++) values[i] = (i * 37) % 64;
  // libc's qsort itself, also under ASan (whose interceptor would sort without libc).
  auto libcQsort = reinterpret_cast<decltype(&qsort)>(candor::testing::libcSymbol("qsort"));
  libcQsort(values, 64, sizeof(int), compareRaising);
  return values[0] + values[63];  // no tail call: this frame stays on the stack
}

}  // namespace candor_native_test

namespace {
using namespace candor_native_test;

// Frame names of a walk; every frame after the first is a return address: named at pc − 1.
std::vector<std::string> names(NativeSymbols& symbols, const Walk& w, std::vector<std::string>* modules = nullptr) {
  std::vector<std::string> out;
  for (int i = 0; i < w.count; i++) {
    NativeFrameName n = symbols.lookup(i == 0 ? w.pcs[i] : w.pcs[i] - 1);
    out.emplace_back(n.symbol.empty() ? "?" : n.symbol);
    if (modules != nullptr) modules->emplace_back(n.module);
  }
  return out;
}

int indexOf(const std::vector<std::string>& frames, const std::string& part, int from = 0) {
  for (int i = from; i < int(frames.size()); i++) {
    if (frames[i].find(part) != std::string::npos) return i;
  }
  return -1;
}

std::string joined(const std::vector<std::string>& frames) {
  std::string s;
  for (const auto& f : frames) s += f + ";";
  return s;
}
}  // namespace

TEST(NativeUnwinder, DwarfUnwindsThroughLibcWhereRbpLinksDoNot) {
  processModules();  // built before the handler reads it
  currentStackMemory(&gStack);
  struct sigaction sa = {}, old = {};
  sa.sa_sigaction = onSignal;
  sa.sa_flags = SA_SIGINFO;
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  gCompares = 0;
  EXPECT_EQ(sortWithRaise(), 63);
  sigaction(SIGUSR1, &old, nullptr);

  NativeSymbols symbols(processModules());
  std::vector<std::string> modules;
  auto dwarf = names(symbols, gCaptured.dwarf, &modules);
  int compare = indexOf(dwarf, "compareRaising"), sort = indexOf(dwarf, "sortWithRaise");
  ASSERT_GT(compare, 0) << joined(dwarf);  // raise's own frames come first
  ASSERT_GT(sort, compare + 1) << joined(dwarf);
  for (int i = compare + 1; i < sort; i++) EXPECT_EQ(modules[i], "libc.so.6") << i << ": " << joined(dwarf);
  EXPECT_EQ(modules[0], "libc.so.6") << joined(dwarf);
  EXPECT_GT(indexOf(dwarf, "DwarfUnwindsThroughLibcWhereRbpLinksDoNot_Test::TestBody", sort), sort) << joined(dwarf);
  EXPECT_GT(indexOf(dwarf, "main", sort), sort) << "the walk reaches the thread's root: " << joined(dwarf);

  // rbp links skip or lose the frames of libc, which keeps no frame pointer.
  auto fp = names(symbols, gCaptured.fp);
  int fpCompare = indexOf(fp, "compareRaising"), fpSort = indexOf(fp, "sortWithRaise");
  bool fpAsGood = fpCompare >= 0 && fpSort - fpCompare >= sort - compare;
  EXPECT_FALSE(fpAsGood) << "fp: " << joined(fp) << "\ndwarf: " << joined(dwarf);

  // From the handler's own frame: through __restore_rt (the signal frame) into the same stack.
  auto inside = names(symbols, gCaptured.fromHandler);
  int handler = indexOf(inside, "onSignal");
  ASSERT_EQ(handler, 0) << joined(inside);
  EXPECT_GT(indexOf(inside, "sortWithRaise"), indexOf(inside, "compareRaising")) << joined(inside);
  EXPECT_GT(indexOf(inside, "compareRaising"), 1) << joined(inside);
}


// ---- hand-built stacks: rbp chains in an array, pcs that are in no module (so dwarf mode
// falls back to rbp links too) unless a test uses a real function's row.
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
