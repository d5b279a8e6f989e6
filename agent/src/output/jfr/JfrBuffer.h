// A growable byte buffer with JFR's encodings: big-endian fixed-width integers (chunk header),
// compressed integers (everything else) and strings. Writer thread only.
//
// Compressed integers are LEB128: 7 bits per byte, least significant group first, high bit set
// while more bytes follow; a 64-bit value takes at most 9 bytes, the 9th carrying a full 8 bits.
// JFR encodes int, long, short and char this way (a chunk header feature flag says so); byte and
// boolean are one raw byte. Negative values are not zigzag-encoded: an int is written as its
// 32-bit pattern (up to 5 bytes), a long as its 64-bit pattern (up to 9 bytes).
//
// Strings start with an encoding byte: 0 null, 1 empty, 3 UTF-8 (length in bytes, then bytes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace candor::jfr {

class Buffer {
 public:
  const uint8_t* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  bool empty() const { return bytes_.empty(); }
  void clear() { bytes_.clear(); }
  size_t capacity() const { return bytes_.capacity(); }
  void shrinkTo(size_t capacity);

  void put8(uint8_t v) { bytes_.push_back(v); }
  void putBool(bool v) { bytes_.push_back(v ? 1 : 0); }
  void putBytes(const void* p, size_t n);
  void putBuffer(const Buffer& b) { putBytes(b.data(), b.size()); }
  void putBE16(uint16_t v);
  void putBE32(uint32_t v);
  void putBE64(uint64_t v);
  void putVarLong(uint64_t v);
  void putVarInt(int32_t v) { putVarLong(static_cast<uint32_t>(v)); }
  void putString(std::string_view s);
  void putNullString() { put8(0); }
  // A string by its id in the chunk's java.lang.String pool (JFR string encoding 2).
  void putStringRef(uint64_t id) {
    put8(2);
    putVarLong(id);
  }

  // Overwrites 8 bytes at `offset` (already written) with a big-endian value.
  void patchBE64(size_t offset, uint64_t v);

  // Appends one event: its size (a compressed int that counts itself) and then `payload`
  // (the type id and the fields).
  void putEvent(const Buffer& payload);

  static size_t varLongSize(uint64_t v);

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace candor::jfr
