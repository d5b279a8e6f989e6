// What the outputs are written from: resolved stacks plus the session's counters. Plain data,
// built on the writer side, so every writer can be tested without a JVM.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include "store/LabelSets.h"

namespace candor {

// Frame kinds, as the flame graph viewer names them (viewer/README.md).
constexpr char kKindJava = 'j';
constexpr char kKindNative = 'n';
constexpr char kKindFailure = 'f';
constexpr char kKindThread = 't';
constexpr char kKindKernel = 'k';
constexpr char kKindObjectClass = 'a';  // the class an allocation sample allocated, or of a lock waited for

struct SnapshotFrame {
  std::string name;
  char kind;
};

// The resolved stacks as a calling-context tree: a node is a frame under its caller, and the
// samples that ended at a node are its `self` count. Stacks that resolve to the same frames
// (e.g. different bcis without `lines`, the same stack on several threads) share their nodes,
// so memory grows with distinct call paths, not with samples × depth.
class ProfileSnapshot {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    uint32_t frame;        // index into frames(); unused for the root
    uint32_t parent;
    uint32_t firstChild = kNone;
    uint32_t nextSibling = kNone;
    uint64_t self = 0;     // samples whose innermost frame is this node
  };

  uint32_t intern(const std::string& name, char kind);
  // `frames` root first; a stack with no frames counts on the root.
  void addStack(const std::vector<uint32_t>& frames, uint64_t count);
  // The node for `frame` under `parent`, made if new (building the tree a node at a time).
  uint32_t childOf(uint32_t parent, uint32_t frame);
  // Counts samples whose innermost frame is `node`.
  void addSamples(uint32_t node, uint64_t count);
  // The same, taken on OS thread `tid` in label set `labels` (store/LabelSets id): also kept by
  // thread and labels (OTLP's sample attributes).
  void addSamples(uint32_t node, uint64_t count, int32_t tid, uint32_t labels = 0);
  // Samples added with a thread, in the order added; a node's self minus these had none.
  struct ThreadCount {
    uint32_t node;
    int32_t tid;
    uint64_t count;
    uint32_t labels;
  };
  const std::vector<ThreadCount>& byThread() const { return byThread_; }
  const std::vector<SnapshotFrame>& frames() const { return frames_; }
  // nodes()[0] is the root; every node comes after its parent.
  const std::vector<Node>& nodes() const { return nodes_; }
  uint64_t total() const { return total_; }
  // self plus all descendants, per node.
  std::vector<uint64_t> nodeTotals() const;
  // Calls f(frames root first, count) for every node with samples. Memory: one path.
  void forEachStack(const std::function<void(const std::vector<uint32_t>&, uint64_t)>& f) const;

 private:
  std::vector<SnapshotFrame> frames_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<Node> nodes_ = std::vector<Node>(1, Node{0, kNone, kNone, kNone, 0});  // the root
  std::unordered_map<uint64_t, uint32_t> children_;  // (parent << 32 | frame) -> node
  std::vector<ThreadCount> byThread_;
  uint64_t total_ = 0;
};

// The samples of the main profile by time, for the page's timeline (store/TimelineLog): record i
// is `weight[i]` samples (or bytes, ns) at `column[i]` × bucketNs after the start (-1: no time) on
// `threads[thread[i]]` (-1: none) whose stack is snapshot node `node[i]`.
struct TimelineData {
  bool present = false;
  uint64_t bucketNs = 0;
  std::vector<std::string> threads;
  std::vector<int64_t> column;
  std::vector<int32_t> thread;
  std::vector<uint32_t> node;
  std::vector<uint64_t> weight;
};

// push=: how sending the intervals went (control/Pusher).
struct PushReport {
  bool enabled = false;
  std::string url, service;
  uint64_t sent = 0, failed = 0, dropped = 0, bytes = 0;
};

struct LatencySummary {
  uint64_t count = 0;
  uint64_t p50 = 0, p99 = 0, p999 = 0, max = 0;
  uint64_t mean = 0;
};

// One kind of sample (cpu, wall, safepoint, handshake) in a run.
struct KindReport {
  std::string name;
  uint64_t ticks = 0;
  uint64_t recorded = 0;
  uint64_t failed = 0;
  uint64_t dropped = 0;
  std::vector<std::pair<std::string, uint64_t>> states;  // samples per thread state, non-zero only
  LatencySummary latency;  // cpu: CPU time from timer expiry to handler; others: from intended time
  LatencySummary handler;  // time in candor's handler per tick (walk=remote: including the wait)
};

// The sampler thread of wall, safepoint and handshake modes.
struct SamplerReport {
  std::string mode;
  std::string signal;  // wall only
  int64_t intervalNs = 0;
  uint32_t threadsPerTick = 0;
  uint64_t ticks = 0;
  uint64_t missedTicks = 0;
  uint64_t signalsSent = 0;
  uint64_t skippedPending = 0;
  uint64_t signalFailures = 0;
  uint64_t repeated = 0;
  uint64_t runningSeen = 0;
  uint64_t runningSampled = 0;
  uint64_t candidatesMax = 0;
  uint64_t elapsedNs = 0;
  LatencySummary tickCpu;  // the sampler's own CPU per tick
  LatencySummary call;     // JVMTI stack call durations (safepoint: the pause)
  double requestedRate() const { return intervalNs > 0 ? 1e9 / intervalNs : 0; }
  double effectiveRate() const { return elapsedNs > 0 ? ticks * 1e9 / elapsedNs : 0; }
};

// How deep stacks fared: depth= and the spill buffers of stacks deeper than a ring slot.
struct DepthReport {
  uint32_t limit = 0;           // depth=
  bool unlimited = false;       // depth=unlimited (the default)
  uint32_t slotFrames = 0;      // frames a ring slot holds
  uint64_t spilled = 0;         // samples deeper than a slot that got a spill buffer
  uint64_t spillRefused = 0;    // deeper than a slot while every buffer was lent out: cut at slotFrames
  uint64_t truncated = 0;       // recorded samples marked [truncated]
  uint64_t deepest = 0;         // frames of the deepest recorded sample
};

// What the agent's own memory holds at the report (bytes unless named otherwise): its sample
// ring and spill buffers (mapped and resident), the interval's trace store, the caches of
// resolved names and the symbol tables, the JFR recorder's buffer, beside the process's RSS.
struct MemoryReport {
  size_t ringMapped = 0, ringResident = 0;
  size_t spillMapped = 0, spillResident = 0;
  size_t storeNodes = 0, storeBytes = 0;
  size_t methods = 0, frames = 0, nameBytes = 0, symbolBytes = 0;
  size_t jfrBufferBytes = 0, jfrPoolEntries = 0;
  size_t labelSets = 0;
  size_t processResident = 0;
  size_t mallocInUse = 0, mallocFree = 0;  // the process's malloc (JVM, agent, libraries): in use, free in its arenas
  // The sum of the parts candor accounts for (resident ring and spill, not their reservations).
  size_t accounted() const {
    return ringResident + spillResident + storeBytes + nameBytes + symbolBytes + jfrBufferBytes;
  }
};

// Candor.label scopes (store/LabelSets): the sets known at the report and those refused over the bound.
struct LabelReport {
  uint64_t sets = 0;
  uint64_t refused = 0;   // scopes since the agent loaded that got candor.labels=overflow instead of their set
  uint64_t labelled = 0;  // recorded ticks (cpu, wall, ...) that carried labels
  uint64_t unknown = 0;   // of those, read after their thread's label history was cut (candor.labels=unknown)
};

// How the CPU ticks covered time spent in the kernel (engine/Engine.h KernelTime).
struct KernelReport {
  std::string mode;             // sampled | estimated | at_syscall_exit; empty without a CPU engine
  std::string reason;           // why, in one line
  uint64_t sampledTicks = 0;    // recorded ticks whose innermost frame is a kernel frame
  uint64_t unsampledTicks = 0;  // ticks charged to [kernel_unsampled] (estimated)
  uint64_t estimatedTicks = 0;  // all estimated ticks: those, and those in a failure bucket or dropped
};

// Samples weighted by a value of their own (isValueKind): allocations in bytes (alloc=), lock
// waits in nanoseconds (lock=). Counted in samples like ticks; profiled in their unit.
struct ValueProfile {
  bool enabled = false;
  std::string kind;           // "alloc" | "lock"
  std::string unit;           // "bytes" | "ns"
  int64_t interval = 0;       // alloc: mean bytes between two samples of a thread; lock: threshold in ns
  uint64_t samples = 0;       // taken: recorded + failed + dropped
  uint64_t recorded = 0;      // what recorded samples stand for (the profile's stacks)
  uint64_t failed = 0;        // stood for by samples whose stack was not taken
  uint64_t dropped = 0;       // stood for by samples the full ring dropped
  ProfileSnapshot snapshot;   // empty when it is the report's main profile
  uint64_t total() const { return recorded + failed + dropped; }
};

struct ThreadReport {
  int tid;
  std::string name;
  std::string kind;
  uint64_t cpuNs;
  uint64_t ticks;
  uint64_t recorded;
};

struct ProfileReport {
  std::string title;
  std::string service;       // service= (OTLP's service.name), empty when not given
  std::vector<std::pair<std::string, std::string>> resourceLabels;  // pushlabels=: OTLP resource attributes
  uint64_t startUnixNs = 0;  // when the report's interval began, ns since the epoch (0: unknown)
  std::string engine;
  std::string engineDescription;
  std::string walker = "agct";  // who walked the stacks in the handler: agct or vm
  std::string timers = "none";  // the CPU engine's timers: per-thread, per-cpu (percpu) or process
  std::string signal;
  int signalNumber = 0;
  int64_t intervalNs = 0;
  int jitterPct = 0;
  uint64_t ticks = 0;
  uint64_t recorded = 0;
  uint64_t dropped = 0;
  uint64_t merged = 0;  // ticks that came without a signal of their own (CpuTickBatch)
  std::vector<std::pair<std::string, uint64_t>> failures;  // every bucket, zeros included
  DepthReport depth;
  LabelReport labels;
  std::unordered_map<uint32_t, LabelPairs> labelPairs;  // the pairs of every label set a sample carries
  MemoryReport memory;
  uint64_t durationNs = 0;
  uint64_t processCpuNs = 0;
  uint64_t profiledCpuNs = 0;  // CPU of the threads candor sampled, while they were armed
  uint64_t unarmedThreads = 0;  // threads the CPU engine could not arm (their CPU is not profiled)
  KernelReport kernel;
  std::vector<ThreadReport> threads;
  uint64_t preloadNs = 0;
  uint64_t classesPreloaded = 0;
  uint64_t classPrepareNs = 0;
  uint64_t classesPrepared = 0;
  std::vector<KindReport> kinds;  // kinds that took at least one tick, or the configured ones
  bool hasSampler = false;
  SamplerReport sampler;
  // The profile in `unit`: samples of the CPU engine and sampler (all kinds of time); without
  // those, the first value profile (alloc, else lock) in its unit. The others keep their own
  // snapshot and are written next to it (x-alloc.html, x-lock.html).
  ProfileSnapshot snapshot;
  TimelineData timeline;       // when a page is written and the samples were logged by time
  PushReport push;
  std::string unit = "samples";
  ValueProfile alloc;
  ValueProfile lock;
  // The value profiles that are not the main one, for their own outputs.
  std::vector<const ValueProfile*> sideProfiles() const;
  // The same report with `v`'s profile as its profile, for the outputs written next to it.
  ProfileReport viewOf(const ValueProfile& v) const;

  uint64_t failuresTotal() const;
  uint64_t failureCount(const std::string& bucket) const;
  // Ticks of time: every kind but allocation and lock samples.
  uint64_t timeTicks() const { return ticks - alloc.samples - lock.samples; }
  // Ticks of the CPU engine, what "samples per CPU-second" counts: not a sampler's wall ticks of
  // the same run (cpu+wall). A report without kinds (a reader's) counts every tick of time.
  uint64_t cpuTicks() const;
  // Against the CPU the engine's timers count: the sampled threads' (a process-wide timer, itimer:
  // the whole process's, whose signals land on JIT and GC threads too).
  double samplesPerCpuSecond() const;
  // Against the whole process's CPU: the sampled threads' and everyone else's (GC, JIT, VM
  // threads without `allthreads`, threads filtered out).
  double samplesPerProcessCpuSecond() const;
  // A process-wide timer (itimer) counts every thread's CPU, and its signals go to any thread.
  bool processWideTimer() const { return timers == "process"; }
  // Process CPU the profile did not sample: threads that were not armed (none for a process-wide
  // timer, which counts candor's own threads' CPU too and signals another thread for it).
  uint64_t unsampledThreadsCpuNs() const {
    return !processWideTimer() && processCpuNs > profiledCpuNs ? processCpuNs - profiledCpuNs : 0;
  }
  double requestedPerCpuSecond() const { return intervalNs > 0 ? 1e9 / intervalNs : 0; }
};

}  // namespace candor
