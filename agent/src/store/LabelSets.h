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
#pragma once
#include <cstdint>
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
  static constexpr size_t kDefaultMaxSets = 65536;

  explicit LabelSets(size_t maxSets = kDefaultMaxSets) : maxSets_(maxSets) {}

  // Thread `tid` is now in `pairs` (empty: no labels): interns them and publishes the id to
  // ThreadLabels::process(). Returns the id.
  uint32_t enter(int tid, LabelPairs pairs);
  // Thread `tid` ended: it is in no set, and a new thread with its tid starts without labels.
  void forget(int tid);

  // The pairs of an id: empty for kNone or a forgotten id.
  LabelPairs pairs(uint32_t id) const;
  // The value of `key` in an id's set, or nullptr; valid until the next prune().
  const std::string* value(uint32_t id, const std::string& key) const;
  // loop=: forgets the sets no thread is in.
  void prune();

  size_t size() const;
  uint64_t refused() const;

 private:
  const LabelPairs* findLocked(uint32_t id) const;  // the set of an id (overflow included), or nullptr

  mutable std::mutex mutex_;
  size_t maxSets_;
  uint32_t nextId_ = 1;
  std::map<LabelPairs, uint32_t> ids_;
  std::unordered_map<uint32_t, const LabelPairs*> byId_;  // points into ids_'s keys
  std::unordered_map<int, uint32_t> current_;           // tid -> the id it is in (non-zero only)
  uint64_t refused_ = 0;
};

}  // namespace candor
