// The metadata event (type id 0) that opens every chunk: it declares every type the chunk uses
// (primitives, the jdk.types the JDK's readers know, candor's own events, the annotations) so a
// reader can decode events and constant pools without knowing candor.
//
// Layout: size, type id 0, start time, duration, metadata id, then a string table (count, strings)
// and one element tree whose names and attribute keys/values are indexes into that table:
//   root → metadata → class* (name, id, superType?, simpleType?) → field* (name, class,
//   constantPool?, dimension?) and annotation* (class, value...) ; root → region (locale, gmtOffset)
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "output/jfr/JfrBuffer.h"

namespace candor::jfr {

struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<Element> children;

  explicit Element(std::string n) : name(std::move(n)) {}
  Element& attr(std::string key, std::string value) {
    attributes.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Element& add(Element child) {
    children.push_back(std::move(child));
    return *this;
  }
};

// The element tree of every type candor writes.
const Element& metadataRoot();

// Appends the whole metadata event for a chunk starting at `startTicks`.
void writeMetadataEvent(Buffer& out, uint64_t startTicks, const Element& root = metadataRoot());

}  // namespace candor::jfr
