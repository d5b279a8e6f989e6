#include "output/ProfileReport.h"

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

void ProfileSnapshot::addStack(std::vector<uint32_t> frames, uint64_t count) {
  if (count == 0) return;
  total_ += count;
  stacks_.push_back({std::move(frames), count});
}

uint64_t ProfileReport::failuresTotal() const {
  uint64_t sum = 0;
  for (const auto& f : failures) sum += f.second;
  return sum;
}

double ProfileReport::samplesPerCpuSecond() const {
  return profiledCpuNs > 0 ? ticks * 1e9 / static_cast<double>(profiledCpuNs) : 0;
}

}  // namespace candor
