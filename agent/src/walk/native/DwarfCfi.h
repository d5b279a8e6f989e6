// A module's DWARF call-frame information (.eh_frame) as one sorted table of CfiRows, built on
// an ordinary thread at profiling start (or when a library is loaded later) and then only read,
// from signal handlers too, by binary search.
//
// The FDEs are found through .eh_frame_hdr's sorted table (PT_GNU_EH_FRAME: loaded, so a
// running module needs no file read); without a usable table (another encoding, or a file
// without PT_GNU_EH_FRAME) .eh_frame is walked entry by entry. Every byte is untrusted: a
// malformed CIE or FDE is skipped or marked unsupported, never read past.
#pragma once
#include <cstdint>
#include <vector>

#include "walk/native/CfiRow.h"
#include "walk/native/ElfImage.h"

namespace candor {

class DwarfCfi {
 public:
  // Parses the image's CFI (x86-64 images only; others give an empty table with a failure).
  static DwarfCfi parse(const ElfImage& image);

  const std::vector<CfiRow>& rows() const { return rows_; }
  std::vector<CfiRow>&& takeRows() { return std::move(rows_); }
  const CfiStats& stats() const { return stats_; }

  // The row in effect at link-time address `pc`; nullptr when no FDE covers it (a kNone row).
  static const CfiRow* find_signalSafe(const CfiRow* rows, uint32_t count, uint64_t pc);

 private:
  void finish();  // sorts the rows, drops the redundant ones, counts them

  std::vector<CfiRow> rows_;
  CfiStats stats_;
};

}  // namespace candor
