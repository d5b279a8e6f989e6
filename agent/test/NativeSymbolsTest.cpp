// NativeSymbols: libc's exported names for its aliases (writev, not __GI___writev), a demangled
// and shortened C++ method of this binary, the vdso, unresolved pcs named after their module,
// and the C++ name shortening on its own.
#include "walk/native/NativeSymbols.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/auxv.h>
#include <sys/uio.h>

#include <cstdlib>

#include "NativeTestSupport.h"
#include "walk/native/CppNames.h"
#include "walk/native/ElfImage.h"

using namespace candor;
using candor::testing::processModules;

namespace candor_native_test {
template <typename T>
struct Box {
  T value;
  __attribute__((noinline)) T get() const { return value + 1; }
};

class Widget {
 public:
  __attribute__((noinline)) int spin(int rounds, const char* tag) const {
    int sum = 0;
    for (int i = 0; i < rounds; i++) sum += tag[i % 2];
    return sum;
  }
};
}  // namespace candor_native_test

namespace {
uintptr_t inside(const void* fn) { return uintptr_t(fn) + 4; }

template <typename F>
uintptr_t memberAddress(F f) {
  uintptr_t a;
  static_assert(sizeof f >= sizeof a);
  memcpy(&a, &f, sizeof a);  // a non-virtual member function pointer starts with its address
  return a;
}
}  // namespace

TEST(NativeSymbols, LibcFunctionsHaveTheNamesCallersWrote) {
  NativeSymbols symbols(processModules());
  for (const char* name : {"writev", "qsort", "write", "read"}) {
    NativeFrameName n = symbols.lookup(inside(candor::testing::libcSymbol(name)));
    EXPECT_TRUE(n.resolved) << name;
    EXPECT_EQ(n.symbol, name);
    EXPECT_EQ(n.module, "libc.so.6");
  }
}

TEST(NativeSymbols, CppMethodsOfThisBinaryAreDemangledAndShortened) {
  candor_native_test::Widget w;
  candor_native_test::Box<int> box{41};
  ASSERT_EQ(box.get(), 42);
  ASSERT_GT(w.spin(3, "ab"), 0);
  NativeSymbols symbols(processModules());
  NativeFrameName spin = symbols.lookup(memberAddress(&candor_native_test::Widget::spin) + 4);
  EXPECT_EQ(spin.symbol, "candor_native_test::Widget::spin");
  EXPECT_EQ(spin.module, "candor_tests");
  EXPECT_EQ(symbols.lookup(memberAddress(&candor_native_test::Box<int>::get) + 4).symbol,
            "candor_native_test::Box<int>::get");
  EXPECT_EQ(symbols.sourceOf(processModules().module_signalSafe(memberAddress(&candor_native_test::Widget::spin))),
            ".symtab");
}

TEST(NativeSymbols, VdsoFunctionsAreNamedFromItsImageInMemory) {
  NativeSymbols symbols(processModules());
  for (const NativeModule* m : processModules().modules()) {
    if (m->name != "[vdso]") continue;
    // The vdso is one ELF image mapped whole, in whole pages (its section headers lie past its
    // segment's end): find clock_gettime's code in its .dynsym.
    std::string why;
    uint64_t pages = (m->text[0].second - m->text[0].first + 4095) & ~uint64_t(4095);
    auto image = ElfImage::fromFileBytes(reinterpret_cast<const uint8_t*>(m->text[0].first), pages, &why);
    ASSERT_NE(image, nullptr) << why;
    uint64_t at = 0;
    image->forEachSymbol(true, [&](const ElfSymbol& s) {
      if (s.name == "__vdso_clock_gettime") at = s.value;
    });
    ASSERT_NE(at, 0u);
    NativeFrameName n = symbols.lookup(m->bias + at + 4);
    EXPECT_TRUE(n.resolved);
    EXPECT_EQ(n.symbol, "clock_gettime");  // the alias without underscores
    EXPECT_EQ(n.module, "[vdso]");
    EXPECT_FALSE(symbols.lookup(m->text[0].first + 16).resolved);  // its ELF header: no code
    return;
  }
  FAIL() << "no [vdso] module";
}

TEST(NativeSymbols, UnresolvedPcIsNamedAfterItsModule) {
  NativeSymbols withDebug(processModules());
  // An internal libc function: only the debug file (libc6-dbg) names it.
  const NativeModule* libc = processModules().module_signalSafe(uintptr_t(candor::testing::libcSymbol("write")));
  ASSERT_NE(libc, nullptr);
  std::string source;
  SymbolTable full = SymbolTable::load(libc->path, &source);
  if (source != "debug file") GTEST_SKIP() << "no debug file for libc (libc6-dbg)";
  int64_t internal = -1;
  for (size_t i = 0; i < full.size() && internal < 0; i++) {
    if (std::string(full.name(i)).rfind("msort_with_tmp", 0) == 0) internal = int64_t(i);
  }
  ASSERT_GE(internal, 0);
  uintptr_t pc = libc->bias + full.start(internal) + 4;
  EXPECT_TRUE(withDebug.lookup(pc).resolved);
  NativeSymbols dynamicOnly(processModules(), "/nonexistent");
  NativeFrameName n = dynamicOnly.lookup(pc);
  EXPECT_FALSE(n.resolved);
  EXPECT_EQ(n.symbol, "libc.so.6");
  EXPECT_EQ(dynamicOnly.sourceOf(libc), ".dynsym");
  EXPECT_EQ(dynamicOnly.lookup(inside(candor::testing::libcSymbol("writev"))).symbol, "writev");
  int onStack = 0;
  EXPECT_EQ(dynamicOnly.lookup(uintptr_t(&onStack)).module, "");
}

TEST(CppNames, ShortensToClassAndMethod) {
  EXPECT_EQ(shortenDemangled("ns::Foo::bar(int, char const*) const"), "ns::Foo::bar");
  EXPECT_EQ(shortenDemangled("void ns::foo<int>(int)"), "ns::foo<int>");
  EXPECT_EQ(shortenDemangled("std::vector<int, std::allocator<int> >::push_back(int const&)"),
            "std::vector<int, std::allocator<int> >::push_back");
  EXPECT_EQ(shortenDemangled("(anonymous namespace)::helper()"), "(anonymous namespace)::helper");
  EXPECT_EQ(shortenDemangled("Foo::operator()(int) const"), "Foo::operator()");
  EXPECT_EQ(shortenDemangled("std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)"),
            "std::operator<< <std::char_traits<char> >");
  EXPECT_EQ(shortenDemangled("bool operator< <Key>(Key const&, Key const&)"), "operator< <Key>");
  EXPECT_EQ(shortenDemangled("Foo::operator new(unsigned long)"), "Foo::operator new");
  EXPECT_EQ(shortenDemangled("JavaThread::run() [clone .cold]"), "JavaThread::run");
  EXPECT_EQ(shortenDemangled("run()::{lambda(int)#1}::operator()(int) const"), "run()::{lambda(int)#1}::operator()");
  EXPECT_EQ(nativeFrameName("_ZN10JavaThread3runEv"), "JavaThread::run");
  EXPECT_EQ(nativeFrameName("writev"), "writev");
  EXPECT_EQ(nativeFrameName("_Znot_mangled_really"), "_Znot_mangled_really");
}
