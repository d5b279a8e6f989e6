// Runs the call-frame instructions of one FDE (after its CIE's initial instructions) and appends
// the rows they define to a table (ordinary thread, profiling start). Only what x86-64 unwinding
// by CFA, rbp and return address needs is tracked: other registers' rules are parsed and
// ignored. Instructions come from untrusted bytes: a malformed program (an unknown opcode, a
// read past the FDE, a restore_state without remember_state) turns the whole FDE's range into
// one kUnsupported row instead of rows that might be wrong.
#pragma once
#include <cstdint>
#include <vector>

#include "walk/native/ByteReader.h"
#include "walk/native/CfiRow.h"

namespace candor {

struct CieInfo {
  uint64_t codeAlign = 1;
  int64_t dataAlign = -8;
  uint64_t raRegister = 16;
  uint8_t fdeEncoding = 0;     // DW_EH_PE_* of pc_begin/pc_range in this CIE's FDEs
  bool hasAugData = false;     // "z": FDEs carry an augmentation data length
  bool signalFrame = false;    // "S": the FDEs describe a signal trampoline
  ByteReader initial;          // initial instructions
};

class CfaProgram {
 public:
  CfaProgram(const CieInfo& cie, std::vector<CfiRow>* out, CfiStats* stats)
      : cie_(cie), out_(out), stats_(stats) {}

  // Appends the rows of code [start, start + length), then a kNone row at its end (replaced
  // when another FDE starts there). Rows are in pc order within the FDE.
  void run(uint64_t start, uint64_t length, ByteReader instructions);

 private:
  enum class Ra : uint8_t { kAtCfaMinus8, kUndefined, kElsewhere };
  struct State {
    CfaKind kind = CfaKind::kRsp;
    uint64_t reg = 7;    // the CFA's register (DWARF number) while it is register + offset
    int64_t offset = 8;  // CFA offset, or the PLT threshold
    int64_t rbp = CfiRow::kRbpUnchanged;
    Ra ra = Ra::kAtCfaMinus8;
  };
  static constexpr int kMaxRemembered = 16;

  // false when the instructions are malformed.
  bool execute(ByteReader r, bool inCie);
  void emit(uint64_t loc);
  void advance(uint64_t delta);
  void setRegister(uint64_t reg, int64_t rbpRule, Ra raRule);
  void restore(uint64_t reg);
  void cfaExpression(ByteReader expr);

  const CieInfo& cie_;
  std::vector<CfiRow>* out_;
  CfiStats* stats_;
  State s_, initial_;
  State stack_[kMaxRemembered];
  int depth_ = 0;
  uint64_t start_ = 0, end_ = 0, loc_ = 0;
  size_t first_ = 0;  // index of this FDE's first row in out_
};

}  // namespace candor
