// candor's own HotSpot stack walker (x86-64). Starts from the interrupted registers, or from the
// thread's JavaFrameAnchor when it is in native or VM code, and steps frame by frame:
//   interpreted  Method* and bcp from the frame (fp[-3], fp[-8]); sender via fp
//   compiled     nmethod frame size; PcDesc + ScopeDesc give one frame per inlined scope
//   native wrapper   the nmethod of a native method: one frame with bci -3, like AGCT
//   stubs        StubRoutines intrinsics, runtime stubs, adapters: their own named frame
//   entry frame  the call stub: continue below it through the JavaCallWrapper's anchor
// Every read of JVM memory happens inside the caller's crash guard. Signal-handler path.
// walk=copy runs the same walk on the ring reader over perf's copy of the stack (StackCopy.h).
#pragma once
#include <cstdint>

#include "base/Vocabulary.h"
#include "walk/vm/CodeCacheLookup.h"
#include "walk/vm/DecodeCache.h"
#include "walk/vm/MethodIds.h"
#include "walk/vm/ScopeDecoder.h"
#include "walk/vm/StackCopy.h"
#include "walk/vm/VmLayout.h"

namespace candor {

class FrameWalker {
 public:
  FrameWalker(const VmLayout& layout, DecodeCache& cache)
      : l_(layout), code_(layout), ids_(layout), scopes_(layout), cache_(cache) {}

  // Walks the JavaThread at `thread` interrupted with `ucontext`; fills up to `max` frames,
  // innermost first. Returns the frame count (> 0) or an AGCT-style code (<= 0). Must run
  // inside CrashGuard: a fault here is expected and caught by the caller.
  // walk=copy: `copy` (not null) is a sample perf took; the walk starts from its registers
  // (`ucontext` is ignored) and reads the thread's stack only from it (StackCopy.h).
  // `cFramesEnd` (not null): the C frames above are recorded already (cstack), so no leaf-call
  // pseudo-frame; its pc, when not 0, is where the native unwinder left them: the return address
  // into the Java code that called them, with the caller's sp and fp.
  int32_t walk_signalSafe(uintptr_t thread, const void* ucontext, ASGCT_CallFrame* frames, int32_t max,
                          StackCopy* copy = nullptr, const SampledRegs* cFramesEnd = nullptr) const;

 private:
  struct Regs {
    uintptr_t pc, sp, fp;
    uintptr_t bcp;  // the interpreter's bcp register (r13) when interrupted, else 0
  };
  struct Stack {
    uintptr_t low, high;
    StackCopy* copy = nullptr;  // walk=copy: the only source of this stack's words
    bool contains(uintptr_t p) const { return p >= low && p < high; }
    // Every read of a word that may lie on the thread's stack goes through here.
    uintptr_t load(uintptr_t p) const;
    bool beyondCopy() const { return copy != nullptr && copy->beyond(); }
  };
  // false with *code set when there is no Java frame to start from; *interrupted tells whether
  // r is the interrupted context (pc mid-instruction-stream) or a recorded last Java frame.
  // *leafCall: the thread was in C code called from Java without a transition (no anchor).
  bool startRegs_signalSafe(uintptr_t thread, const void* ucontext, const SampledRegs* cFramesEnd, const Stack& s,
                            Regs* r, int32_t* code, bool* interrupted, bool* leafCall) const;
  bool startFromCopy_signalSafe(const Stack& s, Regs* r, int32_t* code, bool* interrupted, bool* leafCall) const;
  bool fromAnchor_signalSafe(uintptr_t anchor, const Stack& s, Regs* r) const;
  bool returnsIntoJava_signalSafe(uintptr_t pc) const;
  bool climbNativeFrames_signalSafe(const Stack& s, Regs* r) const;
  bool senderOfFramed_signalSafe(uintptr_t blob, const Stack& s, Regs* r) const;
  bool senderOfFrameless_signalSafe(const BlobInfo& b, const Stack& s, Regs* r, bool tryFp) const;
  bool poppedOrPopping_signalSafe(uintptr_t pc, const Stack& s, Regs* r) const;
  // walk=copy, callers read from the live stack: false when the call just before `ret` is a direct
  // call into another nmethod than `callee`, so `ret` is not where `callee`'s frame returns to.
  bool mayReturnFrom_signalSafe(uintptr_t ret, const BlobInfo& callee) const;
  // The frames of a compiled frame, from the decode cache or decoded (and then cached).
  int32_t emitCompiled_signalSafe(const BlobInfo& b, uintptr_t pc, bool top, ASGCT_CallFrame* f, int32_t room,
                                  DecodeCache::Tally* tally) const;
  // An nmethod's own method alone, with no inlined scope: bci 0, or a native frame for a native
  // wrapper. For a pc in the prologue or epilogue, or where the nmethod has no debug info.
  int32_t ownMethod_signalSafe(uintptr_t method, ASGCT_CallFrame* f) const;
  // *complete: every inlined scope is in f (not cut at room), so the result may be cached.
  int32_t decodeCompiled_signalSafe(const BlobInfo& b, uintptr_t pc, bool top, ASGCT_CallFrame* f, int32_t room,
                                    bool* complete) const;

  const VmLayout& l_;
  CodeCacheLookup code_;
  MethodIds ids_;
  ScopeDecoder scopes_;
  DecodeCache& cache_;
};

}  // namespace candor
