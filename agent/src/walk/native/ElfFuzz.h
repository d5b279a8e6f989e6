// One entry point that runs every parser of walk/native over arbitrary bytes laid out as an ELF
// file: the image, its CFI table, its symbols, its build id, and lookups in the results. For a
// libFuzzer target (LLVMFuzzerTestOneInput calls it) and the robustness unit test. Ordinary thread.
#pragma once
#include <cstddef>
#include <cstdint>

namespace candor {

// Returns a value derived from everything parsed, so nothing is optimized away.
uint64_t exerciseElfBytes(const uint8_t* data, size_t size);

}  // namespace candor
