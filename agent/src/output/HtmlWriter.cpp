#include "output/HtmlWriter.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "output/Json.h"

namespace candor {

namespace {
const char kMarker[] = "/*CANDOR:DATA*/null";

// One node of the viewer's tree as JSON, without its children and closing brace.
void appendNodeHead(std::string& out, const SnapshotFrame& f, uint64_t total) {
  out += "{\"n\":";
  appendJsonString(out, f.name);
  out += ",\"v\":" + std::to_string(total) + ",\"k\":\"";
  out.push_back(f.kind);
  out.push_back('"');
}

// The snapshot's tree below the root, children by frame id (stable, deterministic). Iterative:
// stacks may be thousands of frames deep.
void appendChildren(std::string& out, const ProfileSnapshot& snap, const std::vector<uint64_t>& totals) {
  auto sortedChildren = [&](uint32_t node) {
    std::vector<uint32_t> c;
    for (uint32_t k = snap.nodes()[node].firstChild; k != ProfileSnapshot::kNone; k = snap.nodes()[k].nextSibling) {
      c.push_back(k);
    }
    std::sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) { return snap.nodes()[a].frame < snap.nodes()[b].frame; });
    return c;
  };
  struct Level {
    std::vector<uint32_t> children;
    size_t next = 0;
  };
  std::vector<Level> levels;
  levels.push_back({sortedChildren(0)});
  if (levels.back().children.empty()) return;
  out += ",\"c\":[";
  while (!levels.empty()) {
    Level& level = levels.back();
    if (level.next == level.children.size()) {
      levels.pop_back();
      out.push_back(']');
      if (!levels.empty()) out.push_back('}');  // closes the node whose children these were
      continue;
    }
    if (level.next > 0) out.push_back(',');
    uint32_t node = level.children[level.next++];
    appendNodeHead(out, snap.frames()[snap.nodes()[node].frame], totals[node]);
    std::vector<uint32_t> children = sortedChildren(node);
    if (children.empty()) {
      out.push_back('}');
    } else {
      out += ",\"c\":[";
      levels.push_back({std::move(children)});
    }
  }
}

// The page's optional timeline (viewer/README.md): the snapshot's frames, the stack of every node
// a record names (root first), and the records as parallel arrays; times in ms since the start.
void appendTimeline(std::string& out, const ProfileSnapshot& snap, const TimelineData& t) {
  out += ",\"timeline\":{\"frames\":[";
  std::string kinds;
  for (size_t i = 0; i < snap.frames().size(); i++) {
    if (i > 0) out.push_back(',');
    appendJsonString(out, snap.frames()[i].name);
    kinds.push_back(snap.frames()[i].kind);
  }
  out += "],\"kinds\":";
  appendJsonString(out, kinds);
  out += ",\"res\":" + std::to_string(std::max<uint64_t>(1, t.bucketNs / 1'000'000));
  out += ",\"threads\":[";
  for (size_t i = 0; i < t.threads.size(); i++) {
    if (i > 0) out.push_back(',');
    appendJsonString(out, t.threads[i]);
  }
  out += "],\"stacks\":[";
  std::unordered_map<uint32_t, uint32_t> stackOf;  // node -> index in stacks
  std::vector<uint32_t> path;
  for (uint32_t node : t.node) {
    if (!stackOf.emplace(node, static_cast<uint32_t>(stackOf.size())).second) continue;
    path.clear();
    for (uint32_t n = node; n != 0; n = snap.nodes()[n].parent) path.push_back(snap.nodes()[n].frame);
    out += stackOf.size() > 1 ? ",[" : "[";
    for (size_t i = path.size(); i-- > 0;) {
      out += std::to_string(path[i]);
      if (i > 0) out.push_back(',');
    }
    out.push_back(']');
  }
  auto array = [&](const char* name, size_t n, const auto& value) {
    out += "],\"";
    out += name;
    out += "\":[";
    for (size_t i = 0; i < n; i++) {
      if (i > 0) out.push_back(',');
      out += value(i);
    }
  };
  uint64_t bucketMs = std::max<uint64_t>(1, t.bucketNs / 1'000'000);
  size_t n = t.node.size();
  array("t", n, [&](size_t i) { return std::to_string(t.column[i] < 0 ? -1 : t.column[i] * static_cast<int64_t>(bucketMs)); });
  array("th", n, [&](size_t i) { return std::to_string(t.thread[i]); });
  array("s", n, [&](size_t i) { return std::to_string(stackOf[t.node[i]]); });
  array("w", n, [&](size_t i) { return std::to_string(t.weight[i]); });
  out += "]}";
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
  std::vector<uint64_t> totals = snap.nodeTotals();
  std::string out = "{\"title\":";
  appendJsonString(out, report.title);
  out += ",\"subtitle\":";
  appendJsonString(out, "event=" + report.engine + " interval=" + formatInterval(report.intervalNs) +
                            " ticks=" + std::to_string(report.ticks) + " recorded=" +
                            std::to_string(report.recorded) + " failed=" + std::to_string(report.failuresTotal()) +
                            " dropped=" + std::to_string(report.dropped));
  out += ",\"unit\":\"" + report.unit + "\",\"root\":{\"n\":\"all\",\"v\":" + std::to_string(totals[0]) + ",\"k\":\"r\"";
  appendChildren(out, snap, totals);
  out += "}";
  if (report.timeline.present) appendTimeline(out, snap, report.timeline);
  out += "}";
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
