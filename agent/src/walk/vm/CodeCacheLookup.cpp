#include "walk/vm/CodeCacheLookup.h"

#include "walk/vm/GuardedMemory.h"

namespace candor {

namespace {
constexpr uint8_t kFreeSegment = 0xFF;  // CodeHeap's free_sentinel
constexpr int kMaxHops = 1 << 16;       // a hop is at most 0xFE segments; blobs are < 16 MB
}  // namespace

bool CodeCacheLookup::inCodeCache_signalSafe(uintptr_t pc) const {
  return pc >= load_signalSafe<uintptr_t>(reinterpret_cast<uintptr_t>(l_.lowBound)) &&
         pc < load_signalSafe<uintptr_t>(reinterpret_cast<uintptr_t>(l_.highBound));
}

uintptr_t CodeCacheLookup::blobStart_signalSafe(uintptr_t pc) const {
  for (int h = 0; h < l_.heapCount; h++) {
    uintptr_t heap = l_.heaps[h];
    uintptr_t low = loadPtr_signalSafe(heap + l_.heapMemoryLow);
    uintptr_t high = loadPtr_signalSafe(heap + l_.heapMemoryHigh);
    if (pc < low || pc >= high) continue;
    uintptr_t segmap = loadPtr_signalSafe(heap + l_.heapSegmapLow);
    int shift = load_signalSafe<int32_t>(heap + l_.heapLog2Segment);
    if (shift <= 0 || shift > 20) return 0;
    uintptr_t seg = (pc - low) >> shift;
    uint8_t hop = load_signalSafe<uint8_t>(segmap + seg);
    if (hop == kFreeSegment) return 0;
    for (int i = 0; hop > 0; i++) {
      if (i > kMaxHops || hop > seg) return 0;
      seg -= hop;
      hop = load_signalSafe<uint8_t>(segmap + seg);
    }
    uintptr_t block = low + (seg << shift);
    if (loadUField_signalSafe(block, l_.blockUsed) == 0) return 0;  // a free block
    return block + l_.heapBlockSize;
  }
  return 0;
}

bool CodeCacheLookup::find_signalSafe(uintptr_t pc, BlobInfo* out) const {
  if (!inCodeCache_signalSafe(pc)) return false;
  uintptr_t blob = blobStart_signalSafe(pc);
  if (blob == 0) return false;
  if (l_.codeAsOffsets) {
    out->codeBegin = blob + loadField_signalSafe(blob, l_.blobCodeBegin);
    out->codeEnd = blob + loadField_signalSafe(blob, l_.blobCodeEnd);
    out->isNmethod = loadUField_signalSafe(blob, l_.blobKind) == static_cast<uint64_t>(l_.kindNmethod);
  } else {
    out->codeBegin = static_cast<uintptr_t>(loadField_signalSafe(blob, l_.blobCodeBegin));
    out->codeEnd = static_cast<uintptr_t>(loadField_signalSafe(blob, l_.blobCodeEnd));
    // JDK 17 has no blob kind: nmethods are named "nmethod", native wrappers "native nmethod".
    uintptr_t name = loadPtr_signalSafe(blob + l_.blobName);
    uint64_t head = name != 0 ? loadBytes8_signalSafe(name) : 0;
    out->isNmethod = head == 0x00646f6874656d6eull ||                                // "nmethod\0"
                     (head == 0x6e2065766974616eull && loadBytes8_signalSafe(name + 7) ==  // "native n"
                                                           0x00646f6874656d6eull);           // "nmethod\0"
  }
  if (pc < out->codeBegin || pc >= out->codeEnd) return false;  // in its header or data: no frame
  out->blob = blob;
  return true;
}

}  // namespace candor
