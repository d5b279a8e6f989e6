#include "jvm/MethodPreloader.h"

#include <time.h>

#include "base/Log.h"
#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "jvm/Jvm.h"

namespace candor {

uint64_t MethodPreloader::initialNs_ = 0;
uint64_t MethodPreloader::initialClasses_ = 0;
std::atomic<uint64_t> MethodPreloader::preparedNs_{0};
std::atomic<uint64_t> MethodPreloader::preparedClasses_{0};

namespace {
uint64_t threadCpuNs() { return clockNs(CLOCK_THREAD_CPUTIME_ID); }

bool createMethodIds(jvmtiEnv* jvmti, jclass klass) {
  jint count = 0;
  jmethodID* methods = nullptr;
  if (jvmti->GetClassMethods(klass, &count, &methods) != JVMTI_ERROR_NONE) return false;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
  return true;
}
}  // namespace

void MethodPreloader::onClassPrepare(jvmtiEnv* jvmti, jclass klass) {
  uint64_t t0 = threadCpuNs();
  createMethodIds(jvmti, klass);
  addPlain(preparedNs_, threadCpuNs() - t0);
  addPlain(preparedClasses_, 1);
}

void MethodPreloader::preloadLoadedClasses(jvmtiEnv* jvmti) {
  uint64_t t0 = threadCpuNs();
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) {
    logError("cannot list loaded classes; frames of early classes may show as unknown");
    return;
  }
  uint64_t done = 0;
  JNIEnv* env = Jvm::currentEnv();
  for (jint i = 0; i < count; i++) {
    jint status = 0;
    // Array and primitive classes have no methods; unprepared ones get ClassPrepare later.
    if (jvmti->GetClassStatus(classes[i], &status) == JVMTI_ERROR_NONE &&
        (status & JVMTI_CLASS_STATUS_PREPARED) != 0 &&
        (status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) == 0 &&
        createMethodIds(jvmti, classes[i])) {
      done++;
    }
    if (env != nullptr) env->DeleteLocalRef(classes[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
  initialNs_ += threadCpuNs() - t0;
  initialClasses_ += done;
}

}  // namespace candor
