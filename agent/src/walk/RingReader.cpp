#include "walk/RingReader.h"

#include <setjmp.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <string>

#include "base/Log.h"
#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "concurrent/Clock.h"
#include "engine/PerfEvents.h"
#include "jvm/AgentThread.h"
#include "jvm/Jvm.h"
#include "walk/SlotFill.h"
#include "walk/UserStack.h"
#include "walk/native/NativeStack.h"
#include "walk/vm/CrashGuard.h"
#include "walk/vm/GuardedMemory.h"
#include "walk/vm/VmStackWalker.h"

namespace candor {

namespace {
constexpr int32_t kUnknownNotJava = -3;  // AGCT's code: the pc is not in Java code
// A sample record the parser rejects (never seen): it lands in unknown_error.
constexpr int32_t kMalformedSampleCode = -1099;
constexpr size_t kScratchBytes = 64 * 1024;  // a record's size is a u16
constexpr int kCpu = static_cast<int>(SampleKind::kCpu);
// The most of a stack read live past the copy: address space only, until a deep stack is walked
// (a 10,000-frame interpreted recursion takes about 1 MB).
constexpr size_t kLiveTailBytes = 16 << 20;
}  // namespace

RingReader::RingReader(SampleRing& ring, HandlerCounters& counters, PerfRingEngine& engine, LabelSets& labels)
    : ring_(ring),
      counters_(counters),
      engine_(engine),
      labels_(labels),
      scratch_(new uint8_t[kScratchBytes]),
      liveTail_(kLiveTailBytes) {
  pid_ = getpid();
  // Test hook: CANDOR_TEST_READER_STALL_MS=<ms> makes every pass wait that long first, so rings
  // fill and the kernel loses samples (PERF_RECORD_LOST) as under a starved reader (CopyWalkTest).
  if (const char* stall = getenv("CANDOR_TEST_READER_STALL_MS"); stall != nullptr) stallMs_ = atoi(stall);
  osthreadOffset_ = Jvm::osThreadOffsets().osthread;
  threadIdOffset_ = Jvm::osThreadOffsets().threadId;
}

void RingReader::start() {
  engine_.setConsumer(this);
  sp(stopping_, false);
  thread_ = AgentThread::start("candor reader", false, [this](JNIEnv*) { run(); });
}

void RingReader::stop() {
  if (!thread_.joinable()) return;
  sp(stopping_, true);
  engine_.wake();
  thread_.join();
  engine_.consumeAll(*this);  // rings still armed (none after ThreadRegistry::end)
  engine_.setConsumer(nullptr);
}

void RingReader::run() {
  uint64_t settled = monotonicNs();
  int timeoutMs = kTimeoutMs;
  while (!lp(stopping_)) {
    engine_.wait(timeoutMs);
    if (stallMs_ > 0) usleep(static_cast<useconds_t>(stallMs_) * 1000);
    uint64_t now = monotonicNs();
    bool settle = now - settled >= kSettleNs;  // so a rotated recording holds its own share
    if (settle) settled = now;
    uint64_t deepBefore = lp(completedLive_) + lp(truncated_);
    engine_.consumeAll(*this, settle);
    // Every sample taken before this pass is read now, but for one still being written by a CPU
    // (a vCPU the hypervisor paused mid-record): kLateRecordNs for those.
    labels_.readUpTo(now - kLateRecordNs);
    addPlain(wakeups_, 1);
    // Stacks deeper than the copy are finished from the live stack, which the thread changes as it
    // runs: while such stacks come, the reader comes back soon, before their callers are gone.
    timeoutMs = lp(completedLive_) + lp(truncated_) > deepBefore ? kDeepTimeoutMs : kTimeoutMs;
  }
  sp(cpuNs_, clockNs(CLOCK_THREAD_CPUTIME_ID));
}

void RingReader::logSummary() const {
  auto n = [](const std::atomic<uint64_t>& v) { return static_cast<unsigned long long>(lp(v)); };
  uint64_t samples = lp(samples_);
  // The reader's CPU per sample is the part of a sample's cost not paid by the sampled thread.
  logInfo("ring reader: %llu samples read in %llu wakeups (%.1f us CPU each), %llu deeper than the stack copy "
          "completed from the live stack, %llu marked truncated at the stack copy's end, %llu lost in full rings, "
          "%llu throttle events, %llu ticks counted after a ring's last sample (cpu_unsampled); %llu rings enlarged for "
          "busy threads, %llu mapped smaller for the locked-memory limit%s",
          n(samples_), n(wakeups_), lp(cpuNs_) / 1e3 / static_cast<double>(samples > 0 ? samples : 1),
          n(completedLive_), n(truncated_), n(lost_), n(throttled_), n(tailTicks_), static_cast<unsigned long long>(engine_.ringsEnlarged()),
          static_cast<unsigned long long>(engine_.ringsShrunk()),
          engine_.perCpu() ? ("; percpu: " + std::to_string(lp(notOurs_)) + " samples of other processes or threads not sampled, " +
                              std::to_string(lp(inKernel_)) + " in kernel mode (" + std::to_string(lp(kernelNoChain_)) +
                              " without kernel frames), " + std::to_string(lp(dueBeforeSwitch_)) +
                              " that fell due before the CPU switched to their thread (of " + std::to_string(lp(switches_)) +
                              " switch records) left out, " + std::to_string(lp(unsampled_)) +
                              " ticks of CPU time no sample covered, lost at context switches (estimated, placed by the thread's switches)").c_str() : "");
  // A cut stack lacks its callers: a focus on a root method, or a caller's total, misses those samples.
  // Say so where it matters (1% of the samples or more) and what walks whole stacks.
  uint64_t walked = samples - lp(notOurs_) - lp(dueBeforeSwitch_);  // percpu: only our threads' samples are walked
  if (walked > 0 && lp(truncated_) * 100 >= walked) {
    logInfo("%.1f%% of the stacks were deeper than the %uk stack copy and are cut there (marked [truncated], their "
            "callers missing: the thread had left them when the reader came to read them); %s walks whole stacks",
            100.0 * static_cast<double>(lp(truncated_)) / static_cast<double>(walked), engine_.stackBytes() / 1024,
            engine_.perCpu() ? "percpu=no" : "walk=vm");
  }
}

void RingReader::consume(PerfRing& ring) {
  forEachPerfRecord(ring.page, scratch_.get(), [&](const perf_event_header& header, const uint8_t* record) {
    switch (header.type) {
      case PERF_RECORD_SAMPLE:
        onSample(ring, record, header.size);
        break;
      case PERF_RECORD_LOST: {  // {header, id, lost}: the ring was full for `lost` samples
        uint64_t lost = 0;
        if (header.size >= sizeof header + 16) memcpy(&lost, record + sizeof header + 8, sizeof lost);
        lost = oursOfLost(ring, lost);
        addPlain(counters_.ticks[kCpu], lost);
        addPlain(counters_.dropped[kCpu], lost);
        addPlain(lost_, lost);
        balance_ -= static_cast<double>(lost);  // ticks counted (dropped): not owed again
        ring.lostSinceSample += lost;           // per thread: in the next sample's gap, not owed either
        break;
      }
      case PERF_RECORD_THROTTLE:  // the kernel skips ticks (perf_event_max_sample_rate): never counted
        addPlain(throttled_, 1);
        break;
      case PERF_RECORD_SWITCH_CPU_WIDE: {  // percpu: who runs on the CPU from when
        uint32_t tid = 0;
        uint64_t at = 0;
        bool out = false;
        if (!parsePerfSwitch(record, header.size, &tid, &at, &out)) break;
        addPlain(switches_, 1);
        // The switch out, written once the next task is picked, is when its CPU clock started; a
        // switch in counts only for a task no switch out named (the idle task's may be missing).
        if (out || ring.switchedToTid != tid) {
          ring.switchedToTid = tid;
          ring.switchedNs = at;
        }
        if (out) countSwitchOut(record);
        break;
      }
      default:
        break;
    }
  });
}

void RingReader::onSample(PerfRing& ring, const uint8_t* record, size_t size) {
  addPlain(samples_, 1);
  PerfSample sample;
  bool parsed = parsePerfSample(record, size, &sample, engine_.sampleType());
  CoveredThread* covered = nullptr;
  if (engine_.perCpu() && parsed) {
    ring.grid.observe(sample.timeNs);
    covered = sample.pid == static_cast<uint32_t>(pid_) ? engine_.coveredLocked(static_cast<int>(sample.tid)) : nullptr;
    if (covered == nullptr || sample.timeNs < covered->armNs) {
      addPlain(notOurs_, 1);
      ring.foreign++;
      return;
    }
    // Due while the CPU was idle or ran another task: not this thread's time (the other task's
    // CPU clock, if it is a sampled thread, charges it there as cpu_unsampled).
    if (sample.tid == ring.switchedToTid && ring.grid.dueNs(sample.timeNs) < ring.switchedNs) {
      addPlain(dueBeforeSwitch_, 1);
      ring.foreign++;
      return;
    }
    ring.ours++;
    covered->ticks++;
  }
  // Measured first, so that a full ring drops the estimated ticks with this one, counted.
  uint64_t unsampled = parsed && !engine_.perCpu() ? unsampledTicks(ring, sample) : 0;
  if (unsampled > 0) addPlain(counters_.estimated, unsampled);
  SampleSlot* slot = claimForTick_signalSafe(ring_, counters_, SampleKind::kCpu);
  if (slot == nullptr) {
    addPlain(counters_.ticks[static_cast<int>(SampleKind::kCpu)], unsampled);
    addPlain(counters_.dropped[static_cast<int>(SampleKind::kCpu)], unsampled);
    return;
  }
  // Latency -1: there is none to measure, the kernel took the sample at the timer's expiry.
  fillHeader_signalSafe(slot, parsed ? static_cast<int32_t>(sample.tid) : (engine_.perCpu() ? 0 : ring.tid), SampleKind::kCpu,
                        ThreadState::kRunning, parsed ? sample.timeNs : 0, -1);
  // The thread may have changed scope since the sample: its set at the sample's time.
  if (parsed) slot->labels = labels_.idAt(static_cast<int>(sample.tid), sample.timeNs);
  slot->numFrames = parsed ? walk(covered != nullptr ? covered->javaThread : ring.javaThread, sample, slot)
                           : kMalformedSampleCode;
  // percpu: a sample in a system call tells the consumer where this thread's blocking calls are,
  // for the ticks lost as it blocked (settle).
  if (covered != nullptr && sample.inKernel && sample.hasRegs) slot->site = afterSystemCall(sample.regs[kPerfRegIp]) ? 1 : 0;
  if (unsampled > 0) {
    recordOnTopOf_signalSafe(ring_, counters_, slot, firstJavaFrame(ring_.framesOf(slot), slot->numFrames),
                             static_cast<uint32_t>(std::min<uint64_t>(unsampled, UINT32_MAX)),
                             [](ASGCT_CallFrame* top, int32_t) {
                               top[0] = {kKernelUnsampledBci, nullptr};
                               return 1;
                             });
  }
  ring_.publish_signalSafe(slot);
}

bool RingReader::afterSystemCall(uintptr_t pc) {
  // As the CPU-time timer's placement checks it (stoppedAtSystemCall_signalSafe), but from here,
  // after the fact: the module may be gone, so the bytes are read by the kernel, which fails on a
  // page no longer mapped instead of faulting.
  if (pc < 2 || !NativeStack::isNative_signalSafe(pc)) return false;
  uint8_t code[2] = {};
  iovec local = {code, sizeof code};
  iovec remote = {reinterpret_cast<void*>(pc - 2), sizeof code};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof code && isSyscallInstruction(code[0], code[1]);
}

void RingReader::countSwitchOut(const uint8_t* record) {
  uint32_t prev = 0;
  bool preempted = false;
  parsePerfSwitchOut(record, &prev, &preempted);
  CoveredThread* thread = engine_.coveredLocked(static_cast<int>(prev));
  if (thread == nullptr) return;
  (preempted ? thread->preemptedSwitches : thread->blockedSwitches)++;
}

void RingReader::settle(int tid, const CoveredThread& thread, uint64_t cpuNs, uint64_t ticks) {
  balance_ += static_cast<double>(cpuNs) / static_cast<double>(std::max<long long>(engine_.intervalNs(), 1)) -
              static_cast<double>(ticks);
  if (balance_ < 1) return;
  auto owed = static_cast<uint32_t>(std::min(balance_, double{UINT32_MAX}));
  balance_ -= owed;
  addPlain(unsampled_, owed);
  // The ticks lost are the scheduler's, as it switched the thread out (interrupts off). One that
  // blocked was in a system call: those go where the consumer last found it in one, as kernel
  // time (kKernelDebtCode); a preempted one was in whatever it ran, where the thread was last
  // sampled (kKernelWhereItRanCode). Without switch records, which no stack tells.
  uint64_t blocked = thread.blockedSwitches;
  uint64_t all = blocked + thread.preemptedSwitches;
  auto toSite = static_cast<uint32_t>(all > 0 ? (owed * blocked + all / 2) / all : 0);
  uint64_t now = monotonicNs();
  if (toSite > 0) recordEstimatedCode_signalSafe(ring_, counters_, kKernelDebtCode, tid, now, toSite);
  int32_t rest = all > 0 ? kKernelWhereItRanCode : kCpuUnsampledCode;
  if (owed > toSite) recordEstimatedCode_signalSafe(ring_, counters_, rest, tid, now, owed - toSite);
}

void RingReader::ended(PerfRing& ring, uint64_t countNs) {
  // The whole periods the event counted after the ring's last sample are ticks no sample showed:
  // in the kernel, or lost in a full ring whose PERF_RECORD_LOST the kernel never wrote (it writes
  // one only before a later sample). Those lost records that did come were counted already.
  if (engine_.perCpu()) return;
  uint64_t missing = periodsNotShown(ring, countNs, false);  // the last, partial period is no tick
  if (missing == 0) return;
  if (ring.filledUp) {  // the ring was full when last read: the kernel lost them (dropped)
    addPlain(counters_.ticks[kCpu], missing);
    addPlain(counters_.dropped[kCpu], missing);
    addPlain(lost_, missing);
    return;
  }
  addPlain(tailTicks_, missing);
  recordEstimatedCode_signalSafe(ring_, counters_, kCpuUnsampledCode, ring.tid, monotonicNs(),
                                 static_cast<uint32_t>(std::min<uint64_t>(missing, UINT32_MAX)));
}

uint64_t RingReader::oursOfLost(const PerfRing& ring, uint64_t lost) const {
  // A CPU's ring holds every process's samples, so a full one loses theirs too: candor's share of
  // them, as of what the ring has shown so far (all of them before it has shown any).
  uint64_t seen = ring.ours + ring.foreign;
  if (!engine_.perCpu() || seen == 0) return lost;
  return static_cast<uint64_t>(std::llround(static_cast<double>(lost) * static_cast<double>(ring.ours) /
                                            static_cast<double>(seen)));
}

uint64_t RingReader::unsampledTicks(PerfRing& ring, const PerfSample& sample) const {
  // The event (user space only) overflows every interval of the thread's CPU time and writes a
  // sample only when the overflow lands in user space; its count runs on in the kernel. So the
  // count since the previous sample holds round(gap / interval) ticks, one of them this sample.
  uint64_t periods = periodsNotShown(ring, sample.cpuNs, true);
  return periods > 1 ? periods - 1 : 0;
}

uint64_t RingReader::periodsNotShown(PerfRing& ring, uint64_t countNs, bool atOverflow) const {
  // The event counts from 0 (the first sample's gap: the thread's start in the kernel, before it
  // was sampled). Samples the full ring lost since (PERF_RECORD_LOST) are counted dropped already.
  uint64_t last = ring.lastCpuNs;
  uint64_t lost = ring.lostSinceSample;
  ring.lastCpuNs = countNs;
  ring.lostSinceSample = 0;
  auto interval = static_cast<uint64_t>(engine_.intervalNs());
  if (countNs <= last || interval == 0) return 0;
  uint64_t periods = (countNs - last + (atOverflow ? interval / 2 : 0)) / interval;
  return periods > lost ? periods - lost : 0;
}

int32_t RingReader::walk(uintptr_t& javaThread, const PerfSample& sample, SampleSlot* slot) {
  if (!Jvm::javaThreads().contains_signalSafe(static_cast<int>(sample.tid))) return kNotJavaThreadCode;
  if (!sample.hasRegs || sample.stack == nullptr) return kUnknownNotJava;
  uintptr_t thread = javaThreadOf(javaThread, sample);
  if (thread == 0) return kUnknownNotJava;  // never seen in Java code yet
  SampledRegs regs{sample.regs[kPerfRegIp], sample.regs[kPerfRegSp], sample.regs[kPerfRegBp],
                   sample.regs[kPerfRegR13]};
  bool beyond = false;
  int32_t kernelFrames = 0;
  bool live = false;
  // One walk of the copy (fresh each time: fillFrames may walk twice), on into the live stack when
  // `tail` is given. *held is false when it used the live stack and did not reach the thread's first
  // Java call (LiveStackTail.h); a walk that fills `max` goes on into a larger buffer (fillFrames),
  // where that is checked.
  auto walkCopy = [&](ASGCT_CallFrame* frames, int32_t max, LiveStackTail* tail, bool* held) {
    StackCopy copy(regs, sample.stack, sample.stackSize);
    copy.attachTail(tail);
    int32_t k = kernelFrames = kernelFramesOf(sample, frames, max / 2);
    bool atRoot = false;
    int32_t c = k + cFramesOfCopy(&copy, frames + k, max - k - 1, &atRoot);
    if (atRoot) return c;  // a thread's start or end, in C code only: no Java frame to walk
    int32_t walked = VmStackWalker::walkCopy_signalSafe(thread, &copy, frames + c, max - c);
    *held = !copy.usedTail() || (walked > 0 && (copy.atBottom() || c + walked >= max));
    beyond = copy.beyond();
    live = copy.usedTail();
    if (walked > 0) return c + walked;
    // C frames with no Java caller, or whose callers lie beyond the copy (kept, marked [truncated]).
    return (c > k && walked == kNoJavaFrameCode) || (c > 0 && beyond) ? c : walked;
  };
  bool tailRefused = false;  // a walk through the live stack did not hold: later walks of this sample skip it
  int32_t n = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* frames, int32_t max) {
    bool held = true;
    if (!tailRefused) {
      int32_t got = walkCopy(frames, max, &liveTail_, &held);
      if (held) return got;
      tailRefused = true;
    }
    return walkCopy(frames, max, nullptr, &held);  // from the copy alone: always holds
  });
  if (n > 0 && beyond) {
    slot->truncated = 1;
    addPlain(truncated_, 1);
  }
  if (n > 0 && live) addPlain(completedLive_, 1);
  if (sample.inKernel) {
    addPlain(inKernel_, 1);
    if (kernelFrames == 0) addPlain(kernelNoChain_, 1);
  }
  return n;
}

int32_t RingReader::cFramesOfCopy(StackCopy* copy, ASGCT_CallFrame* frames, int32_t max, bool* atRoot) {
  const SampledRegs& sampled = copy->regs();
  if (!NativeStack::isNative_signalSafe(sampled.pc)) return 0;
  // Every word of the sampled stack comes from the copy; the walk stops where the copy ends
  // (a JNI function with a large local buffer may reach past an 8k copy: stackcopy= more).
  NativeMemory mem{[](void* ctx, uintptr_t addr, uintptr_t* out) {
                     auto* c = static_cast<StackCopy*>(ctx);
                     *out = c->load_signalSafe(addr);
                     return !c->beyond();
                   },
                   copy};
  NativeRegs regs{sampled.pc, sampled.sp, sampled.fp, true};
  int32_t n = NativeStack::walk_signalSafe(mem, &regs, frames, max);
  *atRoot = n > 0 && !copy->beyond() && NativeStack::atRoot_signalSafe(regs);
  // Reached Java code: the Java walk starts there instead of guessing through rbp links.
  if (n > 0 && !copy->beyond() && !NativeStack::isNative_signalSafe(regs.pc)) copy->resumeAt(regs.pc, regs.sp, regs.fp);
  return n;
}

int32_t RingReader::kernelFramesOf(const PerfSample& sample, ASGCT_CallFrame* frames, int32_t max) {
  auto ipAt = [&](uint64_t k) {
    uint64_t ip;
    memcpy(&ip, sample.callchain + 8 * k, sizeof ip);
    return ip;
  };
  return callchainKernelFrames_signalSafe(sample.callchainSize, ipAt, frames, max);
}

uintptr_t RingReader::javaThreadOf(uintptr_t& known, const PerfSample& sample) const {
  uintptr_t r15 = sample.regs[kPerfRegR15];
  if (r15 != known && confirmsThread(r15, static_cast<int>(sample.tid))) known = r15;
  return known;
}

bool RingReader::confirmsThread(uintptr_t candidate, int tid) const {
  if (osthreadOffset_ < 0 || threadIdOffset_ < 0 || candidate < 4096 || (candidate & 7) != 0) return false;
  CrashGuard::Region guard;
  volatile bool same = false;  // survives a siglongjmp back here
  if (sigsetjmp(guard.jump, 0) == 0) {
    CrashGuard::arm_signalSafe(&guard);
    // r15 of C code is any value: the guarded loads end on a low or misaligned "OSThread" as on a fault
    uintptr_t osthread = loadPtr_signalSafe(candidate + osthreadOffset_);
    same = load_signalSafe<int32_t>(osthread + threadIdOffset_) == tid;
    CrashGuard::disarm_signalSafe(&guard);
  }
  return same;
}

}  // namespace candor
