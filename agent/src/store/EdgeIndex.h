// The prefix tree's edge index: (parent node, frame) -> child node. Writer thread only.
//
// TraceStore looks an edge up for every frame below the part a sample shares with its thread's
// previous one: at 100us on a server, ~20,000 samples a second of ~100 frames, the writer's largest
// cost (5.8% of the process's perf samples with std::unordered_map, whose every lookup chases a
// bucket pointer to a heap node). Here the keys sit in one flat array probed linearly: a lookup
// reads one or two adjacent slots. The table doubles at half full, so probes stay short; nothing is
// ever removed (the store is cleared whole at rotations), so there are no tombstones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace candor {

class EdgeIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  // The child of `parent` for (method, bci), or kAbsent.
  uint32_t find(uint32_t parent, const void* method, int32_t bci) const;
  // The child of `parent` for (method, bci); when there is none, `fresh` becomes it (isNew true).
  uint32_t findOrInsert(uint32_t parent, const void* method, int32_t bci, uint32_t fresh, bool* isNew);

  size_t size() const { return size_; }
  size_t bytes() const { return slots_.capacity() * sizeof(Slot); }
  void clear();

 private:
  struct Slot {
    const void* method;
    uint32_t parent;
    int32_t bci;
    uint32_t child;  // kAbsent: an empty slot
  };
  static size_t hash(uint32_t parent, const void* method, int32_t bci);
  size_t probe(uint32_t parent, const void* method, int32_t bci) const;  // the key's slot, or its empty one
  void grow();

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace candor
