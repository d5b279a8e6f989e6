#include "control/ReportBuilder.h"

#include <unordered_map>

#include "jvm/StubNames.h"

namespace candor {

namespace {
std::string engineDescription(const Options& o) {
  std::string d;
  if (o.cpuEngine) {
    switch (o.engine) {
      case EngineKind::kCpu:
        d = o.perCpu == PerCpu::kYes ? "perf_events CPU clock per CPU (percpu), stacks copied by the kernel"
                     : "perf_events CPU clock per thread";
        break;
      case EngineKind::kCtimer: d = "timer_create(CLOCK_THREAD_CPUTIME_ID) per thread"; break;
      case EngineKind::kItimer: d = "setitimer(ITIMER_PROF), process-wide"; break;
    }
  }
  const char* sampler = nullptr;
  switch (o.sampler) {
    case SamplerMode::kWall: sampler = "wall clock: sampler thread signals chosen threads"; break;
    case SamplerMode::kSafepoint: sampler = "JVMTI GetThreadListStackTraces at a global safepoint"; break;
    case SamplerMode::kHandshake: sampler = "JVMTI GetStackTrace per thread (handshake)"; break;
    case SamplerMode::kNone: break;
  }
  if (sampler != nullptr) d += (d.empty() ? "" : " + ") + std::string(sampler);
  if (o.alloc) d += (d.empty() ? "" : " + ") + std::string("JVMTI SampledObjectAlloc");
  if (o.lock) d += (d.empty() ? "" : " + ") + std::string("JVMTI monitor contention, Unsafe.park timed");
  return d;
}

// The root frame of a JVM-internal thread's stacks, or nullptr for Java threads.
const char* jvmThreadRootName(ThreadKind k) {
  switch (k) {
    case ThreadKind::kGc: return "[GC]";
    case ThreadKind::kCompiler: return "[JIT compiler]";
    case ThreadKind::kVm: return "[VM]";
    case ThreadKind::kOther: return "[other native]";
    case ThreadKind::kJava: return nullptr;
  }
  return nullptr;
}

LatencySummary summarize(const LatencyHistogram& h) {
  return {h.count(), h.percentile(0.5), h.percentile(0.99), h.percentile(0.999), h.max(), h.mean()};
}

uint32_t frameFor(ProfileSnapshot& snap, FrameNamer& names, const StoredFrame& f, bool lines) {
  char kind = kKindJava;
  switch (names.kind(f)) {
    case FrameKind::kJava: kind = kKindJava; break;
    case FrameKind::kKernel: kind = kKindKernel; break;
    case FrameKind::kMarker: kind = f.bci == kKernelUnsampledBci ? kKindKernel : kKindFailure; break;
    case FrameKind::kObjectClass: kind = kKindObjectClass; break;
    default: kind = kKindNative; break;  // native methods, stubs (generated code), C/C++ frames
  }
  return snap.intern(names.displayName(f, lines), kind);
}
}  // namespace

ProfileReport buildReport(const Options& options, const SessionTotals& totals, const TraceStore& store,
                          const SampleAccounting& accounting, const std::vector<ThreadRecord>& threads,
                          FrameNamer& names, const LabelSets& labels) {
  ProfileReport r;
  r.title = options.title;
  r.service = options.service;
  r.resourceLabels = options.pushLabels;
  r.engine = eventsName(options);
  r.walker = walkModeName(options.walk);
  r.timers = totals.timers;
  r.engineDescription = engineDescription(options);
  int shownSignal = totals.signal != 0 ? totals.signal : totals.wallSignal;
  r.signal = shownSignal != 0 ? signalName(shownSignal) : "none";
  r.signalNumber = shownSignal;
  r.intervalNs = options.cpuEngine ? options.intervalNs : options.samplerIntervalNs;
  r.jitterPct = options.jitterPct;
  for (int k = 0; k < kKinds; k++) {
    r.ticks += totals.ticks[k];
    r.dropped += totals.dropped[k];
  }
  r.recorded = accounting.recorded();
  r.merged = totals.merged;
  r.kernel = totals.kernel;
  r.kernel.sampledTicks = accounting.kernelSampled();
  r.kernel.unsampledTicks = accounting.kernelUnsampled();
  r.kernel.estimatedTicks = totals.estimated;
  r.depth = totals.depth;
  r.memory = totals.memory;
  r.depth.truncated = accounting.truncated();
  r.depth.deepest = accounting.deepest();
  r.durationNs = totals.durationNs;
  r.processCpuNs = totals.processCpuNs;
  for (int b = 0; b < kBuckets; b++) {
    r.failures.emplace_back(bucketName(static_cast<Bucket>(b)), accounting.failures(static_cast<Bucket>(b)));
  }

  // Which kinds this run has: the configured ones, plus any that took ticks.
  std::array<bool, kKinds> present{};
  present[static_cast<int>(SampleKind::kCpu)] = options.cpuEngine;
  if (options.sampler == SamplerMode::kWall) present[static_cast<int>(SampleKind::kWall)] = true;
  if (options.sampler == SamplerMode::kSafepoint) present[static_cast<int>(SampleKind::kSafepoint)] = true;
  if (options.sampler == SamplerMode::kHandshake) present[static_cast<int>(SampleKind::kHandshake)] = true;
  present[static_cast<int>(SampleKind::kAlloc)] = options.alloc;
  present[static_cast<int>(SampleKind::kLock)] = options.lock;
  int kindsPresent = 0;  // kinds of time: allocations and locks have their own profiles
  for (int k = 0; k < kKinds; k++) {
    present[k] = present[k] || totals.ticks[k] > 0;
    kindsPresent += present[k] && !isValueKind(static_cast<SampleKind>(k));
  }
  for (int k = 0; k < kKinds; k++) {
    if (!present[k]) continue;
    auto kind = static_cast<SampleKind>(k);
    KindReport kr;
    kr.name = sampleKindName(kind);
    kr.ticks = totals.ticks[k];
    kr.recorded = accounting.recorded(kind);
    kr.dropped = totals.dropped[k];
    for (int b = 0; b < kBuckets; b++) kr.failed += accounting.failures(kind, static_cast<Bucket>(b));
    for (int s = 0; s < kStates; s++) {
      uint64_t n = accounting.samplesInState(kind, static_cast<ThreadState>(s));
      if (n > 0) kr.states.emplace_back(threadStateName(static_cast<ThreadState>(s)), n);
    }
    kr.latency = summarize(accounting.latency(kind));
    kr.handler = summarize(accounting.handlerTime(kind));
    r.kinds.push_back(std::move(kr));
  }
  if (totals.hasSampler) {
    const SamplerStats& s = totals.sampler;
    SamplerReport& sr = r.sampler;
    r.hasSampler = true;
    sr.mode = samplerModeName(options.sampler);
    sr.signal = totals.wallSignal != 0 ? signalName(totals.wallSignal) : "";
    sr.intervalNs = options.samplerIntervalNs;
    sr.threadsPerTick = options.wallThreads;
    sr.ticks = s.ticks;
    sr.missedTicks = s.missedTicks;
    sr.signalsSent = s.signalsSent;
    sr.skippedPending = s.skippedPending;
    sr.signalFailures = s.signalFailures;
    sr.repeated = s.repeated;
    sr.runningSeen = s.runningSeen;
    sr.runningSampled = s.runningSampled;
    sr.candidatesMax = s.candidatesMax;
    sr.elapsedNs = s.elapsedNs;
    sr.tickCpu = summarize(s.tickCpuNs);
    sr.call = summarize(s.callNs);
  }

  std::unordered_map<int, const ThreadRecord*> byTid;
  for (const ThreadRecord& t : threads) byTid[t.tid] = &t;
  for (const ThreadRecord& t : threads) {
    uint64_t ticks = 0, recorded = 0;
    const auto it = accounting.perThread().find(t.tid);
    if (it != accounting.perThread().end()) {
      ticks = it->second.ticks;
      recorded = it->second.recorded;
    } else if (t.endedBeforeInterval && t.cpuNs == 0) {
      continue;  // loop=: an earlier interval's report listed it; kept only to name a late sample
    }
    r.threads.push_back({t.tid, t.name, threadKindName(t.kind), t.cpuNs, ticks, recorded});
    r.profiledCpuNs += t.cpuNs;
    if (!t.armed) r.unarmedThreads++;
  }
  for (const auto& [tid, counts] : accounting.perThread()) {
    if (byTid.count(tid) == 0) {  // e.g. itimer hitting a thread candor did not register
      r.threads.push_back({tid, "[tid " + std::to_string(tid) + "]", "other", 0, counts.ticks, counts.recorded});
    }
  }

  // Root frames, outermost first: the kind (when a run mixes kinds), the JVM's own kind of thread
  // (allthreads: [GC], [JIT compiler], ...), the thread, the state.
  ProfileSnapshot& timeSnap = r.snapshot;
  auto valueProfile = [&](SampleKind k) -> ValueProfile& { return k == SampleKind::kAlloc ? r.alloc : r.lock; };
  bool splitKinds = kindsPresent > 1;
  auto kindFrame = [&](SampleKind k) { return timeSnap.intern(std::string("[") + sampleKindName(k) + "]", kKindThread); };
  auto threadFrame = [&](ProfileSnapshot& snap, int tid) {
    auto it = byTid.find(tid);
    std::string name = it != byTid.end() ? it->second->name : "?";
    return snap.intern("[" + name + " tid=" + std::to_string(tid) + "]", kKindThread);
  };
  auto jvmThreadFrame = [&](ProfileSnapshot& snap, int tid) {
    auto it = byTid.find(tid);
    const char* root = it != byTid.end() ? jvmThreadRootName(it->second->kind) : nullptr;
    return root != nullptr ? snap.intern(root, kKindThread) : ProfileSnapshot::kNone;
  };
  // The store is a prefix tree too: each of its nodes is mapped to a snapshot node once per root
  // (the kind, thread and state frames above the stack), so a deep stack shared by many traces
  // costs its depth once, not once per trace.
  // Allocation and lock stacks go to their own snapshots (bytes, ns), split by thread as asked
  // (a lock's by state too: monitor or parked).
  std::unordered_map<uint32_t, std::unordered_map<uint32_t, uint32_t>> mapped[3];  // per snapshot: root -> store node -> node
  std::vector<uint32_t> pending;
  auto snapshotOf = [&](SampleKind kind) -> ProfileSnapshot& {
    return isValueKind(kind) ? valueProfile(kind).snapshot : timeSnap;
  };
  // split=label:KEY: the [KEY=VALUE] root of a label set, [KEY=(none)] without that key.
  auto labelFrame = [&](ProfileSnapshot& snap, uint32_t labelSet) {
    const std::string* value = labels.value(labelSet, options.splitLabel);
    return snap.intern("[" + options.splitLabel + "=" + (value != nullptr ? *value : "(none)") + "]", kKindThread);
  };
  // The snapshot node of a trace sampled on `tid` in `state` and `labelSet`: under its root frames.
  auto traceNode = [&](SampleKind kind, int32_t tid, ThreadState state, uint32_t labelSet, uint32_t trace) {
    bool valued = isValueKind(kind);
    ProfileSnapshot& snap = snapshotOf(kind);
    uint32_t root = 0;
    if (splitKinds && !valued) root = snap.childOf(root, kindFrame(kind));
    if (uint32_t jvmThread = jvmThreadFrame(snap, tid); jvmThread != ProfileSnapshot::kNone) root = snap.childOf(root, jvmThread);
    if (options.threads) root = snap.childOf(root, threadFrame(snap, tid));
    if (options.states && kind != SampleKind::kAlloc) {
      root = snap.childOf(root, snap.intern(std::string("[state=") + threadStateName(state) + "]", kKindThread));
    }
    if (!options.splitLabel.empty()) root = snap.childOf(root, labelFrame(snap, labelSet));
    if (options.splitClass && valued) {  // the trace's innermost frame is the class (walk/JvmtiWalker)
      const StoredFrame& leaf = store.frame(trace);
      if (leaf.bci == kObjectClassBci) root = snap.childOf(root, snap.intern("[" + names.displayName(leaf, false) + "]", kKindThread));
    }
    int which = kind == SampleKind::kAlloc ? 1 : kind == SampleKind::kLock ? 2 : 0;
    std::unordered_map<uint32_t, uint32_t>& nodeOf = mapped[which][root];
    nodeOf.emplace(0, root);
    pending.clear();
    uint32_t n = trace;
    for (; nodeOf.find(n) == nodeOf.end(); n = store.parent(n)) pending.push_back(n);
    uint32_t node = nodeOf[n];
    for (auto p = pending.rbegin(); p != pending.rend(); ++p) {
      node = snap.childOf(node, frameFor(snap, names, store.frame(*p), options.lines));
      nodeOf[*p] = node;
    }
    return node;
  };
  // Failures stay under the roots of the thread they hit (its JVM kind; with split=, the thread
  // and state).
  auto failureNode = [&](SampleKind kind, int32_t tid, ThreadState state, uint32_t labelSet, Bucket bucket) {
    uint32_t node = 0;
    if (splitKinds) node = timeSnap.childOf(node, kindFrame(kind));
    if (uint32_t jvmThread = jvmThreadFrame(timeSnap, tid); jvmThread != ProfileSnapshot::kNone) node = timeSnap.childOf(node, jvmThread);
    if (options.threads) node = timeSnap.childOf(node, threadFrame(timeSnap, tid));
    if (options.states) {
      node = timeSnap.childOf(node, timeSnap.intern(std::string("[state=") + threadStateName(state) + "]", kKindThread));
    }
    if (!options.splitLabel.empty()) node = timeSnap.childOf(node, labelFrame(timeSnap, labelSet));
    return timeSnap.childOf(node, timeSnap.intern(std::string("[") + bucketName(bucket) + "]", kKindFailure));
  };
  r.labels.sets = labels.size();
  r.labels.refused = labels.refused();
  // The pairs of every label set a sample carries, for the outputs that name them (OTLP).
  auto notePairs = [&](uint32_t labelSet) {
    if (labelSet != LabelSets::kNone && r.labelPairs.count(labelSet) == 0) {
      r.labelPairs.emplace(labelSet, labels.pairs(labelSet));
    }
  };
  store.counts().forEach([&](const TraceStore::Key& key, uint64_t count) {
    snapshotOf(key.kind).addSamples(traceNode(key.kind, key.tid, key.state, key.labels, key.trace), count, key.tid,
                                    key.labels);
    notePairs(key.labels);
    if (key.labels != LabelSets::kNone && !isValueKind(key.kind)) r.labels.labelled += count;
    if (key.labels == LabelSets::kUnknown && !isValueKind(key.kind)) r.labels.unknown += count;
  });
  for (const auto& [key, n] : accounting.failuresByThread()) {
    timeSnap.addSamples(failureNode(key.kind, key.tid, key.state, key.labels, key.bucket), n, key.tid, key.labels);
    notePairs(key.labels);
  }
  for (int k = 0; k < kKinds; k++) {
    auto kind = static_cast<SampleKind>(k);
    if (totals.dropped[k] > 0 && !isValueKind(kind)) {  // a dropped tick never reached the ring: no thread known
      std::vector<uint32_t> frames;
      if (splitKinds) frames.push_back(kindFrame(kind));
      frames.push_back(timeSnap.intern("[dropped]", kKindFailure));
      timeSnap.addStack(std::move(frames), totals.dropped[k]);
    }
  }

  // Allocations and locks: failed and dropped samples keep their value in the profile, as failed
  // ticks do.
  r.alloc.kind = "alloc";
  r.alloc.unit = "bytes";
  r.alloc.enabled = options.alloc;
  r.alloc.interval = options.allocIntervalBytes;
  r.lock.kind = "lock";
  r.lock.unit = "ns";
  r.lock.enabled = options.lock;
  r.lock.interval = options.lockThresholdNs;
  for (SampleKind kind : {SampleKind::kAlloc, SampleKind::kLock}) {
    ValueProfile& v = valueProfile(kind);
    int k = static_cast<int>(kind);
    v.samples = totals.ticks[k];
    v.recorded = accounting.recordedValue(kind);
    v.dropped = totals.droppedValue[k];
    for (int b = 0; b < kBuckets; b++) {
      uint64_t value = accounting.failedValue(kind, static_cast<Bucket>(b));
      if (value == 0) continue;
      v.failed += value;
      v.snapshot.addStack({v.snapshot.intern(std::string("[") + bucketName(static_cast<Bucket>(b)) + "]", kKindFailure)},
                          value);
    }
    if (v.dropped > 0) v.snapshot.addStack({v.snapshot.intern("[dropped]", kKindFailure)}, v.dropped);
  }
  // The page's timeline: each logged (column, thread, trace or failure) as a node of the main
  // snapshot. Only samples of the main profile's kinds: side profiles (x-alloc.html) have none.
  const TimelineLog& log = accounting.timeline();
  if (log.enabled() && !log.entries().empty()) {
    bool timeMain = options.cpuEngine || options.sampler != SamplerMode::kNone;
    SampleKind valueMain = options.alloc ? SampleKind::kAlloc : SampleKind::kLock;
    TimelineData& t = r.timeline;
    t.bucketNs = log.bucketNs();
    std::unordered_map<int32_t, int32_t> threadIndex;
    for (const auto& [key, weight] : log.entries()) {
      if (timeMain ? isValueKind(key.kind) : key.kind != valueMain) continue;
      if (key.trace == TimelineLog::kNoTrace && isValueKind(key.kind)) continue;  // failed values: no thread roots
      uint32_t node = key.trace != TimelineLog::kNoTrace
                          ? traceNode(key.kind, key.tid, key.state, key.labels, key.trace)
                          : failureNode(key.kind, key.tid, key.state, key.labels, key.failure);
      auto [it, isNew] = threadIndex.try_emplace(key.tid, static_cast<int32_t>(t.threads.size()));
      if (isNew) {
        auto rec = byTid.find(key.tid);
        t.threads.push_back((rec != byTid.end() ? rec->second->name : "?") + " tid=" + std::to_string(key.tid));
      }
      t.column.push_back(key.bucket);
      t.thread.push_back(it->second);
      t.node.push_back(node);
      t.weight.push_back(weight);
    }
    // Dropped ticks reached no thread and no time (nor did failed allocation and lock samples in
    // their profiles): records without either, so the page's totals still agree.
    auto untimed = [&](uint32_t node, uint64_t weight) {
      if (weight == 0) return;
      t.column.push_back(-1);
      t.thread.push_back(-1);
      t.node.push_back(node);
      t.weight.push_back(weight);
    };
    for (int k = 0; k < kKinds && timeMain; k++) {
      auto kind = static_cast<SampleKind>(k);
      if (totals.dropped[k] == 0 || isValueKind(kind)) continue;
      uint32_t node = splitKinds ? timeSnap.childOf(0, kindFrame(kind)) : 0;
      untimed(timeSnap.childOf(node, timeSnap.intern("[dropped]", kKindFailure)), totals.dropped[k]);
    }
    if (!timeMain) {
      ValueProfile& v = valueProfile(valueMain);
      for (int b = 0; b < kBuckets; b++) {  // nodes made only for weights the profile holds
        uint64_t failed = accounting.failedValue(valueMain, static_cast<Bucket>(b));
        std::string frame = std::string("[") + bucketName(static_cast<Bucket>(b)) + "]";
        if (failed > 0) untimed(v.snapshot.childOf(0, v.snapshot.intern(frame, kKindFailure)), failed);
      }
      if (v.dropped > 0) untimed(v.snapshot.childOf(0, v.snapshot.intern("[dropped]", kKindFailure)), v.dropped);
    }
    t.present = !t.node.empty();
  }
  if (!options.cpuEngine && options.sampler == SamplerMode::kNone) {  // no time: a value profile is the main one
    ValueProfile* main = options.alloc ? &r.alloc : options.lock ? &r.lock : nullptr;
    if (main != nullptr) {
      r.snapshot = std::move(main->snapshot);
      main->snapshot = ProfileSnapshot();
      r.unit = main->unit;
    }
  }

  return r;
}

}  // namespace candor
