#include "store/TraceStore.h"

#include <cstring>

namespace candor {

namespace {
uint64_t hashFrames(const ASGCT_CallFrame* frames, int n) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over (method, bci)
  for (int i = 0; i < n; i++) {
    h = (h ^ reinterpret_cast<uintptr_t>(frames[i].method_id)) * 0x100000001b3ULL;
    h = (h ^ static_cast<uint32_t>(frames[i].lineno)) * 0x100000001b3ULL;
  }
  return h;
}

bool sameFrames(const StoredTrace& t, const ASGCT_CallFrame* frames, int n) {
  if (t.frames.size() != static_cast<size_t>(n)) return false;
  for (int i = 0; i < n; i++) {
    if (t.frames[i].method != frames[i].method_id || t.frames[i].bci != frames[i].lineno) return false;
  }
  return true;
}
}  // namespace

uint32_t TraceStore::add(const ASGCT_CallFrame* frames, int numFrames, int tid, SampleKind kind, ThreadState state,
                         uint64_t count) {
  uint64_t h = hashFrames(frames, numFrames);
  uint32_t id = UINT32_MAX;
  auto range = byHash_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    if (sameFrames(traces_[it->second], frames, numFrames)) {
      id = it->second;
      break;
    }
  }
  if (id == UINT32_MAX) {
    id = static_cast<uint32_t>(traces_.size());
    StoredTrace t;
    t.hash = h;
    t.frames.reserve(numFrames);
    for (int i = 0; i < numFrames; i++) {
      t.frames.push_back({frames[i].method_id, frames[i].lineno});
      if (frames[i].method_id != nullptr && knownMethods_.insert(frames[i].method_id).second) {
        newMethods_.push_back(frames[i].method_id);
      }
    }
    traces_.push_back(std::move(t));
    byHash_.emplace(h, id);
  }
  addAgain(id, tid, kind, state, count);
  return id;
}

void TraceStore::addAgain(uint32_t trace, int tid, SampleKind kind, ThreadState state, uint64_t count) {
  counts_[Key{trace, tid, kind, state}] += count;
  total_ += count;
}

std::vector<jmethodID> TraceStore::takeNewMethods() {
  std::vector<jmethodID> out;
  out.swap(newMethods_);
  return out;
}

void TraceStore::clear() {
  traces_.clear();
  byHash_.clear();
  counts_.clear();
  knownMethods_.clear();
  newMethods_.clear();
  total_ = 0;
}

}  // namespace candor
