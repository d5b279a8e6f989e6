#include "engine/PerfSampleRecord.h"

namespace candor {

namespace {
// Reads the next u64 of a record, if the record still holds one.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  bool u64(uint64_t* out) {
    if (end - p < 8) return false;
    memcpy(out, p, 8);
    p += 8;
    return true;
  }
};
}  // namespace

bool parsePerfSample(const uint8_t* record, size_t size, PerfSample* out, uint64_t sampleType) {
  if (size < sizeof(perf_event_header)) return false;
  perf_event_header header;
  memcpy(&header, record, sizeof header);
  if (header.type != PERF_RECORD_SAMPLE || header.size > size) return false;
  Cursor c{record + sizeof header, record + header.size};
  uint64_t v;
  // Fields in the order of the PERF_SAMPLE_* bits: TID, TIME, READ, CALLCHAIN, REGS_USER, STACK_USER.
  out->inKernel = (header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
  if (!c.u64(&v)) return false;
  out->pid = static_cast<uint32_t>(v);
  out->tid = static_cast<uint32_t>(v >> 32);
  if (!c.u64(&out->timeNs)) return false;
  out->cpuNs = 0;
  if ((sampleType & PERF_SAMPLE_READ) != 0 && !c.u64(&out->cpuNs)) return false;
  out->callchain = nullptr;
  out->callchainSize = 0;
  if ((sampleType & PERF_SAMPLE_CALLCHAIN) != 0) {
    uint64_t nr;
    if (!c.u64(&nr) || nr > static_cast<uint64_t>(c.end - c.p) / 8) return false;
    out->callchain = c.p;
    out->callchainSize = nr;
    c.p += 8 * nr;
  }
  uint64_t abi;
  if (!c.u64(&abi)) return false;
  out->hasRegs = abi != PERF_SAMPLE_REGS_ABI_NONE;
  if (out->hasRegs) {  // the registers follow only when there are any
    for (uint64_t& reg : out->regs) {
      if (!c.u64(&reg)) return false;
    }
  }
  uint64_t stackBytes;
  if (!c.u64(&stackBytes)) return false;
  out->stack = nullptr;
  out->stackSize = 0;
  if (stackBytes == 0) return true;  // no user stack: no data, no dyn_size
  if (static_cast<uint64_t>(c.end - c.p) < stackBytes + 8) return false;
  const uint8_t* stack = c.p;
  c.p += stackBytes;
  uint64_t dynSize = 0;
  if (!c.u64(&dynSize)) return false;
  if (dynSize > stackBytes) return false;
  out->stack = stack;
  out->stackSize = dynSize;
  return true;
}

}  // namespace candor
