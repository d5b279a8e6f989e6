// HotSpot functions that libjvm.so does not export (static C functions such as Unsafe_Park),
// found in the library's own symbol table (.symtab, kept by JDK builds) and relocated by where
// libjvm is loaded. Ordinary thread: reads the file once per call (a few ms); callers cache.
#pragma once
#include <string>
#include <string_view>

namespace candor {

// The address of `name` in the loaded libjvm, or nullptr with the reason in `why`.
void* findLibjvmSymbol(std::string_view name, std::string* why);

}  // namespace candor
