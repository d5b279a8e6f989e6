// Unwinds native (C/C++) frames one at a time, from registers a signal handler got in its
// ucontext (or a frame the Java walk stopped at), toward the stack's base. Signal-handler path:
// no allocation, no locks; the module tables are NativeModules' published ones.
//   cstack=fp     rbp links: return address at [fp + 8], caller's sp = fp + 16, fp = [fp].
//                 Right for code built with frame pointers (libjvm, candor), wrong elsewhere.
//   cstack=dwarf  the module's CFI row for the pc (pc − 1 for a return address, which may be
//                 the first byte after a call at the end of a function); rbp links where no
//                 row covers the pc or the row is unsupported.
// Every read of memory goes through the caller's NativeMemory: the caller decides whether the
// read is live inside the crash guard or served from a stack copy (walk=copy). Sanity checks
// stop a walk that went astray before it reads far: sp grows strictly toward the stack base
// and stays in [low, high) when known, reads of saved words are 8-byte aligned, pc is not 0.
#pragma once
#include <cstdint>

#include "base/Options.h"  // CStackMode
#include "walk/native/NativeModules.h"

namespace candor {


struct NativeRegs {
  uintptr_t pc, sp, fp;
  // pc is where the thread was interrupted (the ucontext's rip, or a signal frame's), not a
  // return address: its own row applies, not the row of pc − 1.
  bool interrupted;
};

struct NativeMemory {
  // Reads the word at addr into *out; false when it cannot (outside a stack copy, ...).
  bool (*read)(void* ctx, uintptr_t addr, uintptr_t* out);
  void* ctx;
  uintptr_t low = 0, high = 0;  // the thread's stack when known ([0, 0) = unknown)

  bool inStack(uintptr_t a) const { return high == 0 || (a >= low && a < high); }
  // A plain read: only inside CrashGuard (it may fault on a stray address).
  static bool direct_signalSafe(void* ctx, uintptr_t addr, uintptr_t* out);
};

class NativeUnwinder {
 public:
  explicit NativeUnwinder(const NativeModules& modules) : modules_(modules) {}

  // One frame up: *r becomes the caller's registers. false (r unchanged) at the stack's root
  // (an outermost CFI row), in kNo mode, or when a check fails or a read is refused.
  bool step_signalSafe(CStackMode mode, const NativeMemory& mem, NativeRegs* r) const;

  // Records r->pc and its callers into pcs (innermost first), stepping until `stopAt` says a pc
  // is not native any more (a Java frame: that pc is not recorded and *r is left at its frame),
  // max frames, or a failed step. stopAt may be null. Returns the number of pcs recorded.
  using StopAt = bool (*)(void* ctx, uintptr_t pc);
  int unwind_signalSafe(CStackMode mode, const NativeMemory& mem, NativeRegs* r, uintptr_t* pcs, int max,
                        StopAt stopAt, void* stopCtx) const;

  // A frame larger than this is taken for a walk gone astray (async-profiler uses 256 KiB).
  static constexpr uintptr_t kMaxFrameBytes = 1 << 20;

 private:
  bool stepFp_signalSafe(const NativeMemory& mem, NativeRegs* r) const;
  bool stepLeaf_signalSafe(const NativeMemory& mem, NativeRegs* r) const;
  bool stepCfi_signalSafe(const CfiRow& row, const NativeMemory& mem, NativeRegs* r) const;
  bool stepSignalFrame_signalSafe(const NativeMemory& mem, NativeRegs* r) const;
  // Applies a candidate caller frame after the checks every step shares.
  static bool accept_signalSafe(const NativeMemory& mem, const NativeRegs& from, NativeRegs next, NativeRegs* r);

  const NativeModules& modules_;
};

}  // namespace candor
