// The classes allocation samples name: a JVM class signature ("[B", "Ljava/lang/String;") gets a
// small id the first time it is seen, so that a sample carries 4 bytes instead of a string, and
// the writer names the id later (a class may be unloaded by then; its name is kept here).
//
// Thread context: intern() runs in JVMTI SampledObjectAlloc callbacks on any Java thread (never a
// signal handler: it locks and allocates); the writer reads names. One mutex guards both; an id
// is never reused, so a name read once stays right. The table lives for the process (a later
// session's samples may name the same ids); with loop=, startInterval() forgets the classes no
// sample of the last two intervals named, so that class churn does not grow it for days.
#pragma once
#include <jvmti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace candor {

class ClassNames {
 public:
  static ClassNames& instance();

  // The id of a class signature; ids start at 1 (0 means unknown).
  uint32_t intern(const char* signature);
  // The id of a class the JVM hands over (JVMTI GetClassSignature); 0 when it cannot be named.
  uint32_t intern(jvmtiEnv* jvmti, jclass klass);
  // "byte[]", "java.lang.String", "java.lang.Object[][]"; "[unknown class]" for an unknown id.
  std::string javaName(uint32_t id) const;
  // The signature as the JVM wrote it ("[B", "Ljava/lang/String;"); "" for an unknown id.
  std::string signature(uint32_t id) const;

  // "[B" → "byte[]", "Ljava/lang/String;" → "java.lang.String", "[[Lx/Y;" → "x.Y[][]".
  static std::string javaNameOf(const std::string& signature);

  // loop=: a new interval begins (writer thread, after the ended interval's outputs); classes
  // interned in neither that interval nor the one before are forgotten.
  void startInterval();
  size_t size() const;

 private:
  struct Entry {
    std::string signature;
    uint32_t lastInterval;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::unordered_map<uint32_t, Entry> byId_;
  uint32_t nextId_ = 1;  // 0 means unknown
  uint32_t interval_ = 0;
};

}  // namespace candor
