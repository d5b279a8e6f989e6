#include "control/ReportBuilder.h"

#include <unordered_map>

namespace candor {

namespace {
const char* engineDescription(EngineKind e) {
  switch (e) {
    case EngineKind::kCpu: return "perf_events CPU clock per thread";
    case EngineKind::kCtimer: return "timer_create(CLOCK_THREAD_CPUTIME_ID) per thread";
    case EngineKind::kItimer: return "setitimer(ITIMER_PROF), process-wide";
  }
  return "";
}

uint32_t frameFor(ProfileSnapshot& snap, MethodResolver& resolver, const StoredFrame& f, bool lines) {
  if (f.method == nullptr) return snap.intern("[unknown_method]", kKindFailure);
  const MethodInfo& m = resolver.resolve(f.method);
  return snap.intern(m.frameName(f.bci, lines), f.bci == kAsgctNativeFrameBci ? kKindNative : kKindJava);
}
}  // namespace

ProfileReport buildReport(const Options& options, const SessionTotals& totals, const TraceStore& store,
                          const SampleAccounting& accounting, const std::vector<ThreadRecord>& threads,
                          MethodResolver& resolver) {
  ProfileReport r;
  r.title = options.title;
  r.engine = engineName(options.engine);
  r.engineDescription = engineDescription(options.engine);
  r.signal = signalName(totals.signal);
  r.signalNumber = totals.signal;
  r.intervalNs = options.intervalNs;
  r.jitterPct = options.jitterPct;
  r.ticks = totals.ticks;
  r.recorded = accounting.recorded();
  r.dropped = totals.dropped;
  r.durationNs = totals.durationNs;
  r.processCpuNs = totals.processCpuNs;
  for (int b = 0; b < static_cast<int>(Bucket::kCount); b++) {
    r.failures.emplace_back(bucketName(static_cast<Bucket>(b)), accounting.failures(static_cast<Bucket>(b)));
  }

  std::unordered_map<int, const ThreadRecord*> byTid;
  for (const ThreadRecord& t : threads) byTid[t.tid] = &t;  // a reused tid maps to its latest thread
  for (const ThreadRecord& t : threads) {
    uint64_t ticks = 0, recorded = 0;
    const auto it = accounting.perThread().find(t.tid);
    if (it != accounting.perThread().end() && byTid[t.tid] == &t) {
      ticks = it->second.ticks;
      recorded = it->second.recorded;
    }
    r.threads.push_back({t.tid, t.name, threadKindName(t.kind), t.cpuNs, ticks, recorded});
    r.profiledCpuNs += t.cpuNs;
  }
  for (const auto& [tid, counts] : accounting.perThread()) {
    if (byTid.count(tid) == 0) {  // e.g. itimer hitting a thread candor did not register
      r.threads.push_back({tid, "[tid " + std::to_string(tid) + "]", "other", 0, counts.ticks, counts.recorded});
    }
  }

  ProfileSnapshot& snap = r.snapshot;
  for (const auto& [key, count] : store.counts()) {
    const StoredTrace& trace = store.traces()[key.trace];
    std::vector<uint32_t> frames;
    frames.reserve(trace.frames.size() + 1);
    if (options.threads) {
      auto it = byTid.find(key.tid);
      std::string name = it != byTid.end() ? it->second->name : "?";
      frames.push_back(snap.intern("[" + name + " tid=" + std::to_string(key.tid) + "]", kKindThread));
    }
    for (auto f = trace.frames.rbegin(); f != trace.frames.rend(); ++f) {
      frames.push_back(frameFor(snap, resolver, *f, options.lines));
    }
    snap.addStack(std::move(frames), count);
  }
  for (const auto& [name, count] : r.failures) {
    snap.addStack({snap.intern("[" + name + "]", kKindFailure)}, count);
  }
  snap.addStack({snap.intern("[dropped]", kKindFailure)}, r.dropped);
  return r;
}

}  // namespace candor
