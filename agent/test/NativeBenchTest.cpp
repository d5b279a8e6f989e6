// Rough numbers for walk/native, printed, not asserted (disabled by default; run with
//   build/agent/candor_tests --gtest_also_run_disabled_tests --gtest_filter='NativeBench.*'):
//  - building the module tables of a JVM process at profiling start: a JVM is created in this
//    process (JNI_CreateJavaVM from $CANDOR_BENCH_JDK, default JDK 17), so its libraries are
//    the ones a profiled JVM maps; time (median of 5 fresh builds) and heap bytes;
//  - one unwind step with dwarf and with fp on a live stack through libc (qsort);
//  - every thread of that JVM (GC, JIT, VM threads, mostly blocked in libc) unwound from a
//    signal with reads inside CrashGuard, as the agent's handler will: how many walks reach
//    the thread's root (clone3), with dwarf and with rbp links.
// Claims about speed belong to bench/ runs; these numbers size the design.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <jni.h>

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "NativeTestSupport.h"
#include "walk/native/NativeSymbols.h"
#include "walk/native/NativeUnwinder.h"
#include "walk/vm/CrashGuard.h"

using namespace candor;
using Clock = std::chrono::steady_clock;

namespace {
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

bool createJvm(std::string* why);
// One JVM per process: created by the first test that needs it.
bool startJvm(std::string* why) {
  static std::string failure;
  static bool ok = createJvm(&failure);
  *why = failure;
  return ok;
}

bool createJvm(std::string* why) {
  const char* jdk = getenv("CANDOR_BENCH_JDK");
  std::string lib = std::string(jdk != nullptr ? jdk : "/usr/lib/jvm/java-17-openjdk-amd64") + "/lib/server/libjvm.so";
  void* h = dlopen(lib.c_str(), RTLD_NOW);
  if (h == nullptr) return *why = dlerror(), false;
  auto create = reinterpret_cast<jint (*)(JavaVM**, void**, void*)>(dlsym(h, "JNI_CreateJavaVM"));
  JavaVMOption options[] = {{const_cast<char*>("-Xint"), nullptr}, {const_cast<char*>("-Xmx64m"), nullptr}};
  JavaVMInitArgs args{JNI_VERSION_1_8, 2, options, JNI_TRUE};
  JavaVM* vm;
  JNIEnv* env;
  if (create == nullptr || create(&vm, reinterpret_cast<void**>(&env), &args) != JNI_OK) return *why = "JNI_CreateJavaVM", false;
  // What a profiled application soon uses: NIO and networking load libnio and libnet lazily.
  // IOUtil's static initializer loads both (GetStaticMethodID initializes the class).
  jclass io = env->FindClass("sun/nio/ch/IOUtil");
  if (io != nullptr) env->GetStaticMethodID(io, "load", "()V");
  env->ExceptionClear();
  return true;
}

// ---- the step cost: measured inside a qsort comparator, where libc frames are live below.
struct StepBench {
  double dwarfNs = 0, fpNs = 0;
  int dwarfFrames = 0, fpFrames = 0;
  bool done = false;
};
StepBench gBench;

__attribute__((noinline)) NativeRegs here() {
  auto fp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  return NativeRegs{reinterpret_cast<uintptr_t>(__builtin_return_address(0)), fp + 16,
                    *reinterpret_cast<uintptr_t*>(fp), false};
}

double nsPerStep(CStackMode mode, const NativeMemory& mem, const NativeRegs& start, int* frames) {
  NativeUnwinder unwinder(candor::testing::processModules());
  uintptr_t pcs[128];
  constexpr int kRounds = 20000;
  long steps = 0;
  auto t = Clock::now();
  for (int i = 0; i < kRounds; i++) {
    NativeRegs r = start;
    int n = unwinder.unwind_signalSafe(mode, mem, &r, pcs, 128, nullptr, nullptr);
    steps += n;
    *frames = n;
  }
  return msSince(t) * 1e6 / double(steps);
}

// A stack of frames that all keep rbp links (this file is built with frame pointers): where
// cstack=fp works, what each mode costs per frame.
struct FramedBench {
  double dwarfNs = 0, fpNs = 0;
  int dwarfFrames = 0, fpFrames = 0;
};
__attribute__((noinline)) int recurse(int depth, FramedBench* out) {
  if (depth == 0) {
    NativeMemory mem;
    candor::testing::currentStackMemory(&mem);
    mem.read = NativeMemory::direct_signalSafe;
    NativeRegs start = here();
    out->dwarfNs = nsPerStep(CStackMode::kDwarf, mem, start, &out->dwarfFrames);
    out->fpNs = nsPerStep(CStackMode::kFp, mem, start, &out->fpFrames);
    return 0;
  }
  int r = recurse(depth - 1, out);
  asm volatile("" ::: "memory");  // keeps the call from becoming a jump
  return r + 1;
}

int compareAndMeasure(const void* a, const void* b) {
  if (!gBench.done) {
    gBench.done = true;
    NativeMemory mem;
    candor::testing::currentStackMemory(&mem);
    mem.read = NativeMemory::direct_signalSafe;  // live reads, as inside the crash guard
    NativeRegs start = here();
    gBench.dwarfNs = nsPerStep(CStackMode::kDwarf, mem, start, &gBench.dwarfFrames);
    gBench.fpNs = nsPerStep(CStackMode::kFp, mem, start, &gBench.fpFrames);
  }
  return *static_cast<const int*>(a) - *static_cast<const int*>(b);
}
}  // namespace

TEST(NativeBench, DISABLED_TablesOfAJvmProcess) {
  std::string why;
  auto t = Clock::now();
  bool jvm = startJvm(&why);
  printf("JVM created: %s (%.0f ms)%s\n", jvm ? "yes" : "no", msSince(t), jvm ? "" : why.c_str());
  std::vector<double> ms;
  NativeModules kept;
  for (int i = 0; i < 5; i++) {
    NativeModules modules;
    auto start = Clock::now();
    modules.refresh();
    ms.push_back(msSince(start));
  }
  double first = ms[0];  // pays for reading each library's .eh_frame pages the first time
  std::sort(ms.begin(), ms.end());
  kept.refresh();
  auto again = Clock::now();
  kept.refresh();
  double unchangedUs = msSince(again) * 1000;
  CfiStats sum = kept.totals();
  printf("%-28s %8s %6s %6s %5s %5s %5s\n", "module", "rows", "fdes", "unsup", "plt", "sig", "root");
  for (const NativeModule* m : kept.modules()) {
    const CfiStats& s = m->stats;
    printf("%-28s %8u %6u %6u %5u %5u %5u%s%s\n", m->name.c_str(), s.rows, s.fdes, s.unsupportedRows, s.pltRows,
           s.signalRows, s.outermostRows, s.failure ? "  " : "", s.failure ? s.failure : "");
  }
  printf("modules %zu, rows %u (unsupported %u), fdes %u (bad %u)\n", kept.modules().size(), sum.rows,
         sum.unsupportedRows, sum.fdes, sum.badFdes);
  printf("build all tables: first %.1f ms, then median %.1f ms (min %.1f, max %.1f); refresh with nothing new: %.1f us\n",
         first, ms[2], ms[0], ms[4], unchangedUs);
  printf("heap: %.2f MB\n", kept.tableBytes() / 1e6);
  EXPECT_GT(sum.rows, 0u);
}

TEST(NativeBench, DISABLED_UnwindStep) {
  candor::testing::processModules();
  int values[256];
  for (int i = 0; i < 256; i++) values[i] = (i * 97) % 256;
  gBench.done = false;
  qsort(values, 256, sizeof(int), compareAndMeasure);
  printf("dwarf: %d frames, %.1f ns per step; fp: %d frames, %.1f ns per step\n", gBench.dwarfFrames, gBench.dwarfNs,
         gBench.fpFrames, gBench.fpNs);
  EXPECT_GT(gBench.dwarfFrames, gBench.fpFrames);
  FramedBench framed;
  recurse(30, &framed);
  printf("framed stack: dwarf %d frames, %.1f ns per step; fp %d frames, %.1f ns per step\n", framed.dwarfFrames,
         framed.dwarfNs, framed.fpFrames, framed.fpNs);
}

namespace {
struct ThreadWalk {
  uintptr_t dwarf[256], fp[256];
  int dwarfCount, fpCount;
  std::atomic<bool> done;
};
ThreadWalk gWalk;
NativeModules* gJvmModules;

void walkThisThread(int, siginfo_t*, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  NativeRegs start{uintptr_t(uc->uc_mcontext.gregs[REG_RIP]), uintptr_t(uc->uc_mcontext.gregs[REG_RSP]),
                   uintptr_t(uc->uc_mcontext.gregs[REG_RBP]), true};
  NativeMemory mem{NativeMemory::direct_signalSafe, nullptr};  // stack bounds unknown: the checks and the guard
  NativeUnwinder unwinder(*gJvmModules);
  gWalk.dwarfCount = gWalk.fpCount = 0;
  CrashGuard::Region guard;
  if (sigsetjmp(guard.jump, 0) == 0) {
    CrashGuard::arm_signalSafe(&guard);
    NativeRegs r = start;
    gWalk.dwarfCount = unwinder.unwind_signalSafe(CStackMode::kDwarf, mem, &r, gWalk.dwarf, 256, nullptr, nullptr);
    r = start;
    gWalk.fpCount = unwinder.unwind_signalSafe(CStackMode::kFp, mem, &r, gWalk.fp, 256, nullptr, nullptr);
    CrashGuard::disarm_signalSafe(&guard);
  }
  gWalk.done.store(true);
}

bool endsAtRoot(NativeSymbols& symbols, const uintptr_t* pcs, int n) {
  return n > 1 && symbols.lookup(pcs[n - 1] - 1).symbol.find("clone") != std::string_view::npos;
}
}  // namespace

TEST(NativeBench, DISABLED_JvmThreadsUnwindToTheirRoots) {
  std::string why;
  ASSERT_TRUE(startJvm(&why)) << why;
  ASSERT_TRUE(CrashGuard::install(&why)) << why;
  NativeModules modules;
  modules.refresh();
  gJvmModules = &modules;
  struct sigaction sa = {}, old = {};
  sa.sa_sigaction = walkThisThread;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  ASSERT_EQ(sigaction(SIGURG, &sa, &old), 0);  // a signal the JVM leaves alone
  NativeSymbols symbols(modules);
  int threads = 0, dwarfRoots = 0, fpRoots = 0;
  DIR* tasks = opendir("/proc/self/task");
  ASSERT_NE(tasks, nullptr);
  while (dirent* e = readdir(tasks)) {
    int tid = atoi(e->d_name);
    if (tid <= 0 || tid == gettid()) continue;
    gWalk.done = false;
    if (syscall(SYS_tgkill, getpid(), tid, SIGURG) != 0) continue;
    for (int i = 0; i < 2000 && !gWalk.done.load(); i++) usleep(500);
    if (!gWalk.done.load()) continue;  // blocked the signal, or gone
    threads++;
    bool root = endsAtRoot(symbols, gWalk.dwarf, gWalk.dwarfCount);
    dwarfRoots += root;
    fpRoots += endsAtRoot(symbols, gWalk.fp, gWalk.fpCount);
    std::string stack;
    for (int i = 0; i < gWalk.dwarfCount; i++) {
      stack += std::string(symbols.lookup(i == 0 ? gWalk.dwarf[i] : gWalk.dwarf[i] - 1).symbol) + ";";
    }
    printf("tid %d: dwarf %d frames%s, fp %d: %s\n", tid, gWalk.dwarfCount, root ? " (root)" : "", gWalk.fpCount,
           stack.c_str());
  }
  closedir(tasks);
  sigaction(SIGURG, &old, nullptr);
  printf("threads %d: dwarf walks reaching clone/clone3 %d, fp walks %d\n", threads, dwarfRoots, fpRoots);
  EXPECT_GE(threads, 8);
  EXPECT_GE(dwarfRoots * 10, threads * 9);
}
