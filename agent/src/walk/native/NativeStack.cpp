#include "walk/native/NativeStack.h"

#include <atomic>
#include <mutex>

#include "base/Ordering.h"

namespace candor {

namespace {
NativeModules* gModules = nullptr;  // made once, never freed: handlers may read it any time
NativeUnwinder* gUnwinder = nullptr;
std::atomic<int> gMode{static_cast<int>(CStackMode::kNo)};  // published after the tables
std::mutex gEnableMutex;
}  // namespace

bool NativeStack::enable(CStackMode mode, std::string* why) {
  std::lock_guard<std::mutex> lock(gEnableMutex);
  if (mode != CStackMode::kNo && gModules == nullptr) {
    gModules = new NativeModules();
    gUnwinder = new NativeUnwinder(*gModules);
  }
  if (mode != CStackMode::kNo) {
    gModules->refresh();
    if (gModules->modules().empty()) {
      *why = "no loaded module could be read";
      so(gMode, static_cast<int>(CStackMode::kNo));
      return false;
    }
  }
  so(gMode, static_cast<int>(mode));
  return true;
}

CStackMode NativeStack::mode() { return static_cast<CStackMode>(lv(gMode)); }

void NativeStack::refresh() {
  if (mode() != CStackMode::kNo) gModules->refresh();
}

const NativeModules& NativeStack::modules() {
  std::lock_guard<std::mutex> lock(gEnableMutex);
  if (gModules == nullptr) {
    gModules = new NativeModules();
    gUnwinder = new NativeUnwinder(*gModules);
  }
  return *gModules;
}

bool NativeStack::isNative_signalSafe(uintptr_t pc) {
  return static_cast<CStackMode>(lv(gMode)) != CStackMode::kNo && gModules->contains_signalSafe(pc);
}

bool NativeStack::atRoot_signalSafe(const NativeRegs& regs) {
  if (static_cast<CStackMode>(lv(gMode)) != CStackMode::kDwarf) return false;
  NativeHit hit;
  uintptr_t at = regs.interrupted ? regs.pc : regs.pc - 1;
  return gModules->find_signalSafe(at, &hit) && hit.row != nullptr && hit.row->kind() == CfaKind::kOutermost;
}

int32_t NativeStack::walk_signalSafe(const NativeMemory& mem, NativeRegs* regs, ASGCT_CallFrame* frames, int32_t max) {
  auto mode = static_cast<CStackMode>(lv(gMode));  // acquire: the tables are built before the mode is set
  if (mode == CStackMode::kNo) return 0;
  int32_t n = 0;
  while (n < max && gModules->contains_signalSafe(regs->pc)) {
    uintptr_t pc = regs->interrupted ? regs->pc : regs->pc - 1;
    frames[n++] = {kNativeFrameBci, reinterpret_cast<jmethodID>(pc)};
    if (!gUnwinder->step_signalSafe(mode, mem, regs)) break;
  }
  return n;
}

}  // namespace candor
