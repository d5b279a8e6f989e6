#include "walk/vm/FrameWalker.h"

#include <ucontext.h>

#include "jvm/StubNames.h"
#include "walk/vm/GuardedMemory.h"

namespace candor {

namespace {
constexpr int kWord = 8;
constexpr int kInterpMethod = -3;  // frame::interpreter_frame_method_offset (x86-64, JDK 17-25)
constexpr int kInterpBcp = -8;     // frame::interpreter_frame_bcp_offset
constexpr int kInterpSenderSp = -1;
constexpr int32_t kMaxInlined = 64;
// The frame shown for time in C code that compiled code called directly (libjvm's leaf calls).
const char kLeafCallName[] = "native leaf call";
// walk=copy does not know the thread's state: C code it climbed out of may also be the VM or JNI.
const char kCopiedNativeName[] = "native code";
constexpr int kLeafCallLinks = 8;
constexpr int kCopiedNativeLinks = 64;  // VM calls (allocation, class loading) nest deeper

// AGCT's codes, so the failures land in the same named buckets.
constexpr int32_t kNoJavaFrame = 0;
constexpr int32_t kUnknownNotJava = -3;
constexpr int32_t kUnknownJava = -5;
constexpr int32_t kNotWalkableJava = -6;

uint8_t codeByte(uintptr_t pc, int i) { return load_signalSafe<uint8_t>(pc + i); }
}  // namespace

uintptr_t FrameWalker::Stack::load(uintptr_t p) const {
  if (copy != nullptr && contains(p)) return copy->load_signalSafe(p);  // walk=copy: never the live stack
  return loadPtr_signalSafe(p);
}

// The anchor is in the JavaThread, or on the stack in a JavaCallWrapper (entry frames).
bool FrameWalker::fromAnchor_signalSafe(uintptr_t anchor, const Stack& s, Regs* r) const {
  uintptr_t sp = s.load(anchor + l_.anchorSp);
  if (sp == 0) return false;
  uintptr_t pc = s.load(anchor + l_.anchorPc);
  r->sp = sp;
  r->pc = pc != 0 ? pc : s.load(sp - kWord);  // not yet made walkable: pc is below sp
  r->fp = s.load(anchor + l_.anchorFp);
  return true;
}

// walk=copy: the thread's state and anchor are live data and the thread has moved on since the
// sample, so neither is used. The sampled pc is in generated code (interrupted there), or in C
// code that generated code called (found through rbp links in the copy), or the tick is
// unknown_not_java.
bool FrameWalker::startFromCopy_signalSafe(const Stack& s, Regs* r, int32_t* code, bool* interrupted,
                                           bool* leafCall) const {
  const SampledRegs& sampled = s.copy->regs();
  *r = Regs{sampled.pc, sampled.sp, sampled.fp, sampled.bcp};
  *interrupted = !s.copy->resumed();  // resumed below C frames: pc is a return address
  if (code_.inCodeCache_signalSafe(r->pc)) return true;
  *interrupted = false;
  r->bcp = 0;
  if (climbNativeFrames_signalSafe(s, r)) {
    *leafCall = true;
    return true;
  }
  *code = kUnknownNotJava;
  return false;
}

bool FrameWalker::startRegs_signalSafe(uintptr_t thread, const void* ucontext, const SampledRegs* cFramesEnd,
                                       const Stack& s, Regs* r, int32_t* code, bool* interrupted,
                                       bool* leafCall) const {
  if (s.copy != nullptr) return startFromCopy_signalSafe(s, r, code, interrupted, leafCall);
  auto uc = static_cast<const ucontext_t*>(ucontext);
  int64_t state = loadField_signalSafe(thread, l_.threadState);
  if (state == l_.stateInJava) {
    r->pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    r->sp = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
    r->fp = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RBP]);
    // The template interpreter keeps the live bcp in r13 and stores it in the frame only at
    // calls and safepoints: for the interrupted frame the register is the fresh one.
    r->bcp = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_R13]);
    *interrupted = true;
    if (code_.inCodeCache_signalSafe(r->pc)) return true;
    *interrupted = false;
    // In Java state but outside generated code: a leaf call into the VM or a library.
    if (fromAnchor_signalSafe(thread + l_.threadAnchor, s, r)) return true;
    // The native unwinder walked that C code (cstack) up to its Java caller: start there rather
    // than guess through rbp links, which code without frame pointers (glibc, libm) breaks.
    if (cFramesEnd != nullptr && code_.inCodeCache_signalSafe(cFramesEnd->pc) && s.contains(cFramesEnd->sp)) {
      *r = Regs{cFramesEnd->pc, cFramesEnd->sp, cFramesEnd->fp, 0};
      *leafCall = true;
      return true;
    }
    if (climbNativeFrames_signalSafe(s, r)) {
      *leafCall = true;
      return true;
    }
    *code = kUnknownNotJava;
    return false;
  }
  // In native, in the VM or blocked: the last Java frame was recorded on the way out of Java.
  if (fromAnchor_signalSafe(thread + l_.threadAnchor, s, r)) return true;
  *code = kNoJavaFrame;
  return false;
}

// A leaf call from compiled code into C (math, GC barriers, arraycopy helpers) leaves no
// anchor, but libjvm keeps frame pointers: follow rbp links until one returns into generated code.
bool FrameWalker::climbNativeFrames_signalSafe(const Stack& s, Regs* r) const {
  uintptr_t fp = r->fp;
  int links = s.copy != nullptr ? kCopiedNativeLinks : kLeafCallLinks;
  for (int i = 0; i < links && fp >= r->sp && s.contains(fp + kWord) && (fp & 7) == 0; i++) {
    uintptr_t ret = s.load(fp + kWord);
    uintptr_t next = s.load(fp);
    if (code_.inCodeCache_signalSafe(ret)) {
      *r = Regs{ret, fp + 2 * kWord, next, 0};
      return true;
    }
    if (next <= fp) break;
    fp = next;
  }
  return false;
}

bool FrameWalker::returnsIntoJava_signalSafe(uintptr_t pc) const {
  return code_.inInterpreter_signalSafe(pc) || code_.inCodeCache_signalSafe(pc);
}

bool FrameWalker::senderOfFramed_signalSafe(uintptr_t blob, const Stack& s, Regs* r) const {
  int64_t words = loadField_signalSafe(blob, l_.blobFrameSize);
  uintptr_t senderSp = r->sp + words * kWord;
  if (words <= 0 || !s.contains(senderSp - 2 * kWord)) return false;
  r->pc = s.load(senderSp - kWord);
  r->fp = s.load(senderSp - 2 * kWord);
  r->sp = senderSp;
  return true;
}

// The interrupted instruction is in a frame's epilogue after `add rsp` (pop rbp pending, or
// already popped and at the return poll or ret): the return address is at the top of stack.
bool FrameWalker::poppedOrPopping_signalSafe(uintptr_t pc, const Stack& s, Regs* r) const {
  uint8_t b0 = codeByte(pc, 0);
  auto isPollCmp = [&](int at) {  // cmp rsp, [r15 + polling word], disp32 (JDK 17) or disp8 (JDK 25)
    return codeByte(pc, at) == 0x49 && codeByte(pc, at + 1) == 0x3B &&
           (codeByte(pc, at + 2) == 0xA7 || codeByte(pc, at + 2) == 0x67);
  };
  bool popped = b0 == 0xC3 ||                                                  // ret
                isPollCmp(0) ||                                                // the return poll
                (b0 == 0x0F && codeByte(pc, 1) == 0x87 && (isPollCmp(-7) || isPollCmp(-4))) ||  // its ja
                (b0 == 0xC5 && codeByte(pc, 1) == 0xF8 && codeByte(pc, 2) == 0x77);  // vzeroupper
  if (b0 == 0x5D) {  // pop rbp
    if (!s.contains(r->sp + kWord)) return false;
    r->fp = s.load(r->sp);
    r->pc = s.load(r->sp + kWord);
    r->sp += 2 * kWord;
    return true;
  }
  if (!popped) return false;
  r->pc = s.load(r->sp);
  r->sp += kWord;
  return true;
}

// A stub without a frame size of its own (StubRoutines, adapters), or code interrupted before
// its frame is complete: after `enter` the link is at fp; before it the return is at sp.
// `tryFp`: stubs set up rbp frames; an nmethod's prologue does not (fp is still the caller's).
bool FrameWalker::senderOfFrameless_signalSafe(const BlobInfo& b, const Stack& s, Regs* r, bool tryFp) const {
  uintptr_t pc = r->pc;
  if (pc == b.codeBegin || codeByte(pc, 0) == 0xC3 || codeByte(pc, 0) == 0x55 /* push rbp */) {
    uintptr_t ret = s.load(r->sp);
    if (!returnsIntoJava_signalSafe(ret)) return false;
    r->pc = ret;
    r->sp += kWord;
    return true;
  }
  // The return address is right above the saved rbp, or one word higher in stubs that push a
  // word before `enter` (the nmethod entry barrier pushes a deopt cookie).
  for (int slot = 1; tryFp && slot <= 2 && r->fp >= r->sp && r->fp - r->sp < 4096 && s.contains(r->fp + slot * kWord);
       slot++) {
    uintptr_t ret = s.load(r->fp + slot * kWord);
    if (returnsIntoJava_signalSafe(ret)) {
      r->pc = ret;
      r->sp = r->fp + (slot + 1) * kWord;
      r->fp = s.load(r->fp);
      return true;
    }
  }
  for (int slot = 0; slot < 2; slot++) {  // no frame yet, or only rbp pushed
    uintptr_t ret = s.load(r->sp + slot * kWord);
    if (!returnsIntoJava_signalSafe(ret)) continue;
    if (slot == 1) r->fp = s.load(r->sp);
    r->pc = ret;
    r->sp += (slot + 1) * kWord;
    return true;
  }
  return false;
}

int32_t FrameWalker::emitCompiled_signalSafe(const BlobInfo& b, uintptr_t pc, bool top, ASGCT_CallFrame* f,
                                             int32_t room, DecodeCache::Tally* tally) const {
  bool complete = false;
  if (!cache_.enabled_signalSafe()) return decodeCompiled_signalSafe(b, pc, top, f, room, &complete);
  DecodeKey key{pc, top, b.codeBegin, b.codeEnd, static_cast<int32_t>(loadField_signalSafe(b.blob, l_.nmCompileId))};
  int32_t n = cache_.lookup_signalSafe(key, f, room, tally);
  if (n > 0) return n;
  uint64_t ticket = cache_.ticket_signalSafe();  // before the decode reads the nmethod
  n = decodeCompiled_signalSafe(b, pc, top, f, room, &complete);
  // A method without a jmethodID yet (a late attach still preloading) must not stay unnamed.
  for (int32_t i = 0; complete && i < n; i++) complete = f[i].method_id != nullptr;
  if (complete && n <= DecodeCache::kMaxFrames) cache_.store_signalSafe(key, f, n, ticket);
  return n;
}

int32_t FrameWalker::ownMethod_signalSafe(uintptr_t method, ASGCT_CallFrame* f) const {
  f[0] = {method != 0 && ids_.isNative_signalSafe(method) ? kNativeMethodBci : 0, ids_.idOf_signalSafe(method)};
  return 1;
}

int32_t FrameWalker::decodeCompiled_signalSafe(const BlobInfo& b, uintptr_t pc, bool top, ASGCT_CallFrame* f,
                                               int32_t room, bool* complete) const {
  *complete = true;
  JavaScope scope[kMaxInlined];
  int max = room < kMaxInlined ? room : kMaxInlined;
  int n = scopes_.decode_signalSafe(b, pc, top, scope, max);
  // No debug info: a native wrapper (it has none), or a pc in the nmethod's stub section.
  if (n == 0) return ownMethod_signalSafe(scopes_.method_signalSafe(b.blob), f);
  if (n == max) *complete = false;  // the chain may go on beyond max
  for (int i = 0; i < n; i++) f[i] = {scope[i].bci, ids_.idOf_signalSafe(scope[i].method)};
  return n;
}

bool FrameWalker::mayReturnFrom_signalSafe(uintptr_t ret, const BlobInfo& callee) const {
  // `call rel32` (E8): static and optimized virtual calls, and inline-cache calls while monomorphic,
  // go straight to the callee's nmethod. Anything else (a call through a register, a stub, the
  // interpreter's dispatch) does not say whom it called.
  if (codeByte(ret - 5, 0) != 0xE8) return true;
  uintptr_t target = ret + static_cast<uintptr_t>(static_cast<intptr_t>(loadCodeInt32_signalSafe(ret - 4)));
  BlobInfo t;
  if (!code_.find_signalSafe(target, &t) || !t.isNmethod) return true;
  return t.blob == callee.blob;
}

int32_t FrameWalker::walk_signalSafe(uintptr_t thread, const void* ucontext, ASGCT_CallFrame* frames, int32_t max,
                                     StackCopy* copy, const SampledRegs* cFramesEnd) const {
  uintptr_t base = loadPtr_signalSafe(thread + l_.stackBase);
  Stack s{base - loadPtr_signalSafe(thread + l_.stackSize), base, copy};
  Regs r = {0, 0, 0, 0};
  int32_t code = kUnknownJava;
  bool top = false;  // true while r holds interrupted registers: the pc is not a return address
  bool leafCall = false;
  if (!startRegs_signalSafe(thread, ucontext, cFramesEnd, s, &r, &code, &top, &leafCall)) return code;
  uintptr_t callStubReturn = loadPtr_signalSafe(reinterpret_cast<uintptr_t>(l_.callStubReturn));
  int32_t n = 0;
  if (leafCall && max > 1 && cFramesEnd == nullptr) {
    const char* name = copy != nullptr ? kCopiedNativeName : kLeafCallName;
    frames[n++] = {kStubFrameBci, StubNames::tagFor_signalSafe(0, name, false)};
  }
  BlobInfo b;
  DecodeCache::Tally tally;  // added to the cache's counters once, at the end
  bool found = false;  // b already describes r.pc (looked up for the deopt check below)
  for (int steps = 0; n < max && steps < max + 64; steps++, top = false) {
    // walk=copy: r came from beyond the copied stack, and so would every frame from here on.
    if (s.beyondCopy() || !s.contains(r.sp)) break;
    if (code_.inInterpreter_signalSafe(r.pc)) {
      if (!s.contains(r.fp + kInterpMethod * kWord) || !s.contains(r.fp + kWord)) break;
      uintptr_t method = s.load(r.fp + kInterpMethod * kWord);
      if (s.beyondCopy()) break;
      jmethodID id = ids_.idOf_signalSafe(method);
      if (id == nullptr) {  // not a frame (yet): interrupted in the method's entry code, or a bad link
        if (n == 0) return kUnknownJava;
        break;
      }
      int32_t bci = kNativeMethodBci;
      if (!ids_.isNative_signalSafe(method)) {
        bci = top ? ids_.bciOf_signalSafe(method, r.bcp) : -1;
        if (bci < 0) bci = ids_.bciOf_signalSafe(method, s.load(r.fp + kInterpBcp * kWord));
      }
      if (s.beyondCopy()) break;
      frames[n++] = {bci < 0 && bci != kNativeMethodBci ? 0 : bci, id};
      uintptr_t fp = r.fp;
      r.pc = s.load(fp + kWord);
      r.sp = s.load(fp + kInterpSenderSp * kWord);
      r.fp = s.load(fp);
      found = false;
      continue;
    }
    if (r.pc == callStubReturn) {  // entry frame: Java called from the VM; go on below it
      uintptr_t wrapper = s.load(r.fp + l_.entryFrameCallWrapper * kWord);
      if (wrapper == 0 || !fromAnchor_signalSafe(wrapper + l_.callWrapperAnchor, s, &r)) {  // bottom
        if (copy != nullptr && !s.beyondCopy()) copy->markBottom();
        break;
      }
      found = false;
      continue;
    }
    if (!found && !code_.find_signalSafe(r.pc, &b)) {
      if (n == 0) return top ? kUnknownNotJava : kNotWalkableJava;
      break;  // returned into code we cannot name: keep the frames we have
    }
    if (b.isNmethod) {
      uintptr_t pc = r.pc;
      int64_t complete = loadField_signalSafe(b.blob, l_.blobFrameComplete);
      bool inPrologue = top && complete >= 0 && pc < b.codeBegin + complete;
      bool ok = top && poppedOrPopping_signalSafe(pc, s, &r);  // in the epilogue
      // Interrupted in the prologue or the epilogue: that code belongs to the nmethod's own
      // method, not to the inlined scope whose PcDesc happens to come next (often an uncommon
      // trap of the last inlined callee, laid out after the return).
      n += ok || inPrologue ? ownMethod_signalSafe(scopes_.method_signalSafe(b.blob), frames + n)
                            : emitCompiled_signalSafe(b, pc, top, frames + n, max - n, &tally);
      if (!ok && inPrologue) ok = senderOfFrameless_signalSafe(b, s, &r, false);
      if (!ok) ok = senderOfFramed_signalSafe(b.blob, s, &r);
      if (!ok) break;
      // Read from the live stack (LiveStackTail.h), the return address may be that of another frame
      // built at the same place since the sample; a direct call to another nmethod gives that away.
      if (copy != nullptr && copy->usedTail() && !mayReturnFrom_signalSafe(r.pc, b)) {
        copy->markBroken();
        break;
      }
    } else {
      uintptr_t name = loadPtr_signalSafe(b.blob + l_.blobName);
      uint64_t prefix = name != 0 ? loadBytes8_signalSafe(name) : 0;
      bool inStubRoutines = prefix == 0x74756f5262757453ull;  // "StubRout"
      frames[n++] = {kStubFrameBci, StubNames::tagFor_signalSafe(r.pc, reinterpret_cast<const char*>(name), inStubRoutines)};
      // vtable and itable stubs ("vtable chunks") and inline-cache stubs ("InlineCacheBuffer")
      // jump to their target without ever building a frame: the return address is at sp. rbp is
      // a general register in C2 code, so following it could skip live frames.
      bool jumpsOnly = top && (prefix == 0x6320656c62617476ull /* "vtable c" */ ||
                               prefix == 0x6143656e696c6e49ull /* "InlineCa" */);
      if (jumpsOnly) {
        uintptr_t ret = s.load(r.sp);
        if (!returnsIntoJava_signalSafe(ret)) break;
        r.pc = ret;
        r.sp += kWord;
      } else {
        int64_t words = loadField_signalSafe(b.blob, l_.blobFrameSize);
        int64_t complete = loadField_signalSafe(b.blob, l_.blobFrameComplete);
        // From an anchor the blob is stopped at a call, its frame built, even in blobs HotSpot
        // never marks complete (the deoptimization blob calling fetch_unroll_info).
        bool framed = words > 0 && (!top || (complete >= 0 && r.pc >= b.codeBegin + complete));
        bool ok = top && poppedOrPopping_signalSafe(r.pc, s, &r);
        if (!ok && framed) {
          // The registered frame size holds except while a blob rebuilds frames (deoptimization
          // unpacks the interpreter frames it returns to): then follow its rbp frame instead.
          Regs saved = r;
          ok = senderOfFramed_signalSafe(b.blob, s, &r) && (returnsIntoJava_signalSafe(r.pc) || r.pc == callStubReturn);
          if (!ok) r = saved;
        }
        if (!ok) ok = senderOfFrameless_signalSafe(b, s, &r, true);
        if (!ok) break;
      }
    }
    // A frame being deoptimized returns to its nmethod's deopt handler; its real pc is saved.
    found = code_.find_signalSafe(r.pc, &b);
    if (found && b.isNmethod && scopes_.isDeoptPc_signalSafe(b.blob, r.pc)) {
      r.pc = s.load(scopes_.originalPcSlot_signalSafe(b.blob, r.sp));
      found = false;
    }
  }
  cache_.count_signalSafe(tally);
  return n > 0 ? n : kNotWalkableJava;
}

}  // namespace candor
