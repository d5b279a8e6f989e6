#include "output/ProtoWriter.h"

namespace candor {

void ProtoWriter::appendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void ProtoWriter::varint(uint32_t field, uint64_t value) {
  tag(field, kVarint);
  appendVarint(out_, value);
}

void ProtoWriter::fixed64(uint32_t field, uint64_t value) {
  tag(field, kFixed64);
  for (int i = 0; i < 8; i++) out_.push_back(static_cast<char>(value >> (8 * i)));  // little-endian
}

void ProtoWriter::bytes(uint32_t field, std::string_view value) {
  tag(field, kLengthDelimited);
  appendVarint(out_, value.size());
  out_.append(value.data(), value.size());
}

size_t ProtoWriter::begin(uint32_t field) {
  tag(field, kLengthDelimited);
  return out_.size();
}

void ProtoWriter::end(size_t mark) {
  std::string length;
  appendVarint(length, out_.size() - mark);
  out_.insert(mark, length);
}

void ProtoWriter::packedVarints(uint32_t field, const std::vector<int64_t>& values) {
  if (values.empty()) return;
  std::string packed;
  for (int64_t v : values) appendVarint(packed, static_cast<uint64_t>(v));
  bytes(field, packed);
}

void ProtoWriter::packedFixed64(uint32_t field, const std::vector<uint64_t>& values) {
  if (values.empty()) return;
  tag(field, kLengthDelimited);
  appendVarint(out_, values.size() * 8);
  for (uint64_t v : values) {
    for (int i = 0; i < 8; i++) out_.push_back(static_cast<char>(v >> (8 * i)));
  }
}

}  // namespace candor
