// The tables of an OTLP ProfilesDictionary (opentelemetry-proto profiles/v1development), filled as
// OtlpWriter goes, as the Java tools' OtlpDictionary fills them: each item once (the proto asks for
// no duplicates), referenced by its index; index 0 of every table is the zero value, so that an
// index of 0 means "not set". Items are kept as their encoded bytes, which are their identity.
// Writer thread only (it allocates).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "output/ProtoWriter.h"

namespace candor {

class OtlpDictionary {
 public:
  OtlpDictionary();

  // Index in string_table.
  int32_t string(std::string_view s);
  // Index in function_table of a function with its display and system name.
  int32_t function(std::string_view name, std::string_view systemName);
  // Index in location_table of one line of a function, with attribute indices.
  int32_t location(int32_t function, int64_t line, const std::vector<int32_t>& attributes);
  // Index in stack_table of location indices, leaf first.
  int32_t stack(const std::vector<int32_t>& locationsLeafFirst);
  // Index in attribute_table of key = value.
  int32_t attribute(std::string_view key, std::string_view value);
  int32_t attributeInt(std::string_view key, int64_t value);
  int32_t attributeBool(std::string_view key, bool value);

  // The dictionary as message field `field` of `out`.
  void write(ProtoWriter& out, uint32_t field) const;

 private:
  // Encoded items in index order, and the index of each.
  struct Table {
    std::vector<std::string> items{std::string()};
    std::unordered_map<std::string, int32_t> index{{std::string(), 0}};
    int32_t add(std::string item);
  };
  int32_t attributeValue(std::string_view key, const ProtoWriter& anyValue);

  Table strings_, functions_, locations_, stacks_, attributes_;
};

}  // namespace candor
