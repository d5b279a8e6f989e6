#include "output/jfr/JfrBuffer.h"

#include <cstring>

namespace candor::jfr {

void Buffer::shrinkTo(size_t capacity) {
  if (bytes_.capacity() <= capacity) return;
  std::vector<uint8_t> smaller;
  smaller.reserve(capacity);
  smaller.assign(bytes_.begin(), bytes_.end());
  bytes_.swap(smaller);
}

void Buffer::putBytes(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  bytes_.insert(bytes_.end(), b, b + n);
}

void Buffer::putBE16(uint16_t v) {
  put8(static_cast<uint8_t>(v >> 8));
  put8(static_cast<uint8_t>(v));
}

void Buffer::putBE32(uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) put8(static_cast<uint8_t>(v >> shift));
}

void Buffer::putBE64(uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) put8(static_cast<uint8_t>(v >> shift));
}

void Buffer::patchBE64(size_t offset, uint64_t v) {
  for (int i = 0; i < 8; i++) bytes_[offset + i] = static_cast<uint8_t>(v >> (56 - 8 * i));
}

void Buffer::putVarLong(uint64_t v) {
  for (int i = 0; i < 8; i++) {
    if (v < 0x80) {
      put8(static_cast<uint8_t>(v));
      return;
    }
    put8(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  put8(static_cast<uint8_t>(v));  // the 9th byte holds the last 8 bits whole
}

size_t Buffer::varLongSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80 && n < 9) {
    v >>= 7;
    n++;
  }
  return n;
}

void Buffer::putString(std::string_view s) {
  if (s.empty()) {
    put8(1);
    return;
  }
  put8(3);
  putVarLong(s.size());
  putBytes(s.data(), s.size());
}

void Buffer::putEvent(const Buffer& payload) {
  size_t n = payload.size();
  size_t total = n + 1;
  while (varLongSize(total) + n != total) total = n + varLongSize(total);
  putVarLong(total);
  putBuffer(payload);
}

}  // namespace candor::jfr
