#include "engine/CTimerEngine.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "engine/SmoothedWeight.h"

namespace candor {

namespace {
// This thread's signals so far, for their weights, the probes they counted, and its CPU clock as its
// timer started, for what it owes at the end (initial-exec: no allocation on first touch).
struct ThreadSignals {
  SmoothedWeight::Local history;  // history.session: whose these are
  uint64_t probes;
  uint64_t cpuAtArmNs;
  uint64_t accountedNs;  // jittered probes: its CPU clock up to the whole intervals they stood for
};
__thread ThreadSignals tSignals __attribute__((tls_model("initial-exec")));

// Signal-handler path too: this thread's history starts in `session`, its CPU counted from `cpuNs`.
void startThreadSignals_signalSafe(uint64_t session, uint64_t cpuNs) {
  tSignals = {{session, 0, 0, 0}, 0, cpuNs, cpuNs};
}
std::atomic<uint64_t> gSessions{0};

itimerspec periodic(long long ns, bool oneShot) {
  itimerspec spec = {};
  spec.it_value.tv_sec = ns / 1'000'000'000;
  spec.it_value.tv_nsec = ns % 1'000'000'000;
  if (!oneShot) spec.it_interval = spec.it_value;
  return spec;
}
}  // namespace

clockid_t threadCpuClock(int tid) {
  // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) from the kernel's posix-timers.h.
  return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6);
}

bool CTimerEngine::armThread(int tid, ThreadTimer* timer, std::string* why) {
  sigevent sev = {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signal_;
  sev._sigev_un._tid = tid;
  timer_t id;
  if (syscall(__NR_timer_create, threadCpuClock(tid), &sev, &id) != 0) {
    *why = std::string("timer_create: ") + strerror(errno);
    return false;
  }
  // On the thread itself (a thread that starts in the session): its CPU counts from here, so a
  // thread that ends before its first signal still settles what it used.
  if (tid == static_cast<int>(syscall(SYS_gettid))) {
    startThreadSignals_signalSafe(session_, clockNs(CLOCK_THREAD_CPUTIME_ID));
  }
  // With jitter each expiry re-arms a one-shot timer from the handler.
  itimerspec spec = periodic(nextPeriodNs_signalSafe(), jitterPct_ > 0);
  if (syscall(__NR_timer_settime, id, 0, &spec, nullptr) != 0) {
    *why = std::string("timer_settime: ") + strerror(errno);
    syscall(__NR_timer_delete, id);
    return false;
  }
  timer->timer = id;
  timer->armed = true;
  return true;
}

void CTimerEngine::disarmThread(ThreadTimer* timer) {
  if (!timer->armed) return;
  syscall(__NR_timer_delete, timer->timer);
  timer->armed = false;
}

bool CTimerEngine::startEngine(const Options&, std::string*) {
  session_ = addPlain(gSessions, uint64_t{1}) + 1;  // the threads' histories of an earlier session are stale
  sp(creditNs_, 0);  // no handler runs before the timers are armed
  probesPerInterval_ = intervalNs_ < kernelTickNs() ? kProbesPerInterval : 1;
  periodNs_ = intervalNs_ / static_cast<long long>(probesPerInterval_);
  settleRequests_.start(signal_);
  return true;
}

void CTimerEngine::settleThisThread(int tid) {
  // The handler runs before the call returns: the signal is for this thread and not blocked.
  if (tid == static_cast<int>(syscall(SYS_gettid))) settleRequests_.send(tid);
}

void CTimerEngine::settleThreads(const std::vector<int>& tids) { settleRequests_.sendAndWait(tids); }

uint64_t CTimerEngine::owedTicks_signalSafe() {
  // The thread's CPU since its timer started, less the intervals its ticks stood for: the intervals
  // its last signals have not yet weighed (a few per thread, SmoothedWeight.h), the probes short of
  // an interval, the CPU since the last expiry. Whole intervals are its own; the last part of one
  // is pooled with other threads' into whole ticks (as PerfEngine's last parts).
  ThreadSignals& t = tSignals;
  if (t.history.session != session_ || t.cpuAtArmNs == 0 || intervalNs_ <= 0) return 0;
  uint64_t cpu = clockNs(CLOCK_THREAD_CPUTIME_ID);
  auto interval = static_cast<uint64_t>(intervalNs_);
  uint64_t used = cpu > t.cpuAtArmNs ? cpu - t.cpuAtArmNs : 0;
  uint64_t paidNs = t.history.paid() * interval;
  t.history.session = 0;  // settled: a later signal starts a new history from its own count
  if (used <= paidNs) {  // its ticks ran ahead of its CPU: a credit for the next deficits
    addPlain(creditNs_, paidNs - used);
    return 0;
  }
  uint64_t owed = used - paidNs;
  owed -= takeCredit_signalSafe(owed);
  return owed / interval + settleRequests_.poolLastPart_signalSafe(owed % interval, interval);
}

uint64_t CTimerEngine::takeCredit_signalSafe(uint64_t owedNs) {
  uint64_t credit = lp(creditNs_);
  uint64_t take = 0;
  do {
    take = std::min(credit, owedNs);
  } while (take > 0 && !casPlain(creditNs_, credit, credit - take));
  return take;
}

long long CTimerEngine::kernelTickNs() {
  // The coarse clocks advance once per tick: their resolution is the tick (1/CONFIG_HZ).
  timespec res = {};
  if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0) return 1'000'000;  // HZ=1000, the finest
  return res.tv_sec * 1'000'000'000LL + res.tv_nsec;
}

void CTimerEngine::readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) {
  if (settleRequests_.is_signalSafe(info)) {  // the thread ends or the session stops: no tick of its own
    batch->fromRing = true;  // so ticks() is 0: the handler records only what it settles
    batch->cpuTimer = batch->settle = true;
    batch->unsampledCpu = owedTicks_signalSafe();
    settleRequests_.handled_signalSafe();
    return;
  }
  Engine::readTicks_signalSafe(info, tid, batch);
  // Only the timer's own signals carry an overrun (a signal sent by other code is a tick).
  if (info->si_code != SI_TIMER) return;
  ThreadSignals& t = tSignals;
  uint64_t fired = 1 + static_cast<uint64_t>(std::max(0, info->si_overrun));
  if (t.history.session != session_) {  // armed before its thread ran here: its CPU since, about
    uint64_t cpu = clockNs(CLOCK_THREAD_CPUTIME_ID);
    uint64_t since = fired * static_cast<uint64_t>(periodNs_);
    startThreadSignals_signalSafe(session_, cpu > since ? cpu - since : 1);
  }
  uint64_t weight;
  if (probesPerInterval_ > 1 && jitterPct_ > 0) {  // one-shot probes count no overrun: the CPU clock does
    auto interval = static_cast<uint64_t>(intervalNs_);
    uint64_t cpu = clockNs(CLOCK_THREAD_CPUTIME_ID);
    uint64_t stoodFor = cpu > t.accountedNs ? (cpu - t.accountedNs) / interval : 0;
    t.accountedNs += stoodFor * interval;
    weight = t.history.weigh_signalSafe(stoodFor, 0);
  } else if (probesPerInterval_ > 1) {  // probes: the intervals they completed, maybe none
    uint64_t before = t.probes;
    t.probes += fired;
    weight = t.history.weigh_signalSafe(t.probes / probesPerInterval_ - before / probesPerInterval_, 0);
  } else {
    weight = t.history.weigh_signalSafe(fired);
  }
  if (weight == 0) {
    batch->noTick = true;  // the thread's signals come faster than its intervals: this one weighs none
  } else {
    batch->unrecorded = weight - 1;
  }
}

void CTimerEngine::rearm_signalSafe(const siginfo_t* info) {
  // Raw syscalls: the kernel's timer id travels in si_timerid, and glibc's timer_t wrapper
  // would not accept it.
  itimerspec spec = periodic(nextPeriodNs_signalSafe(), true);
  syscall(__NR_timer_settime, info->si_timerid, 0, &spec, nullptr);
}

long long CTimerEngine::nextPeriodNs_signalSafe() const {
  return jitteredInterval_signalSafe(periodNs_, jitterPct_);
}

int64_t CTimerEngine::latency_signalSafe(const siginfo_t* info) {
  itimerspec now = {};
  if (syscall(__NR_timer_gettime, info->si_timerid, &now) != 0) return -1;
  int64_t remaining = now.it_value.tv_sec * 1'000'000'000LL + now.it_value.tv_nsec;
  return remaining > 0 && remaining <= periodNs_ ? periodNs_ - remaining : -1;
}

}  // namespace candor
