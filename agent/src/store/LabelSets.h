// The label sets threads are in (Candor.label scopes), interned to the small ids a sample
// carries (concurrent/ThreadLabels). A Java thread that opens or closes a scope calls enter()
// with its whole set; the writer thread turns ids back into key/value pairs for the outputs.
// Everything here is under one mutex; no signal handler comes here.
//
// Bounded: at most `maxSets` sets at once. A set beyond that gets kOverflow, shown as
// candor.labels=overflow and counted (refused()), never silently unlabelled. With loop= the
// writer calls prune() as an interval starts: sets no thread is in any more are forgotten (their
// samples were written with the previous interval), so per-request values such as trace ids do
// not pile up over days. Ids are never reused: a forgotten id resolves to no labels.
//
// History (walk=copy, percpu): the reader walks a sample up to a few hundred ms after it was
// taken, when the thread may be in another scope; it asks idAt(tid, sample time) instead of the
// thread's current id. Each thread's changes since the one in force when the reader last read
// every ring (readUpTo) are kept, with their CLOCK_MONOTONIC time: the reader needs no older one.
// Those are bounded by kMaxChanges and kHistoryNs against a stalled reader; a sample older than
// what is kept gets kUnknown (candor.labels=unknown), never a wrong set. (Bounded by 64 changes
// alone, a thread whose scopes lasted 100 us lost 78% of its samples' labels to unknown: the
// reader comes every 50 ms.)
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace candor {

// Key/value pairs sorted by key, keys unique.
using LabelPairs = std::vector<std::pair<std::string, std::string>>;

// A set as one string, as the JFR recording carries it: "key=value,key=value", with '%', ',' and
// '=' in keys and values escaped as %25, %2C and %3D, so that it splits back unambiguously.
std::string labelText(const LabelPairs& pairs);

class LabelSets {
 public:
  static constexpr uint32_t kNone = 0;
  static constexpr uint32_t kOverflow = UINT32_MAX;
  static constexpr uint32_t kUnknown = UINT32_MAX - 1;
  static constexpr size_t kDefaultMaxSets = 65536;
  static constexpr size_t kMaxChanges = 16384;  // 256 KB of one thread's history at most
  static constexpr uint64_t kHistoryNs = 2'000'000'000;

  explicit LabelSets(size_t maxSets = kDefaultMaxSets) : maxSets_(maxSets) {}

  // Thread `tid` is now in `pairs` (empty: no labels): interns them and publishes the id to
  // ThreadLabels::process(). Returns the id.
  uint32_t enter(int tid, LabelPairs pairs);
  // Thread `tid` ended: it is in no set, and a new thread with its tid starts without labels.
  void forget(int tid);
  // walk=copy: keep each thread's recent changes for idAt (off by default: it costs a clock read
  // and a few bytes per scope).
  void keepHistory(bool on);
  // The id `tid` was in at `timeNs` (CLOCK_MONOTONIC), from the kept history; kUnknown when the
  // history no longer reaches back that far.
  uint32_t idAt(int tid, uint64_t timeNs) const;
  // The reader has read every sample taken before `timeNs`: each thread's history may forget the
  // changes before the one in force then.
  void readUpTo(uint64_t timeNs);

  // The pairs of an id: empty for kNone or a forgotten id.
  LabelPairs pairs(uint32_t id) const;
  // The value of `key` in an id's set, or nullptr; valid until the next prune().
  const std::string* value(uint32_t id, const std::string& key) const;
  // loop=: forgets the sets no thread is in.
  void prune();

  size_t size() const;
  uint64_t refused() const;
  size_t threadsWithHistory() const;  // threads whose changes are kept for idAt

 private:
  const LabelPairs* findLocked(uint32_t id) const;  // the set of an id (overflow included), or nullptr
  // `before`: the set the thread was in until this change.
  void noteChangeLocked(int tid, uint32_t before, uint32_t id);

  struct Change {
    uint64_t timeNs;
    uint32_t id;
  };
  struct History {
    std::deque<Change> changes;
    bool cut = false;  // older changes were dropped: before the first one kept, the id is unknown
  };

  mutable std::mutex mutex_;
  size_t maxSets_;
  uint32_t nextId_ = 1;
  std::map<LabelPairs, uint32_t> ids_;
  std::unordered_map<uint32_t, const LabelPairs*> byId_;  // points into ids_'s keys
  std::unordered_map<int, uint32_t> current_;           // tid -> the id it is in (non-zero only)
  bool keepHistory_ = false;
  uint64_t readUpToNs_ = 0;  // see readUpTo
  std::unordered_map<int, History> history_;  // tid -> its recent changes (keepHistory_)
  uint64_t refused_ = 0;
};

}  // namespace candor
