#include "output/HtmlWriter.h"

#include <cstring>
#include <map>
#include <memory>

#include "output/Json.h"

namespace candor {

namespace {
const char kMarker[] = "/*CANDOR:DATA*/null";

struct Node {
  uint64_t total = 0;
  std::map<uint32_t, std::unique_ptr<Node>> children;  // by frame id: stable, deterministic
};

void appendNode(std::string& out, const ProfileSnapshot& snap, uint32_t frame, const Node& node) {
  const SnapshotFrame& f = snap.frames()[frame];
  out += "{\"n\":";
  appendJsonString(out, f.name);
  out += ",\"v\":" + std::to_string(node.total) + ",\"k\":\"";
  out.push_back(f.kind);
  out.push_back('"');
  if (!node.children.empty()) {
    out += ",\"c\":[";
    bool first = true;
    for (const auto& [id, child] : node.children) {
      if (!first) out.push_back(',');
      first = false;
      appendNode(out, snap, id, *child);
    }
    out.push_back(']');
  }
  out.push_back('}');
}

std::string formatInterval(int64_t ns) {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
  return std::to_string(ns) + "ns";
}
}  // namespace

std::string flameGraphJson(const ProfileReport& report) {
  const ProfileSnapshot& snap = report.snapshot;
  Node root;
  for (const auto& stack : snap.stacks()) {
    Node* node = &root;
    node->total += stack.count;
    for (uint32_t f : stack.frames) {
      auto& child = node->children[f];
      if (!child) child = std::make_unique<Node>();
      node = child.get();
      node->total += stack.count;
    }
  }
  std::string out = "{\"title\":";
  appendJsonString(out, report.title);
  out += ",\"subtitle\":";
  appendJsonString(out, "event=" + report.engine + " interval=" + formatInterval(report.intervalNs) +
                            " ticks=" + std::to_string(report.ticks) + " recorded=" +
                            std::to_string(report.recorded) + " failed=" + std::to_string(report.failuresTotal()) +
                            " dropped=" + std::to_string(report.dropped));
  out += ",\"unit\":\"samples\",\"root\":{\"n\":\"all\",\"v\":" + std::to_string(root.total) + ",\"k\":\"r\"";
  if (!root.children.empty()) {
    out += ",\"c\":[";
    bool first = true;
    for (const auto& [id, child] : root.children) {
      if (!first) out.push_back(',');
      first = false;
      appendNode(out, snap, id, *child);
    }
    out.push_back(']');
  }
  out += "}}";
  return out;
}

bool writeHtml(const ProfileReport& report, std::ostream& out) {
  const char* tpl = kFlameGraphTemplate;
  const char* at = strstr(tpl, kMarker);
  if (at == nullptr) return false;
  out.write(tpl, at - tpl);
  out << flameGraphJson(report);
  out << (at + sizeof kMarker - 1);
  return true;
}

}  // namespace candor
