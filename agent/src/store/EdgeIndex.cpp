#include "store/EdgeIndex.h"

namespace candor {

namespace {
constexpr size_t kInitialSlots = 1024;
}

size_t EdgeIndex::hash(uint32_t parent, const void* method, int32_t bci) {
  uint64_t h = (uint64_t(parent) * 0x9e3779b97f4a7c15ULL) ^ reinterpret_cast<uintptr_t>(method);
  h = (h ^ uint32_t(bci)) * 0xff51afd7ed558ccdULL;
  return static_cast<size_t>(h ^ (h >> 32));  // the mixed high bits reach the low ones the mask keeps
}

size_t EdgeIndex::probe(uint32_t parent, const void* method, int32_t bci) const {
  size_t mask = slots_.size() - 1;
  for (size_t i = hash(parent, method, bci) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.child == kAbsent || (s.parent == parent && s.method == method && s.bci == bci)) return i;
  }
}

uint32_t EdgeIndex::find(uint32_t parent, const void* method, int32_t bci) const {
  if (slots_.empty()) return kAbsent;
  return slots_[probe(parent, method, bci)].child;
}

uint32_t EdgeIndex::findOrInsert(uint32_t parent, const void* method, int32_t bci, uint32_t fresh, bool* isNew) {
  if (2 * (size_ + 1) > slots_.size()) grow();  // at most half full: an empty slot always ends a probe
  Slot& s = slots_[probe(parent, method, bci)];
  *isNew = s.child == kAbsent;
  if (*isNew) {
    s = Slot{method, parent, bci, fresh};
    size_++;
  }
  return s.child;
}

void EdgeIndex::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.empty() ? kInitialSlots : 2 * old.size(), Slot{nullptr, 0, 0, kAbsent});
  for (const Slot& s : old) {
    if (s.child != kAbsent) slots_[probe(s.parent, s.method, s.bci)] = s;
  }
}

void EdgeIndex::clear() {
  // Back to nothing: a rotation's store starts small again, as a session's first does.
  std::vector<Slot>().swap(slots_);
  size_ = 0;
}

}  // namespace candor
