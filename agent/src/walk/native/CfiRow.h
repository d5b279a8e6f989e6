// One row of a module's unwind table: from `pc` (a link-time address: runtime pc − load bias)
// up to the next row's pc, how to find the caller's frame on x86-64:
//   CFA = rsp or rbp + offset (the caller's rsp after return); return address at CFA − 8
//   (always, on x86-64: rows where the CFI says otherwise are marked unsupported);
//   rbp of the caller: saved at CFA + rbpOffset, or unchanged, or unknown.
// 12 bytes, so libjvm's ~150,000 rows take under 2 MB. Immutable once published; read from
// signal handlers. Special kinds cover what gcc/clang/glibc emit that is no plain register rule:
//   kPlt       the PLT expression: CFA = rsp + 8, + 8 more once pc & 15 >= threshold (the
//              stub pushed its relocation index)
//   kSignal    a signal trampoline (__restore_rt): rsp points at a ucontext_t whose
//              mcontext holds the interrupted registers
//   kOutermost the return address is undefined: the root of a thread's stack (_start, clone)
//   kNone      no CFI covers this pc (between FDEs): the unwinder falls back to rbp links
//   kUnsupported a rule the table cannot express (DRAP stack realignment, other expressions)
#pragma once
#include <climits>
#include <cstdint>

namespace candor {

enum class CfaKind : uint8_t { kNone = 0, kRsp, kRbp, kPlt, kSignal, kOutermost, kUnsupported };

struct CfiRow {
  static constexpr int32_t kRbpUnchanged = INT32_MIN;
  static constexpr int32_t kRbpUnknown = INT32_MIN + 1;
  static constexpr int32_t kMaxCfaOffset = (1 << 23) - 1;  // 24 bits next to the kind

  uint32_t pc;
  int32_t cfa;  // kind in the low 8 bits, signed offset (or PLT threshold) above
  int32_t rbp;  // offset from the CFA where the caller's rbp is saved, or a kRbp* marker

  static CfiRow make(uint32_t pc, CfaKind kind, int32_t offset, int32_t rbp) {
    return CfiRow{pc, static_cast<int32_t>(static_cast<uint32_t>(offset) << 8) | static_cast<int32_t>(kind), rbp};
  }
  CfaKind kind() const { return static_cast<CfaKind>(cfa & 0xff); }
  int32_t cfaOffset() const { return cfa >> 8; }
  bool sameRule(const CfiRow& o) const { return cfa == o.cfa && rbp == o.rbp; }
};
static_assert(sizeof(CfiRow) == 12);

// What parsing a module's CFI produced; rows by kind tell how much of it the unwinder can use.
struct CfiStats {
  uint32_t fdes = 0;
  uint32_t badFdes = 0;     // malformed or with an unknown opcode: the whole range is unsupported
  uint32_t rows = 0;
  uint32_t pltRows = 0;
  uint32_t signalRows = 0;
  uint32_t outermostRows = 0;
  uint32_t unsupportedRows = 0;
  const char* failure = nullptr;  // why no table at all (no PT_GNU_EH_FRAME, bad header), or null

  void add(const CfiStats& o) {
    fdes += o.fdes, badFdes += o.badFdes, rows += o.rows, pltRows += o.pltRows;
    signalRows += o.signalRows, outermostRows += o.outermostRows, unsupportedRows += o.unsupportedRows;
  }
};

}  // namespace candor
