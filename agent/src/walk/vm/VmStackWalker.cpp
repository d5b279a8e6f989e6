#include "walk/vm/VmStackWalker.h"

#include <setjmp.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/Log.h"
#include "base/Ordering.h"
#include "jvm/StubNames.h"
#include "walk/vm/CrashGuard.h"
#include "walk/vm/DecodeCache.h"
#include "walk/vm/FrameWalker.h"
#include "walk/vm/MethodIds.h"
#include "walk/vm/VmLayout.h"

namespace candor {

namespace {
VmLayout gLayout;                  // written once by enable(), before gEnabled is published
DecodeCache gDecodeCache;          // allocated by enable() unless CANDOR_TEST_NO_DECODE_CACHE=1
FrameWalker gWalker(gLayout, gDecodeCache);
constexpr uint32_t kDecodeCacheEntries = 4096;  // 1 MB of address space; pages touched as used
std::atomic<bool> gEnabled{false};
std::mutex gEnableMutex;
bool gTried = false;
bool gResult = false;

// The JavaThread of the current thread, from its eetop field (ordinary thread).
uintptr_t currentJavaThread(JNIEnv* env) {
  jclass cls = env->FindClass("java/lang/Thread");
  if (cls == nullptr) {
    env->ExceptionClear();
    return 0;
  }
  jmethodID current = env->GetStaticMethodID(cls, "currentThread", "()Ljava/lang/Thread;");
  jfieldID eetop = env->GetFieldID(cls, "eetop", "J");
  jobject thread = current != nullptr ? env->CallStaticObjectMethod(cls, current) : nullptr;
  uintptr_t result = 0;
  if (thread != nullptr && eetop != nullptr) result = static_cast<uintptr_t>(env->GetLongField(thread, eetop));
  if (env->ExceptionCheck()) env->ExceptionClear();
  if (thread != nullptr) env->DeleteLocalRef(thread);
  env->DeleteLocalRef(cls);
  return result;
}

// Whether jmethodIDs point at a slot holding their Method* (JDK 17, 25) rather than being
// counters: reads the slot of a known id under the crash guard and maps the Method* back.
bool idsArePointers(JNIEnv* env) {
  jclass cls = env->FindClass("java/lang/Thread");
  if (cls == nullptr) {
    env->ExceptionClear();
    return false;
  }
  jmethodID id = env->GetStaticMethodID(cls, "currentThread", "()Ljava/lang/Thread;");
  env->DeleteLocalRef(cls);
  auto value = reinterpret_cast<uintptr_t>(id);
  if (id == nullptr || value < 4096 || (value & 7) != 0) return false;
  MethodIds ids(gLayout);
  CrashGuard::Region guard;
  volatile bool pointers = false;
  if (sigsetjmp(guard.jump, 0) == 0) {
    CrashGuard::arm_signalSafe(&guard);
    pointers = ids.idOf_signalSafe(*reinterpret_cast<const volatile uintptr_t*>(value)) == id;
    CrashGuard::disarm_signalSafe(&guard);
  }
  return pointers;
}
// Without a compile id a hit could not be told from a new nmethod at the same address: no cache.
void initDecodeCache() {
  const char* off = getenv("CANDOR_TEST_NO_DECODE_CACHE");  // measures the walker without it
  if (off != nullptr && strcmp(off, "1") == 0) logInfo("own stack walker: decode cache off (test switch)");
  else if (gLayout.nmCompileId.off < 0) logInfo("own stack walker: no nmethod::_compile_id; decode cache off");
  else if (!gDecodeCache.init(kDecodeCacheEntries)) logInfo("own stack walker: cannot map the decode cache; it is off");
}
}  // namespace

bool VmStackWalker::prepare(jvmtiEnv* jvmti, JNIEnv* env, std::string* missing) {
  if (!VmLayoutLoader::load(&gLayout, missing)) return false;
  uintptr_t thread = currentJavaThread(env);
  intptr_t offset = reinterpret_cast<intptr_t>(env) - static_cast<intptr_t>(thread);
  if (thread == 0 || offset <= 0 || offset > 64 * 1024) {
    *missing = "the JNIEnv's place in JavaThread";
    return false;
  }
  gLayout.envOffset = offset;
  std::string why;
  if (!CrashGuard::install(&why)) {
    *missing = "crash protection (" + why + ")";
    return false;
  }
  gLayout.jmethodIdIsPointer = idsArePointers(env);
  initDecodeCache();
  // Stub names: every stub generated so far now, later ones as they come.
  if (jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, nullptr) != JVMTI_ERROR_NONE ||
      jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED) != JVMTI_ERROR_NONE) {
    logInfo("own stack walker: no stub names from JVMTI; stubs are named by their code blob");
  }
  return true;
}

bool VmStackWalker::enable(jvmtiEnv* jvmti, JNIEnv* env) {
  std::lock_guard<std::mutex> lock(gEnableMutex);
  if (gTried) return gResult;
  gTried = true;
  std::string missing;
  gResult = prepare(jvmti, env, &missing);
  if (!gResult) logError("own stack walker unavailable: %s; using AsyncGetCallTrace", missing.c_str());
  else logInfo("own stack walker ready: %d code heaps, jmethodIDs %s", gLayout.heapCount,
               gLayout.jmethodIdIsPointer ? "checked against their Method*" : "are counters");
  so(gEnabled, gResult);
  return gResult;
}

bool VmStackWalker::enabled() { return lv(gEnabled); }

int32_t VmStackWalker::walk_signalSafe(JNIEnv* env, void* ucontext, ASGCT_CallFrame* frames, int32_t max,
                                       const SampledRegs* cFramesEnd) {
  if (!lv(gEnabled)) return -1;
  uintptr_t thread = reinterpret_cast<uintptr_t>(env) - gLayout.envOffset;
  CrashGuard::Region guard;
  // volatile: the result must survive a siglongjmp back here.
  volatile int32_t result = kWalkFaultCode;
  if (sigsetjmp(guard.jump, 0) == 0) {
    CrashGuard::arm_signalSafe(&guard);
    result = gWalker.walk_signalSafe(thread, ucontext, frames, max, nullptr, cFramesEnd);
    CrashGuard::disarm_signalSafe(&guard);
  }
  return result;
}

int32_t VmStackWalker::walkCopy_signalSafe(uintptr_t thread, StackCopy* copy, ASGCT_CallFrame* frames, int32_t max) {
  if (!lv(gEnabled)) return -1;
  CrashGuard::Region guard;
  volatile int32_t result = kWalkFaultCode;
  if (sigsetjmp(guard.jump, 0) == 0) {
    CrashGuard::arm_signalSafe(&guard);
    result = gWalker.walk_signalSafe(thread, nullptr, frames, max, copy);
    CrashGuard::disarm_signalSafe(&guard);
  }
  return result;
}

void VmStackWalker::onCompiledMethodUnload(const void* codeAddr) {
  gDecodeCache.invalidate(reinterpret_cast<uintptr_t>(codeAddr));
}

void VmStackWalker::logDecodeCacheStats() {
  DecodeCacheStats s = gDecodeCache.takeStats();
  uint64_t lookups = s.hits + s.misses + s.stale;
  if (lookups == 0) return;
  logInfo("own walker decode cache: %llu hits, %llu misses, %llu stale (%.1f%% hits); %llu writes skipped; "
          "%llu entries invalidated by %llu unloads",
          static_cast<unsigned long long>(s.hits), static_cast<unsigned long long>(s.misses),
          static_cast<unsigned long long>(s.stale), 100.0 * static_cast<double>(s.hits) / static_cast<double>(lookups),
          static_cast<unsigned long long>(s.skipped), static_cast<unsigned long long>(s.invalidated),
          static_cast<unsigned long long>(s.unloads));
}

void VmStackWalker::onDynamicCode(const char* name, const void* address, jint length) {
  if (length > 0) StubNames::addRange(address, static_cast<size_t>(length), name);
}

}  // namespace candor
