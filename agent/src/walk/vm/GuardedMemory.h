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

// A guarded read may land anywhere, malloc'd memory's redzones included (r15 of C code taken
// for a JavaThread): AddressSanitizer must not check it, the crash guard does. Not inlined then,
// since GCC inlines no unchecked function into a checked one.
#if defined(__SANITIZE_ADDRESS__)
#define CANDOR_GUARDED_READ __attribute__((no_sanitize_address, noinline))
#else
#define CANDOR_GUARDED_READ
#endif

// Every field read here is naturally aligned (strings go through loadBytes8_signalSafe): a
// misaligned address is garbage too (a zapped frame link, 0xdeaddeaf...), and ends the walk.
template <typename T>
CANDOR_GUARDED_READ inline T load_signalSafe(uintptr_t addr) {
  if (addr < kLowestJvmAddress || (addr & (sizeof(T) - 1)) != 0) CrashGuard::bail_signalSafe();
  return *reinterpret_cast<const volatile T*>(addr);
}

inline uintptr_t loadPtr_signalSafe(uintptr_t addr) { return load_signalSafe<uintptr_t>(addr); }

// Eight bytes at any address, such as the start of a C string (which need not be 8-aligned: a
// misaligned load through a uint64_t* is undefined, and UBSan stops the process on it).
CANDOR_GUARDED_READ inline uint64_t loadBytes8_signalSafe(uintptr_t addr) {
  struct __attribute__((packed)) Bytes8 {
    uint64_t v;
  };
  if (addr < kLowestJvmAddress) CrashGuard::bail_signalSafe();
  return reinterpret_cast<const volatile Bytes8*>(addr)->v;
}

// A rel32 operand inside machine code (any alignment: a jmp's displacement is not aligned).
CANDOR_GUARDED_READ inline int32_t loadCodeInt32_signalSafe(uintptr_t addr) {
  struct __attribute__((packed)) Bytes4 {
    int32_t v;
  };
  if (addr < kLowestJvmAddress) CrashGuard::bail_signalSafe();
  return reinterpret_cast<const volatile Bytes4*>(addr)->v;
}

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
