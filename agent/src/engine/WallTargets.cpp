#include "base/Ordering.h"
#include "engine/WallTargets.h"

#include <mutex>
#include <vector>

namespace candor {

WallTarget WallTargets::entries_[WallTargets::kCapacity];

namespace {
std::mutex gMutex;
std::vector<int> gFree;
int gNext = 0;
}  // namespace

int WallTargets::acquire(int tid) {
  std::lock_guard<std::mutex> lock(gMutex);
  int index;
  if (!gFree.empty()) {
    index = gFree.back();
    gFree.pop_back();
  } else if (gNext < kCapacity) {
    index = gNext++;
  } else {
    return -1;
  }
  WallTarget& t = entries_[index];
  sp(t.pending, false);
  t.tid = tid;
  t.lastCpuNs = 0;
  t.lastState = ThreadState::kUnknown;
  t.cpuAtLastSampleNs = UINT64_MAX;
  t.stateAtLastSample = ThreadState::kUnknown;
  return index;
}

void WallTargets::release(int index) {
  if (index < 0) return;
  std::lock_guard<std::mutex> lock(gMutex);
  gFree.push_back(index);
}

void WallTargets::releaseAll() {
  std::lock_guard<std::mutex> lock(gMutex);
  gFree.clear();
  gNext = 0;
}

}  // namespace candor
