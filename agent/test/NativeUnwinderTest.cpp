// NativeUnwinder on a real stack: a signal raised from a qsort comparator is unwound from the
// handler's ucontext through libc (no frame pointers) back to the test's own functions, with
// DWARF and with rbp links; and from inside the handler through the signal trampoline.
// (NativeUnwinderChecksTest: the sanity checks on hand-built stacks.)
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
