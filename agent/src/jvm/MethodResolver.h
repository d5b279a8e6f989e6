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
  // For tests: `method` resolves to `info` without JVMTI.
  void rememberForTest(jmethodID method, MethodInfo info) {
    info.resolved = true;
    cache_[method] = std::move(info);
  }

 private:
  jvmtiEnv* jvmti_;
  std::unordered_map<jmethodID, MethodInfo> cache_;
};

// "Ljava/util/HashMap;" → "java.util.HashMap"; hidden-class suffixes are kept as HotSpot names them.
std::string javaClassName(const char* signature);

}  // namespace candor
