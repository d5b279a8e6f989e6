#include "engine/LockSampler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "jvm/ClassNames.h"
#include "jvm/JvmtiFrames.h"

namespace candor {

namespace {

using ParkFn = void(JNICALL*)(JNIEnv*, jobject, jboolean, jlong);

// The session's sink; null while no session records locks. As in AllocSampler: a callback
// announces itself in `gInFlight` (seq_cst) before it reads the sink, and stop() clears the sink
// before it waits for `gInFlight` to reach 0. A wait is timed outside that window (it may last
// forever); only the recording after it is inside.
std::atomic<JvmtiSampleSink*> gSink{nullptr};
std::atomic<int> gInFlight{0};
// Each session has a number, so a wait that began in an earlier session is never charged to
// this one. Written before gSink is published, like the threshold and depth.
std::atomic<uint32_t> gSession{0};
int64_t gThresholdNs = 0;
uint32_t gMaxDepth = 0;
jvmtiEnv* gJvmti = nullptr;

// The park wrapper's state: bound once for the process (see the header).
std::mutex gBindMutex;
ParkFn gOriginalPark = nullptr;  // written once under gBindMutex, before the wrapper is bound
bool gParkBound = false;
jclass gLockSupport = nullptr;   // global references, made before the wrapper is bound
jclass gThread = nullptr;
jclass gOwnableSynchronizer = nullptr;
jmethodID gGetBlocker = nullptr;
jmethodID gCurrentThread = nullptr;

// Where a thread's monitor wait began (written on MonitorContendedEnter, read on Entered).
thread_local uint64_t tMonitorEnterNs = 0;
thread_local uint32_t tMonitorSession = 0;

int currentTid() {
  thread_local int tid = static_cast<int>(syscall(SYS_gettid));
  return tid;
}

uint32_t classIdOf(JNIEnv* env, jobject object) {
  if (object == nullptr) return 0;
  jclass klass = env->GetObjectClass(object);
  uint32_t id = ClassNames::instance().intern(gJvmti, klass);
  if (klass != nullptr) env->DeleteLocalRef(klass);
  return id;
}

// One wait of `waitedNs` (already at or above the threshold) by the current thread, in session
// `session`, on an object of class `classId`.
void recordWait(uint32_t session, ThreadState state, uint32_t classId, uint64_t waitedNs) {
  addSc(gInFlight, 1);
  JvmtiSampleSink* sink = lvSc(gSink);
  if (sink != nullptr && lp(gSession) == session) {
    thread_local JvmtiFrames frames;  // the thread's own
    jint count = 0;
    bool cut = false;
    jvmtiError error = frames.stackTrace(gJvmti, nullptr, gMaxDepth, &count, &cut);
    sink->recordValued(currentTid(), SampleKind::kLock, state, frames.data(), count, error, classId, waitedNs, cut);
  }
  subOrdered(gInFlight, 1);  // release: stop() (seq_cst load) sees every use of the sink before it
}

// The class of the lock a park waits for, or 0 when the park is not a lock wait (a Condition,
// a pool's idle park, no blocker) or no session records locks. Calls Java: the thread is in
// Unsafe.park's native frame, where JNI calls are allowed. A pending exception (a
// StackOverflowError in getBlocker) is cleared: the park then runs untimed, as if unhooked.
uint32_t lockClassOfBlocker(JNIEnv* env) {
  jobject thread = env->CallStaticObjectMethod(gThread, gCurrentThread);
  jobject blocker = thread != nullptr && !env->ExceptionCheck()
                        ? env->CallStaticObjectMethod(gLockSupport, gGetBlocker, thread)
                        : nullptr;
  uint32_t id = 0;
  if (env->ExceptionCheck()) {
    env->ExceptionClear();
  } else if (blocker != nullptr && env->IsInstanceOf(blocker, gOwnableSynchronizer)) {
    id = classIdOf(env, blocker);
    if (id == 0) id = ClassNames::instance().intern("Ljava/util/concurrent/locks/AbstractOwnableSynchronizer;");
  }
  if (blocker != nullptr) env->DeleteLocalRef(blocker);
  if (thread != nullptr) env->DeleteLocalRef(thread);
  return id;
}

// Unsafe.park's native method while bound (any Java thread that parks). Passes straight
// through unless a session records locks and the park waits for a lock.
void JNICALL parkWrapper(JNIEnv* env, jobject unsafe, jboolean isAbsolute, jlong time) {
  uint32_t session = lp(gSession);
  uint32_t classId = lvSc(gSink) != nullptr ? lockClassOfBlocker(env) : 0;
  if (classId == 0) {
    gOriginalPark(env, unsafe, isAbsolute, time);
    return;
  }
  uint64_t begin = monotonicNs();
  gOriginalPark(env, unsafe, isAbsolute, time);
  uint64_t waited = monotonicNs() - begin;
  if (static_cast<int64_t>(waited) >= gThresholdNs) recordWait(session, ThreadState::kParked, classId, waited);
}

// Calls com.sun.management DiagnosticCommand's `vmLog` with one argument ("what=jni+resolve=off").
// HotSpot warns on stdout when code outside the boot loader re-binds a platform native; the
// warning is about us, and the application's stdout is not ours to write to.
bool vmLog(JNIEnv* env, const char* argument) {
  bool ok = false;
  jclass factory = env->FindClass("java/lang/management/ManagementFactory");
  jclass nameClass = env->FindClass("javax/management/ObjectName");
  jclass serverClass = env->FindClass("javax/management/MBeanServerConnection");
  jclass stringClass = env->FindClass("java/lang/String");
  jclass objectClass = env->FindClass("java/lang/Object");
  if (factory && nameClass && serverClass && stringClass && objectClass && !env->ExceptionCheck()) {
    jmethodID getServer =
        env->GetStaticMethodID(factory, "getPlatformMBeanServer", "()Ljavax/management/MBeanServer;");
    jmethodID newName = env->GetMethodID(nameClass, "<init>", "(Ljava/lang/String;)V");
    jmethodID invoke = env->GetMethodID(serverClass, "invoke",
                                        "(Ljavax/management/ObjectName;Ljava/lang/String;[Ljava/lang/Object;"
                                        "[Ljava/lang/String;)Ljava/lang/Object;");
    if (getServer && newName && invoke) {
      jobject server = env->CallStaticObjectMethod(factory, getServer);
      jobject name = env->ExceptionCheck() ? nullptr
                                           : env->NewObject(nameClass, newName,
                                                            env->NewStringUTF("com.sun.management:type=DiagnosticCommand"));
      jobjectArray args = env->NewObjectArray(1, stringClass, env->NewStringUTF(argument));
      jobjectArray params = env->NewObjectArray(1, objectClass, args);
      jobjectArray signature = env->NewObjectArray(1, stringClass, env->NewStringUTF("[Ljava.lang.String;"));
      if (server && name && args && params && signature && !env->ExceptionCheck()) {
        env->CallObjectMethod(server, invoke, name, env->NewStringUTF("vmLog"), params, signature);
        ok = !env->ExceptionCheck();
      }
    }
  }
  if (env->ExceptionCheck()) env->ExceptionClear();
  return ok;
}

jclass globalClass(JNIEnv* env, const char* name) {
  jclass local = env->FindClass(name);
  if (local == nullptr) return nullptr;
  auto global = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return global;
}

// Binds parkWrapper once for the process; false with the reason.
bool bindPark(JNIEnv* env, void* unsafePark, std::string* why) {
  std::lock_guard<std::mutex> lock(gBindMutex);
  if (gParkBound) return true;
  if (unsafePark == nullptr) return false;  // *why is the caller's already
  jclass unsafe = env->FindClass("jdk/internal/misc/Unsafe");
  gLockSupport = globalClass(env, "java/util/concurrent/locks/LockSupport");
  gThread = globalClass(env, "java/lang/Thread");
  gOwnableSynchronizer = globalClass(env, "java/util/concurrent/locks/AbstractOwnableSynchronizer");
  if (unsafe == nullptr || !gLockSupport || !gThread || !gOwnableSynchronizer || env->ExceptionCheck()) {
    env->ExceptionClear();
    *why = "the JDK's Unsafe or LockSupport class is not found";
    return false;
  }
  gGetBlocker = env->GetStaticMethodID(gLockSupport, "getBlocker", "(Ljava/lang/Thread;)Ljava/lang/Object;");
  gCurrentThread = env->GetStaticMethodID(gThread, "currentThread", "()Ljava/lang/Thread;");
  if (gGetBlocker == nullptr || gCurrentThread == nullptr) {
    env->ExceptionClear();
    *why = "LockSupport.getBlocker is not found";
    return false;
  }
  gOriginalPark = reinterpret_cast<ParkFn>(unsafePark);
  bool quiet = vmLog(env, "what=jni+resolve=off");
  JNINativeMethod park = {const_cast<char*>("park"), const_cast<char*>("(ZJ)V"), reinterpret_cast<void*>(parkWrapper)};
  jint rc = env->RegisterNatives(unsafe, &park, 1);
  if (quiet) vmLog(env, "what=jni+resolve=warning");
  env->DeleteLocalRef(unsafe);
  if (rc != JNI_OK || env->ExceptionCheck()) {
    env->ExceptionClear();
    *why = "the JVM refused to re-bind Unsafe.park";
    return false;
  }
  gParkBound = true;
  return true;
}

}  // namespace

bool LockSampler::start(jvmtiEnv* jvmti, JNIEnv* env, int64_t thresholdNs, uint32_t maxDepth, JvmtiSampleSink* sink,
                        void* unsafePark, std::string* parkWhy, std::string* why) {
  jvmtiCapabilities caps = {};
  caps.can_generate_monitor_events = 1;
  if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) {
    *why = "this JVM does not offer monitor events to agents (can_generate_monitor_events)";
    return false;
  }
  gJvmti = jvmti;
  gThresholdNs = thresholdNs;
  gMaxDepth = maxDepth;
  if (!bindPark(env, unsafePark, parkWhy)) {
    if (parkWhy->empty()) *parkWhy = "Unsafe.park cannot be hooked";
  } else {
    parkWhy->clear();
  }
  addSc(gSession, 1);
  sv(gSink, sink);
  const jvmtiEvent events[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED};
  for (jvmtiEvent e : events) {
    if (jvmti->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr) != JVMTI_ERROR_NONE) {
      stop(jvmti);
      *why = "the JVM refused to enable monitor contention events";
      return false;
    }
  }
  return true;
}

void LockSampler::stop(jvmtiEnv* jvmti) {
  if (jvmti != nullptr) {
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, nullptr);
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, nullptr);
  }
  sv(gSink, nullptr);
  while (lvSc(gInFlight) != 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
}

void JNICALL LockSampler::onContendedEnter(jvmtiEnv*, JNIEnv*, jthread, jobject) {
  tMonitorSession = lp(gSession);
  tMonitorEnterNs = monotonicNs();
}

void JNICALL LockSampler::onContendedEntered(jvmtiEnv*, JNIEnv* env, jthread, jobject object) {
  uint64_t begin = tMonitorEnterNs;
  tMonitorEnterNs = 0;
  if (begin == 0 || lvSc(gSink) == nullptr) return;
  uint64_t waited = monotonicNs() - begin;
  if (static_cast<int64_t>(waited) < gThresholdNs) return;
  recordWait(tMonitorSession, ThreadState::kMonitor, classIdOf(env, object), waited);
}

}  // namespace candor
