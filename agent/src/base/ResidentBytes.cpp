#include "base/ResidentBytes.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace candor {

size_t residentBytes(const void* addr, size_t length) {
  if (addr == nullptr || length == 0) return 0;
  auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t start = reinterpret_cast<uintptr_t>(addr) & ~(page - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(addr) + length;
  size_t pages = (end - start + page - 1) / page;
  std::vector<unsigned char> in(pages);
  if (mincore(reinterpret_cast<void*>(start), end - start, in.data()) != 0) return 0;
  size_t resident = 0;
  for (unsigned char v : in) resident += (v & 1) != 0;
  return resident * page;
}

size_t processResidentBytes() {
  FILE* f = fopen("/proc/self/statm", "re");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  int n = fscanf(f, "%lu %lu", &size, &resident);
  fclose(f);
  return n == 2 ? resident * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

}  // namespace candor
