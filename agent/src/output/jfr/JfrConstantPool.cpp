#include "output/jfr/JfrConstantPool.h"

#include <algorithm>

#include "jvm/StubNames.h"
#include "output/jfr/JfrTypes.h"

namespace candor::jfr {

namespace {

// The entries of one pool used by one chunk, in first-use order, each once.
template <typename Value>
class ChunkUse {
 public:
  // The new entry, or nullptr when this chunk has it already.
  Value* add(uint64_t id, Value v) {
    if (!seen_.insert(id).second) return nullptr;
    list_.emplace_back(id, std::move(v));
    return &list_.back().second;
  }
  const std::vector<std::pair<uint64_t, Value>>& list() const { return list_; }

 private:
  std::unordered_set<uint64_t> seen_;
  std::vector<std::pair<uint64_t, Value>> list_;
};

struct ClassUse {
  uint64_t name;     // symbol
  uint64_t package;  // 0: unnamed package
  int32_t modifiers;
  bool hidden;
};

struct MethodUse {
  uint64_t type;  // class
  uint64_t name;  // symbol
  uint64_t descriptor;
  int32_t modifiers;
  bool hidden;
};

constexpr int32_t kNoLine = -1;  // JFR's "line number not available"

}  // namespace

std::string internalClassName(const std::string& dotted) {
  std::string s = dotted;
  std::replace(s.begin(), s.end(), '.', '/');
  return s;
}

bool isHiddenClassName(const std::string& name) {
  size_t at = name.rfind("0x");
  return at != std::string::npos && at > 0 && (name[at - 1] == '.' || name[at - 1] == '/' || name[at - 1] == '+');
}

uint64_t ConstantPools::methodId(const StoredFrame& f, const MethodInfo& info, FrameKind kind) {
  if (kind == FrameKind::kNative || kind == FrameKind::kKernel) {
    std::string key = std::string(kind == FrameKind::kKernel ? "k:" : "n:") + info.className + '\0' + info.methodName;
    auto [it, isNew] = namedMethods_.try_emplace(key, nextMethodId_);
    if (isNew) nextMethodId_++;
    return it->second;
  }
  auto [it, isNew] = methods_.try_emplace(f.method, nextMethodId_);
  if (isNew) nextMethodId_++;
  return it->second;
}

uint64_t ConstantPools::idOf(std::unordered_map<std::string, uint64_t>& map, const std::string& key) {
  auto [it, isNew] = map.try_emplace(key, map.size() + 1);
  return it->second;
}

uint64_t ConstantPools::useClass(const std::string& internalName) {
  uint64_t id = idOf(classes_, internalName);
  eventClasses_.emplace(id, internalName);
  return id;
}

void ConstantPools::writeCheckpoint(Buffer& out, uint64_t ticks, const PoolSources& src) {
  std::vector<uint32_t> traces(traces_.begin(), traces_.end());
  std::sort(traces.begin(), traces.end());
  std::vector<int> threads(threads_.begin(), threads_.end());
  std::sort(threads.begin(), threads.end());
  std::vector<uint32_t> labelSets(labelSets_.begin(), labelSets_.end());
  std::sort(labelSets.begin(), labelSets.end());
  traces_.clear();
  threads_.clear();
  labelSets_.clear();

  // Walk down from the traces: methods, their classes, packages and symbols.
  ChunkUse<MethodUse> methods;
  ChunkUse<ClassUse> classes;
  ChunkUse<uint64_t> packages;  // → name symbol
  ChunkUse<const std::string*> symbols;
  auto symbol = [&](const std::string& s) {
    uint64_t id = idOf(symbols_, s);
    symbols.add(id, &symbols_.find(s)->first);  // keys of an unordered_map stay where they are
    return id;
  };
  auto addClass = [&](uint64_t id, const std::string& className, int32_t modifiers, bool hidden) {
    ClassUse* c = classes.add(id, ClassUse{0, 0, modifiers, hidden});
    if (c == nullptr) return;
    c->name = symbol(className);
    size_t slash = className.rfind('/');
    if (slash != std::string::npos && slash > 0 && className[0] != '[') {
      std::string pkg = className.substr(0, slash);
      c->package = idOf(packages_, pkg);
      packages.add(c->package, symbol(pkg));
    }
  };
  for (const auto& [id, name] : eventClasses_) addClass(id, name, 0, false);
  eventClasses_.clear();
  chunk_++;
  if (nodeFrames_.size() < src.store->nodeCount() + 1) nodeFrames_.resize(src.store->nodeCount() + 1);
  for (uint32_t t : traces) {
    // Up from the leaf to the first node this chunk has seen: its callers are done too.
    for (uint32_t n = t; n != 0 && nodeFrames_[n].chunk != chunk_; n = src.store->parent(n)) {
      NodeFrame& nf = nodeFrames_[n];
      nf = NodeFrame{};
      nf.chunk = chunk_;
      const StoredFrame& f = src.store->frame(n);
      // JFR has a truncated flag instead; an allocation's class is its event's objectClass
      if (f.bci == kTruncatedFrameBci || f.bci == kObjectClassBci) continue;
      FrameKind kind = src.names->kind(f);
      const MethodInfo& info = src.names->method(f);
      nf.method = methodId(f, info, kind);
      if (kind != FrameKind::kJava) {  // generated code, C, kernel, markers: no bytecode
        nf.type = kind == FrameKind::kKernel                        ? kFrameKernel
                  : kind == FrameKind::kNative && info.demangled ? kFrameCpp
                                                                  : kFrameNative;
      } else {
        int32_t line = info.lineAt(f.bci);
        nf.line = line > 0 ? line : kNoLine;
        nf.bci = f.bci;
        nf.type = kFrameJitCompiled;
      }
      MethodUse* m = methods.add(nf.method, MethodUse{});
      if (m == nullptr) continue;  // this chunk has it
      // Machine code without a class (stubs, kernel frames, markers) gets an empty class name, a
      // native frame for readers; a C frame has its library as class, as async-profiler writes it.
      bool classless = kind == FrameKind::kStub || kind == FrameKind::kKernel || kind == FrameKind::kMarker;
      std::string className = classless                   ? std::string()
                              : kind == FrameKind::kNative ? info.className
                                                           : internalClassName(info.className.empty() ? "[unknown]" : info.className);
      bool hidden = isHiddenClassName(className);
      m->type = idOf(classes_, className);
      m->name = symbol(info.methodName);
      m->descriptor = symbol(info.signature.empty() ? "()V" : info.signature);
      m->modifiers = info.modifiers;
      m->hidden = hidden;
      addClass(m->type, className, info.classModifiers, hidden);
    }
  }

  Buffer p;
  p.putVarLong(kCheckpointEvent);
  p.putVarLong(ticks);
  p.putVarLong(0);  // duration
  p.putVarLong(0);  // delta to the previous checkpoint: none, one per chunk
  p.put8(0);        // checkpoint type: generic
  int pools = 2 + !threads.empty() + !traces.empty() + !methods.list().empty() + !classes.list().empty() +
              !packages.list().empty() + !symbols.list().empty() + !labelSets.empty();
  p.putVarInt(pools);

  p.putVarLong(kFrameType);
  p.putVarInt(6);
  const std::pair<FrameTypeId, const char*> frameTypes[] = {
      {kFrameInterpreted, "Interpreted"}, {kFrameJitCompiled, "JIT compiled"}, {kFrameInlined, "Inlined"},
      {kFrameNative, "Native"}, {kFrameCpp, "C++"}, {kFrameKernel, "Kernel"}};
  for (const auto& [id, name] : frameTypes) {
    p.putVarLong(id);
    p.putString(name);
  }
  p.putVarLong(kThreadState);
  p.putVarInt(static_cast<int32_t>(ThreadState::kCount));
  for (int i = 0; i < static_cast<int>(ThreadState::kCount); i++) {
    p.putVarLong(threadStateKey(static_cast<ThreadState>(i)));
    p.putString(threadStateJfrName(static_cast<ThreadState>(i)));
  }

  if (!threads.empty()) {
    p.putVarLong(kThread);
    p.putVarInt(static_cast<int32_t>(threads.size()));
    for (int tid : threads) {
      ThreadName t = src.thread(tid);
      p.putVarLong(threadKey(tid));
      p.putString(t.name);                      // osName
      p.putVarLong(threadKey(tid));             // osThreadId
      if (t.java) p.putString(t.name);          // javaName
      else p.putNullString();
      p.putVarLong(t.java ? threadKey(tid) : 0);  // javaThreadId: the Java id is not known; the tid stands in
      p.putVarLong(0);                          // group: null
    }
  }
  if (!traces.empty()) {
    p.putVarLong(kStackTrace);
    p.putVarInt(static_cast<int32_t>(traces.size()));
    for (uint32_t t : traces) {
      path_.clear();
      uint32_t root = 0;
      for (uint32_t n = t; n != 0; n = src.store->parent(n)) {
        root = n;
        if (nodeFrames_[n].method != 0) path_.push_back(n);
      }
      bool truncated = root != 0 && src.store->frame(root).bci == kTruncatedFrameBci;  // its marker is the root
      p.putVarLong(traceKey(t));
      p.putBool(truncated || (src.maxDepth > 0 && path_.size() >= src.maxDepth));
      p.putVarInt(static_cast<int32_t>(path_.size()));
      for (uint32_t n : path_) {
        const NodeFrame& nf = nodeFrames_[n];
        p.putVarLong(nf.method);
        p.putVarInt(nf.line);
        p.putVarInt(nf.bci);
        p.putVarLong(nf.type);
      }
    }
  }
  if (!methods.list().empty()) {
    p.putVarLong(kMethod);
    p.putVarInt(static_cast<int32_t>(methods.list().size()));
    for (const auto& [id, m] : methods.list()) {
      p.putVarLong(id);
      p.putVarLong(m.type);
      p.putVarLong(m.name);
      p.putVarLong(m.descriptor);
      p.putVarInt(m.modifiers);
      p.putBool(m.hidden);
    }
  }
  if (!classes.list().empty()) {
    p.putVarLong(kClass);
    p.putVarInt(static_cast<int32_t>(classes.list().size()));
    for (const auto& [id, c] : classes.list()) {
      p.putVarLong(id);
      p.putVarLong(0);  // classLoader: null
      p.putVarLong(c.name);
      p.putVarLong(c.package);
      p.putVarInt(c.modifiers);
      p.putBool(c.hidden);
    }
  }
  if (!packages.list().empty()) {
    p.putVarLong(kPackage);
    p.putVarInt(static_cast<int32_t>(packages.list().size()));
    for (const auto& [id, name] : packages.list()) {
      p.putVarLong(id);
      p.putVarLong(name);
    }
  }
  if (!symbols.list().empty()) {
    p.putVarLong(kSymbol);
    p.putVarInt(static_cast<int32_t>(symbols.list().size()));
    for (const auto& [id, s] : symbols.list()) {
      p.putVarLong(id);
      p.putString(*s);
    }
  }
  if (!labelSets.empty()) {
    p.putVarLong(kString);
    p.putVarInt(static_cast<int32_t>(labelSets.size()));
    for (uint32_t id : labelSets) {
      p.putVarLong(id);
      p.putString(labelText(src.labels != nullptr ? src.labels->pairs(id) : LabelPairs{}));
    }
  }
  out.putEvent(p);
}

}  // namespace candor::jfr
