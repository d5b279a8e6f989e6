#include "output/OtlpDictionary.h"

namespace candor {

namespace {
// Field numbers of opentelemetry/proto/profiles/v1development/profiles.proto (1.11.0-alpha, the
// version the Java tools build against) and common/v1/common.proto.
constexpr uint32_t kDictMapping = 1, kDictLocation = 2, kDictFunction = 3, kDictLink = 4, kDictString = 5,
                   kDictAttribute = 6, kDictStack = 7;
constexpr uint32_t kFunctionName = 1, kFunctionSystemName = 2;
constexpr uint32_t kLocationLines = 3, kLocationAttributes = 4;
constexpr uint32_t kLineFunction = 1, kLineLine = 2;
constexpr uint32_t kStackLocations = 1;
constexpr uint32_t kKeyValueAndUnitKey = 1, kKeyValueAndUnitValue = 2;
constexpr uint32_t kAnyString = 1, kAnyBool = 2, kAnyInt = 3;
constexpr uint32_t kLinkTraceId = 1, kLinkSpanId = 2;

std::vector<int64_t> widen(const std::vector<int32_t>& v) { return {v.begin(), v.end()}; }
}  // namespace

int32_t OtlpDictionary::Table::add(std::string item) {
  auto [it, isNew] = index.try_emplace(item, static_cast<int32_t>(items.size()));
  if (isNew) items.push_back(std::move(item));
  return it->second;
}

OtlpDictionary::OtlpDictionary() = default;

int32_t OtlpDictionary::string(std::string_view s) { return strings_.add(std::string(s)); }

// Zero fields are left out, as proto3 encoders do, so an item's bytes are its value.
int32_t OtlpDictionary::function(std::string_view name, std::string_view systemName) {
  ProtoWriter f;
  if (int32_t n = string(name); n != 0) f.int64(kFunctionName, n);
  if (int32_t n = string(systemName); n != 0) f.int64(kFunctionSystemName, n);
  return functions_.add(f.take());
}

int32_t OtlpDictionary::location(int32_t function, int64_t line, const std::vector<int32_t>& attributes) {
  ProtoWriter l;
  size_t mark = l.begin(kLocationLines);
  if (function != 0) l.int64(kLineFunction, function);
  if (line != 0) l.int64(kLineLine, line);
  l.end(mark);
  l.packedVarints(kLocationAttributes, widen(attributes));
  return locations_.add(l.take());
}

int32_t OtlpDictionary::stack(const std::vector<int32_t>& locationsLeafFirst) {
  ProtoWriter s;
  s.packedVarints(kStackLocations, widen(locationsLeafFirst));
  return stacks_.add(s.take());
}

int32_t OtlpDictionary::attributeValue(std::string_view key, const ProtoWriter& anyValue) {
  ProtoWriter kv;
  if (int32_t k = string(key); k != 0) kv.int64(kKeyValueAndUnitKey, k);
  kv.bytes(kKeyValueAndUnitValue, anyValue.data());
  return attributes_.add(kv.take());
}

int32_t OtlpDictionary::attribute(std::string_view key, std::string_view value) {
  ProtoWriter v;
  v.bytes(kAnyString, value);  // a oneof member is written even when empty
  return attributeValue(key, v);
}

int32_t OtlpDictionary::attributeInt(std::string_view key, int64_t value) {
  ProtoWriter v;
  v.int64(kAnyInt, value);
  return attributeValue(key, v);
}

int32_t OtlpDictionary::attributeBool(std::string_view key, bool value) {
  ProtoWriter v;
  v.varint(kAnyBool, value ? 1 : 0);
  return attributeValue(key, v);
}

void OtlpDictionary::write(ProtoWriter& out, uint32_t field) const {
  size_t mark = out.begin(field);
  // candor has no address ranges nor trace links: only the zero items the proto requires; the
  // link's ids of full length, as the proto recommends for strict codecs
  out.bytes(kDictMapping, "");
  for (const std::string& l : locations_.items) out.bytes(kDictLocation, l);
  for (const std::string& f : functions_.items) out.bytes(kDictFunction, f);
  ProtoWriter link;
  link.bytes(kLinkTraceId, std::string(16, '\0'));
  link.bytes(kLinkSpanId, std::string(8, '\0'));
  out.bytes(kDictLink, link.data());
  for (const std::string& s : strings_.items) out.bytes(kDictString, s);
  for (const std::string& a : attributes_.items) out.bytes(kDictAttribute, a);
  for (const std::string& s : stacks_.items) out.bytes(kDictStack, s);
  out.end(mark);
}

}  // namespace candor
