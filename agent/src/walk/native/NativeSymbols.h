// Names native frames: pc → {function, module basename}. Writer thread only (it reads files,
// allocates and caches). A module's symbol table is read on the first pc that falls into it,
// and each function's frame name (demangled, shortened: CppNames.h) is made once.
//
// Pass pc − 1 for return addresses (every frame but the interrupted one), as the unwinder looks
// rows up: a call at a function's very end returns to the first byte of the next function.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "walk/native/NativeModules.h"
#include "walk/native/SymbolTable.h"

namespace candor {

struct NativeFrameName {
  std::string_view symbol;  // "writev", "JavaThread::run"; the module's basename when unresolved
  std::string_view module;  // "libc.so.6"; empty when pc is in no known module
  bool resolved = false;    // a symbol contains pc
};

class NativeSymbols {
 public:
  explicit NativeSymbols(const NativeModules& modules, std::string debugRoot = "/usr/lib/debug")
      : modules_(modules), debugRoot_(std::move(debugRoot)) {}

  // The views stay valid while this object lives (and the modules are not retired).
  NativeFrameName lookup(uintptr_t pc);

  // Which table a module's names came from (".symtab", "debug file", ".dynsym", "none"), after
  // a lookup loaded it; empty before.
  std::string_view sourceOf(const NativeModule* m) const;
  // The memory the loaded tables and the names made from them take (approximate).
  size_t bytes() const;

 private:
  struct ModuleSymbols {
    SymbolTable table;
    std::string source;
    std::unordered_map<int64_t, std::string> frameNames;  // by symbol index
  };
  ModuleSymbols& symbolsOf(const NativeModule* m);

  const NativeModules& modules_;
  std::string debugRoot_;
  std::unordered_map<const NativeModule*, std::unique_ptr<ModuleSymbols>> cache_;
};

}  // namespace candor
