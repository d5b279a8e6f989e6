// Frame names for native C++ symbols (writer thread): demangled with abi::__cxa_demangle and
// shortened to what a flame graph needs, `Class::method` with its template arguments but
// without the parameter list, cv-qualifiers, a template function's return type or gcc's
// " [clone .cold]" suffix: `JavaThread::run`, `G1ParScanThreadState::trim_queue_to_threshold`,
// `std::vector<int, std::allocator<int> >::push_back`. C names pass through unchanged.
#pragma once
#include <string>
#include <string_view>

namespace candor {

// The frame name for a raw symbol name.
std::string nativeFrameName(const char* symbol);
// The shortening alone, for a name already demangled.
std::string shortenDemangled(std::string_view demangled);

}  // namespace candor
