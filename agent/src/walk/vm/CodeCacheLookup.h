// pc → CodeBlob through HotSpot's own data: CodeCache::_heaps, each heap's segment map (one byte
// per segment, counting hops back to the segment where the block starts) and the HeapBlock
// header in front of each blob. Signal-handler path; all reads inside the crash guard.
#pragma once
#include <cstdint>

#include "walk/vm/VmLayout.h"

namespace candor {

struct BlobInfo {
  uintptr_t blob = 0;       // the CodeBlob*, 0 when pc is in no live blob
  uintptr_t codeBegin = 0;  // its instructions
  uintptr_t codeEnd = 0;
  bool isNmethod = false;
};

class CodeCacheLookup {
 public:
  explicit CodeCacheLookup(const VmLayout& layout) : l_(layout) {}

  bool inCodeCache_signalSafe(uintptr_t pc) const;
  bool inInterpreter_signalSafe(uintptr_t pc) const { return pc >= l_.interpBegin && pc < l_.interpEnd; }
  // Fills `out` for the blob containing pc; false when there is none.
  bool find_signalSafe(uintptr_t pc, BlobInfo* out) const;

 private:
  uintptr_t blobStart_signalSafe(uintptr_t pc) const;
  const VmLayout& l_;
};

}  // namespace candor
