// A bounded cursor over bytes of an ELF image (ordinary thread): every read checks the end, a
// read past it sets !ok() and returns 0, so a truncated or garbage .eh_frame can never make a
// parser read outside the bytes it was given. Positions are also known as addresses (`addr` is
// the link-time virtual address of data[0]), which pc-relative pointer encodings need.
#pragma once
#include <cstdint>
#include <cstring>

namespace candor {

// DW_EH_PE_* pointer encodings of .eh_frame and .eh_frame_hdr (LSB "Exception Frames").
namespace eh_pe {
constexpr uint8_t kOmit = 0xff;
constexpr uint8_t kFormatMask = 0x0f, kAbsPtr = 0x00, kUleb = 0x01, kUdata2 = 0x02, kUdata4 = 0x03,
                  kUdata8 = 0x04, kSleb = 0x09, kSdata2 = 0x0a, kSdata4 = 0x0b, kSdata8 = 0x0c;
constexpr uint8_t kApplMask = 0x70, kPcRel = 0x10, kDataRel = 0x30;
constexpr uint8_t kIndirect = 0x80;
}  // namespace eh_pe

class ByteReader {
 public:
  ByteReader() = default;
  ByteReader(const uint8_t* data, uint64_t size, uint64_t addr) : data_(data), size_(size), addr_(addr) {}

  bool ok() const { return ok_; }
  uint64_t pos() const { return pos_; }
  uint64_t size() const { return size_; }
  uint64_t addr() const { return addr_ + pos_; }  // the address of the next byte
  bool atEnd() const { return pos_ >= size_; }
  uint64_t remaining() const { return pos_ < size_ ? size_ - pos_ : 0; }

  // A sub-reader over the next `len` bytes (not consumed); empty and !ok when they are not there.
  ByteReader sub(uint64_t len) const {
    if (!ok_ || len > remaining()) return invalid();
    return ByteReader(data_ + pos_, len, addr_ + pos_);
  }
  // A reader positioned at absolute address `a` inside this reader's bytes.
  ByteReader at(uint64_t a) const {
    if (a < addr_ || a - addr_ > size_) return invalid();
    ByteReader r(data_, size_, addr_);
    r.pos_ = a - addr_;
    return r;
  }
  // The same at offset `off` from this reader's first byte.
  ByteReader atOffset(uint64_t off) const { return off > size_ ? invalid() : at(addr_ + off); }
  void skip(uint64_t n) {
    if (n > remaining()) fail();
    else pos_ += n;
  }

  uint8_t u8() { return fixed<uint8_t>(); }
  uint16_t u16() { return fixed<uint16_t>(); }
  uint32_t u32() { return fixed<uint32_t>(); }
  uint64_t u64() { return fixed<uint64_t>(); }

  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0; ok_; shift += 7) {
      uint8_t b = u8();
      if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return ok_ ? v : 0;
  }
  int64_t sleb() {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
      b = u8();
      if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
      shift += 7;
    } while (ok_ && (b & 0x80));
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t(0) << shift;
    return ok_ ? static_cast<int64_t>(v) : 0;
  }
  // A NUL-terminated string; nullptr (and !ok) when it runs past the end.
  const char* cstr() {
    const void* nul = pos_ < size_ ? memchr(data_ + pos_, 0, size_ - pos_) : nullptr;
    if (!ok_ || nul == nullptr) return fail(), nullptr;
    const char* s = reinterpret_cast<const char*>(data_ + pos_);
    pos_ = static_cast<const uint8_t*>(nul) - data_ + 1;
    return s;
  }

  // An encoded pointer (DW_EH_PE_*). `dataBase` is the address datarel values are relative to
  // (.eh_frame_hdr's start). Indirect and text/func-relative forms are not used on x86-64 Linux
  // for the values we need: they fail the reader.
  uint64_t encoded(uint8_t enc, uint64_t dataBase = 0) {
    if (enc == eh_pe::kOmit) return 0;
    uint64_t here = addr();
    uint64_t v = 0;
    switch (enc & eh_pe::kFormatMask) {
      case eh_pe::kAbsPtr: case eh_pe::kUdata8: case eh_pe::kSdata8: v = u64(); break;
      case eh_pe::kUleb: v = uleb(); break;
      case eh_pe::kUdata2: v = u16(); break;
      case eh_pe::kUdata4: v = u32(); break;
      case eh_pe::kSleb: v = static_cast<uint64_t>(sleb()); break;
      case eh_pe::kSdata2: v = static_cast<uint64_t>(int64_t(int16_t(u16()))); break;
      case eh_pe::kSdata4: v = static_cast<uint64_t>(int64_t(int32_t(u32()))); break;
      default: return fail(), 0;
    }
    if (enc & eh_pe::kIndirect) return fail(), 0;
    switch (enc & eh_pe::kApplMask) {
      case 0: return v;
      case eh_pe::kPcRel: return v + here;
      case eh_pe::kDataRel: return v + dataBase;
      default: return fail(), 0;
    }
  }

  void fail() { ok_ = false; }
  // A reader with no bytes that is already !ok.
  static ByteReader invalid() {
    ByteReader r;
    r.ok_ = false;
    return r;
  }

 private:
  template <typename T>
  T fixed() {
    if (!ok_ || remaining() < sizeof(T)) return fail(), T(0);
    T v;
    memcpy(&v, data_ + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t addr_ = 0;
  uint64_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace candor
