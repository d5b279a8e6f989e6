// walk=copy (experimental): `cpu`'s perf CPU clock per thread, without a signal. At every
// overflow the kernel itself writes a sample into a ring the agent mapped for that thread: the
// time, the user registers (PerfSampleRecord.h) and a copy of the top of the user stack
// (`stackcopy=` bytes). Nothing runs on the sampled thread. The RingReader drains every ring
// on its own thread and walks the copies with candor's own walker.
//
// A ring wakes the reader (epoll, perf's wakeup_watermark) when half full; a ring that
// overflows makes the kernel count the lost samples (PERF_RECORD_LOST), which the reader counts
// as dropped. Rings are locked memory (perf_event_mlock_kb, then RLIMIT_MEMLOCK), and most
// threads are idle: every thread starts with a small ring (kSmallRecords samples), and a ring
// found half full when it is read is replaced, once, by a large one (kLargeRecords samples, at
// most kMaxLargeBytes), so only busy threads hold much memory and their reader wakes seldom. When
// mapping fails the ring is halved, down to two samples.
//
// percpu: instead of one event per thread, one per CPU (pid -1), so no thread carries a timer:
// nothing is re-armed when a thread is switched in or out (a trapped timer write in a VM, the
// fixed cost bench/results/FINDINGS-timer-cost.md measured) and arming a thread is one entry in a
// table. Needs what system-wide perf needs (perf_event_paranoid <= 0, CAP_PERFMON or root), and
// so kernel time is sampled, with its callchain. The reader keeps the samples an armed thread
// took after it was armed (coveredLocked) and counts the rest (other processes, threads candor
// does not sample, a new thread's start-up before it was armed) as not ours.
// Idle CPUs write no samples (exclude_idle), yet their timer still fires. A tick that expires
// while interrupts are off (a thread switched out to an idle CPU) fires after the switch, in the
// idle task, and writes nothing: every second and when a thread is disarmed, the consumer settles
// its CPU clock against its samples, so that CPU is charged to it (RingReader::settle), not lost.
// The other way round, a tick that fell due before the CPU switched to a thread (while it was
// idle, or ran another task, with interrupts off or the virtual CPU not yet running) is taken in
// that thread: each CPU's ring also carries the kernel's switch records (context_switch), and the
// reader leaves out a sample whose tick (TickGrid) fell due before the switch to its thread (the
// switch-out record naming it next, written once the scheduler picked it and its CPU clock runs).
//
// Locking: the engine's mutex guards the table of rings. The reader reads rings only through
// consumeAll (under the mutex); disarmThread lets the consumer read the ring's last samples,
// then unmaps it, under the same mutex, so no ring is read after it is unmapped.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "engine/Engine.h"
#include "engine/TickGrid.h"

struct perf_event_mmap_page;

namespace candor {

// One thread's event and its mapped ring.
struct PerfRing {
  int tid = 0;  // percpu: the CPU
  int fd = -1;
  perf_event_mmap_page* page = nullptr;
  size_t mapBytes = 0;
  uintptr_t javaThread = 0;  // the consumer's: the thread's JavaThread once a sample showed it
  uint64_t lastCpuNs = 0;    // the consumer's: the event's count at the previous sample
  uint64_t lostSinceSample = 0;  // the consumer's: samples the full ring lost since then (dropped)
  uint64_t ours = 0;         // the consumer's, percpu: samples of sampled threads read from this ring
  uint64_t foreign = 0;      // … and of other processes or threads not sampled
  bool large = false;        // replaced by a busy thread's ring already
  // The engine's: the last read that found records found the ring full. The kernel then counts
  // the samples it cannot write, and writes that count (PERF_RECORD_LOST) only before a later
  // sample: one that never comes (the thread ends) leaves the count unwritten.
  bool filledUp = false;
  // The event's timer period: tickPeriodNs(), percpu the CPU's own (PerfRingEngine::cpuPeriodNs).
  uint64_t periodNs = 0;
  // The consumer's, percpu: the CPU's tick grid, and the task it last switched to, and when.
  TickGrid grid;
  uint32_t switchedToTid = 0;
  uint64_t switchedNs = 0;
};

struct CoveredThread;

class RingConsumer {
 public:
  virtual ~RingConsumer() = default;
  // Reads the ring's new samples. Called with the engine's lock held: the ring stays mapped.
  virtual void consume(PerfRing& ring) = 0;
  // percpu, right after every ring was read: since its previous settlement (or its arming),
  // thread `tid` used `cpuNs` of CPU, in which the rings held `ticks` of its samples. Called
  // with the engine's lock held, when the thread is disarmed and from consumeAll(.., true).
  // `thread` is the covered thread, with its switches since then.
  virtual void settle(int tid, const CoveredThread& thread, uint64_t cpuNs, uint64_t ticks) = 0;
  // Per thread, when a ring's event is closed (its thread disarmed, or the ring replaced by a
  // larger one), disabled and its last samples read: the event's count, the CPU time it counted.
  // Called with the engine's lock held.
  virtual void ended(PerfRing& ring, uint64_t countNs) = 0;
};

// percpu: an armed thread, in the engine's table (guarded by its mutex).
struct CoveredThread {
  uint64_t armNs = 0;        // CLOCK_MONOTONIC at arming: earlier samples are not its ticks
  uint64_t settledCpuNs = 0;  // its CPU clock at arming, then at its last settlement
  uint64_t ticks = 0;         // the reader's: its samples taken since then
  uintptr_t javaThread = 0;  // its JavaThread, from the registry or a confirmed r15 (the reader's)
  // The reader's, since the last settlement: its switches out, blocked (in a system call) or
  // preempted (in whatever it ran), from the CPUs' switch records.
  uint64_t blockedSwitches = 0;
  uint64_t preemptedSwitches = 0;
};

class PerfRingEngine : public Engine {
 public:
  static constexpr size_t kSmallRecords = 6;
  static constexpr size_t kLargeRecords = 48;
  static constexpr size_t kMaxLargeBytes = 1 << 20;

  PerfRingEngine() : Engine(0) {}  // no signal: the kernel writes the sample itself
  EngineKind kind() const override { return EngineKind::kCpu; }
  void stop() override;
  bool armThread(int tid, ThreadTimer* timer, std::string* why) override;
  void disarmThread(ThreadTimer* timer) override;
  KernelTime kernelTime() const override { return perCpu_ ? KernelTime::kSampled : KernelTime::kEstimated; }
  std::string kernelTimeReason() const override;

  // Whether perf accepts a sampling event with user registers and stack for our own thread, or
  // (perCpu) for every thread on CPU 0.
  static bool available(uint32_t stackBytes, bool perCpu, std::string* why);

  bool perCpu() const { return perCpu_; }
  uint64_t sampleType() const;
  // Reader side, percpu, with the engine's lock held (in consume): the armed thread `tid`, or null.
  CoveredThread* coveredLocked(int tid) {
    auto it = covered_.find(tid);
    return it != covered_.end() ? &it->second : nullptr;
  }

  // Reader side. The consumer also reads each ring's last samples when its thread is disarmed;
  // set it before threads are armed, clear it after all are disarmed.
  void setConsumer(RingConsumer* consumer);
  // Blocks until a ring is half full, wake() is called, or timeoutMs passes.
  void wait(int timeoutMs);
  void wake();
  // Lets `consumer` read every armed ring; `settle` (percpu): then settles every covered thread.
  void consumeAll(RingConsumer& consumer, bool settle = false);
  uint32_t stackBytes() const { return stackBytes_; }
  long long intervalNs() const { return intervalNs_; }
  // The event's hrtimer period: the interval, at least perf's 10 µs (perf_swevent_hrtimer).
  uint64_t tickPeriodNs() const { return static_cast<uint64_t>(std::max<long long>(intervalNs_, 10'000)); }

  // percpu: how far apart the CPUs' timer periods are spread, in tenths of a percent of the interval.
  static constexpr int kCpuSpreadPerMille = 4;
  // percpu: the period of CPU `cpu`'s timer, of `cpus`, around `periodNs`. A CPU's timer ticks on
  // a fixed grid of wall time; at one period for all, two CPUs' grids keep the phase their opening
  // gave them for the whole run. Threads that hand work between CPUs fall into a schedule that
  // leans on that phase (a tick holds the thread it lands on for the sample's tens of µs, which
  // moves its partner's next run on the other CPU against that CPU's grid): CpuCoverageTest's
  // ping-pong pair got 109-151% of its CPU time in ticks in 4 of 29 runs, 96-104% in the rest,
  // and the kernel's switch records and hrtimer trace agreed that each tick found the thread
  // running when it fell due. The bias is in where the ticks fall, not in whom they are charged to.
  // So each CPU's period is its own, spread evenly over kCpuSpreadPerMille around `periodNs` (their
  // mean), and the phase between any two CPUs turns through every value in a run: at 1 ms on two
  // CPUs every 0.25 s (28 of 28 runs 99.7-100.5% since). The cost: a thread that only ever runs on
  // one CPU gets up to 0.2% more or fewer ticks than its CPU time holds, which settlement evens
  // out (a deficit is charged, a surplus lowers the next charge).
  static uint64_t cpuPeriodNs(uint64_t periodNs, int cpu, int cpus);
  // For the stop log line: rings mapped smaller than asked for (the locked-memory limit), and
  // rings enlarged for busy threads.
  uint64_t ringsShrunk() const { return shrunk_; }
  uint64_t ringsEnlarged() const { return enlarged_; }

 protected:
  bool startEngine(const Options& options, std::string* why) override;

 private:
  // Opens `tid`'s event (or, percpu, CPU `tid`'s) and maps a ring of at most `pages` data pages
  // into `ring` (fd, page, mapBytes); false with `why` set.
  bool openRing(int tid, size_t pages, PerfRing* ring, std::string* why);
  // percpu: a ring on every online CPU.
  bool openCpuRings(std::string* why);
  static size_t pagesFor(size_t bytes, size_t pageSize);
  // Mutex held: a busy thread's ring replaces its small one (its samples read first).
  void enlarge(PerfRing& ring, RingConsumer& consumer);
  // Lets the consumer read the ring's new records; returns how many bytes were pending.
  uint64_t consumeRing(PerfRing& ring, RingConsumer& consumer);
  // Per thread: disables the ring's event, reads its last records, then its count, which it tells
  // the consumer (ended).
  void endRing(PerfRing& ring, RingConsumer& consumer);
  void unmapRing(PerfRing& ring);
  // Mutex held, percpu, every ring just read: the thread's CPU and samples since it was last settled.
  static void settleLocked(int tid, CoveredThread& thread, RingConsumer& consumer);

  std::mutex mutex_;
  std::map<PerfRing*, std::unique_ptr<PerfRing>> rings_;
  RingConsumer* consumer_ = nullptr;
  uint32_t stackBytes_ = 8192;
  size_t pageSize_ = 4096;
  size_t smallPages_ = 0;  // data pages per ring, a power of two
  size_t largePages_ = 0;
  int epoll_ = -1;
  int wakeFd_ = -1;
  uint64_t shrunk_ = 0;
  uint64_t enlarged_ = 0;
  bool perCpu_ = false;
  bool switches_ = true;  // percpu: switch records in the rings (dropped on a kernel that refuses them)
  std::unordered_map<int, CoveredThread> covered_;  // percpu: the armed threads
};

}  // namespace candor
