#include "jvm/ModifiedUtf8.h"

#include <cstdint>
#include <cstring>

namespace candor {

namespace {
// A 3-byte sequence encoding a UTF-16 surrogate: ED A0..BF xx.
bool isSurrogate(const unsigned char* p, size_t left) {
  return left >= 3 && p[0] == 0xED && (p[1] & 0xE0) == 0xA0 && (p[2] & 0xC0) == 0x80;
}
uint32_t decode3(const unsigned char* p) { return ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu); }
}  // namespace

std::string standardUtf8(const char* modified) {
  std::string out;
  if (modified == nullptr) return out;
  auto p = reinterpret_cast<const unsigned char*>(modified);
  size_t n = strlen(modified);
  out.reserve(n);
  for (size_t i = 0; i < n;) {
    if (p[i] == 0xC0 && i + 1 < n && p[i + 1] == 0x80) {  // the JVM's NUL
      out.push_back('?');
      i += 2;
    } else if (isSurrogate(p + i, n - i)) {
      uint32_t hi = decode3(p + i);
      if (hi < 0xDC00 && isSurrogate(p + i + 3, n - i - 3) && decode3(p + i + 3) >= 0xDC00) {
        uint32_t cp = 0x10000 + ((hi - 0xD800) << 10) + (decode3(p + i + 3) - 0xDC00);
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        i += 6;
      } else {
        out += "\xEF\xBF\xBD";  // unpaired surrogate
        i += 3;
      }
    } else {
      out.push_back(static_cast<char>(p[i++]));
    }
  }
  return out;
}

}  // namespace candor
