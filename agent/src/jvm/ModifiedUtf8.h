// JVMTI hands out names in the JVM's modified UTF-8: NUL as C0 80, and characters outside the
// BMP as two 3-byte surrogates (CESU-8). Outputs must be standard UTF-8, or readers reject them.
#pragma once
#include <string>

namespace candor {

// Standard UTF-8 for a modified UTF-8 string; NUL becomes '?', a lone surrogate U+FFFD.
std::string standardUtf8(const char* modified);

}  // namespace candor
