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
  Tables t;
  if (l_.immutableData) {  // JDK 25
    uintptr_t imm = load(blob + l_.nmImmutable);
    t.pcsBegin = imm + loadField_signalSafe(blob, l_.nmPcsBegin);
    t.pcsEnd = imm + loadField_signalSafe(blob, l_.nmPcsEnd);
    t.scopes = imm + loadField_signalSafe(blob, l_.nmScopesData);
    t.metadata = load(blob + l_.blobMutableData.off) + loadField_signalSafe(blob, l_.blobRelocSize);
  } else {  // JDK 17
    t.pcsBegin = blob + loadField_signalSafe(blob, l_.nmPcsBegin);
    t.pcsEnd = blob + loadField_signalSafe(blob, l_.nmPcsEnd);
    t.scopes = static_cast<uintptr_t>(loadField_signalSafe(blob, l_.nmScopesData));
    t.metadata = blob + loadField_signalSafe(blob, l_.nmMetadata);
  }
  if (t.pcsEnd <= t.pcsBegin) return 0;  // a native wrapper has no PcDescs
  uint32_t count = static_cast<uint32_t>((t.pcsEnd - t.pcsBegin) / l_.pcDescSize);
  if (count > kMaxPcDescs) return 0;
  // A PcDesc at offset X describes the code ending at X. An interrupted pc: the first PcDesc at
  // or after it, i.e. the scope of the instruction that retired last, not of the one about to
  // run. A timer interrupt waits for a stalled instruction to retire, so pc usually lies just
  // past the instruction that cost the time (skid); where pc starts a new scope this picks the
  // one that ran. async-profiler decodes the same way; AGCT takes the next scope (pc + 1).
  // A return address: its own PcDesc. A leaf call (a stub, a C function) records none, and the
  // PcDescs on either side may belong to other inlined scopes, code before the call or after it:
  // only the scopes both share surely contain the call (commonScopes_signalSafe).
  int64_t target = static_cast<int64_t>(pc - nm.codeBegin);
  uint32_t lo = firstAtOrAfter_signalSafe(t, count, target);
  if (!top && (lo == count || pcOffsetAt_signalSafe(t, lo) != target)) {
    // A leaf call. Its block may be laid out of line (C2 puts the AVX-512 arraycopy stub's call
    // after the method's return, among an inlined constructor's code) and jump straight back:
    // then the PcDescs around the place it returns to are the ones that frame the call.
    uintptr_t merge = mergePoint_signalSafe(nm, pc);
    if (merge != 0) {
      target = static_cast<int64_t>(merge - nm.codeBegin);
      lo = firstAtOrAfter_signalSafe(t, count, target);
      if (lo < count && pcOffsetAt_signalSafe(t, lo) == target) lo++;  // that one ends the code before it
    }
    if (lo > 1) {  // entry 0: HotSpot's sentinel (-1)
      return lo == count ? scopesAt_signalSafe(t, blob, lo - 1, out, max) : commonScopes_signalSafe(t, blob, lo, out, max);
    }
  }
  if (lo == count) return 0;
  return scopesAt_signalSafe(t, blob, lo, out, max);
}

uint32_t ScopeDecoder::firstAtOrAfter_signalSafe(const Tables& t, uint32_t count, int64_t offset) const {
  uint32_t lo = 0, hi = count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (pcOffsetAt_signalSafe(t, mid) < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

uintptr_t ScopeDecoder::mergePoint_signalSafe(const BlobInfo& nm, uintptr_t ret) {
  // jmp rel8 (EB) or jmp rel32 (E9) right at the return address, to a place in the same code.
  if (ret + 5 > nm.codeEnd) return 0;
  uint8_t op = load_signalSafe<uint8_t>(ret);
  uintptr_t to;
  if (op == 0xEB) to = ret + 2 + static_cast<uintptr_t>(static_cast<intptr_t>(load_signalSafe<int8_t>(ret + 1)));
  else if (op == 0xE9) to = ret + 5 + static_cast<uintptr_t>(static_cast<intptr_t>(loadCodeInt32_signalSafe(ret + 1)));
  else return 0;
  return to >= nm.codeBegin && to < nm.codeEnd && to != ret ? to : 0;
}

int32_t ScopeDecoder::pcOffsetAt_signalSafe(const Tables& t, uint32_t i) const {
  return load_signalSafe<int32_t>(t.pcsBegin + i * l_.pcDescSize + l_.pcDescPcOffset);
}

int ScopeDecoder::scopesAt_signalSafe(const Tables& t, uintptr_t blob, uint32_t i, JavaScope* out, int max) const {
  int32_t offset = load_signalSafe<int32_t>(t.pcsBegin + i * l_.pcDescSize + l_.pcDescScopeOffset);
  if (offset == 0) {  // serialized_null: no scope recorded here; the nmethod's own method
    out[0] = {method_signalSafe(blob), 0};
    return 1;
  }
  int n = 0;
  while (offset > 0 && n < max) {
    uintptr_t p = t.scopes + offset;
    int32_t sender = readInt_signalSafe(&p);
    int32_t index = readInt_signalSafe(&p);
    int32_t bci = readInt_signalSafe(&p) - 1;  // stored biased by InvocationEntryBci (-1)
    uintptr_t method = index > 0 ? load(t.metadata + (index - 1) * sizeof(uintptr_t)) : 0;
    out[n++] = {method, bci < 0 ? 0 : bci};
    if (sender >= offset) break;  // senders are recorded first: offsets only go down
    offset = sender;
  }
  return n;
}

int ScopeDecoder::commonScopes_signalSafe(const Tables& t, uintptr_t blob, uint32_t after, JavaScope* out,
                                          int max) const {
  int n = scopesAt_signalSafe(t, blob, after - 1, out, max);
  JavaScope next[kMaxCommonDepth];
  int m = scopesAt_signalSafe(t, blob, after, next, kMaxCommonDepth);
  // Either chain cut short by max: its outermost scopes are unknown, so keep the one before.
  if (n == max || m == kMaxCommonDepth) return n;
  // From the nmethod's own method inwards: a scope is shared when its method is the same and its
  // caller called it from the same bci (the same inlining of the same method).
  int k = 0;
  while (k < n && k < m && out[n - 1 - k].method == next[m - 1 - k].method &&
         (k == 0 || out[n - k].bci == next[m - k].bci)) {
    k++;
  }
  if (k == 0) return n;  // no method in common (cannot happen in one nmethod): keep the one before
  for (int i = 0; i < k; i++) out[i] = out[n - k + i];
  return k;
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
