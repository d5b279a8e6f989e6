// ELF files as the native unwinder's tables and the symbolizer read them (walk/native): any
// bytes, laid out as an ELF image, must parse without a crash, a leak or an endless loop.
#include <cstddef>
#include <cstdint>

#include "walk/native/ElfFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  candor::exerciseElfBytes(data, size);
  return 0;
}
