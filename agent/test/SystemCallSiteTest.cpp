// stoppedAtSystemCall_signalSafe: how a CPU-time timer's signal tells that it stopped the thread
// at a system call (where PerfEngine places unprivileged kernel time). The real signal is tested
// by the itests (KernelTimeTest); here the registers are made up around glibc's own `syscall`
// instruction, so each case is known.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <ucontext.h>

#include <cstdint>
#include <string>
#include <vector>

#include "walk/UserStack.h"
#include "walk/native/NativeStack.h"

namespace candor {
namespace {

// The first `syscall` instruction (0f 05) in glibc's syscall(3) wrapper.
uintptr_t syscallInstructionInLibc() {
  auto* code = reinterpret_cast<const uint8_t*>(dlsym(RTLD_DEFAULT, "syscall"));
  if (code == nullptr) return 0;
  for (int i = 0; i < 64; i++) {
    if (code[i] == 0x0f && code[i + 1] == 0x05) return reinterpret_cast<uintptr_t>(code + i);
  }
  return 0;
}

bool stoppedAt(uintptr_t pc) {
  ucontext_t uc = {};
  uc.uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(pc);
  return stoppedAtSystemCall_signalSafe(&uc);
}

class SystemCallSiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    ASSERT_TRUE(NativeStack::enable(CStackMode::kDwarf, &why)) << why;
    site_ = syscallInstructionInLibc();
    ASSERT_NE(site_, 0u) << "no syscall instruction in glibc's syscall()";
  }
  void TearDown() override {
    std::string why;
    NativeStack::enable(CStackMode::kNo, &why);
  }
  uintptr_t site_ = 0;
};

TEST_F(SystemCallSiteTest, JustPastTheInstructionIsTheCallReturning) { EXPECT_TRUE(stoppedAt(site_ + 2)); }

TEST_F(SystemCallSiteTest, AtTheInstructionIsTheCallAboutToRestart) { EXPECT_TRUE(stoppedAt(site_)); }

TEST_F(SystemCallSiteTest, ElsewhereInTheSameCodeIsNot) {
  EXPECT_FALSE(stoppedAt(site_ + 1));
  EXPECT_FALSE(stoppedAt(site_ + 3));
}

TEST_F(SystemCallSiteTest, CodeOutsideEveryModuleIsNeverRead) {
  // JIT code makes no system calls; a heap buffer holding the bytes stands for it.
  std::vector<uint8_t> fake = {0x90, 0x0f, 0x05, 0x90};
  EXPECT_FALSE(stoppedAt(reinterpret_cast<uintptr_t>(fake.data()) + 3));
  EXPECT_FALSE(stoppedAt(0));
  EXPECT_FALSE(stoppedAt(1));
}

TEST_F(SystemCallSiteTest, WithoutCStackNothingIsAtASystemCall) {
  std::string why;
  NativeStack::enable(CStackMode::kNo, &why);
  EXPECT_FALSE(stoppedAt(site_ + 2));
}

}  // namespace
}  // namespace candor
