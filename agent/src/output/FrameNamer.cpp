#include "output/FrameNamer.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace candor {

// The symbol tables behind native and kernel names.
class FrameNamer::Symbols {
 public:
  // {symbol, library}; an empty symbol when the pc is in a library without one covering it.
  std::pair<std::string, std::string> native(uintptr_t pc) {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) return {"", ""};
    std::string lib = info.dli_fname;
    size_t slash = lib.rfind('/');
    if (slash != std::string::npos) lib = lib.substr(slash + 1);
    return {info.dli_sname != nullptr ? info.dli_sname : "", lib};
  }

  std::string kernel(uintptr_t address) {
    if (!kallsymsRead_) readKallsyms();
    auto it = std::upper_bound(kallsyms_.begin(), kallsyms_.end(), address,
                               [](uintptr_t a, const std::pair<uintptr_t, std::string>& e) { return a < e.first; });
    if (it == kallsyms_.begin()) return "";
    return std::prev(it)->second;
  }

 private:
  void readKallsyms() {
    kallsymsRead_ = true;
    std::ifstream in("/proc/kallsyms");
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string addr, type, name;
      if (!(fields >> addr >> type >> name)) continue;
      if (type != "t" && type != "T") continue;
      uintptr_t a = std::strtoull(addr.c_str(), nullptr, 16);
      if (a != 0) kallsyms_.emplace_back(a, name);
    }
    std::sort(kallsyms_.begin(), kallsyms_.end());
  }

  bool kallsymsRead_ = false;
  std::vector<std::pair<uintptr_t, std::string>> kallsyms_;
};

namespace {
// "ns::Class::method(int, char*) const" → "ns::Class::method"; plain C names stay as they are.
std::string demangledWithoutParameters(const std::string& symbol, bool* demangled) {
  *demangled = false;
  if (symbol.rfind("_Z", 0) != 0) return symbol;
  int status = 0;
  char* out = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return symbol;
  std::string s = out;
  free(out);
  *demangled = true;
  // Cut at the '(' that opens the outermost parameter list (templates may hold parentheses).
  int depth = 0;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '<') depth++;
    else if (s[i] == '>') depth--;
    else if (s[i] == '(' && depth == 0 && i > 0) return s.substr(0, i);
  }
  return s;
}
}  // namespace

FrameNamer::FrameNamer(MethodResolver& resolver) : resolver_(resolver), symbols_(std::make_unique<Symbols>()) {
  truncated_.methodName = "[truncated]";
  unsampled_.methodName = "[kernel_unsampled]";
  unknown_.methodName = "[unknown_method]";
  for (MethodInfo* m : {&truncated_, &unsampled_, &unknown_}) m->resolved = true;
}

FrameNamer::~FrameNamer() = default;

FrameKind FrameNamer::kind(const StoredFrame& f) const {
  switch (f.bci) {
    case kNativeFrameBci: return FrameKind::kNative;
    case kKernelFrameBci: return FrameKind::kKernel;
    case kStubFrameBci: return FrameKind::kStub;
    case kNativeMethodBci: return FrameKind::kNativeMethod;
    case kTruncatedFrameBci:
    case kKernelUnsampledBci: return FrameKind::kMarker;
    default: return f.method == nullptr ? FrameKind::kMarker : FrameKind::kJava;
  }
}

const MethodInfo& FrameNamer::native(uintptr_t pc) {
  MethodInfo& m = natives_[pc];
  if (m.resolved) return m;
  m.resolved = true;
  auto [symbol, lib] = symbols_->native(pc);
  m.className = lib;
  m.methodName = symbol.empty() ? (lib.empty() ? "[unknown_native]" : lib) : demangledWithoutParameters(symbol, &m.demangled);
  m.modifiers = 0x100;  // native
  return m;
}

const MethodInfo& FrameNamer::kernel(uintptr_t address) {
  MethodInfo& m = kernel_[address];
  if (m.resolved) return m;
  m.resolved = true;
  std::string symbol = symbols_->kernel(address);
  m.methodName = symbol.empty() ? "[unknown_kernel]" : symbol;
  m.modifiers = 0x100;
  return m;
}

const MethodInfo& FrameNamer::method(const StoredFrame& f) {
  switch (kind(f)) {
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
  if (k == FrameKind::kNative || k == FrameKind::kMarker) return m.methodName;
  return m.frameName(f.bci, lines);
}

}  // namespace candor
