#include "store/TraceStore.h"

#include <algorithm>

namespace candor {

uint32_t TraceStore::child(uint32_t parent, const ASGCT_CallFrame& f) {
  StoredFrame frame{f.method_id, f.lineno};
  bool isNew = false;
  uint32_t node = children_.findOrInsert(Edge{parent, frame}, static_cast<uint32_t>(nodes_.size()), &isNew);
  if (isNew) {
    nodes_.push_back(Node{parent, nodes_[parent].depth + 1, frame, false});
    // Java methods and stubs are named by MethodResolver while their classes are loaded; native
    // and kernel frames carry an address instead, named by the symbol tables at output time.
    bool named = isJavaMethodFrame(f) || f.lineno == kStubFrameBci;
    if (named && f.method_id != nullptr && knownMethods_.insert(f.method_id).second) newMethods_.push_back(f.method_id);
  }
  return node;
}

uint32_t TraceStore::add(const ASGCT_CallFrame* frames, int numFrames, int tid, SampleKind kind, ThreadState state,
                         uint64_t count, bool truncated, uint32_t labels) {
  size_t n = numFrames > 0 ? static_cast<size_t>(numFrames) : 0;
  size_t marker = truncated ? 1 : 0;
  static const ASGCT_CallFrame kMarker = {kTruncatedFrameBci, nullptr};
  // Root first: the marker (if any), then the frames from the outermost in.
  auto frameAt = [&](size_t d) -> const ASGCT_CallFrame& { return d < marker ? kMarker : frames[n - 1 - (d - marker)]; };
  size_t total = n + marker;
  std::vector<uint32_t>& path = lastPath_[tid];
  // The root-side frames this sample shares with the thread's previous one: reused as they are.
  size_t common = 0;
  size_t limit = std::min(path.size(), total);
  while (common < limit) {
    const ASGCT_CallFrame& f = frameAt(common);
    const StoredFrame& known = nodes_[path[common]].frame;
    if (known.method != f.method_id || known.bci != f.lineno) break;
    common++;
  }
  path.resize(common);
  uint32_t node = common > 0 ? path[common - 1] : 0;
  for (size_t d = common; d < total; d++) {
    node = child(node, frameAt(d));
    path.push_back(node);
  }
  addAgain(node, tid, kind, state, count, labels);
  return node;
}

uint32_t TraceStore::intern(const std::vector<StoredFrame>& leafFirst) {
  uint32_t node = 0;
  for (auto f = leafFirst.rbegin(); f != leafFirst.rend(); ++f) node = child(node, ASGCT_CallFrame{f->bci, f->method});
  return node;
}

void TraceStore::addAgain(uint32_t trace, int tid, SampleKind kind, ThreadState state, uint64_t count,
                          uint32_t labels) {
  if (!nodes_[trace].isTrace) {  // its first sample (an interned trace gets it here)
    nodes_[trace].isTrace = true;
    traceCount_++;
  }
  counts_.findOrInsert(Key{trace, tid, kind, state, labels}, 0) += count;
  total_ += count;
}

std::vector<StoredFrame> TraceStore::frames(uint32_t trace) const {
  std::vector<StoredFrame> out;
  out.reserve(nodes_[trace].depth);
  for (uint32_t n = trace; n != 0; n = nodes_[n].parent) out.push_back(nodes_[n].frame);
  return out;
}

std::vector<jmethodID> TraceStore::takeNewMethods() {
  std::vector<jmethodID> out;
  out.swap(newMethods_);
  return out;
}

void TraceStore::clear() {
  nodes_.resize(1);
  nodes_[0].isTrace = false;
  children_.clear();
  lastPath_.clear();
  traceCount_ = 0;
  counts_.clear();
  knownMethods_.clear();
  newMethods_.clear();
  total_ = 0;
}

size_t TraceStore::bytes() const {
  constexpr size_t kNode = 16;  // a hash node's next pointer and hash, roughly
  size_t paths = 0;
  for (const auto& [tid, path] : lastPath_) paths += sizeof(tid) + sizeof(path) + kNode + path.capacity() * sizeof(uint32_t);
  return nodes_.capacity() * sizeof(Node) + children_.bytes() + counts_.bytes() + paths +
         knownMethods_.size() * (sizeof(jmethodID) + kNode) + knownMethods_.bucket_count() * sizeof(void*);
}

}  // namespace candor
