// Protocol Buffers' binary encoding, by hand, for the OTLP output (OtlpWriter): tags, varints,
// fixed64, length-delimited fields (strings, bytes, nested messages) and packed repeated scalars,
// appended to one string. Writer thread only (it allocates); never the signal handler.
// Proto3 defaults are the caller's business: every call writes its field, zero or not.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace candor {

class ProtoWriter {
 public:
  // Wire types (protobuf encoding guide).
  static constexpr int kVarint = 0;
  static constexpr int kFixed64 = 1;
  static constexpr int kLengthDelimited = 2;

  // Unsigned varint: 7 bits a byte, least significant first, high bit set on all but the last.
  static void appendVarint(std::string& out, uint64_t value);

  // uint32, uint64, bool, enum; int32 and int64 go through int64 (a negative one is 10 bytes).
  void varint(uint32_t field, uint64_t value);
  void int64(uint32_t field, int64_t value) { varint(field, static_cast<uint64_t>(value)); }
  void fixed64(uint32_t field, uint64_t value);
  // string, bytes, or an already encoded message.
  void bytes(uint32_t field, std::string_view value);
  // A nested message written in place: begin() returns a mark for end(), which puts the
  // message's length in front of it.
  size_t begin(uint32_t field);
  void end(size_t mark);
  // Packed repeated int32/int64 (one length-delimited field of varints); nothing when empty.
  void packedVarints(uint32_t field, const std::vector<int64_t>& values);
  void packedFixed64(uint32_t field, const std::vector<uint64_t>& values);

  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void tag(uint32_t field, int wireType) { appendVarint(out_, uint64_t(field) << 3 | uint32_t(wireType)); }
  std::string out_;
};

}  // namespace candor
