#include "walk/RemoteWalkChannel.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <thread>
#include <vector>

namespace candor {
namespace {

// The walker reads what the waiting side keeps on its stack while it waits, as a real walker
// reads the sampled thread's frames: a torn or stale read shows as a wrong result.
struct StackMarker {
  volatile int64_t value;
};

void serve(RemoteWalkChannel& ch, std::atomic<uint64_t>& served) {
  while (RemoteRequest* r = ch.take(200'000'000)) {
    auto* marker = static_cast<StackMarker*>(r->ucontext);
    int64_t v = marker->value;
    std::this_thread::yield();           // the waiting side must still be parked here
    r->result = marker->value == v ? static_cast<int32_t>(v) : -1;
    ch.complete(r);
    served.fetch_add(1);
  }
}

TEST(RemoteWalkChannelTest, EveryPublishedRequestIsWalkedWhileItsThreadWaits) {
  RemoteWalkChannel ch;
  std::atomic<uint64_t> served{0};
  std::thread walker(serve, std::ref(ch), std::ref(served));
  constexpr int kThreads = 4, kEach = 3000;
  std::atomic<int> wrong{0}, abandoned{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; t++) {
    producers.emplace_back([&, t] {
      for (int i = 0; i < kEach; i++) {
        StackMarker marker{t * 100000 + i};
        RemoteRequest* r = ch.claim_signalSafe();
        ASSERT_NE(r, nullptr);  // 4 threads, 64 slots
        r->ucontext = &marker;
        int32_t result = 0;
        if (!ch.publishAndWait_signalSafe(r, 1'000'000'000, &result)) abandoned++;
        else if (result != marker.value) wrong++;
        marker.value = -2;  // the stack moves on
      }
    });
  }
  for (auto& p : producers) p.join();
  ch.stop();
  walker.join();
  EXPECT_EQ(0, wrong.load());
  EXPECT_EQ(0, abandoned.load());
  EXPECT_EQ(uint64_t(kThreads * kEach), served.load());
  EXPECT_EQ(uint64_t(kThreads * kEach), ch.spinsSatisfied() + ch.futexWaits());
}

TEST(RemoteWalkChannelTest, WithoutAWalkerTheHandlerGivesUpAfterItsTimeoutAndFreesTheSlot) {
  RemoteWalkChannel ch;
  StackMarker marker{7};
  for (int round = 0; round < 2; round++) {
    std::vector<RemoteRequest*> taken;
    while (RemoteRequest* r = ch.claim_signalSafe()) taken.push_back(r);
    ASSERT_EQ(size_t(RemoteWalkChannel::kSlots), taken.size()) << "all slots claimable, then none";
    for (RemoteRequest* r : taken) {
      r->ucontext = &marker;
      EXPECT_FALSE(ch.publishAndWait_signalSafe(r, 100'000));  // 0.1 ms, nobody walks
    }
  }
  EXPECT_EQ(nullptr, ch.take(1'000'000)) << "abandoned requests are not handed to a late walker";
}

RemoteWalkChannel* gChannel;
std::atomic<int> gSignalWrong{0};

void onSignal(int, siginfo_t*, void*) {
  StackMarker marker{42};
  RemoteRequest* r = gChannel->claim_signalSafe();
  if (r == nullptr) return;
  r->ucontext = &marker;
  int32_t result = 0;
  if (!gChannel->publishAndWait_signalSafe(r, 1'000'000'000, &result) || result != 42) gSignalWrong++;
}

TEST(RemoteWalkChannelTest, WorksFromRealSignalHandlers) {
  RemoteWalkChannel ch;
  gChannel = &ch;
  struct sigaction sa = {}, old = {};
  sa.sa_sigaction = onSignal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  ASSERT_EQ(0, sigaction(SIGUSR2, &sa, &old));
  std::atomic<uint64_t> served{0};
  std::thread walker(serve, std::ref(ch), std::ref(served));
  std::atomic<bool> run{true};
  std::thread busy([&] { while (run.load()) {} });
  for (int i = 0; i < 2000; i++) pthread_kill(busy.native_handle(), SIGUSR2);
  run = false;
  busy.join();
  ch.stop();
  walker.join();
  sigaction(SIGUSR2, &old, nullptr);
  EXPECT_EQ(0, gSignalWrong.load());
  EXPECT_GT(served.load(), 0u);
}

}  // namespace
}  // namespace candor
