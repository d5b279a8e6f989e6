#include "output/ProfileReport.h"

#include <algorithm>

namespace candor {

uint32_t ProfileSnapshot::intern(const std::string& name, char kind) {
  std::string key = name;
  key.push_back('\0');
  key.push_back(kind);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(frames_.size());
  frames_.push_back({name, kind});
  index_.emplace(std::move(key), id);
  return id;
}

void ProfileSnapshot::addStack(const std::vector<uint32_t>& frames, uint64_t count) {
  if (count == 0) return;
  uint32_t node = 0;
  for (uint32_t f : frames) node = childOf(node, f);
  addSamples(node, count);
}

uint32_t ProfileSnapshot::childOf(uint32_t parent, uint32_t frame) {
  auto [it, isNew] = children_.try_emplace(uint64_t(parent) << 32 | frame, static_cast<uint32_t>(nodes_.size()));
  if (isNew) {
    Node child{frame, parent};
    child.nextSibling = nodes_[parent].firstChild;
    nodes_[parent].firstChild = it->second;
    nodes_.push_back(child);
  }
  return it->second;
}

void ProfileSnapshot::addSamples(uint32_t node, uint64_t count) {
  nodes_[node].self += count;
  total_ += count;
}

void ProfileSnapshot::addSamples(uint32_t node, uint64_t count, int32_t tid, uint32_t labels) {
  if (count == 0) return;
  addSamples(node, count);
  byThread_.push_back({node, tid, count, labels});
}

std::vector<uint64_t> ProfileSnapshot::nodeTotals() const {
  std::vector<uint64_t> totals(nodes_.size());
  for (size_t i = nodes_.size(); i-- > 0;) {  // children come after their parents
    totals[i] += nodes_[i].self;
    if (i > 0) totals[nodes_[i].parent] += totals[i];
  }
  return totals;
}

void ProfileSnapshot::forEachStack(const std::function<void(const std::vector<uint32_t>&, uint64_t)>& f) const {
  std::vector<uint32_t> path;
  for (size_t i = 0; i < nodes_.size(); i++) {
    if (nodes_[i].self == 0) continue;
    path.clear();
    for (uint32_t n = static_cast<uint32_t>(i); n != 0; n = nodes_[n].parent) path.push_back(nodes_[n].frame);
    std::reverse(path.begin(), path.end());
    f(path, nodes_[i].self);
  }
}

std::vector<const ValueProfile*> ProfileReport::sideProfiles() const {
  std::vector<const ValueProfile*> out;
  for (const ValueProfile* v : {&alloc, &lock}) {
    if (v->enabled && v->unit != unit) out.push_back(v);
  }
  return out;
}

ProfileReport ProfileReport::viewOf(const ValueProfile& v) const {
  ProfileReport r = *this;
  r.snapshot = v.snapshot;
  r.timeline = TimelineData();  // its nodes are the main snapshot's
  r.unit = v.unit;
  r.alloc.snapshot = ProfileSnapshot();
  r.lock.snapshot = ProfileSnapshot();
  return r;
}

uint64_t ProfileReport::failuresTotal() const {
  uint64_t sum = 0;
  for (const auto& f : failures) sum += f.second;
  return sum;
}

uint64_t ProfileReport::failureCount(const std::string& bucket) const {
  for (const auto& f : failures) {
    if (f.first == bucket) return f.second;
  }
  return 0;
}

uint64_t ProfileReport::cpuTicks() const {
  for (const KindReport& k : kinds) {
    if (k.name == "cpu") return k.ticks;
  }
  return kinds.empty() ? timeTicks() : 0;
}

double ProfileReport::samplesPerProcessCpuSecond() const {
  return processCpuNs > 0 ? cpuTicks() * 1e9 / static_cast<double>(processCpuNs) : 0;
}

double ProfileReport::samplesPerCpuSecond() const {
  if (processWideTimer()) return samplesPerProcessCpuSecond();
  return profiledCpuNs > 0 ? cpuTicks() * 1e9 / static_cast<double>(profiledCpuNs) : 0;
}

}  // namespace candor
