#include "engine/PerfEngine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <utility>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "engine/CTimerEngine.h"
#include "engine/PerfEvents.h"
#include "engine/PerfTickRing.h"

namespace candor {

namespace {

// Per thread, for KernelTime::kEstimated: the thread's CPU time at its last tick. Initial-exec
// TLS: no allocation on first touch in a handler. `session` tells stale marks of an earlier
// session (or of none) from this one's.
struct CpuMark {
  uint64_t session;
  uint64_t cpuNs;
  int64_t debtNs;  // CPU time the ticks so far fell short of (may be negative: a tick came early)
  // The thread's context switches (getrusage: voluntary, involuntary) when its kernel debt was
  // last paid, to tell where the next debt was run up (splitKernelDebt_signalSafe).
  uint64_t voluntary;
  uint64_t involuntary;
};

// Signal-handler path: this thread's context switches so far, {voluntary, involuntary}. A raw
// system call; zeros if it fails.
std::pair<uint64_t, uint64_t> threadSwitches_signalSafe() {
  rusage usage = {};
  if (syscall(SYS_getrusage, RUSAGE_THREAD, &usage) != 0) return {0, 0};
  return {static_cast<uint64_t>(usage.ru_nvcsw), static_cast<uint64_t>(usage.ru_nivcsw)};
}

CpuMark newMark_signalSafe(uint64_t session, uint64_t cpuNs) {
  auto [voluntary, involuntary] = threadSwitches_signalSafe();
  return CpuMark{session, cpuNs, 0, voluntary, involuntary};
}
__thread CpuMark tCpuMark __attribute__((tls_model("initial-exec")));
std::atomic<uint64_t> gSessions{0};

perf_event_attr cpuClock(long long periodNs, bool kernel, bool ring) {
  perf_event_attr attr = perfCpuClockAttr(periodNs);
  if (kernel) {
    attr.exclude_kernel = 0;
    attr.exclude_callchain_user = 1;  // the handler walks user space itself
    attr.sample_max_stack = kMaxKernelFrames;
  }
  if (ring) {  // records cost the kernel a little per tick: only when a ring reads them
    attr.sample_type = PERF_SAMPLE_TIME | (kernel ? PERF_SAMPLE_CALLCHAIN : 0);
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
  }
  return attr;
}

bool canSampleKernel(std::string* why) {
  if (const char* off = getenv("CANDOR_TEST_NO_KERNEL_SAMPLING"); off != nullptr && strcmp(off, "1") == 0) {
    *why = "kernel sampling turned off by CANDOR_TEST_NO_KERNEL_SAMPLING";
    return false;
  }
  perf_event_attr attr = cpuClock(10'000'000, true, true);
  int fd = perfEventOpen(&attr, 0);
  if (fd < 0) {
    *why = perfOpenError("perf refuses kernel sampling to this process", errno);
    return false;
  }
  close(fd);
  return true;
}

bool nextTickSwitch() {  // the bench's A/B of the placement: the design before it, settle included
  const char* off = getenv("CANDOR_TEST_KERNEL_AT_NEXT_TICK");
  return off != nullptr && strcmp(off, "1") == 0;
}

// Where the handler walks the stack itself: it checks a timer's pc against the native modules.
bool walksInHandler(const Options& options) {
  return options.walk == WalkMode::kVm || options.walk == WalkMode::kAgct;
}

bool placementAllowed(const Options& options, bool kernelSampled) {
  if (kernelSampled || options.cstack == CStackMode::kNo) return false;
  return walksInHandler(options) && !nextTickSwitch();
}
}  // namespace

bool PerfEngine::available(std::string* why) {
  perf_event_attr attr = perfCpuClockAttr(10'000'000);
  int fd = perfEventOpen(&attr, 0);
  if (fd < 0) {
    *why = perfOpenError("perf_event_open failed", errno);
    return false;
  }
  close(fd);
  return true;
}

bool PerfEngine::startEngine(const Options& options, std::string* why) {
  if (!available(why)) return false;
  std::string refused;
  kernelSampled_ = canSampleKernel(&refused);
  placeAtSyscalls_ = placementAllowed(options, kernelSampled_);
  // This engine's ticks always reach a signal handler (walk=copy reads rings: PerfRingEngine), so a
  // settle request, a signal, reaches every mode.
  settles_ = !nextTickSwitch();
  kernelReason_ = kernelSampled_ ? "perf allows kernel sampling (root, CAP_PERFMON or perf_event_paranoid <= 1)"
                                 : refused + "; ticks perf drops in the kernel are counted from each thread's CPU clock" +
                                       (placeAtSyscalls_ ? " and placed at the system calls a CPU-time timer finds"
                                                         : " and placed at its next tick");
  // A ring for the kernel's callchains, or for the tick times (latency) when ticks follow a
  // schedule; jittered, unprivileged ticks need none.
  ringPages_ = kernelSampled_ ? 2 : (jitterPct_ == 0 ? 1 : 0);
  session_ = addPlain(gSessions, uint64_t{1}) + 1;
  settleRequests_.start(signal_);
  return true;
}

bool PerfEngine::armThread(int tid, ThreadTimer* timer, std::string* why) {
  // On the thread itself (a thread that starts in the session): its CPU counts from here, not from
  // its first tick, which a thread shorter than an interval never gets.
  if (settles_ && tid == static_cast<int>(syscall(SYS_gettid))) {
    tCpuMark = newMark_signalSafe(session_, clockNs(CLOCK_THREAD_CPUTIME_ID));
  }
  perf_event_attr attr = cpuClock(nextIntervalNs_signalSafe(), kernelSampled_, ringPages_ > 0);
  int fd = perfEventOpen(&attr, tid);
  if (fd < 0) {
    *why = perfOpenError("perf_event_open", errno);
    return false;
  }
  f_owner_ex owner = {F_OWNER_TID, tid};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, signal_) != 0 ||
      fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
    *why = std::string("cannot route perf signals to the thread: ") + strerror(errno);
    close(fd);
    return false;
  }
  if (ringPages_ > 0) timer->ring = PerfTickRing::map(fd, tid, ringPages_, kernelSampled_);
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  timer->fd = fd;
  timer->armed = true;
  if (placeAtSyscalls_) armCpuTimer(tid, timer);
  return true;
}

void PerfEngine::armCpuTimer(int tid, ThreadTimer* timer) {
  // Without it the thread's kernel ticks are still counted, and paid at a tick once they pass
  // kOwedAtTickIntervals: a failure here costs placement, never ticks.
  sigevent sev = {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signal_;
  sev._sigev_un._tid = tid;
  timer_t id;
  if (syscall(__NR_timer_create, threadCpuClock(tid), &sev, &id) != 0) return;
  itimerspec spec = {};
  spec.it_value.tv_sec = intervalNs_ / 1'000'000'000;
  spec.it_value.tv_nsec = intervalNs_ % 1'000'000'000;
  spec.it_interval = spec.it_value;
  if (syscall(__NR_timer_settime, id, 0, &spec, nullptr) != 0) {
    syscall(__NR_timer_delete, id);
    return;
  }
  timer->timer = id;
  timer->cpuTimerArmed = true;
}

void PerfEngine::settleThisThread(int tid) {
  // The handler runs before the call returns: the signal is for this thread and not blocked.
  if (settles_ && tid == static_cast<int>(syscall(SYS_gettid))) settleRequests_.send(tid);
}

void PerfEngine::settleThreads(const std::vector<int>& tids) {
  if (settles_) settleRequests_.sendAndWait(tids);
}

void PerfEngine::disarmThread(ThreadTimer* timer) {
  if (!timer->armed) return;
  if (timer->cpuTimerArmed) {  // first: a timer signal finds the thread's debt, not a closed event
    syscall(__NR_timer_delete, timer->timer);
    timer->cpuTimerArmed = false;
  }
  ioctl(timer->fd, PERF_EVENT_IOC_DISABLE, 0);
  PerfTickRing::unmap(timer->fd, timer->ring);  // before close: the fd number may be reused at once
  timer->ring = nullptr;
  close(timer->fd);
  timer->fd = -1;
  timer->armed = false;
}

void PerfEngine::readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) {
  if (info->si_code == SI_TIMER) {  // the CPU-time timer (placeAtSyscalls_): no tick of its own
    batch->fromRing = true;         // so ticks() is 0: the handler records only what it places
    batch->cpuTimer = placeAtSyscalls_;
    return;
  }
  if (info->si_code == SI_QUEUE) {  // not perf's (POLL_IN): a settle request, or no one's
    batch->fromRing = true;
    if (!settleRequests_.is_signalSafe(info)) return;
    batch->cpuTimer = batch->settle = true;
    batch->unsampledKernel = unsampledKernelTicks_signalSafe(0, 0);
    batch->kernelDebt = placeAtSyscalls_ ? splitKernelDebt_signalSafe(batch->unsampledKernel) : 0;
    batch->kernelWhereItRan = placeAtSyscalls_ ? batch->unsampledKernel - batch->kernelDebt : 0;
    batch->unsampledCpu = settleLastPart_signalSafe();
    settleRequests_.handled_signalSafe();
    return;
  }
  if (jitterPct_ > 0) {
    // F_SETSIG signals carry the fd that overflowed; ioctl is async-signal-safe.
    unsigned long long period = static_cast<unsigned long long>(nextIntervalNs_signalSafe());
    ioctl(info->si_fd, PERF_EVENT_IOC_PERIOD, &period);
  }
  PerfTickRing::read_signalSafe(info->si_fd, tid, batch);
  // Even where the kernel is sampled, the event's clock misses kernel time the thread's CPU clock
  // counts: the scheduler's work around each context switch (about 5% of a 200-thread server's
  // CPU here). The gap since the thread's last tick says how many ticks that time was worth.
  int64_t payAbove = placeAtSyscalls_ ? kOwedAtTickIntervals * intervalNs_ : 0;
  // No ticks: an earlier handler of this thread took this signal's ticks and set the mark.
  batch->unsampledKernel = batch->ticks() > 0 ? unsampledKernelTicks_signalSafe(batch->ticks(), payAbove) : 0;
  if (placeAtSyscalls_ && batch->unsampledKernel > 0) batch->kernelDebt = splitKernelDebt_signalSafe(batch->unsampledKernel);
}

uint64_t PerfEngine::kernelTicksAtSyscall_signalSafe() {
  uint64_t owed = unsampledKernelTicks_signalSafe(0, 0);
  if (owed > 0) takeSwitches_signalSafe();  // paid where it was run up: the next debt counts from here
  return owed;
}

std::pair<uint64_t, uint64_t> PerfEngine::takeSwitches_signalSafe() {
  auto [voluntary, involuntary] = threadSwitches_signalSafe();
  CpuMark& m = tCpuMark;
  std::pair<uint64_t, uint64_t> since = {voluntary - std::min(voluntary, m.voluntary),
                                         involuntary - std::min(involuntary, m.involuntary)};
  m.voluntary = voluntary;
  m.involuntary = involuntary;
  return since;
}

uint64_t PerfEngine::splitKernelDebt_signalSafe(uint64_t owed) {
  // A debt is kernel time the CPU-time timer did not find at a system call, much of it the work
  // around context switches (run with interrupts off: no tick sees it), each charged to the thread
  // switched in. One it asked for (voluntary: it blocked in a system call) it pays as that call
  // returns: the call's site. One it did not (preempted) it pays where it resumes, in the code
  // it was running, which is where ticks find it. So the debt goes to the system-call site in
  // the voluntary switches' share (all of it, with no switch: system calls, page faults).
  auto [v, i] = takeSwitches_signalSafe();
  if (v + i == 0) return owed;
  return (owed * v + (v + i) / 2) / (v + i);
}

uint64_t PerfEngine::settleLastPart_signalSafe() {
  // What is left of the debt is less than an interval, of user or kernel time: which, no clock
  // tells. Pooled with the other threads' last parts, each whole interval of the pool is one
  // stackless cpu_unsampled tick (as percpu's settlement charges), so thousands of short threads
  // keep their CPU; the pool's own last part (< 1 tick per session) is all that stays unsampled.
  CpuMark m = tCpuMark;
  if (m.session != session_ || m.debtNs <= 0 || intervalNs_ <= 0) return 0;
  tCpuMark.debtNs = 0;
  auto part = static_cast<uint64_t>(m.debtNs);
  auto interval = static_cast<uint64_t>(intervalNs_);
  return settleRequests_.poolLastPart_signalSafe(part, interval);
}

uint64_t PerfEngine::unsampledKernelTicks_signalSafe(uint64_t ticksNow, int64_t payAboveNs) const {
  // Ticks come every interval of the event's clock, and those that fire in the kernel are dropped
  // when the kernel may not be sampled; the thread's CPU clock counts on regardless. What the
  // ticks that arrived fall short of that clock is kernel time no tick covered. It is kept as a
  // per-thread debt, so fractions of an interval add up (a few % of context-switch time spread
  // over every gap), and paid out as whole ticks. The first tick of a thread only sets the mark.
  // At a system call (ticksNow 0) the debt includes the user time since the last tick: paid
  // here, it makes the next tick's gap short by as much, so the sum stays the clock's.
  uint64_t cpu = clockNs(CLOCK_THREAD_CPUTIME_ID);
  CpuMark last = tCpuMark;
  auto interval = static_cast<int64_t>(intervalNs_);
  if (last.session != session_ || interval <= 0) {
    tCpuMark = newMark_signalSafe(session_, cpu);
    return 0;
  }
  if (cpu <= last.cpuNs) return 0;
  int64_t debt = last.debtNs + static_cast<int64_t>(cpu - last.cpuNs) - static_cast<int64_t>(ticksNow) * interval;
  if (debt < -interval) debt = -interval;  // ticks that came early settle at most one interval ahead
  uint64_t owed = debt >= interval && debt > payAboveNs ? static_cast<uint64_t>(debt / interval) : 0;
  tCpuMark.cpuNs = cpu;
  tCpuMark.debtNs = debt - static_cast<int64_t>(owed) * interval;
  return owed;
}

int32_t PerfEngine::kernelFrames_signalSafe(const CpuTickBatch& batch, int i, ASGCT_CallFrame* out, int32_t max) {
  return PerfTickRing::kernelFrames_signalSafe(batch, i, out, max);
}

void PerfEngine::releaseTicks_signalSafe(const CpuTickBatch& batch) { PerfTickRing::release_signalSafe(batch); }

}  // namespace candor
