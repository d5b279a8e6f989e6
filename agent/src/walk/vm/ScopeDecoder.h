// Compiled-frame debug info: which Java methods (with inlining, innermost first) and bcis a pc
// of an nmethod stands for. PcDesc lookup by binary search over the nmethod's scopes_pcs, then
// the ScopeDesc chain in scopes_data, a CompressedReadStream (Pack200 UNSIGNED5 on JDK 17; the
// same code without 0 bytes on JDK 21+). Signal-handler path, inside the crash guard.
#pragma once
#include <cstdint>

#include "walk/vm/CodeCacheLookup.h"
#include "walk/vm/VmLayout.h"

namespace candor {

struct JavaScope {
  uintptr_t method;  // Method*
  int32_t bci;
};

class ScopeDecoder {
 public:
  explicit ScopeDecoder(const VmLayout& layout) : l_(layout) {}

  uintptr_t method_signalSafe(uintptr_t nmethod) const { return load(nmethod + l_.nmMethod); }
  // The scopes at pc, innermost first; returns how many (0: no debug info there). `top`: pc was
  // interrupted, not a return address: the PcDesc at or after it (the code that ran last). A
  // return address without a PcDesc (a leaf call): the scopes of its two neighbours share, the
  // neighbours of the place its block jumps back to when it jumps right after the call.
  int decode_signalSafe(const BlobInfo& nm, uintptr_t pc, bool top, JavaScope* out, int max) const;
  // The deopt handlers' entries: a frame being deoptimized returns there instead of to its pc.
  bool isDeoptPc_signalSafe(uintptr_t nmethod, uintptr_t pc) const;
  // Where in the frame deoptimization saved the pc the frame had before it patched the return
  // (a stack address: the caller reads it, from the stack or from a walk=copy stack copy).
  uintptr_t originalPcSlot_signalSafe(uintptr_t nmethod, uintptr_t unextendedSp) const;

  // One int of a CompressedReadStream at *p, advancing *p. `excludes0`: JDK 21+ form.
  static int32_t readUnsigned5_signalSafe(uintptr_t* p, bool excludes0);

 private:
  static constexpr int kMaxCommonDepth = 64;  // the neighbour's chain, on the handler's stack
  struct Tables {
    uintptr_t pcsBegin, pcsEnd, scopes, metadata;
  };
  int32_t pcOffsetAt_signalSafe(const Tables& t, uint32_t i) const;
  uint32_t firstAtOrAfter_signalSafe(const Tables& t, uint32_t count, int64_t offset) const;
  // Where a leaf call's block continues when it jumps there unconditionally right after the call
  // (its code laid out of line); 0 when the call falls through.
  static uintptr_t mergePoint_signalSafe(const BlobInfo& nm, uintptr_t ret);
  int scopesAt_signalSafe(const Tables& t, uintptr_t blob, uint32_t i, JavaScope* out, int max) const;
  int commonScopes_signalSafe(const Tables& t, uintptr_t blob, uint32_t after, JavaScope* out, int max) const;
  static uintptr_t load(uintptr_t a);
  int32_t readInt_signalSafe(uintptr_t* p) const { return readUnsigned5_signalSafe(p, l_.unsigned5Excludes0); }
  const VmLayout& l_;
};

}  // namespace candor
