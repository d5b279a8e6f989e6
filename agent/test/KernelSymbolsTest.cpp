// KernelSymbols: real /proc/kallsyms when it shows addresses (do_syscall_64 by its address, read
// here with a plain scan), module names kept apart, and the unprivileged view (all zeros) and
// garbage reported as unavailable with one clear line.
#include "walk/native/KernelSymbols.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

using namespace candor;

namespace {
// The address kallsyms gives `name`, by a scan independent of KernelSymbols; 0 when not shown.
uint64_t addressOf(const char* name, std::string* module = nullptr) {
  FILE* f = fopen("/proc/kallsyms", "r");
  if (f == nullptr) return 0;
  char line[512], sym[256], mod[256];
  unsigned long long addr;
  char type;
  uint64_t found = 0;
  while (found == 0 && fgets(line, sizeof line, f) != nullptr) {
    mod[0] = 0;
    if (sscanf(line, "%llx %c %255s [%255[^]]", &addr, &type, sym, mod) >= 3 && strcmp(sym, name) == 0) {
      found = addr;
      if (module != nullptr) *module = mod;
    }
  }
  fclose(f);
  return found;
}

std::string tempFile(const std::string& content) {
  char path[] = "/tmp/candor-kallsyms-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, content.data(), content.size()), ssize_t(content.size()));
  close(fd);
  return path;
}
}  // namespace

TEST(KernelSymbols, NamesKernelAddressesWhenKallsymsShowsThem) {
  uint64_t syscall = addressOf("do_syscall_64");
  if (syscall == 0) GTEST_SKIP() << "/proc/kallsyms shows no addresses here (kptr_restrict)";
  KernelSymbols k;
  std::string why;
  ASSERT_TRUE(k.load(&why)) << why;
  EXPECT_GT(k.size(), 10000u);
  KernelSymbols::Hit hit;
  ASSERT_TRUE(k.lookup(syscall + 7, &hit));
  EXPECT_EQ(hit.name, "do_syscall_64");
  EXPECT_EQ(hit.module, "");
  ASSERT_TRUE(k.lookup(syscall, &hit));
  EXPECT_EQ(hit.name, "do_syscall_64");
  EXPECT_FALSE(k.lookup(0x1000, &hit));  // a user address
}

TEST(KernelSymbols, ModuleSymbolsCarryTheirModule) {
  KernelSymbols k;
  std::string why;
  std::string file = tempFile(
      "ffffffff81000000 T _stext\n"
      "ffffffff81000100 t helper\n"
      "ffffffff81000200 D some_data\n"
      "ffffffffc0201000 t ext4_fill_super\t[ext4]\n"
      "ffffffffc0202000 T ext4_iget\t[ext4]\n");
  ASSERT_TRUE(k.load(file, &why)) << why;
  EXPECT_EQ(k.size(), 4u);  // data symbols are not kept
  KernelSymbols::Hit hit;
  ASSERT_TRUE(k.lookup(0xffffffffc0201010, &hit));
  EXPECT_EQ(hit.name, "ext4_fill_super");
  EXPECT_EQ(hit.module, "ext4");
  ASSERT_TRUE(k.lookup(0xffffffff81000250, &hit));
  EXPECT_EQ(hit.name, "helper");  // up to the next text symbol
  EXPECT_FALSE(k.lookup(0xffffffffc0202000 + KernelSymbols::kMaxSymbolBytes, &hit));
  unlink(file.c_str());
}

TEST(KernelSymbols, HiddenAddressesMakeTheTableUnavailable) {
  KernelSymbols k;
  std::string why;
  std::string zeros = tempFile("0000000000000000 T _stext\n0000000000000000 t helper\n");
  EXPECT_FALSE(k.load(zeros, &why));
  EXPECT_FALSE(k.available());
  EXPECT_NE(why.find("kptr_restrict"), std::string::npos) << why;
  KernelSymbols::Hit hit;
  EXPECT_FALSE(k.lookup(0, &hit));
  std::string garbage = tempFile(std::string("\x7f" "ELF\0\0garbage\nnot kallsyms at all\n\n", 35));
  EXPECT_FALSE(k.load(garbage, &why));
  EXPECT_NE(why.find("no text symbols"), std::string::npos) << why;
  EXPECT_FALSE(k.load("/nonexistent/kallsyms", &why));
  EXPECT_NE(why.find("No such file"), std::string::npos) << why;
  unlink(zeros.c_str());
  unlink(garbage.c_str());
}
