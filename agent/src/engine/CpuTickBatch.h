// What one signal of a CPU engine stands for, as the engine tells the handler. A perf event
// with a sample ring records every overflow, so one signal may stand for several ticks (signals
// that arrive while one is pending merge) or none (an earlier handler already read its record);
// each record says whether the thread was in the kernel and, when kernel sampling is allowed,
// the kernel's callchain. Without a ring, one signal is one tick and nothing more is known.
// Filled on the signalled thread, in its handler, by Engine::readTicks_signalSafe.
#pragma once
#include <cstdint>

namespace candor {

struct CpuTickBatch {
  static constexpr int kMaxRecords = 16;
  struct Record {
    uint64_t timeNs;     // CLOCK_MONOTONIC at the overflow
    uint64_t ipsPos;     // where the kernel callchain sits in the engine's ring
    uint32_t ipCount;    // kernel frames recorded (0 in user mode, or when not sampled)
    bool inKernel;       // the overflow interrupted kernel code
  };

  bool fromRing = false;        // false: this signal is one tick, mode unknown
  bool noTick = false;          // the signal weighs no interval (a process timer's, faster than intervals): not a tick
  int records = 0;              // ticks recorded since the last signal, oldest first (at most kMaxRecords)
  uint64_t unrecorded = 0;      // more ticks without a record here: PERF_RECORD_LOST, or past kMaxRecords
  uint64_t unsampledKernel = 0; // ticks the kernel dropped in kernel mode, estimated from the CPU clock
  // Of unsampledKernel, a debt paid away from a system call (the CPU-time timer places kernel time
  // at system calls, and this was owed too long, or is settled), the ticks that go to the thread's
  // last system-call site (kKernelDebtBci); the rest stays where the thread is.
  uint64_t kernelDebt = 0;
  // With settle, placing at system calls: the rest of unsampledKernel, which goes to the thread's last
  // recorded stack (kKernelWhereItRanCode).
  uint64_t kernelWhereItRan = 0;
  int64_t latencyNs = -1;       // from the newest tick to now, -1 when unknown
  // KernelTime::kEstimated: not a tick but the thread's CPU-time timer, which finds it where its
  // kernel time was spent when it fired in a system call (the signal waits for the call to return).
  bool cpuTimer = false;
  // With cpuTimer: a request to pay the thread's whole debt (unsampledKernel), stackless, sent as
  // its timer goes (thread end) or the session stops (Engine::settleThreads).
  bool settle = false;
  // With settle: cpu_unsampled ticks, the thread's last part of an interval pooled with every other
  // thread's (a short-lived thread's whole CPU may be less than one interval).
  uint64_t unsampledCpu = 0;
  Record record[kMaxRecords];

  // Engine-private: what releaseTicks_signalSafe gives back.
  void* ring = nullptr;
  uint64_t head = 0;

  // Ticks this signal stands for that the handler must record and count.
  uint64_t ticks() const { return noTick ? 0 : (fromRing ? static_cast<uint64_t>(records) : 1) + unrecorded; }
};

}  // namespace candor
