// A hash map in one flat array, probed linearly, for the trace store's two per-sample lookups: the
// prefix tree's edges ((parent node, frame) -> child node) and the sample counts ((trace, thread,
// kind, state, labels) -> ticks). Writer thread only.
//
// The store looks an edge up for every frame below the part a sample shares with its thread's
// previous one: at 100us on a server, ~20,000 samples a second of ~100 frames. With
// std::unordered_map every lookup chased a bucket pointer to a heap node, and those lookups were
// the writer's largest cost (5.8% of the process's perf samples). Here a lookup reads one or two
// adjacent slots. The table doubles at half full, so probes stay short; nothing is ever removed
// (the store is cleared whole at rotations), so there are no tombstones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace candor {

template <typename Key, typename Value, typename Hash>
class FlatMap {
 public:
  // The value of `key`, or nullptr.
  const Value* find(const Key& key) const {
    if (slots_.empty()) return nullptr;
    const Slot& s = slots_[probe(key)];
    return s.used ? &s.value : nullptr;
  }
  // The value of `key`; when there is none, `fresh` becomes it (and *isNew, if asked, true).
  Value& findOrInsert(const Key& key, const Value& fresh, bool* isNew = nullptr) {
    if (2 * (size_ + 1) > slots_.size()) grow();  // at most half full: an empty slot always ends a probe
    Slot& s = slots_[probe(key)];
    if (isNew != nullptr) *isNew = !s.used;
    if (!s.used) {
      s = Slot{key, fresh, true};
      size_++;
    }
    return s.value;
  }
  // f(key, value) for every entry, in no particular order.
  template <typename F>
  void forEach(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.used) f(s.key, s.value);
    }
  }

  size_t size() const { return size_; }
  size_t bytes() const { return slots_.capacity() * sizeof(Slot); }
  // Back to nothing: a rotation's store starts small again, as a session's first does.
  void clear() {
    std::vector<Slot>().swap(slots_);
    size_ = 0;
  }

 private:
  static constexpr size_t kInitialSlots = 1024;
  struct Slot {
    Key key;
    Value value;
    bool used;
  };
  // The key's slot, or the empty one that ends its probe.
  size_t probe(const Key& key) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = Hash{}(key) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.used || s.key == key) return i;
    }
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? kInitialSlots : 2 * old.size(), Slot{Key{}, Value{}, false});
    for (const Slot& s : old) {
      if (s.used) slots_[probe(s.key)] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// Mixes a 64-bit value so that its high bits reach the low ones a table's mask keeps.
inline size_t mixHash(uint64_t h) {
  h *= 0xff51afd7ed558ccdULL;
  return static_cast<size_t>(h ^ (h >> 32));
}

}  // namespace candor
