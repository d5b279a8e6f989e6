#include "walk/vm/ScopeDecoder.h"

#include "walk/vm/GuardedMemory.h"

namespace candor {

namespace {
constexpr uint32_t kMaxPcDescs = 1u << 22;
}

uintptr_t ScopeDecoder::load(uintptr_t a) { return loadPtr_signalSafe(a); }

int32_t ScopeDecoder::readUnsigned5_signalSafe(uintptr_t* p, bool excludes0) {
  // UNSIGNED5: bytes below L end the number, each byte carries 6 more bits (H = 64).
  // JDK 17: X = 0, L = 192. JDK 21+: X = 1 (byte 0 never occurs), L = 191, values biased by X.
  const uint32_t x = excludes0 ? 1 : 0;
  const uint32_t last = 192;  // X + L in both forms
  uint32_t b = load_signalSafe<uint8_t>((*p)++);
  uint32_t sum = b - x;
  if (b < last) return static_cast<int32_t>(sum);
  int shift = 6;
  for (int i = 1; i < 5; i++, shift += 6) {
    b = load_signalSafe<uint8_t>((*p)++);
    sum += (b - x) << shift;
    if (b < last) break;
  }
  return static_cast<int32_t>(sum);
}

int ScopeDecoder::decode_signalSafe(const BlobInfo& nm, uintptr_t pc, bool top, JavaScope* out, int max) const {
  uintptr_t blob = nm.blob;
  uintptr_t pcsBegin, pcsEnd, scopes, metadata;
  if (l_.immutableData) {  // JDK 25
    uintptr_t imm = load(blob + l_.nmImmutable);
    pcsBegin = imm + loadField_signalSafe(blob, l_.nmPcsBegin);
    pcsEnd = imm + loadField_signalSafe(blob, l_.nmPcsEnd);
    scopes = imm + loadField_signalSafe(blob, l_.nmScopesData);
    metadata = load(blob + l_.blobMutableData.off) + loadField_signalSafe(blob, l_.blobRelocSize);
  } else {  // JDK 17
    pcsBegin = blob + loadField_signalSafe(blob, l_.nmPcsBegin);
    pcsEnd = blob + loadField_signalSafe(blob, l_.nmPcsEnd);
    scopes = static_cast<uintptr_t>(loadField_signalSafe(blob, l_.nmScopesData));
    metadata = blob + loadField_signalSafe(blob, l_.nmMetadata);
  }
  if (pcsEnd <= pcsBegin) return 0;  // a native wrapper has no PcDescs
  uint32_t count = static_cast<uint32_t>((pcsEnd - pcsBegin) / l_.pcDescSize);
  if (count > kMaxPcDescs) return 0;
  // A PcDesc at offset X describes the code ending at X. An interrupted pc: the first PcDesc at
  // or after it, i.e. the scope of the instruction that retired last, not of the one about to
  // run. A timer interrupt waits for a stalled instruction to retire, so pc usually lies just
  // past the instruction that cost the time (skid); where pc starts a new scope this picks the
  // one that ran. async-profiler decodes the same way; AGCT takes the next scope (pc + 1).
  // A return address: its own PcDesc; a leaf call into a stub records none, and the next one
  // may already belong to a later inlined scope, so take the one before the call instead.
  int64_t target = static_cast<int64_t>(pc - nm.codeBegin);
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (load_signalSafe<int32_t>(pcsBegin + mid * l_.pcDescSize + l_.pcDescPcOffset) < target) lo = mid + 1;
    else hi = mid;
  }
  if (!top && (lo == count || load_signalSafe<int32_t>(pcsBegin + lo * l_.pcDescSize + l_.pcDescPcOffset) != target)) {
    if (lo > 1) lo--;  // entry 0 is HotSpot's sentinel (pc_offset -1)
  }
  if (lo == count) return 0;
  int32_t offset = load_signalSafe<int32_t>(pcsBegin + lo * l_.pcDescSize + l_.pcDescScopeOffset);
  if (offset == 0) {  // serialized_null: no scope recorded here; the nmethod's own method
    out[0] = {method_signalSafe(blob), 0};
    return 1;
  }
  int n = 0;
  while (offset > 0 && n < max) {
    uintptr_t p = scopes + offset;
    int32_t sender = readInt_signalSafe(&p);
    int32_t index = readInt_signalSafe(&p);
    int32_t bci = readInt_signalSafe(&p) - 1;  // stored biased by InvocationEntryBci (-1)
    uintptr_t method = index > 0 ? load(metadata + (index - 1) * sizeof(uintptr_t)) : 0;
    out[n++] = {method, bci < 0 ? 0 : bci};
    if (sender >= offset) break;  // senders are recorded first: offsets only go down
    offset = sender;
  }
  return n;
}

bool ScopeDecoder::isDeoptPc_signalSafe(uintptr_t nmethod, uintptr_t pc) const {
  uintptr_t deopt = static_cast<uintptr_t>(loadField_signalSafe(nmethod, l_.nmDeopt));
  uintptr_t deoptMh = static_cast<uintptr_t>(loadField_signalSafe(nmethod, l_.nmDeoptMh));
  if (l_.immutableData) {  // JDK 25: offsets from the blob
    deopt += nmethod;
    deoptMh += nmethod;
  }
  return pc == deopt || pc == deoptMh;
}

uintptr_t ScopeDecoder::originalPcSlot_signalSafe(uintptr_t nmethod, uintptr_t unextendedSp) const {
  return unextendedSp + loadField_signalSafe(nmethod, l_.nmOrigPcOffset);
}

}  // namespace candor
