// SignalHandler's ownership of the sampling signals: install() refuses a signal that another
// handler holds already, and replacedSignal() notices one that another handler took over later
// (a second profiler loaded after candor), which install() cannot see. Each test runs in its own
// process (gtest_discover_tests), so the handlers set here do not leak into other tests.
#include "engine/SignalHandler.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>

using namespace candor;

namespace {
void otherHandler(int, siginfo_t*, void*) {}

void installOther(int sig) {
  struct sigaction sa = {};
  sa.sa_sigaction = otherHandler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(0, sigaction(sig, &sa, nullptr));
}
}  // namespace

TEST(SignalHandler, RefusesASignalAnotherHandlerHolds) {
  installOther(SIGUSR1);
  std::string why;
  EXPECT_FALSE(SignalHandler::install(SIGUSR1, &why));
  EXPECT_NE(std::string::npos, why.find("another handler")) << why;
  EXPECT_EQ(0, SignalHandler::replacedSignal());  // never candor's: nothing was taken from it
}

TEST(SignalHandler, NoticesATakeoverAfterInstall) {
  std::string why;
  ASSERT_TRUE(SignalHandler::install(SIGUSR2, &why)) << why;
  EXPECT_EQ(0, SignalHandler::replacedSignal());
  installOther(SIGUSR2);
  EXPECT_EQ(SIGUSR2, SignalHandler::replacedSignal());
  EXPECT_FALSE(SignalHandler::install(SIGUSR2, &why));  // a next session does not take it back silently
  EXPECT_NE(std::string::npos, why.find("another handler")) << why;
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(0, sigaction(SIGUSR2, &ignore, nullptr));  // SIG_IGN is a takeover too (install() would take it)
  EXPECT_EQ(SIGUSR2, SignalHandler::replacedSignal());
}
