#include "output/FrameNamer.h"

#include <dlfcn.h>
#include <unistd.h>

#include <string>

#include "base/Log.h"
#include "jvm/ClassNames.h"
#include "walk/native/KernelSymbols.h"
#include "walk/native/NativeStack.h"
#include "walk/native/NativeSymbols.h"

namespace candor {

// The symbol tables behind native and kernel names, read when first needed.
class FrameNamer::Symbols {
 public:
  NativeSymbols natives{NativeStack::modules()};
  KernelSymbols kernel;
  bool kernelTried = false;
};

FrameNamer::FrameNamer(MethodResolver& resolver) : resolver_(resolver), symbols_(std::make_unique<Symbols>()) {
  truncated_.methodName = "[truncated]";
  unsampled_.methodName = "[kernel_unsampled]";
  unknown_.methodName = "[unknown_method]";
  for (MethodInfo* m : {&truncated_, &unsampled_, &unknown_}) m->resolved = true;
}

FrameNamer::~FrameNamer() = default;

void FrameNamer::preload(bool kernel) {
  if (kernel) this->kernel(0);  // loads the table (address 0 names nothing)
  // A pc in libc (write) and one in libjvm (its JNI entry): their modules' tables load.
  symbols_->natives.lookup(reinterpret_cast<uintptr_t>(&::write));
  if (void* jvm = dlsym(RTLD_DEFAULT, "JNI_CreateJavaVM")) symbols_->natives.lookup(reinterpret_cast<uintptr_t>(jvm));
}

FrameKind FrameNamer::kind(const StoredFrame& f) const {
  switch (f.bci) {
    case kNativeFrameBci: return FrameKind::kNative;
    case kKernelFrameBci: return FrameKind::kKernel;
    case kObjectClassBci: return FrameKind::kObjectClass;
    case kStubFrameBci: return FrameKind::kStub;
    case kNativeMethodBci: return FrameKind::kNativeMethod;
    case kTruncatedFrameBci:
    case kKernelUnsampledBci: return FrameKind::kMarker;
    default: return f.method == nullptr ? FrameKind::kMarker : FrameKind::kJava;
  }
}

const MethodInfo& FrameNamer::native(uintptr_t pc) {
  MethodInfo& m = natives_[pc];
  m.lastInterval = interval_;
  if (m.resolved) return m;
  m.resolved = true;
  NativeFrameName name = symbols_->natives.lookup(pc);  // the stored pc is already the call's (pc − 1)
  m.className = std::string(name.module);
  // "[vdso]" → "vdso", as async-profiler names it: a JFR class name must not look like an array.
  if (m.className.size() > 2 && m.className.front() == '[' && m.className.back() == ']') {
    m.className = m.className.substr(1, m.className.size() - 2);
  }
  m.methodName = name.symbol.empty() ? "[unknown_native]" : std::string(name.symbol);
  m.demangled = name.resolved && m.methodName.find("::") != std::string::npos;
  m.modifiers = 0x100;  // native
  return m;
}

const MethodInfo& FrameNamer::kernel(uintptr_t address) {
  MethodInfo& m = kernel_[address];
  m.lastInterval = interval_;
  if (m.resolved) return m;
  m.resolved = true;
  if (!symbols_->kernelTried) {
    symbols_->kernelTried = true;
    std::string why;
    if (!symbols_->kernel.load(&why)) logInfo("kernel frames are not named: %s", why.c_str());
  }
  KernelSymbols::Hit hit;
  m.methodName = symbols_->kernel.lookup(address, &hit) ? std::string(hit.name) : "[unknown_kernel]";
  m.modifiers = 0x100;
  return m;
}

const MethodInfo& FrameNamer::allocClass(uint32_t id) {
  MethodInfo& m = allocClasses_[id];
  m.lastInterval = interval_;
  if (m.resolved) return m;
  m.resolved = true;
  m.className = ClassNames::instance().javaName(id);
  m.methodName = m.className;
  return m;
}

const MethodInfo& FrameNamer::method(const StoredFrame& f) {
  switch (kind(f)) {
    case FrameKind::kObjectClass:
      return allocClass(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(f.method)));
    case FrameKind::kNative:
    case FrameKind::kCpp: return native(reinterpret_cast<uintptr_t>(f.method));
    case FrameKind::kKernel: return kernel(reinterpret_cast<uintptr_t>(f.method));
    case FrameKind::kMarker:
      return f.bci == kTruncatedFrameBci ? truncated_ : f.bci == kKernelUnsampledBci ? unsampled_ : unknown_;
    default: return resolver_.resolve(f.method);
  }
}

std::string FrameNamer::displayName(const StoredFrame& f, bool lines) {
  FrameKind k = kind(f);
  const MethodInfo& m = method(f);
  if (k == FrameKind::kKernel) return m.methodName + "_[k]";
  if (k == FrameKind::kNative || k == FrameKind::kMarker || k == FrameKind::kObjectClass) return m.methodName;
  return m.frameName(f.bci, lines);
}

void FrameNamer::startInterval() {
  forgetOlderThan(natives_, interval_);
  forgetOlderThan(kernel_, interval_);
  forgetOlderThan(allocClasses_, interval_);
  interval_++;
  resolver_.startInterval();
  ClassNames::instance().startInterval();  // the ids allocClasses_ names
}

FrameNamer::Memory FrameNamer::memory() const {
  Memory m;
  m.methods = resolver_.size();
  m.frames = natives_.size() + kernel_.size() + allocClasses_.size();
  m.nameBytes = resolver_.bytes() + cacheBytes(natives_) + cacheBytes(kernel_) + cacheBytes(allocClasses_);
  m.symbolBytes = symbols_->natives.bytes() + symbols_->kernel.bytes();
  return m;
}

}  // namespace candor
