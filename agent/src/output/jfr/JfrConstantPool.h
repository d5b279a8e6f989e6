// The constant-pool (checkpoint) event of a chunk: threads, stack traces, methods, classes,
// packages, symbols, frame types, thread states and label sets (as strings), limited to what the chunk's events
// reference, so that every chunk stands alone and its size follows its events, not the run.
//
// Layout: size, type id 1, start time, duration, delta to the previous checkpoint (0: none),
// a type byte, the number of pools, then per pool: type id, entry count (never 0: the JDK's
// parser rejects empty pools), entries (id, then the type's fields in metadata order).
//
// Entry ids are stable for the whole recording (stack trace = store trace id + 1, thread = tid,
// a label set's text in the java.lang.String pool = its LabelSets id,
// methods, classes, packages and symbols numbered on first use): the JDK's parser reuses an
// entry resolved in an earlier chunk when its id comes back. Id 0 is a null reference.
#pragma once
#include <jni.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "output/FrameNamer.h"
#include "output/jfr/JfrBuffer.h"
#include "store/LabelSets.h"
#include "store/TraceStore.h"

namespace candor::jfr {

struct ThreadName {
  std::string name;
  bool java = true;  // a Java thread (javaName and javaThreadId set) or a JVM-internal one
};

// Where the pool entries come from. Writer thread only.
struct PoolSources {
  const TraceStore* store = nullptr;                         // traces by id
  FrameNamer* names = nullptr;                              // resolved names, modifiers, lines
  std::function<ThreadName(int tid)> thread;
  uint32_t maxDepth = 0;                                    // a trace this deep may be truncated
  const LabelSets* labels = nullptr;                        // label sets by id (none: every set is empty)
};

class ConstantPools {
 public:
  static uint64_t traceKey(uint32_t traceId) { return uint64_t(traceId) + 1; }
  static uint64_t threadKey(int tid) { return static_cast<uint32_t>(tid); }

  // Called for every event of the chunk.
  void useThread(int tid) { threads_.insert(tid); }
  void useTrace(uint32_t traceId) { traces_.insert(traceId); }
  // An event's labels field: a null string for no labels, else a reference into this chunk's
  // string pool, whose entry (the set's text, store/LabelSets labelText) is keyed by the set's id.
  void putLabels(Buffer& event, uint32_t labelSet) {
    if (labelSet == 0) {
      event.putNullString();
      return;
    }
    labelSets_.insert(labelSet);
    event.putStringRef(labelSet);
  }
  // The id of a class an event names by itself (an allocation's objectClass), in internal form
  // ("java/lang/String", "[B"); its entry goes in this chunk's pool.
  uint64_t useClass(const std::string& internalName);

  // Appends the chunk's checkpoint event and forgets what this chunk used.
  void writeCheckpoint(Buffer& out, uint64_t ticks, const PoolSources& src);

  // Entries kept for the whole recording (ids of methods, classes, packages, symbols).
  size_t stableEntries() const { return methods_.size() + namedMethods_.size() + classes_.size() + packages_.size() + symbols_.size(); }

 private:
  // Stable ids: the same value gets the same id in every chunk.
  static uint64_t idOf(std::unordered_map<std::string, uint64_t>& map, const std::string& key);

  std::unordered_set<int> threads_;      // this chunk's
  std::unordered_set<uint32_t> traces_;  // this chunk's
  std::unordered_set<uint32_t> labelSets_;  // this chunk's
  std::unordered_map<uint64_t, std::string> eventClasses_;  // this chunk's, by id
  // A frame's method id: by jmethodID (Java methods, stubs) or by name (native and kernel
  // frames, whose pcs differ within one function).
  uint64_t methodId(const StoredFrame& f, const MethodInfo& info, FrameKind kind);
  std::unordered_map<jmethodID, uint64_t> methods_;
  std::unordered_map<std::string, uint64_t> namedMethods_;
  uint64_t nextMethodId_ = 1;
  std::unordered_map<std::string, uint64_t> classes_;
  std::unordered_map<std::string, uint64_t> packages_;
  std::unordered_map<std::string, uint64_t> symbols_;

  // A frame as the chunk's stack trace pool writes it, worked out once per store node and chunk:
  // traces share their callers (the store is a prefix tree), so a chunk's traces, ~100 frames deep
  // and thousands of them at 100us, name far fewer nodes than frames. Valid while `chunk` is the
  // current chunk's number (the store may have been emptied since an earlier one: loop=).
  struct NodeFrame {
    uint64_t method = 0;  // 0: a marker the pool leaves out (truncated, allocated class)
    uint32_t chunk = 0;
    int32_t line = -1;
    int32_t bci = -1;
    uint32_t type = 0;  // FrameTypeId
  };
  std::vector<NodeFrame> nodeFrames_;  // by store node
  uint32_t chunk_ = 0;
  std::vector<uint32_t> path_;  // scratch: one trace's nodes, leaf first
};

// "java.util.HashMap" → "java/util/HashMap" (JFR names classes in internal form).
std::string internalClassName(const std::string& dotted);
// Hidden classes (lambda forms, lambdas) carry a ".0x…" or "+0x…" suffix after their name.
bool isHiddenClassName(const std::string& name);

}  // namespace candor::jfr
