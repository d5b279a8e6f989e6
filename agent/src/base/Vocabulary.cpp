#include "base/Vocabulary.h"

namespace candor {

uint64_t HandlerCounters::totalTicks() const {
  uint64_t sum = 0;
  for (const auto& t : ticks) sum += t.load(std::memory_order_relaxed);
  return sum;
}

uint64_t HandlerCounters::totalDropped() const {
  uint64_t sum = 0;
  for (const auto& d : dropped) sum += d.load(std::memory_order_relaxed);
  return sum;
}

void HandlerCounters::clear() {
  for (auto& t : ticks) t.store(0, std::memory_order_relaxed);
  for (auto& d : dropped) d.store(0, std::memory_order_relaxed);
}

}  // namespace candor
