// Names for frames of generated code that is not a Java method: StubRoutines intrinsics
// (updateBytesCRC32, arraycopy), runtime stubs, adapters. Such a frame is stored in the
// ordinary frame array as { lineno = kStubFrameBci, method_id = tagged index }: the tag can
// never be a real jmethodID, so the writer's
// MethodResolver tells the two apart without asking JVMTI.
//
// The tag sets the top 20 bits, an address no user-space pointer has and a value no jmethodID
// counter (the form newer JDKs use) reaches.
//
// Two sources of names:
//  - exact ranges from JVMTI DynamicCodeGenerated (each StubRoutines stub by name), kept in a
//    fixed sorted table guarded by a sequence lock: the handler never waits; when it finds the
//    table mid-update it falls back to the second source;
//  - the CodeBlob's own name (a string in libjvm), interned lock-free from the handler.
#pragma once
#include <jni.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace candor {

class StubNames {
 public:
  // Ordinary thread (JVMTI callback): remembers the code range [begin, end) as `name`.
  static void addRange(const void* begin, size_t length, const char* name);

  // Signal-handler path: the tag of the stub containing pc, or of `blobName` when no range
  // covers it; nullptr only when both tables are full. `inStubRoutines`: the blob is one of
  // StubRoutines' buffers, so the range name gets that class as its prefix.
  static jmethodID tagFor_signalSafe(uintptr_t pc, const char* blobName, bool inStubRoutines);

  static constexpr uintptr_t kTagBits = uintptr_t(0xFFFFF) << 44;
  static bool isStub(jmethodID id) { return (reinterpret_cast<uintptr_t>(id) & kTagBits) == kTagBits; }
  // Writer thread: "StubRoutines::updateBytesCRC32", "_new_array_Java", ...
  static std::string nameOf(jmethodID tag);

  // For tests: forget every range and name.
  static void clearForTest();
};

}  // namespace candor
