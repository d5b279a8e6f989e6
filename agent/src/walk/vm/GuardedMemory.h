// Reads of JVM memory on the walking path. They may fault (a blob freed under us, a torn
// frame): call them only between CrashGuard::arm_signalSafe and disarm_signalSafe. volatile
// keeps the compiler from moving them out of the guarded region or merging them.
#pragma once
#include <cstdint>

#include "walk/vm/CrashGuard.h"
#include "walk/vm/VmLayout.h"

namespace candor {

// Nothing of the JVM's lies in the lowest 16 MB of the address space (mmap_min_addr is 64 KB;
// heaps, metaspace, code and libraries are far above). A read there is a stale or garbage
// pointer: it ends the walk as a fault would, without raising one. That matters beyond speed:
// with libjsig preloaded the JVM's SIGSEGV handler runs before the crash guard, and it may take a
// low address for one of its implicit null checks and stop the process.
constexpr uintptr_t kLowestJvmAddress = uintptr_t(1) << 24;

template <typename T>
inline T load_signalSafe(uintptr_t addr) {
  if (addr < kLowestJvmAddress) CrashGuard::bail_signalSafe();
  return *reinterpret_cast<const volatile T*>(addr);
}

inline uintptr_t loadPtr_signalSafe(uintptr_t addr) { return load_signalSafe<uintptr_t>(addr); }

// A field of any width, sign-extended (HotSpot's offsets and sizes are signed ints).
inline int64_t loadField_signalSafe(uintptr_t base, VmOff f) {
  uintptr_t a = base + f.off;
  switch (f.size) {
    case 1: return load_signalSafe<int8_t>(a);
    case 2: return load_signalSafe<int16_t>(a);
    case 4: return load_signalSafe<int32_t>(a);
    default: return load_signalSafe<int64_t>(a);
  }
}

// The same for unsigned fields (u2 method idnums, code sizes).
inline uint64_t loadUField_signalSafe(uintptr_t base, VmOff f) {
  uintptr_t a = base + f.off;
  switch (f.size) {
    case 1: return load_signalSafe<uint8_t>(a);
    case 2: return load_signalSafe<uint16_t>(a);
    case 4: return load_signalSafe<uint32_t>(a);
    default: return load_signalSafe<uint64_t>(a);
  }
}

}  // namespace candor
