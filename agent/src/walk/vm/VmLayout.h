// Everything candor's own stack walker needs to know about this JVM's data structures: field
// offsets and widths, type sizes, static addresses and constants, found by name in HotSpot's
// exported VMStructs tables at start-up (ordinary thread). JDK 17 and JDK 25 lay these out
// differently (CodeBlob offsets vs pointers, CompiledMethod vs nmethod, immutable data), so each
// value is looked up under every name it has had; whatever is missing turns the walker off.
#pragma once
#include <cstdint>
#include <string>

namespace candor {

// One field: its byte offset and width (1, 2, 4 or 8), -1 when absent.
struct VmOff {
  int32_t off = -1;
  uint8_t size = 8;
};

struct VmLayout {
  static constexpr int kMaxHeaps = 8;

  // Code cache: its bounds, its heaps (fixed after start-up) and their segment maps.
  uintptr_t* lowBound = nullptr;   // &CodeCache::_low_bound
  uintptr_t* highBound = nullptr;  // &CodeCache::_high_bound
  uintptr_t heaps[kMaxHeaps] = {};
  int heapCount = 0;
  int32_t heapMemoryLow = -1, heapMemoryHigh = -1, heapSegmapLow = -1, heapLog2Segment = -1;
  int32_t heapBlockSize = -1;
  VmOff blockUsed;

  // CodeBlob (JDK 25 keeps offsets from the blob start; JDK 17 keeps absolute pointers).
  int32_t blobName = -1;
  VmOff blobFrameSize, blobFrameComplete, blobKind;
  bool codeAsOffsets = false;
  VmOff blobCodeBegin, blobCodeEnd;  // pointers (JDK 17) or offsets (JDK 25)
  int32_t kindNmethod = -1;          // CodeBlobKind::Nmethod, JDK 25; JDK 17 names nmethods "nmethod"

  // nmethod.
  int32_t nmMethod = -1;
  bool immutableData = false;             // JDK 25: pcs and scopes live in a separate block
  int32_t nmImmutable = -1;
  VmOff nmPcsBegin, nmPcsEnd, nmScopesData;  // offsets (from header or immutable data) or pointer
  VmOff nmMetadata;                       // JDK 17: offset from header
  VmOff blobMutableData, blobRelocSize;   // JDK 25: metadata = mutable data + relocations
  VmOff nmDeopt, nmDeoptMh;               // pointer (JDK 17) or offset from header (JDK 25)
  VmOff nmOrigPcOffset;
  VmOff nmCompileId;                      // optional: DecodeCache checks it on every hit (off < 0: no cache)
  bool unsigned5Excludes0 = false;        // JDK 21+ debug info never contains a 0 byte (X = 1)

  int32_t pcDescSize = -1, pcDescPcOffset = -1, pcDescScopeOffset = -1;

  // Method* → jmethodID: Method → ConstMethod → ConstantPool → InstanceKlass → jmethodID array.
  int32_t methodConst = -1;
  VmOff methodAccessFlags;
  VmOff methodIntrinsicId;  // optional (off < 0: MethodHandle intrinsics stay [unknown_method])
  int32_t constConstants = -1, constMethodSize = -1;
  VmOff constIdnum, constCodeSize;
  int32_t poolHolder = -1, klassJmethodIds = -1;
  int32_t klassMethods = -1, methodArrayLength = -1, methodArrayData = -1;  // to check a Method*
  // JDK 17 and 25 hand out jmethodIDs that point at a slot holding the Method*, so an id can be
  // checked against its method; later JDKs use counters (measured by VmStackWalker::enable).
  bool jmethodIdIsPointer = false;

  // Interpreter and call stub.
  uintptr_t interpBegin = 0, interpEnd = 0;
  uintptr_t* callStubReturn = nullptr;  // &StubRoutines::_call_stub_return_address
  int32_t entryFrameCallWrapper = -6;   // words from fp (x86-64 Linux)
  int32_t callWrapperAnchor = -1;

  // JavaThread.
  int32_t threadAnchor = -1, anchorSp = -1, anchorPc = -1, anchorFp = -1;
  VmOff threadState;
  int32_t stackBase = -1, stackSize = -1;
  int32_t stateInJava = 8;

  // JNIEnv* − JavaThread*: the JNIEnv lives inside the JavaThread, which is how the handler
  // finds its JavaThread without JVMTI. Measured on a live thread by measureThreadOffset().
  intptr_t envOffset = 0;
};

class VmLayoutLoader {
 public:
  // Fills `out` from the VMStructs tables; false with a description of what is missing.
  static bool load(VmLayout* out, std::string* missing);
};

}  // namespace candor
