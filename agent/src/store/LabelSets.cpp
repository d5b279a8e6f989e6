#include "store/LabelSets.h"

#include <algorithm>
#include <unordered_set>

#include "concurrent/Clock.h"
#include "concurrent/ThreadLabels.h"

namespace candor {

namespace {

const LabelPairs& overflowPairs() {
  static const LabelPairs pairs{{"candor.labels", "overflow"}};
  return pairs;
}

const LabelPairs& unknownPairs() {
  static const LabelPairs pairs{{"candor.labels", "unknown"}};
  return pairs;
}

void appendEscaped(std::string& out, const std::string& s) {
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == ',') out += "%2C";
    else if (c == '=') out += "%3D";
    else out += c;
  }
}

}  // namespace

std::string labelText(const LabelPairs& pairs) {
  std::string out;
  for (const auto& [key, value] : pairs) {
    if (!out.empty()) out += ',';
    appendEscaped(out, key);
    out += '=';
    appendEscaped(out, value);
  }
  return out;
}

uint32_t LabelSets::enter(int tid, LabelPairs pairs) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t id = kNone;
  if (!pairs.empty()) {
    auto it = ids_.find(pairs);
    if (it != ids_.end()) {
      id = it->second;
    } else if (ids_.size() >= maxSets_ || nextId_ >= kUnknown) {
      id = kOverflow;
      refused_++;
    } else {
      id = nextId_++;
      it = ids_.emplace(std::move(pairs), id).first;
      byId_[id] = &it->first;
    }
  }
  auto was = current_.find(tid);
  uint32_t before = was != current_.end() ? was->second : kNone;
  // Stored under the mutex, so prune() never forgets a set between its interning and its use.
  if (id == kNone) current_.erase(tid);
  else current_[tid] = id;
  ThreadLabels::process().set(tid, id);
  noteChangeLocked(tid, before, id);
  return id;
}

void LabelSets::forget(int tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto was = current_.find(tid);
  uint32_t before = was != current_.end() ? was->second : kNone;
  bool inScope = was != current_.end();
  if (inScope) current_.erase(was);
  ThreadLabels::process().set(tid, kNone);
  // A thread that never entered a scope has no history to close: idAt gives its late samples
  // kNone without one. Noting its end anyway cost every ending thread a history (a map node and
  // a deque) until the next prune: of the ticks of CpuCoverageTest's ~21,000 short threads, 18 of
  // 2,389 were LabelSets' (7 now).
  if (inScope || history_.count(tid) != 0) noteChangeLocked(tid, before, kNone);
}

void LabelSets::keepHistory(bool on) {
  std::lock_guard<std::mutex> lock(mutex_);
  keepHistory_ = on;
  history_.clear();
}

void LabelSets::noteChangeLocked(int tid, uint32_t before, uint32_t id) {
  if (!keepHistory_) return;
  uint64_t now = monotonicNs();
  auto [it, first] = history_.try_emplace(tid);
  History& h = it->second;
  // The thread's first change since the history started (a session that starts while it is in a
  // scope): before it, the thread was in `before`, for samples the reader has yet to read.
  if (first && before != kNone) h.changes.push_back({0, before});
  h.changes.push_back({now, id});
  // Keep the change in force when the reader last read every ring, and at most kHistoryNs ago
  // (the first change at most that old is the oldest kept).
  while (h.changes.size() > kMaxChanges ||
         (h.changes.size() > 1 && (h.changes[1].timeNs <= readUpToNs_ || h.changes[1].timeNs + kHistoryNs < now))) {
    h.changes.pop_front();
    h.cut = true;
  }
}

void LabelSets::readUpTo(uint64_t timeNs) {
  std::lock_guard<std::mutex> lock(mutex_);
  readUpToNs_ = std::max(readUpToNs_, timeNs);
}

uint32_t LabelSets::idAt(int tid, uint64_t timeNs) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = history_.find(tid);
  if (it == history_.end()) return ThreadLabels::process().of_signalSafe(tid);  // never changed
  const std::deque<Change>& changes = it->second.changes;
  for (auto c = changes.rbegin(); c != changes.rend(); ++c) {
    if (c->timeNs <= timeNs) return c->id;
  }
  return it->second.cut ? kUnknown : kNone;  // before its first scope
}

const LabelPairs* LabelSets::findLocked(uint32_t id) const {
  if (id == kOverflow) return &overflowPairs();
  if (id == kUnknown) return &unknownPairs();
  auto it = byId_.find(id);
  return it != byId_.end() ? it->second : nullptr;
}

LabelPairs LabelSets::pairs(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const LabelPairs* set = findLocked(id);
  return set != nullptr ? *set : LabelPairs{};
}

const std::string* LabelSets::value(uint32_t id, const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const LabelPairs* set = findLocked(id);
  if (set == nullptr) return nullptr;
  for (const auto& [k, v] : *set) {
    if (k == key) return &v;
  }
  return nullptr;
}

void LabelSets::prune() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::unordered_set<uint32_t> inUse;
  for (const auto& [tid, id] : current_) inUse.insert(id);
  // A thread's history holds the sets of samples the copy reader has yet to read: keep those
  // seen in the last kHistoryNs; forget the history of threads long out of every scope.
  uint64_t now = monotonicNs();
  for (auto h = history_.begin(); h != history_.end();) {
    const Change& last = h->second.changes.back();
    if (last.id == kNone && last.timeNs + kHistoryNs < now) {
      h = history_.erase(h);
      continue;
    }
    // A set is needed while samples from its time may come: until the change that ended it, and
    // kHistoryNs beyond (a history's first entry may be from before it started, at time 0).
    const std::deque<Change>& changes = h->second.changes;
    for (size_t i = 0; i < changes.size(); i++) {
      uint64_t endedNs = i + 1 < changes.size() ? changes[i + 1].timeNs : now;
      if (endedNs + kHistoryNs >= now) inUse.insert(changes[i].id);
    }
    ++h;
  }
  for (auto it = ids_.begin(); it != ids_.end();) {
    if (inUse.count(it->second) != 0) {
      ++it;
    } else {
      byId_.erase(it->second);
      it = ids_.erase(it);
    }
  }
}

size_t LabelSets::threadsWithHistory() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return history_.size();
}

size_t LabelSets::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ids_.size();
}

uint64_t LabelSets::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

}  // namespace candor
