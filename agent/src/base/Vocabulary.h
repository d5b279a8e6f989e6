// The agent's shared vocabulary, at the bottom of the layers so that every other folder may use
// it (the role async-profiler's vmEntry.h plays): the frame a walker writes, the pseudo-bcis that
// mark frames which are not Java bytecode, the kinds of sample and thread states, the named
// buckets a tick can land in with the failure codes walkers store, and the counters the signal
// handler keeps. Plain types and constants only; nothing here calls anything.
#pragma once
#include <jni.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace candor {

// ---- Frames -------------------------------------------------------------------------------
// AsyncGetCallTrace's types: exported by libjvm.so but not declared in jvmti.h. Every walker
// (AGCT, candor's own, the native unwinder) writes this frame.
struct ASGCT_CallFrame {
  jint lineno;          // bci for Java frames, else one of the pseudo-bcis below
  jmethodID method_id;  // a jmethodID, or what the pseudo-bci says
};

struct ASGCT_CallTrace {
  JNIEnv* env_id;
  jint num_frames;      // > 0 frames, or an error code <= 0
  ASGCT_CallFrame* frames;
};

using AsyncGetCallTraceFn = void (*)(ASGCT_CallTrace*, jint depth, void* ucontext);

// Pseudo-bcis: a frame whose lineno is one of these is not a Java frame at a bytecode index.
// A Java native method (AGCT's own value); method_id is its jmethodID.
constexpr jint kNativeMethodBci = -3;
// Generated code that is not a Java method (StubRoutines, adapters): method_id is a StubNames tag.
constexpr jint kStubFrameBci = -100;
// The marker below a stack that filled its frame buffer: its outermost callers may be missing.
// method_id is null.
constexpr jint kTruncatedFrameBci = -101;
// A C/C++ frame (libc, a JNI library, libjvm): method_id is its pc, named at the writer.
constexpr jint kNativeFrameBci = -110;
// A kernel frame from perf's callchain: method_id is the kernel address.
constexpr jint kKernelFrameBci = -111;
// Kernel frames kept per tick (perf's sample_max_stack): the deepest syscall paths are about 40.
constexpr int32_t kMaxKernelFrames = 64;
// Kernel time that was not sampled (perf did not allow it) but is known from the thread's CPU
// clock: the marker on top of the Java stack it is charged to. method_id is null.
constexpr jint kKernelUnsampledBci = -112;
// The class of an allocation sample's object or of a lock sample's lock, on top of its stack:
// method_id is the class's id in jvm/ClassNames (not a pointer).
constexpr jint kObjectClassBci = -113;
// The handler's marker, in place of kKernelUnsampledBci, on kernel time a thread owed and pays away
// from a system call (past PerfEngine::kOwedAtTickIntervals, at a tick in whatever code runs then).
// The consumer (SampleAccounting) moves those ticks to the thread's last system-call site, where
// its kernel time has been found; with none yet, they stay here as [kernel_unsampled]. So no output
// ever sees this marker.
constexpr jint kKernelDebtBci = -114;


// True for a frame whose method_id is a jmethodID that JVMTI can name.
inline bool isJavaMethodFrame(const ASGCT_CallFrame& f) {
  return f.lineno >= kNativeMethodBci && f.method_id != nullptr;
}

// ---- Samples ------------------------------------------------------------------------------
// What kind of sample a tick is (which mechanism took it).
enum class SampleKind : uint8_t {
  kCpu = 0,        // CPU-time engine signal (cpu, ctimer, itimer)
  kWall = 1,       // wall-clock sampler: tgkill/sigqueue to a chosen thread
  kSafepoint = 2,  // JVMTI GetThreadListStackTraces (global safepoint)
  kHandshake = 3,  // JVMTI GetStackTrace per thread (per-thread handshake)
  kAlloc = 4,      // JVMTI SampledObjectAlloc: an allocation, weighted in bytes (SampleSlot::value)
  kLock = 5,       // a contended monitor (JVMTI) or a park on a j.u.c lock, weighted in ns waited
  kCount = 6,
};

inline const char* sampleKindName(SampleKind k) {
  static const char* const kNames[] = {"cpu", "wall", "safepoint", "handshake", "alloc", "lock"};
  return kNames[static_cast<int>(k)];
}

// Kinds whose samples are weighted by a measure of their own (SampleSlot::value: bytes, ns)
// rather than counted: they get their own profile, apart from the profile of time.
inline bool isValueKind(SampleKind k) { return k == SampleKind::kAlloc || k == SampleKind::kLock; }

// The thread state a sample saw.
enum class ThreadState : uint8_t {
  kUnknown = 0,
  kRunning = 1,    // in Java, used CPU since the last look
  kRunnable = 2,   // in Java, but no CPU since the last look (waiting for a core)
  kSleeping = 3,   // Thread.sleep
  kMonitor = 4,    // blocked entering a monitor (synchronized)
  kWaiting = 5,    // Object.wait and other waits
  kParked = 6,     // LockSupport.park (j.u.c locks, pools)
  kNative = 7,     // in native code, using CPU
  kIo = 8,         // in native code without CPU: blocked in a system call (I/O)
  kCount = 9,
};

inline const char* threadStateName(ThreadState s) {
  static const char* const kNames[] = {"unknown", "running", "runnable", "sleeping", "monitor",
                                       "waiting", "parked",  "native",   "io"};
  return kNames[static_cast<int>(s)];
}

inline bool isIdleState(ThreadState s) {
  return s == ThreadState::kSleeping || s == ThreadState::kMonitor || s == ThreadState::kWaiting ||
         s == ThreadState::kParked || s == ThreadState::kIo;
}

// ---- Buckets and failure codes ------------------------------------------------------------
// The named buckets a tick can land in besides a recorded stack. AGCT error codes 0..-10 map to
// their own names; candor adds its own codes below them. `dropped` is counted apart (the tick
// never reached the ring), so it has no code.
enum class Bucket : int {
  kNoJavaFrame = 0,            // AGCT ticks_no_Java_frame
  kNoClassLoad = 1,            // -1
  kGcActive = 2,               // -2
  kUnknownNotJava = 3,         // -3
  kNotWalkableNotJava = 4,     // -4
  kUnknownJava = 5,            // -5
  kNotWalkableJava = 6,        // -6
  kUnknownState = 7,           // -7
  kThreadExit = 8,             // -8
  kDeopt = 9,                  // -9
  kSafepoint = 10,             // -10
  kNotJavaThread = 11,         // candor: signal hit a thread without a JNIEnv
  kWalkFault = 12,             // candor: the own walker (walk=vm) read bad memory; crash guard caught it
  kRemoteBusy = 13,            // candor: walk=remote, every request slot was taken
  kRemoteTimeout = 14,         // candor: walk=remote, no walker took the request within its timeout
  kUnknownError = 15,          // an AGCT code this build does not know
  kWalkThrottled = 16,         // candor: not walked, the thread's last walk took over half its interval
  kCpuUnsampled = 17,          // candor: percpu, a thread's CPU time that no tick covered (from its CPU clock)
  kSignalLost = 18,            // candor: ticks of a CPU signal another handler took over (from the CPU clocks)
  kCount = 19,
};

// AGCT's own codes that candor's walkers return too, so failures land in the same buckets.
constexpr int32_t kNoJavaFrameCode = 0;
constexpr int32_t kUnknownNotJavaCode = -3;
constexpr int32_t kUnknownJavaCode = -5;
constexpr int32_t kNotWalkableJavaCode = -6;
constexpr int32_t kUnknownStateCode = -7;
// numFrames value a handler stores for a thread without a JNIEnv.
constexpr int32_t kNotJavaThreadCode = -1000;
// numFrames value of a wall sample of a thread that stayed idle since its last sample: the
// sampler records it without a signal, and the consumer repeats that thread's last result.
constexpr int32_t kRepeatLastCode = -1001;
// numFrames value of a walk=vm tick whose walk faulted and was caught by the crash guard.
constexpr int32_t kWalkFaultCode = -1002;
// numFrames values of walk=remote ticks that were not walked (RemoteWalker).
constexpr int32_t kRemoteBusyCode = -1003;
constexpr int32_t kRemoteTimeoutCode = -1004;
// numFrames value of a CPU tick not walked because its thread's walks cost too much (WalkThrottle).
constexpr int32_t kWalkThrottledCode = -1005;
// numFrames value of the ticks a thread's CPU clock says it used and the per-CPU timers never
// took (percpu, settled every second and when the thread is disarmed): CPU time without a
// stack, not lost.
constexpr int32_t kCpuUnsampledCode = -1006;
// numFrames value of the ticks the sampled threads' CPU clocks say the CPU signal should have
// brought after another handler took it over (LostSignalTicks): CPU time without a stack, not lost.
constexpr int32_t kSignalLostCode = -1007;
// numFrames value of the kernel time a thread still owed when it ended or the session stopped, no
// system call having returned to take it: the consumer puts it on the thread's last system-call
// site as kKernelDebtBci ticks are; with none, it is stackless cpu_unsampled.
constexpr int32_t kKernelDebtCode = -1008;
// numFrames value of the kernel time a thread owed where it runs, not in a system call (the share of
// its debt run up as it was preempted: the scheduler's work, in whatever code the thread ran), when it
// ends or the session stops, or percpu as its lost ticks are settled: the consumer puts it as
// [kernel_unsampled] on the Java part of the thread's last recorded stack; with none, it is stackless
// cpu_unsampled.
constexpr int32_t kKernelWhereItRanCode = -1009;

inline Bucket bucketForCode(int32_t code) {
  if (code == kNotJavaThreadCode) return Bucket::kNotJavaThread;
  if (code == kWalkFaultCode) return Bucket::kWalkFault;
  if (code == kRemoteBusyCode) return Bucket::kRemoteBusy;
  if (code == kRemoteTimeoutCode) return Bucket::kRemoteTimeout;
  if (code == kWalkThrottledCode) return Bucket::kWalkThrottled;
  if (code == kCpuUnsampledCode || code == kKernelDebtCode || code == kKernelWhereItRanCode) return Bucket::kCpuUnsampled;
  if (code == kSignalLostCode) return Bucket::kSignalLost;
  if (code <= 0 && code >= -10) return static_cast<Bucket>(-code);
  return Bucket::kUnknownError;
}

inline const char* bucketName(Bucket b) {
  static const char* const kNames[] = {
      "no_java_frame", "no_class_load", "gc_active",      "unknown_not_java", "not_walkable_not_java",
      "unknown_java",  "not_walkable_java", "unknown_state", "thread_exit",   "deopt",
      "safepoint",     "not_java_thread", "walk_fault",    "remote_busy",      "remote_timeout",
      "unknown_error", "walk_throttled", "cpu_unsampled",    "signal_lost"};
  return kNames[static_cast<int>(b)];
}

constexpr int kKinds = static_cast<int>(SampleKind::kCount);
constexpr int kStates = static_cast<int>(ThreadState::kCount);
constexpr int kBuckets = static_cast<int>(Bucket::kCount);

// ---- Counters kept where a tick is taken --------------------------------------------------
// The signal handler (or sampler thread) counts every tick it takes and every tick it cannot
// put in the ring; everything else is counted by the consumer. Relaxed increments: the totals
// are read after the handlers have stopped (SignalHandler::deactivate orders them) or as an
// approximate live status.
struct HandlerCounters {
  alignas(64) std::array<std::atomic<uint64_t>, kKinds> ticks{};
  alignas(64) std::array<std::atomic<uint64_t>, kKinds> dropped{};
  // Ticks that came without a signal of their own: perf recorded them while the signal for an
  // earlier one was pending (the thread was in the kernel, or in candor's handler).
  alignas(64) std::atomic<uint64_t> merged{0};
  // Ticks estimated from the threads' CPU clocks (kernel time no event tick covered, percpu CPU
  // time no tick covered, or a taken-over signal's ticks), whatever bucket they land in:
  // [kernel_unsampled] on a walked stack, cpu_unsampled, signal_lost, a failure, or dropped.
  alignas(64) std::atomic<uint64_t> estimated{0};
  // What the dropped allocation and lock samples stood for (bytes, ns; dropped[] counts the samples).
  alignas(64) std::array<std::atomic<uint64_t>, kKinds> droppedValue{};
  uint64_t totalTicks() const;
  uint64_t totalDropped() const;
  void clear();
};

}  // namespace candor
