// Names every frame a stored stack may hold, on the writer thread: Java methods and stubs through
// MethodResolver (which must see them while their classes are loaded), native C/C++ frames and
// kernel frames through the process's and the kernel's symbol tables (any time: libraries are
// rarely unloaded and the kernel never). The report, the collapsed and HTML outputs and the JFR
// recording all name frames here, so they agree.
//
// Conventions, as async-profiler's outputs have them so that tools match the two:
//   native C/C++   the symbol, demangled without parameters (`__writev`, `JavaThread::run`);
//                  JFR: type Native (C++ when demangled), the library file as its class
//   kernel         the symbol with `_[k]` appended in text outputs; JFR: type Kernel, no class
//   unresolved     the library file name (`libfoo.so`), or `[unknown_native]`
//   allocated      the class in Java form (`byte[]`, `java.lang.String`); its methodName too
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "jvm/MethodResolver.h"
#include "store/TraceStore.h"

namespace candor {

// kObjectClass: the class an allocation sample allocated, or of the lock a lock sample waited for,
// on top of its stack (not a frame in JFR: there it is the event's objectClass or monitorClass).
enum class FrameKind { kJava, kNativeMethod, kStub, kNative, kCpp, kKernel, kMarker, kObjectClass };

class FrameNamer {
 public:
  explicit FrameNamer(MethodResolver& resolver);
  ~FrameNamer();

  // Writer thread, early in a session: reads the symbol tables nearly every profile needs (the
  // kernel's when its frames are sampled; libjvm's and libc's), so that their memory is taken
  // once at the start rather than whenever the first such frame shows up.
  void preload(bool kernel);

  FrameKind kind(const StoredFrame& f) const;
  // What JFR writes: class (library for native frames, "" for kernel and stub frames), method
  // name and signature. Markers ([truncated], [kernel_unsampled]) get their bracketed name.
  const MethodInfo& method(const StoredFrame& f);
  // The name in text outputs: "pkg.Class.method" (":line" with `lines`), "writev",
  // "do_syscall_64_[k]", "[kernel_unsampled]".
  std::string displayName(const StoredFrame& f, bool lines);

  // loop=: a new interval begins; names (the resolver's methods and jvm/ClassNames' classes too)
  // that neither the interval that ended nor the one before used are forgotten. Symbol tables
  // stay: they are per library.
  void startInterval();
  struct Memory {
    size_t methods = 0;      // Java methods and stubs resolved
    size_t frames = 0;       // native, kernel frames and allocated classes named
    size_t nameBytes = 0;    // what those names take
    size_t symbolBytes = 0;  // the native libraries' and the kernel's symbol tables read so far
  };
  Memory memory() const;

 private:
  class Symbols;
  const MethodInfo& native(uintptr_t pc);
  const MethodInfo& kernel(uintptr_t address);
  const MethodInfo& allocClass(uint32_t id);

  MethodResolver& resolver_;
  std::unique_ptr<Symbols> symbols_;
  std::unordered_map<uintptr_t, MethodInfo> natives_;
  std::unordered_map<uintptr_t, MethodInfo> kernel_;
  std::unordered_map<uint32_t, MethodInfo> allocClasses_;
  MethodInfo truncated_, unsampled_, unknown_;
  uint32_t interval_ = 0;
};

}  // namespace candor
