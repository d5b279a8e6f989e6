// The process's loaded code modules (executable, shared libraries, the vdso), each with its
// unwind table, for the native stack walk.
//
// Threads: refresh() and retireAll() run on ordinary threads (one at a time: a mutex); the
// `_signalSafe` lookups run in signal handlers, concurrently with refresh().
// Publication: refresh() builds a new immutable table of text ranges sorted by address and
// swaps it in with a release store; a lookup acquire-loads it and binary-searches, so it sees
// either the old or the new table, each complete. Replaced tables and unloaded modules are not
// freed: a handler may still be reading them. They are kept until retireAll(), which the owner
// calls only after every handler has stopped (SignalHandler::deactivate's in-flight count).
// Invariant: a published table's ranges do not overlap and each points at its module's rows.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "walk/native/CfiRow.h"

namespace candor {

struct NativeModule {
  std::string path;  // the file it was loaded from; empty for the vdso
  std::string name;  // its basename as frames show it: "libc.so.6", "[vdso]"
  uintptr_t bias = 0;  // runtime address = bias + link-time address
  std::vector<CfiRow> rows;
  CfiStats stats;
  std::vector<std::pair<uintptr_t, uintptr_t>> text;  // runtime [begin, end) of executable segments
};

struct NativeHit {
  const NativeModule* module = nullptr;
  const CfiRow* row = nullptr;  // the unwind rule in effect at pc; nullptr when no CFI covers it
  bool hasCfi = false;          // the module has unwind tables (a null row is then a gap in them)
};

class NativeModules {
 public:
  NativeModules() = default;
  ~NativeModules() { retireAll(); }
  NativeModules(const NativeModules&) = delete;
  NativeModules& operator=(const NativeModules&) = delete;

  // Ordinary thread: parses the modules loaded since the last call and publishes a new table
  // (unloaded modules leave it). Cheap when nothing changed: the loader's add/remove counters
  // are compared first. Returns the number of modules added.
  int refresh();

  // Signal-handler path: the module whose executable code contains pc (nullptr if none).
  const NativeModule* module_signalSafe(uintptr_t pc) const;
  bool contains_signalSafe(uintptr_t pc) const { return module_signalSafe(pc) != nullptr; }
  // The module and the row in effect at pc; false when pc is in no module.
  bool find_signalSafe(uintptr_t pc, NativeHit* out) const;

  // Ordinary thread, after the last handler finished: unpublishes and frees everything.
  void retireAll();

  // Ordinary thread: the published modules (valid until retireAll), and what their tables hold.
  std::vector<const NativeModule*> modules() const;
  CfiStats totals() const;
  size_t tableBytes() const;  // heap bytes of rows and range tables

 private:
  struct Range {
    uintptr_t begin, end;
    const NativeModule* module;
    const CfiRow* rows;
    uint32_t count;
  };
  struct Table {
    std::vector<Range> ranges;  // sorted by begin, disjoint
  };
  struct Loaded;  // one module as dl_iterate_phdr reported it
  std::unique_ptr<NativeModule> load(const Loaded& m) const;
  const Range* range_signalSafe(uintptr_t pc) const;

  std::atomic<const Table*> current_{nullptr};
  mutable std::mutex mutex_;  // refresh/retireAll/modules: one ordinary thread at a time
  std::vector<std::unique_ptr<NativeModule>> owned_;   // every module ever loaded, until retireAll
  std::vector<std::unique_ptr<Table>> tables_;         // every table ever published, until retireAll
  std::unordered_map<std::string, const NativeModule*> live_;  // by identity key, in current_
  unsigned long long adds_ = 0, subs_ = 0;             // the loader's counters at the last refresh
};

}  // namespace candor
