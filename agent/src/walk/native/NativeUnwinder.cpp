#include "walk/native/NativeUnwinder.h"

#include <sys/ucontext.h>

#include <cstddef>

namespace candor {

namespace {
constexpr uintptr_t kWord = sizeof(uintptr_t);
constexpr uintptr_t kLowestPc = 4096;  // no code in the first page: a pc below it is a misread

// Where the interrupted registers are in the ucontext_t a signal frame's rsp points at.
constexpr uintptr_t gregOffset(int reg) { return offsetof(ucontext_t, uc_mcontext.gregs) + reg * sizeof(greg_t); }

bool aligned(uintptr_t a) { return (a & (kWord - 1)) == 0; }
}  // namespace

bool NativeMemory::direct_signalSafe(void*, uintptr_t addr, uintptr_t* out) {
  *out = *reinterpret_cast<const volatile uintptr_t*>(addr);
  return true;
}

bool NativeUnwinder::step_signalSafe(CStackMode mode, const NativeMemory& mem, NativeRegs* r) const {
  if (mode == CStackMode::kNo) return false;
  if (mode == CStackMode::kDwarf) {
    NativeHit hit;
    // A return address may be the first byte after a call that ends its function (a call to
    // a noreturn function): the call itself, one byte back, is in the right row.
    uintptr_t at = r->interrupted ? r->pc : r->pc - 1;
    if (modules_.find_signalSafe(at, &hit) && hit.row != nullptr) {
      switch (hit.row->kind()) {
        case CfaKind::kOutermost: return false;
        case CfaKind::kSignal: return stepSignalFrame_signalSafe(mem, r);
        case CfaKind::kUnsupported: break;  // rbp links may still be right: libjvm keeps them
        default: return stepCfi_signalSafe(*hit.row, mem, r);
      }
    } else if (r->interrupted && hit.hasCfi && stepLeaf_signalSafe(mem, r)) {
      return true;
    }
  }
  return stepFp_signalSafe(mem, r);
}

bool NativeUnwinder::stepLeaf_signalSafe(const NativeMemory& mem, NativeRegs* r) const {
  // An interrupted pc that no FDE covers, in a module that has unwind tables, is an assembly
  // stub that pushed nothing: glibc's clone3 ends its FDE before the syscall, so a tick in the
  // kernel during thread creation lands there. Its return address is at sp, if it is code.
  uintptr_t ra;
  if (!aligned(r->sp) || !mem.inStack(r->sp) || !mem.read(mem.ctx, r->sp, &ra)) return false;
  if (!modules_.contains_signalSafe(ra - 1)) return false;  // else rbp links, as before
  return accept_signalSafe(mem, *r, NativeRegs{ra, r->sp + kWord, r->fp, false}, r);
}

bool NativeUnwinder::stepFp_signalSafe(const NativeMemory& mem, NativeRegs* r) const {
  uintptr_t fp = r->fp;
  if (!aligned(fp) || fp < r->sp || fp - r->sp >= kMaxFrameBytes || !mem.inStack(fp) || !mem.inStack(fp + kWord)) {
    return false;
  }
  uintptr_t ra, callerFp;
  if (!mem.read(mem.ctx, fp + kWord, &ra) || !mem.read(mem.ctx, fp, &callerFp)) return false;
  return accept_signalSafe(mem, *r, NativeRegs{ra, fp + 2 * kWord, callerFp, false}, r);
}

bool NativeUnwinder::stepCfi_signalSafe(const CfiRow& row, const NativeMemory& mem, NativeRegs* r) const {
  uintptr_t cfa;
  switch (row.kind()) {
    case CfaKind::kRsp: cfa = r->sp + row.cfaOffset(); break;
    case CfaKind::kRbp: cfa = r->fp + row.cfaOffset(); break;
    // The stub pushed the relocation index once pc passed the push (PLT stubs only jump, so
    // this is the interrupted frame and pc is exact).
    case CfaKind::kPlt: cfa = r->sp + kWord + ((r->pc & 15) >= uintptr_t(row.cfaOffset()) ? kWord : 0); break;
    default: return false;
  }
  if (!aligned(cfa) || cfa <= r->sp || !mem.inStack(cfa - kWord)) return false;
  uintptr_t ra, fp = r->fp;
  if (!mem.read(mem.ctx, cfa - kWord, &ra)) return false;
  if (row.rbp == CfiRow::kRbpUnknown) {
    fp = 0;  // the caller's rbp is lost: a later rbp-based step fails its checks instead of guessing
  } else if (row.rbp != CfiRow::kRbpUnchanged) {
    uintptr_t at = cfa + row.rbp;
    if (!aligned(at) || !mem.inStack(at) || !mem.read(mem.ctx, at, &fp)) return false;
  }
  return accept_signalSafe(mem, *r, NativeRegs{ra, cfa, fp, false}, r);
}

bool NativeUnwinder::stepSignalFrame_signalSafe(const NativeMemory& mem, NativeRegs* r) const {
  uintptr_t uc = r->sp;  // the handler returned into the trampoline: rsp is at the ucontext
  uintptr_t pc, sp, fp;
  if (!aligned(uc) || !mem.inStack(uc + gregOffset(REG_RIP))) return false;
  if (!mem.read(mem.ctx, uc + gregOffset(REG_RIP), &pc) || !mem.read(mem.ctx, uc + gregOffset(REG_RSP), &sp) ||
      !mem.read(mem.ctx, uc + gregOffset(REG_RBP), &fp)) {
    return false;
  }
  return accept_signalSafe(mem, *r, NativeRegs{pc, sp, fp, true}, r);
}

bool NativeUnwinder::accept_signalSafe(const NativeMemory& mem, const NativeRegs& from, NativeRegs next,
                                       NativeRegs* r) {
  if (next.pc < kLowestPc || next.sp <= from.sp || next.sp - from.sp > kMaxFrameBytes) return false;
  if (mem.high != 0 && (next.sp < mem.low || next.sp > mem.high)) return false;  // == high: the root
  *r = next;
  return true;
}

int NativeUnwinder::unwind_signalSafe(CStackMode mode, const NativeMemory& mem, NativeRegs* r, uintptr_t* pcs,
                                      int max, StopAt stopAt, void* stopCtx) const {
  int n = 0;
  while (n < max) {
    if (stopAt != nullptr && stopAt(stopCtx, r->pc)) break;
    pcs[n++] = r->pc;
    if (!step_signalSafe(mode, mem, r)) break;
  }
  return n;
}

}  // namespace candor
