// Reads HotSpot's exported VMStructs table (gHotSpotVMStructs and friends) to find field offsets
// by name. Only ordinary threads use it: lookups are string compares over a table of ~2,000 rows.
#pragma once
#include <cstdint>

namespace candor {

class VMStructs {
 public:
  // Byte offset of `type::field`, or -1 when the table or the entry is missing.
  static int64_t fieldOffset(const char* type, const char* field);
};

}  // namespace candor
