// walk=copy (experimental): the thread that turns PerfRingEngine's rings into samples. It wakes
// when a ring is half full (a quarter, per CPU) or every kTimeoutMs, every kDeepTimeoutMs while its
// last pass met stacks deeper than the copy, and for every record of every ring:
//   PERF_RECORD_SAMPLE  counts a cpu tick and records it in the sample ring, as one more producer:
//                       the stack walked by candor's own walker from the sampled registers, every
//                       read of the thread's stack served from the copy (StackCopy.h). A walk that
//                       needs more of the stack than was copied goes on into the live stack, and
//                       is kept if it reaches the thread's first Java call (LiveStackTail.h);
//                       else it keeps the frames the copy gave and is marked [truncated]. A pc
//                       outside Java code, that no rbp link in the copy
//                       leads back from, is unknown_not_java: the live anchor is not used, the
//                       thread has moved on.
//   PERF_RECORD_LOST    the kernel found the ring full: that many ticks, counted dropped (percpu:
//                       candor's share of them, as the ring's samples so far divide between its
//                       threads and the rest). The kernel writes it only before a later sample:
//                       a thread's ring that ends full leaves the rest to the event's count, which
//                       ended() reads (per thread).
// So ticks = recorded + failures + dropped holds as for the signal engines.
//
// percpu: a CPU's ring holds the samples of every thread that ran there. Only those of armed
// threads of this process are ticks; the others (other processes, threads candor does not
// sample, candor's own) are counted as not ours and are no tick, as a thread without a timer
// makes none. A sample that interrupted the kernel carries its kernel callchain, recorded on
// top of the walked stack. Some ticks never reach a ring (one that expires as its thread is
// switched out to an idle CPU fires in the idle task): every kSettleNs and when a thread is
// disarmed, its CPU time since the last settlement, divided by the interval, less its samples in
// that time, is charged to it, so its CPU is in the profile with its weight: as [kernel_unsampled]
// on its last system call (the share of its switches out where it blocked) and on its last stack
// (where it was preempted), or as the named failure cpu_unsampled when it has neither. A thread's
// samples scatter around its expected count (a tick takes whoever runs at its expiry), so the
// charge is settled against a balance carried across threads: a thread with more samples than its
// CPU time holds lowers the next charge, and lost samples count as samples taken; the charges add
// up to the whole deficit, not to the sum of the positive ones.
//
// Which JavaThread a sample belongs to: HotSpot keeps it in r15 in generated code. The reader
// takes r15 once it is confirmed (its OSThread's tid is the sampled tid, read in the crash
// guard) and remembers it for the ring, for samples in C code, where r15 may be anything.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "concurrent/SampleRing.h"
#include "engine/PerfRingEngine.h"
#include "engine/PerfSampleRecord.h"
#include "walk/vm/LiveStackTail.h"
#include "walk/vm/StackCopy.h"
#include "store/LabelSets.h"
#include "store/SampleAccounting.h"

namespace candor {

class RingReader : public RingConsumer {
 public:
  static constexpr uint64_t kLateRecordNs = 20'000'000;  // see run()
  static constexpr int kTimeoutMs = 50;  // the longest a sample waits in a ring that is not half full
  // ... while the last pass met stacks deeper than the copy, whose live callers the thread may leave
  static constexpr int kDeepTimeoutMs = 5;
  // percpu: how often the covered threads' CPU clocks are settled against their samples (one
  // clock read per thread: 200 threads cost about 0.2 ms a second).
  static constexpr uint64_t kSettleNs = 1'000'000'000;

  // `labels`: the label sets, whose history gives the set a thread was in when perf took its sample.
  RingReader(SampleRing& ring, HandlerCounters& counters, PerfRingEngine& engine, LabelSets& labels);
  ~RingReader() override { stop(); }

  // Registers with the engine and starts the thread; call before threads are armed.
  void start();
  // After every thread is disarmed (their last samples read): stops the thread.
  void stop();

  void consume(PerfRing& ring) override;
  // percpu: charges the ticks the thread's CPU time held beyond its samples (see above).
  void settle(int tid, const CoveredThread& thread, uint64_t cpuNs, uint64_t ticks) override;
  // Per thread: the ticks the event counted after the ring's last sample (dropped when the ring
  // was full, else cpu_unsampled: time in the kernel as the thread ended).
  void ended(PerfRing& ring, uint64_t countNs) override;

  // After stop(): one log line with what the reader did and what it cost.
  void logSummary() const;

 private:
  void run();
  void onSample(PerfRing& ring, const uint8_t* record, size_t size);
  // percpu: counts a switch-out record's thread as blocked or preempted (CoveredThread).
  void countSwitchOut(const uint8_t* record);
  // Whether user code at `pc` (a sample's, in the kernel) had just made a system call.
  static bool afterSystemCall(uintptr_t pc);
  int32_t walk(uintptr_t& javaThread, const PerfSample& sample, SampleSlot* slot);
  // Ticks the event skipped (in the kernel, or throttled) since the ring's previous sample.
  uint64_t unsampledTicks(PerfRing& ring, const PerfSample& sample) const;
  // Moves the ring's count to countNs: the whole periods since its previous count (rounded where
  // both ends are overflows, `atOverflow`) less the samples the full ring reported lost meanwhile.
  uint64_t periodsNotShown(PerfRing& ring, uint64_t countNs, bool atOverflow) const;
  // percpu: of `lost` samples a full CPU ring dropped, those of threads candor samples (estimated).
  uint64_t oursOfLost(const PerfRing& ring, uint64_t lost) const;
  // C frames of a copied sample (cstack), read from the copy only; moves the copy's start to
  // the Java frame they lead to. *atRoot: they reached the stack's root (no Java frame beyond).
  static int32_t cFramesOfCopy(StackCopy* copy, ASGCT_CallFrame* frames, int32_t max, bool* atRoot);
  // The JavaThread of the sampled thread: r15 of this sample if confirmed, else the one
  // remembered in `known` (the ring's, or percpu the covered thread's).
  uintptr_t javaThreadOf(uintptr_t& known, const PerfSample& sample) const;
  // percpu: the kernel frames of a sample, innermost first.
  static int32_t kernelFramesOf(const PerfSample& sample, ASGCT_CallFrame* frames, int32_t max);
  bool confirmsThread(uintptr_t candidate, int tid) const;

  SampleRing& ring_;
  HandlerCounters& counters_;
  PerfRingEngine& engine_;
  LabelSets& labels_;  // asked for a sample's set; told how far the reader has read
  int pid_ = 0;
  int stallMs_ = 0;  // test hook (CANDOR_TEST_READER_STALL_MS)
  int64_t osthreadOffset_ = -1;  // JavaThread/Thread::_osthread
  int64_t threadIdOffset_ = -1;  // OSThread::_thread_id
  std::unique_ptr<uint8_t[]> scratch_;  // a record that wraps around its ring's end
  LiveStackTail liveTail_;  // used under the engine's lock, as consume() is
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> samples_{0};
  std::atomic<uint64_t> truncated_{0};
  std::atomic<uint64_t> completedLive_{0};  // stacks deeper than the copy, completed from the live stack
  std::atomic<uint64_t> lost_{0};
  std::atomic<uint64_t> tailTicks_{0};  // per thread: ticks after a ring's last sample, not lost (ended)
  std::atomic<uint64_t> throttled_{0};
  std::atomic<uint64_t> wakeups_{0};
  std::atomic<uint64_t> cpuNs_{0};
  std::atomic<uint64_t> notOurs_{0};  // percpu: samples of other processes or of threads not armed
  std::atomic<uint64_t> inKernel_{0};       // percpu: kept samples the tick took in kernel mode
  std::atomic<uint64_t> kernelNoChain_{0};  // ... of which the kernel gave no kernel frame
  std::atomic<uint64_t> unsampled_{0};      // percpu: ticks charged by settle
  std::atomic<uint64_t> dueBeforeSwitch_{0};  // percpu: ticks of another task's time, taken in a thread switched to
  std::atomic<uint64_t> switches_{0};         // percpu: switch records read
  double balance_ = 0;  // percpu, engine lock held: ticks owed by settle, not yet charged
};

}  // namespace candor
