// Rough numbers for walk/native, printed, not asserted (disabled by default; run with
//   build/agent/candor_tests --gtest_also_run_disabled_tests --gtest_filter='NativeBench.*'):
//  - building the module tables of a JVM process at profiling start: a JVM is created in this
//    process (JNI_CreateJavaVM from $CANDOR_BENCH_JDK, default JDK 17), so its libraries are
//    the ones a profiled JVM maps; time (median of 5 fresh builds) and heap bytes;
//  - one unwind step with dwarf and with fp on a live stack through libc (qsort).
// Claims about speed belong to bench/ runs; these numbers size the design.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <jni.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "NativeTestSupport.h"
#include "walk/native/NativeUnwinder.h"

using namespace candor;
using Clock = std::chrono::steady_clock;

namespace {
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

bool startJvm(std::string* why) {
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
