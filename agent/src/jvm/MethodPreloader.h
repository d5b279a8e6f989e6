// jmethodIDs are created lazily by HotSpot; AGCT reports a NULL method for a frame whose
// jmethodID does not exist yet. Calling GetClassMethods creates them for a whole class, so we
// do it on ClassPrepare (ClassLoad is too early: CLASS_NOT_PREPARED) and, once, for every
// class loaded before profiling began.
#pragma once
#include <jvmti.h>

#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

class MethodPreloader {
 public:
  // JVMTI ClassPrepare callback body.
  static void onClassPrepare(jvmtiEnv* jvmti, jclass klass);
  // Creates jmethodIDs for all classes loaded so far; logs and records how long it took.
  static void preloadLoadedClasses(jvmtiEnv* jvmti);

  static uint64_t initialNs() { return initialNs_; }
  static uint64_t initialClasses() { return initialClasses_; }
  static uint64_t preparedNs() { return lp(preparedNs_); }
  static uint64_t preparedClasses() { return lp(preparedClasses_); }

 private:
  static uint64_t initialNs_;
  static uint64_t initialClasses_;
  static std::atomic<uint64_t> preparedNs_;
  static std::atomic<uint64_t> preparedClasses_;
};

}  // namespace candor
