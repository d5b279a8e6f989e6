// jmethodID → class, method, signature and line table. Writer thread only, never the handler:
// every call here is a JVMTI call that may allocate and take locks.
#pragma once
#include <jvmti.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace candor {

struct MethodInfo {
  std::string className;  // dotted: java.util.HashMap
  std::string methodName;
  std::string signature;
  std::vector<std::pair<int32_t, int32_t>> lines;  // (start bci, line), ascending by bci
  int32_t modifiers = 0;       // JVM access flags of the method (JVMTI GetMethodModifiers)
  int32_t classModifiers = 0;  // and of its declaring class (GetClassModifiers); for JFR output
  bool resolved = false;
  bool demangled = false;  // a native frame whose C++ symbol was demangled (JFR type C++)
  uint32_t lastInterval = 0;  // the last loop= interval that named it (caches forget the others)

  // The heap this entry holds, roughly (strings and line table, not the map's node).
  size_t bytes() const;

  // "pkg.Class.method", or "pkg.Class.method:line" when withLine and a line is known.
  std::string frameName(int32_t bci, bool withLine) const;
  int32_t lineAt(int32_t bci) const;
};

class MethodResolver {
 public:
  explicit MethodResolver(jvmtiEnv* jvmti) : jvmti_(jvmti) {}
  // Resolves (and caches) a method; an unresolvable one gets a placeholder name.
  const MethodInfo& resolve(jmethodID method);
  void clear() { cache_.clear(); }
  // loop=: a new interval begins. Methods named in neither the interval that ended nor the one
  // before are forgotten, so that the cache follows the code that runs, not every method the JVM
  // ever ran (classes unload; generated classes come and go). A method sampled again is resolved
  // again, while its class is loaded: the drain resolves new methods at once.
  void startInterval();
  size_t size() const { return cache_.size(); }
  size_t bytes() const;
  // For tests: `method` resolves to `info` without JVMTI.
  void rememberForTest(jmethodID method, MethodInfo info) {
    info.resolved = true;
    cache_[method] = std::move(info);
  }

 private:
  jvmtiEnv* jvmti_;
  std::unordered_map<jmethodID, MethodInfo> cache_;
  uint32_t interval_ = 0;
};

// Caches of MethodInfo by key (methods, native pcs, kernel addresses): forgets the entries that
// neither interval `ended` nor the one before it named.
template <typename Map>
void forgetOlderThan(Map& cache, uint32_t ended) {
  for (auto it = cache.begin(); it != cache.end();) {
    if (it->second.lastInterval + 1 < ended) it = cache.erase(it);
    else ++it;
  }
}
// The memory a cache of MethodInfo takes, roughly (nodes, buckets and the entries' heap).
template <typename Map>
size_t cacheBytes(const Map& cache) {
  size_t sum = cache.bucket_count() * sizeof(void*);
  for (const auto& [key, info] : cache) sum += sizeof(key) + sizeof(info) + 16 + info.bytes();
  return sum;
}

// "Ljava/util/HashMap;" → "java.util.HashMap"; hidden-class suffixes are kept as HotSpot names them.
std::string javaClassName(const char* signature);

}  // namespace candor
