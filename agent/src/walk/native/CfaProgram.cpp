#include "walk/native/CfaProgram.h"

#include <sys/ucontext.h>

#include <cstddef>

namespace candor {

namespace {
// DWARF register numbers on x86-64 (System V psABI, figure 3.36).
constexpr uint64_t kRegRbp = 6, kRegRsp = 7;
constexpr uint64_t kNoRegister = ~uint64_t(0);  // the CFA is an expression, not register + offset

enum : uint8_t {
  kNop = 0x00, kSetLoc = 0x01, kAdvance1 = 0x02, kAdvance2 = 0x03, kAdvance4 = 0x04,
  kOffsetExt = 0x05, kRestoreExt = 0x06, kUndefined = 0x07, kSameValue = 0x08, kRegister = 0x09,
  kRememberState = 0x0a, kRestoreState = 0x0b, kDefCfa = 0x0c, kDefCfaRegister = 0x0d,
  kDefCfaOffset = 0x0e, kDefCfaExpression = 0x0f, kExpression = 0x10, kOffsetExtSf = 0x11,
  kDefCfaSf = 0x12, kDefCfaOffsetSf = 0x13, kValOffset = 0x14, kValOffsetSf = 0x15,
  kValExpression = 0x16, kGnuArgsSize = 0x2e, kGnuNegOffsetExt = 0x2f,
  kAdvanceLoc = 0x40, kOffset = 0x80, kRestore = 0xc0,
};

// ld's PLT CFA: DW_OP_breg7 8; DW_OP_breg16 0; lit15; and; litN; ge; lit3; shl; plus
// = rsp + 8 + ((rip & 15) >= N ? 8 : 0). N (at index 6, as DW_OP_lit0 + N) is 11 for the classic
// 16-byte PLT entry (the push of the index ends at offset 11) and differs for other layouts.
constexpr uint8_t kPltExpr[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x00, 0x2a, 0x33, 0x24, 0x22};
constexpr uint8_t kOpLit0 = 0x30, kOpBreg7 = 0x77, kOpDeref = 0x06;

// An offset times the data alignment factor; garbage that overflows becomes a value no row
// accepts (emit() marks offsets beyond 24 bits unsupported, rbp offsets beyond 32 unknown).
int64_t scaled(int64_t v, int64_t factor) {
  int64_t out;
  return __builtin_mul_overflow(v, factor, &out) ? INT64_MAX : out;
}
}  // namespace

void CfaProgram::run(uint64_t start, uint64_t length, ByteReader instructions) {
  start_ = loc_ = start;
  end_ = start + length;
  first_ = out_->size();
  s_ = State{};  // the CIE's instructions set the real initial rule
  depth_ = 0;
  bool ok = execute(cie_.initial, true);
  initial_ = s_;
  ok = ok && execute(instructions, false);
  if (ok) {
    emit(loc_);
  } else {
    stats_->badFdes++;
    out_->resize(first_);
    out_->push_back(CfiRow::make(uint32_t(start_), CfaKind::kUnsupported, 0, CfiRow::kRbpUnknown));
  }
  out_->push_back(CfiRow::make(uint32_t(end_), CfaKind::kNone, 0, CfiRow::kRbpUnchanged));
}

void CfaProgram::emit(uint64_t loc) {
  if (loc >= end_) return;
  CfaKind kind = s_.kind;
  int64_t offset = s_.offset, rbp = s_.rbp;
  if (kind == CfaKind::kSignal) {
    offset = 0, rbp = CfiRow::kRbpUnchanged;  // everything comes from the ucontext
  } else if (s_.ra == Ra::kUndefined) {
    kind = CfaKind::kOutermost, offset = 0, rbp = CfiRow::kRbpUnchanged;
  } else if (kind == CfaKind::kUnsupported || s_.ra == Ra::kElsewhere || offset > CfiRow::kMaxCfaOffset ||
             offset < -CfiRow::kMaxCfaOffset) {
    kind = CfaKind::kUnsupported, offset = 0;
  }
  if (rbp != CfiRow::kRbpUnchanged && (rbp < INT32_MIN + 2 || rbp > INT32_MAX)) rbp = CfiRow::kRbpUnknown;
  CfiRow row = CfiRow::make(uint32_t(loc), kind, int32_t(offset), int32_t(rbp));
  if (out_->size() > first_) {
    CfiRow& last = out_->back();
    if (last.pc == row.pc) {
      last = row;  // an advance by 0: the later rule wins
      if (out_->size() - 1 > first_ && (*out_)[out_->size() - 2].sameRule(row)) out_->pop_back();
      return;
    }
    if (last.sameRule(row)) return;
  }
  out_->push_back(row);
}

void CfaProgram::advance(uint64_t delta) {
  emit(loc_);
  uint64_t bytes;
  // Garbage deltas must not wrap around to a pc before the rows already emitted.
  if (__builtin_mul_overflow(delta, cie_.codeAlign, &bytes) || loc_ + bytes < loc_) loc_ = end_;
  else loc_ += bytes;
}

void CfaProgram::setRegister(uint64_t reg, int64_t rbpRule, Ra raRule) {
  if (reg == kRegRbp) s_.rbp = rbpRule;
  if (reg == cie_.raRegister) s_.ra = raRule;
}

void CfaProgram::restore(uint64_t reg) {
  if (reg == kRegRbp) s_.rbp = initial_.rbp;
  if (reg == cie_.raRegister) s_.ra = initial_.ra;
}

void CfaProgram::cfaExpression(ByteReader expr) {
  ByteReader r = expr;
  s_.reg = kNoRegister;
  s_.kind = CfaKind::kUnsupported;
  s_.offset = 0;
  uint64_t n = expr.size();
  uint8_t b[sizeof kPltExpr] = {};
  for (uint64_t i = 0; i < n && i < sizeof b; i++) b[i] = expr.u8();
  if (n == sizeof kPltExpr && b[6] >= kOpLit0 && b[6] < kOpLit0 + 16) {
    uint8_t threshold = b[6] - kOpLit0;
    b[6] = 0;
    bool plt = true;
    for (size_t i = 0; i < sizeof b; i++) plt = plt && b[i] == kPltExpr[i];
    if (plt) s_.kind = CfaKind::kPlt, s_.offset = threshold;
    return;
  }
  // A signal trampoline's CFA is the interrupted rsp, loaded from the ucontext rsp points at.
  if (cie_.signalFrame && r.u8() == kOpBreg7) {
    int64_t at = r.sleb();
    if (r.u8() == kOpDeref && r.atEnd() && r.ok() &&
        at == int64_t(offsetof(ucontext_t, uc_mcontext.gregs) + REG_RSP * sizeof(greg_t))) {
      s_.kind = CfaKind::kSignal;
    }
  }
}

bool CfaProgram::execute(ByteReader r, bool inCie) {
  const int64_t da = cie_.dataAlign;
  auto setCfaRegister = [this](uint64_t reg) {
    s_.reg = reg;
    s_.kind = reg == kRegRsp ? CfaKind::kRsp : reg == kRegRbp ? CfaKind::kRbp : CfaKind::kUnsupported;
  };
  auto setCfaOffset = [this](int64_t off) {
    if (s_.reg != kNoRegister) s_.offset = off;  // meaningless after an expression: keep it
  };
  // The rule "saved at CFA + off" for rbp; for the return address only CFA − 8 is expected.
  auto savedAt = [this](uint64_t reg, int64_t off) {
    setRegister(reg, off, off == -8 ? Ra::kAtCfaMinus8 : Ra::kElsewhere);
  };
  while (r.ok() && !r.atEnd()) {
    uint8_t op = r.u8();
    switch (op & 0xc0) {
      case kAdvanceLoc: advance(op & 0x3f); continue;
      case kOffset: savedAt(op & 0x3f, scaled(int64_t(r.uleb()), da)); continue;
      case kRestore: restore(op & 0x3f); continue;
    }
    switch (op) {
      case kNop: break;
      case kSetLoc: {
        uint64_t to = r.encoded(cie_.fdeEncoding);
        if (to < loc_) return false;  // rows must stay in pc order
        emit(loc_);
        loc_ = to;
        break;
      }
      case kAdvance1: advance(r.u8()); break;
      case kAdvance2: advance(r.u16()); break;
      case kAdvance4: advance(r.u32()); break;
      case kOffsetExt: { uint64_t reg = r.uleb(); savedAt(reg, scaled(int64_t(r.uleb()), da)); break; }
      case kOffsetExtSf: { uint64_t reg = r.uleb(); savedAt(reg, scaled(r.sleb(), da)); break; }
      case kGnuNegOffsetExt: { uint64_t reg = r.uleb(); savedAt(reg, scaled(int64_t(r.uleb()), -da)); break; }
      case kRestoreExt: restore(r.uleb()); break;
      case kUndefined: setRegister(r.uleb(), CfiRow::kRbpUnknown, Ra::kUndefined); break;
      case kSameValue: setRegister(r.uleb(), CfiRow::kRbpUnchanged, Ra::kElsewhere); break;
      case kRegister: { uint64_t reg = r.uleb(); r.uleb(); setRegister(reg, CfiRow::kRbpUnknown, Ra::kElsewhere); break; }
      case kValOffset: case kValOffsetSf: {
        uint64_t reg = r.uleb();
        op == kValOffset ? (void)r.uleb() : (void)r.sleb();
        setRegister(reg, CfiRow::kRbpUnknown, Ra::kElsewhere);
        break;
      }
      case kExpression: case kValExpression: {
        uint64_t reg = r.uleb();
        r.skip(r.uleb());
        setRegister(reg, CfiRow::kRbpUnknown, Ra::kElsewhere);
        break;
      }
      case kRememberState:
        if (depth_ == kMaxRemembered) return false;
        stack_[depth_++] = s_;
        break;
      case kRestoreState:
        if (depth_ == 0) return false;
        s_ = stack_[--depth_];
        break;
      case kDefCfa: { uint64_t reg = r.uleb(); setCfaRegister(reg); s_.offset = int64_t(r.uleb()); break; }
      case kDefCfaSf: { uint64_t reg = r.uleb(); setCfaRegister(reg); s_.offset = scaled(r.sleb(), da); break; }
      case kDefCfaRegister: setCfaRegister(r.uleb()); break;
      case kDefCfaOffset: setCfaOffset(int64_t(r.uleb())); break;
      case kDefCfaOffsetSf: setCfaOffset(scaled(r.sleb(), da)); break;
      case kDefCfaExpression: { uint64_t len = r.uleb(); cfaExpression(r.sub(len)); r.skip(len); break; }
      case kGnuArgsSize: r.uleb(); break;
      default: return false;  // an opcode gcc/clang do not emit for x86-64: do not guess
    }
    if (inCie && loc_ != start_) return false;  // a CIE cannot advance
  }
  return r.ok();
}

}  // namespace candor
