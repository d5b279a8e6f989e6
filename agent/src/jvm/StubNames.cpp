#include "jvm/StubNames.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace candor {

namespace {
constexpr uint32_t kMaxRanges = 16384;
constexpr uint32_t kMaxBlobNames = 1024;
constexpr uintptr_t kBlobNameFlag = uintptr_t(1) << 30;     // index space of interned blob names
constexpr uintptr_t kStubRoutinesFlag = uintptr_t(1) << 29;  // range name inside a StubRoutines blob

struct Range {
  uintptr_t begin;
  uintptr_t end;
  uint32_t name;
};

// Ranges sorted by begin; rangeNames holds our own copies of JVMTI's strings.
Range gRanges[kMaxRanges];
const char* gRangeNames[kMaxRanges];
uint32_t gRangeCount = 0;
std::atomic<uint32_t> gSeq{0};  // odd while addRange rewrites the table
std::mutex gWriteMutex;
std::atomic<const char*> gBlobNames[kMaxBlobNames];

jmethodID tag(uintptr_t index) { return reinterpret_cast<jmethodID>(StubNames::kTagBits | index); }

bool findRange_signalSafe(uintptr_t pc, uint32_t* name) {
  uint32_t before = gSeq.load(std::memory_order_acquire);
  if (before & 1) return false;
  uint32_t lo = 0, hi = __atomic_load_n(&gRangeCount, __ATOMIC_RELAXED);
  if (hi > kMaxRanges) return false;
  while (lo < hi) {  // first range with begin > pc
    uint32_t mid = (lo + hi) / 2;
    if (__atomic_load_n(&gRanges[mid].begin, __ATOMIC_RELAXED) <= pc) lo = mid + 1;
    else hi = mid;
  }
  bool found = false;
  // Ranges may nest (a stub inside its StubRoutines blob): the innermost starts last.
  for (uint32_t i = lo; i > 0 && lo - i < 8; i--) {
    const Range& r = gRanges[i - 1];
    if (pc < __atomic_load_n(&r.end, __ATOMIC_RELAXED)) {
      *name = __atomic_load_n(&r.name, __ATOMIC_RELAXED);
      found = true;
      break;
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return found && gSeq.load(std::memory_order_relaxed) == before;
}
}  // namespace

void StubNames::addRange(const void* begin, size_t length, const char* name) {
  std::lock_guard<std::mutex> lock(gWriteMutex);
  if (gRangeCount >= kMaxRanges || name == nullptr || length == 0) return;
  auto b = reinterpret_cast<uintptr_t>(begin);
  uint32_t pos = gRangeCount;
  while (pos > 0 && gRanges[pos - 1].begin > b) pos--;
  if (pos > 0 && gRanges[pos - 1].begin == b && gRanges[pos - 1].end == b + length) return;  // seen
  gRangeNames[gRangeCount] = strdup(name);
  gSeq.fetch_add(1, std::memory_order_acq_rel);  // odd: readers back off
  std::atomic_thread_fence(std::memory_order_release);
  memmove(&gRanges[pos + 1], &gRanges[pos], (gRangeCount - pos) * sizeof(Range));
  gRanges[pos] = Range{b, b + length, gRangeCount};
  __atomic_store_n(&gRangeCount, gRangeCount + 1, __ATOMIC_RELAXED);
  gSeq.fetch_add(1, std::memory_order_release);
}

jmethodID StubNames::tagFor_signalSafe(uintptr_t pc, const char* blobName, bool inStubRoutines) {
  uint32_t name;
  if (findRange_signalSafe(pc, &name)) return tag(name | (inStubRoutines ? kStubRoutinesFlag : 0));
  // Intern the blob's name pointer (a string in libjvm that lives as long as the process).
  uintptr_t h = (reinterpret_cast<uintptr_t>(blobName) >> 3) * 0x9E3779B97F4A7C15ull;
  for (uint32_t probe = 0; probe < 32; probe++) {
    uint32_t i = static_cast<uint32_t>((h >> 40) + probe) % kMaxBlobNames;
    const char* cur = gBlobNames[i].load(std::memory_order_acquire);
    if (cur == blobName) return tag(kBlobNameFlag | i);
    if (cur == nullptr) {
      if (gBlobNames[i].compare_exchange_strong(cur, blobName, std::memory_order_acq_rel)) return tag(kBlobNameFlag | i);
      if (cur == blobName) return tag(kBlobNameFlag | i);
    }
  }
  return nullptr;
}

std::string StubNames::nameOf(jmethodID t) {
  uintptr_t index = reinterpret_cast<uintptr_t>(t) & ~kTagBits;
  if (index & kBlobNameFlag) {
    const char* p = gBlobNames[(index & ~kBlobNameFlag) % kMaxBlobNames].load(std::memory_order_acquire);
    // Read it only if it lies in a loaded library (libjvm's read-only strings).
    Dl_info info;
    if (p == nullptr || dladdr(p, &info) == 0 || info.dli_fname == nullptr) return "unknown";
    return std::string(p, strnlen(p, 200));
  }
  std::string prefix = (index & kStubRoutinesFlag) ? "StubRoutines::" : "";
  index &= ~kStubRoutinesFlag;
  std::lock_guard<std::mutex> lock(gWriteMutex);
  return index < gRangeCount ? prefix + gRangeNames[index] : "unknown";
}

void StubNames::clearForTest() {
  std::lock_guard<std::mutex> lock(gWriteMutex);
  gSeq.fetch_add(1);
  for (uint32_t i = 0; i < gRangeCount; i++) free(const_cast<char*>(gRangeNames[i]));
  gRangeCount = 0;
  for (auto& n : gBlobNames) n.store(nullptr);
  gSeq.fetch_add(1);
}

}  // namespace candor
