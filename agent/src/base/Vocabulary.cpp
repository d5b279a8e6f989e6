#include "base/Ordering.h"
#include "base/Vocabulary.h"

namespace candor {

uint64_t HandlerCounters::totalTicks() const {
  uint64_t sum = 0;
  for (const auto& t : ticks) sum += lp(t);
  return sum;
}

uint64_t HandlerCounters::totalDropped() const {
  uint64_t sum = 0;
  for (const auto& d : dropped) sum += lp(d);
  return sum;
}

void HandlerCounters::clear() {
  for (auto& t : ticks) sp(t, 0);
  for (auto& d : dropped) sp(d, 0);
  sp(merged, 0);
  sp(estimated, 0);
  for (auto& v : droppedValue) sp(v, 0);
}

}  // namespace candor
