// How much of a mapping is in RAM (mincore): the sample ring and its spill buffers are reserved
// large and touched only where samples land, so their resident size, not their mapped size, is
// what the agent costs the process. Any thread; not for a signal handler.
#pragma once
#include <cstddef>

namespace candor {

// Bytes of [addr, addr + length) resident in memory; 0 when the range cannot be asked about.
size_t residentBytes(const void* addr, size_t length);
// This process's resident set (/proc/self/statm), in bytes; 0 when unknown.
size_t processResidentBytes();

}  // namespace candor
