// NativeModules: which pcs are native code, refresh() picking up a library loaded later (as the
// JDK loads libnio long after start) and dropping an unloaded one, lookups racing refreshes,
// and retireAll.
#include "walk/native/NativeModules.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "NativeTestSupport.h"

using namespace candor;

namespace {
constexpr const char* kLateLibrary = "libz.so.1";  // not linked into the test binary

__attribute__((noinline)) int someCode(int x) { return x * 3; }

const NativeModule* named(const NativeModules& m, const std::string& name) {
  for (const NativeModule* module : m.modules()) {
    if (module->name == name) return module;
  }
  return nullptr;
}
}  // namespace

TEST(NativeModules, KnowsCodeFromData) {
  NativeModules modules;
  EXPECT_FALSE(modules.contains_signalSafe(uintptr_t(&someCode)));  // nothing published yet
  ASSERT_GT(modules.refresh(), 3);
  void* write = candor::testing::libcSymbol("write");
  EXPECT_TRUE(modules.contains_signalSafe(uintptr_t(write)));
  EXPECT_TRUE(modules.contains_signalSafe(uintptr_t(&someCode)));
  int onStack = someCode(1);
  auto onHeap = std::make_unique<int>(onStack);
  EXPECT_FALSE(modules.contains_signalSafe(uintptr_t(&onStack)));
  EXPECT_FALSE(modules.contains_signalSafe(uintptr_t(onHeap.get())));
  EXPECT_FALSE(modules.contains_signalSafe(0));
  NativeHit hit;
  ASSERT_TRUE(modules.find_signalSafe(uintptr_t(write), &hit));
  EXPECT_EQ(hit.module->name, "libc.so.6");
  EXPECT_NE(hit.row, nullptr);
  EXPECT_NE(named(modules, "[vdso]"), nullptr);
  EXPECT_NE(named(modules, "candor_tests"), nullptr);
  EXPECT_GT(modules.totals().rows, 10000u);
  EXPECT_EQ(modules.refresh(), 0);  // nothing loaded since
}

TEST(NativeModules, RefreshAddsALibraryLoadedLaterAndDropsItWhenUnloaded) {
  if (dlopen(kLateLibrary, RTLD_NOW | RTLD_NOLOAD) != nullptr) GTEST_SKIP() << kLateLibrary << " already loaded";
  NativeModules modules;
  modules.refresh();
  void* lib = dlopen(kLateLibrary, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  uintptr_t fn = uintptr_t(dlsym(lib, "zlibVersion"));
  ASSERT_NE(fn, 0u);
  EXPECT_FALSE(modules.contains_signalSafe(fn));
  EXPECT_EQ(modules.refresh(), 1);
  const NativeModule* zlib = modules.module_signalSafe(fn);
  ASSERT_NE(zlib, nullptr);
  EXPECT_EQ(zlib->name, kLateLibrary);
  EXPECT_GT(zlib->rows.size(), 100u);
  dlclose(lib);
  if (dlopen(kLateLibrary, RTLD_NOW | RTLD_NOLOAD) != nullptr) GTEST_SKIP() << "the loader kept it";
  EXPECT_EQ(modules.refresh(), 0);
  EXPECT_FALSE(modules.contains_signalSafe(fn));
  EXPECT_EQ(named(modules, kLateLibrary), nullptr);
  EXPECT_EQ(zlib->name, kLateLibrary);  // the old module stays readable until retireAll
}

// A handler may look up while another thread refreshes: it always finds libc, whichever table
// it reads.
TEST(NativeModules, LookupsDuringRefreshesAlwaysSeeACompleteTable) {
  NativeModules modules;
  modules.refresh();
  uintptr_t write = uintptr_t(candor::testing::libcSymbol("write"));
  std::atomic<bool> stop{false};
  std::atomic<long> lookups{0}, misses{0};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      NativeHit hit;
      if (!modules.find_signalSafe(write, &hit) || hit.row == nullptr || hit.module->name != "libc.so.6") misses++;
      lookups++;
    }
  });
  int refreshes = 0;
  for (int i = 0; i < 20; i++) {
    void* lib = dlopen(kLateLibrary, RTLD_NOW | RTLD_LOCAL);
    refreshes += modules.refresh() >= 0;
    if (lib != nullptr) dlclose(lib);
    refreshes += modules.refresh() >= 0;
  }
  while (lookups.load() < 1000) std::this_thread::yield();
  stop = true;
  reader.join();
  EXPECT_EQ(refreshes, 40);
  EXPECT_EQ(misses.load(), 0) << "of " << lookups.load();
}

TEST(NativeModules, RetireAllUnpublishes) {
  NativeModules modules;
  modules.refresh();
  EXPECT_GT(modules.tableBytes(), 100000u);
  modules.retireAll();
  EXPECT_FALSE(modules.contains_signalSafe(uintptr_t(&someCode)));
  EXPECT_TRUE(modules.modules().empty());
  EXPECT_EQ(modules.tableBytes(), 0u);
  EXPECT_GT(modules.refresh(), 3);  // usable again for the next session
  EXPECT_TRUE(modules.contains_signalSafe(uintptr_t(&someCode)));
}
