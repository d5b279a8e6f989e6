// What a session was asked to do: the agent's options as plain data, their enums and names.
// Vocabulary of every layer (engines read their interval, the registry its thread filter); the
// option string is parsed in control/OptionParser.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace candor {

enum class EngineKind { kCpu, kCtimer, kItimer };
// Modes that run on candor's sampler thread rather than on a CPU timer.
enum class SamplerMode { kNone, kWall, kSafepoint, kHandshake };
enum class Command { kNone, kStart, kStop, kDump, kStatus, kHelp, kVersion };
// Who walks the stack in the signal handler: AsyncGetCallTrace, or candor's own walker.
// kCopy (experimental): no signal; the own walker walks perf's copy of the stack on a reader thread.
enum class WalkMode { kAgct, kVm, kRemote, kCopy };
const char* walkModeName(WalkMode w);
// How C/C++ frames (libc, JNI libraries, libjvm) above the Java stack are walked: DWARF call-frame
// information (with frame pointers where a function has none), frame pointers alone, or not.
enum class CStackMode { kDwarf, kFp, kNo };
enum class PerCpu { kAuto, kYes, kNo };
// percpu's stack copy by default: a tick in a system call copies from the user sp, and the JNI
// code under it (libjava's writeBytes, readBytes) holds an 8 KB buffer an 8k copy cannot see past;
// VM code (class loading, zlib's inflate, the compile broker, call-site resolution) holds more:
// 16k left 0.9-1.1% of a Jetty server's samples [truncated], 32k 0.04-0.09%.
constexpr uint32_t kPerCpuStackCopy = 32768;
const char* cstackModeName(CStackMode m);

const char* engineName(EngineKind e);
const char* samplerModeName(SamplerMode m);

// depth=unlimited: deeper than any thread stack of default size can hold (a frame takes at
// least 16 bytes of stack), so only a stack grown with a huge -Xss can ever be cut.
constexpr uint32_t kUnlimitedDepth = 262144;
// Frames a ring slot holds; deeper stacks borrow a spill buffer (concurrent/SpillPool.h).
constexpr uint32_t kSlotDepth = 2048;

struct Options {
  Command command = Command::kNone;
  bool cpuEngine = true;                 // false for e.g. event=wall alone
  EngineKind engine = EngineKind::kCpu;
  int64_t intervalNs = 10'000'000;       // the CPU engine's interval
  SamplerMode sampler = SamplerMode::kNone;
  int64_t samplerIntervalNs = 20'000'000;
  uint32_t wallThreads = 16;             // threads sampled per sampler tick
  int wallSignal = 0;                    // 0: SIGURG
  bool alloc = false;                    // allocation samples (JVMTI SampledObjectAlloc)
  int64_t allocIntervalBytes = 512 * 1024;  // mean bytes allocated between two samples of a thread
  bool lock = false;                     // lock waits (contended monitors, parks on j.u.c locks)
  int64_t lockThresholdNs = 10'000;      // shorter waits are not recorded
  std::vector<std::string> files;
  std::string statsFile;
  int signal = 0;  // 0: the engine's default
  int jitterPct = 0;
  bool allThreads = false;
  bool threads = false;                  // split outputs by thread
  bool states = false;                   // split outputs by thread state
  bool splitClass = false;               // split allocation and lock profiles by class ([byte[]] roots)
  std::string splitLabel;                // split by this label's value ([KEY=VALUE] roots); empty: no
  std::string threadFilter;              // regex on thread names (empty: all)
  std::vector<int> tidFilter;            // OS thread ids (empty: all)
  bool lines = false;
  bool quiet = false;
  uint32_t depth = kUnlimitedDepth;      // frames per stack; a cut stack is marked [truncated]
  WalkMode walk = WalkMode::kVm;  // the own walker: as accurate as AGCT, and it sees stubs and intrinsics
  CStackMode cstack = CStackMode::kDwarf;  // glibc has no frame pointers: only DWARF walks out of it
  uint32_t ringSize = 1024;
  uint32_t stackCopyBytes = 8192;        // walk=copy: bytes of the user stack perf copies per sample
  // percpu: walk=copy from one perf event per CPU, none per thread. kAuto: where perf allows
  // CPU-wide events and nothing asked for a signal engine (Profiler resolves it to kYes or kNo).
  PerCpu perCpu = PerCpu::kAuto;
  std::string title = "candor profile";
  std::string replyFile;   // where an attached agent writes its one-line answer (for tools)
  int64_t loopNs = 0;      // JFR: start a new file every loopNs (0: one file)
  std::string pushUrl;     // push=: send every loop= interval's recording to this ingest endpoint
  std::string service;     // push=: the application name the backend files it under
  // pushlabels=: static labels of the application (env, region, ...): Pyroscope's name{k=v,...},
  // OTLP resource attributes. Sorted by key.
  std::vector<std::pair<std::string, std::string>> pushLabels;
};

enum class OutputFormat { kUnknown, kHtml, kCollapsed, kSummary, kStats, kJfr, kOtlp };
// The format a `file=` path asks for, by its extension.
OutputFormat outputFormatOf(const std::string& path);
// Where the allocation or lock profile (`kind`) goes beside the profile written to `path`:
// x.html → x-alloc.html, x-lock.html.
std::string sideOutputPath(const std::string& path, const std::string& kind);

// "SIGVTALRM", "VTALRM" or a number; returns 0 when the name is unknown.
int parseSignal(const std::string& text);
const char* signalName(int sig);

// The event list as the user would write it, e.g. "cpu", "wall", "cpu+wall".
std::string eventsName(const Options& o);

}  // namespace candor
