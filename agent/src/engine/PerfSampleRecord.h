// The records of a walk=copy perf ring (PerfRingEngine): PERF_RECORD_SAMPLE with sample_type
// TID | TIME | READ | REGS_USER | STACK_USER (a thread's ring), or TID | TIME | CALLCHAIN |
// REGS_USER | STACK_USER (a CPU's ring, percpu: kernel time is sampled, with its callchain), and
// the loop that reads records out of an mmap'ed perf ring, where a record may wrap around the
// end of the data area. Pure functions of memory, so they are tested without perf (agent/test/PerfSampleRecordTest.cpp).
#pragma once
#include <asm/perf_regs.h>
#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/Ordering.h"
#include "base/Vocabulary.h"

namespace candor {

// The user registers a sample carries, in the kernel's order (ascending perf_regs bit): what the
// own walker starts from (pc, sp, fp, r13 = the interpreter's bcp) and r15, HotSpot's thread
// register in generated code (the JavaThread*).
enum PerfReg : int { kPerfRegBp, kPerfRegSp, kPerfRegIp, kPerfRegR13, kPerfRegR15, kPerfRegCount };
constexpr uint64_t kPerfRegsMask = (1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) |
                                   (1ull << PERF_REG_X86_IP) | (1ull << PERF_REG_X86_R13) |
                                   (1ull << PERF_REG_X86_R15);
// READ (read_format 0): the counter's value at the sample, the thread's CPU time on the event,
// kernel time included: the reader counts from it the ticks the event skipped in the kernel.
constexpr uint64_t kPerfSampleType =
    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
// percpu: one ring per CPU for every thread that runs there. The event's count is the CPU's time,
// of no use per thread; the kernel part of the callchain (exclude_callchain_user) is read instead.
constexpr uint64_t kPerfCpuSampleType =
    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
// A record's size is a u16: the largest stack copy that fits beside the other fields.
constexpr uint32_t kPerfMaxStackCopy = 60 * 1024;

struct PerfSample {
  uint32_t pid = 0, tid = 0;
  uint64_t timeNs = 0;
  uint64_t cpuNs = 0;  // the event's count (READ): the thread's CPU time (user and kernel) at the sample
  bool inKernel = false;  // the tick interrupted kernel code (header misc)
  const uint8_t* callchain = nullptr;  // CALLCHAIN: callchainSize u64 ips (read with memcpy), markers included
  uint64_t callchainSize = 0;
  bool hasRegs = false;  // false: no user registers (abi NONE), nothing to walk
  uint64_t regs[kPerfRegCount] = {};
  const uint8_t* stack = nullptr;  // what was at [regs[kPerfRegSp], + stackSize) at the sample
  uint64_t stackSize = 0;          // dyn_size: the bytes the kernel could copy
};

// Parses a PERF_RECORD_SAMPLE of `sampleType` (kPerfSampleType or kPerfCpuSampleType) and
// kPerfRegsMask: `record` holds `size` contiguous bytes, header included. False when the record
// is malformed or cut short.
bool parsePerfSample(const uint8_t* record, size_t size, PerfSample* out, uint64_t sampleType = kPerfSampleType);

// percpu (context_switch, sample_id_all): a PERF_RECORD_SWITCH_CPU_WIDE is {header, u32
// next_prev_pid, u32 next_prev_tid, sample_id}, the sample_id of kPerfCpuSampleType being {u32 pid,
// u32 tid, u64 time}, the task on the CPU when the record was written. A switch out (misc
// PERF_RECORD_MISC_SWITCH_OUT) is written once the scheduler has picked the next task, which
// next_prev names and whose CPU clock already runs; a switch in, by the incoming task (sample_id)
// as it starts. True for either, with the task switched to and when; `out` says which record it was.
inline bool parsePerfSwitch(const uint8_t* record, size_t size, uint32_t* tid, uint64_t* timeNs, bool* out) {
  perf_event_header header;
  if (size < sizeof header + 8 + 8 + 8) return false;
  memcpy(&header, record, sizeof header);
  if (header.type != PERF_RECORD_SWITCH_CPU_WIDE) return false;
  *out = (header.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
  memcpy(tid, record + sizeof header + (*out ? 4 : 8 + 4), sizeof *tid);
  memcpy(timeNs, record + sizeof header + 8 + 8, sizeof *timeNs);
  return true;
}

// Of a switch-out record (parsePerfSwitch's `out`): the task switched out (its sample_id's tid),
// and whether it was preempted (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: still runnable) rather than
// blocked (it waits in a system call).
inline void parsePerfSwitchOut(const uint8_t* record, uint32_t* prevTid, bool* preempted) {
  perf_event_header header;
  memcpy(&header, record, sizeof header);
  memcpy(prevTid, record + sizeof header + 8 + 4, sizeof *prevTid);
  *preempted = (header.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
}

// Bytes of one sample record of `sampleType` with a stack copy of `stackBytes` (a callchain
// counted at its longest).
constexpr size_t perfSampleRecordBytes(uint32_t stackBytes, uint64_t sampleType = kPerfSampleType) {
  return sizeof(perf_event_header) + 8 /* pid, tid */ + 8 /* time */ +
         ((sampleType & PERF_SAMPLE_READ) != 0 ? 8 : 0) +
         ((sampleType & PERF_SAMPLE_CALLCHAIN) != 0 ? 8 * (1 + 2 + kMaxKernelFrames) : 0) + 8 /* abi */ +
         8 * kPerfRegCount + 8 /* size */ + stackBytes + 8 /* dyn_size */;
}

// Reads every record written to a perf ring since the last call: fn(header, record bytes), the
// record contiguous (copied into `scratch`, at least 64 KiB, when it wraps). Gives each record's
// space back to the kernel as soon as fn returns. Returns how many records it read. Only one
// thread may read a ring at a time.
template <typename Fn>
uint64_t forEachPerfRecord(perf_event_mmap_page* page, uint8_t* scratch, Fn&& fn) {
  const uint64_t size = page->data_size;
  const uint8_t* data = reinterpret_cast<const uint8_t*>(page) + page->data_offset;
  if (size == 0 || (size & (size - 1)) != 0) return 0;
  // The kernel writes records, then data_head (release); we read it with acquire and store
  // data_tail (release) only after the last read of a record.
  uint64_t head = lvRaw(&page->data_head);
  uint64_t tail = page->data_tail;
  uint64_t n = 0;
  while (head - tail >= sizeof(perf_event_header)) {
    uint64_t off = tail & (size - 1);
    perf_event_header header;
    size_t first = size - off < sizeof header ? size - off : sizeof header;
    memcpy(&header, data + off, first);
    memcpy(reinterpret_cast<uint8_t*>(&header) + first, data, sizeof header - first);
    if (header.size < sizeof header || header.size > head - tail) break;  // never: do not loop on garbage
    const uint8_t* record = data + off;
    if (off + header.size > size) {  // wraps: make it contiguous
      memcpy(scratch, data + off, size - off);
      memcpy(scratch + (size - off), data, header.size - (size - off));
      record = scratch;
    }
    fn(header, record);
    tail += header.size;
    n++;
    soRaw(&page->data_tail, tail);
  }
  return n;
}

}  // namespace candor
