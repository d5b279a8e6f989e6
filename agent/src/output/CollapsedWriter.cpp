#include "output/CollapsedWriter.h"

#include <algorithm>
#include <unordered_map>

namespace candor {

namespace {
// ';' separates frames and a line is one stack: neither ';' nor a line break (LF, or CR, at
// which readers such as Java's BufferedReader also split) may appear in a name.
std::string safeName(const std::string& name) {
  std::string s;
  s.reserve(name.size());
  for (char c : name) s.push_back(c == ';' ? ':' : (c == '\n' || c == '\r' ? ' ' : c));
  return s;
}

// The snapshot's tree re-keyed by the names a line shows: frames that print alike (another kind,
// a name that differed only in ';') merge, as they would in any reader of the file.
struct LineTree {
  struct Node {
    uint32_t name;
    uint64_t self = 0;
    std::vector<uint32_t> children;
  };
  std::vector<std::string> names;
  std::vector<Node> nodes{Node{0, 0, {}}};

  explicit LineTree(const ProfileSnapshot& snap) {
    std::unordered_map<std::string, uint32_t> nameIds;
    std::vector<uint32_t> nameOfFrame;
    nameOfFrame.reserve(snap.frames().size());
    for (const SnapshotFrame& f : snap.frames()) {
      auto [it, isNew] = nameIds.try_emplace(safeName(f.name), static_cast<uint32_t>(names.size()));
      if (isNew) names.push_back(it->first);
      nameOfFrame.push_back(it->second);
    }
    std::unordered_map<uint64_t, uint32_t> edges;
    std::vector<uint32_t> mapped(snap.nodes().size(), 0);
    for (size_t i = 1; i < snap.nodes().size(); i++) {  // parents come first
      const ProfileSnapshot::Node& n = snap.nodes()[i];
      uint32_t parent = mapped[n.parent];
      uint32_t name = nameOfFrame[n.frame];
      auto [it, isNew] = edges.try_emplace(uint64_t(parent) << 32 | name, static_cast<uint32_t>(nodes.size()));
      if (isNew) {
        nodes.push_back(Node{name, 0, {}});
        nodes[parent].children.push_back(it->second);
      }
      mapped[i] = it->second;
      nodes[it->second].self += n.self;
    }
  }
};
}  // namespace

void writeCollapsed(const ProfileSnapshot& snapshot, std::ostream& out) {
  LineTree tree(snapshot);
  // Depth first with siblings sorted by name, so files are diffable; iterative, since a stack
  // may be thousands of frames deep and this may run on a Java thread's small stack.
  auto byName = [&](uint32_t a, uint32_t b) { return tree.names[tree.nodes[a].name] < tree.names[tree.nodes[b].name]; };
  std::string line;
  std::vector<std::pair<uint32_t, size_t>> stack;  // (node, length of `line` before its name)
  std::vector<uint32_t> roots = tree.nodes[0].children;
  std::sort(roots.begin(), roots.end(), byName);
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, 0});
  while (!stack.empty()) {
    auto [node, prefixLength] = stack.back();
    stack.pop_back();
    line.resize(prefixLength);
    if (prefixLength > 0) line.push_back(';');
    line += tree.names[tree.nodes[node].name];
    if (tree.nodes[node].self > 0) out << line << ' ' << tree.nodes[node].self << '\n';
    std::vector<uint32_t>& children = tree.nodes[node].children;
    std::sort(children.begin(), children.end(), byName);
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, line.size()});
  }
}

}  // namespace candor
