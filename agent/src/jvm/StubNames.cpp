#include "jvm/StubNames.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

#include "base/Ordering.h"
#include "concurrent/SeqLock.h"

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
SeqLock gLock;  // held while addRange rewrites the table (one writer: gWriteMutex)
std::mutex gWriteMutex;
std::atomic<const char*> gBlobNames[kMaxBlobNames];

jmethodID tag(uintptr_t index) { return reinterpret_cast<jmethodID>(StubNames::kTagBits | index); }

bool findRange_signalSafe(uintptr_t pc, uint32_t* name) {
  uint32_t before = gLock.readBegin_signalSafe();
  if (SeqLock::busy(before)) return false;
  uint32_t lo = 0, hi = lpRaw(&gRangeCount);
  if (hi > kMaxRanges) return false;
  while (lo < hi) {  // first range with begin > pc
    uint32_t mid = (lo + hi) / 2;
    if (lpRaw(&gRanges[mid].begin) <= pc) lo = mid + 1;
    else hi = mid;
  }
  bool found = false;
  // Ranges may nest (a stub inside its StubRoutines blob): the innermost starts last.
  for (uint32_t i = lo; i > 0 && lo - i < 8; i--) {
    const Range& r = gRanges[i - 1];
    if (pc < lpRaw(&r.end)) {
      *name = lpRaw(&r.name);
      found = true;
      break;
    }
  }
  return gLock.readValid_signalSafe(before) && found;
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
  uint32_t seq = gLock.sequence();
  gLock.tryWriteBegin_signalSafe(seq);  // the only writer (gWriteMutex): it cannot lose; readers back off
  memmove(&gRanges[pos + 1], &gRanges[pos], (gRangeCount - pos) * sizeof(Range));
  gRanges[pos] = Range{b, b + length, gRangeCount};
  spRaw(&gRangeCount, gRangeCount + 1);
  gLock.writeEnd_signalSafe(seq);
}

jmethodID StubNames::tagFor_signalSafe(uintptr_t pc, const char* blobName, bool inStubRoutines) {
  uint32_t name;
  if (findRange_signalSafe(pc, &name)) return tag(name | (inStubRoutines ? kStubRoutinesFlag : 0));
  // Intern the blob's name pointer (a string in libjvm that lives as long as the process).
  uintptr_t h = (reinterpret_cast<uintptr_t>(blobName) >> 3) * 0x9E3779B97F4A7C15ull;
  for (uint32_t probe = 0; probe < 32; probe++) {
    uint32_t i = static_cast<uint32_t>((h >> 40) + probe) % kMaxBlobNames;
    const char* cur = lv(gBlobNames[i]);
    if (cur == blobName) return tag(kBlobNameFlag | i);
    if (cur == nullptr) {
      if (casAcqRel(gBlobNames[i], cur, blobName)) return tag(kBlobNameFlag | i);
      if (cur == blobName) return tag(kBlobNameFlag | i);
    }
  }
  return nullptr;
}

std::string StubNames::nameOf(jmethodID t) {
  uintptr_t index = reinterpret_cast<uintptr_t>(t) & ~kTagBits;
  if (index & kBlobNameFlag) {
    const char* p = lv(gBlobNames[(index & ~kBlobNameFlag) % kMaxBlobNames]);
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
  uint32_t seq = gLock.sequence();
  gLock.tryWriteBegin_signalSafe(seq);
  for (uint32_t i = 0; i < gRangeCount; i++) free(const_cast<char*>(gRangeNames[i]));
  spRaw(&gRangeCount, 0u);
  for (auto& n : gBlobNames) sv(n, static_cast<const char*>(nullptr));
  gLock.writeEnd_signalSafe(seq);
}

}  // namespace candor
