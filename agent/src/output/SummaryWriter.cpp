#include "output/SummaryWriter.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "base/Vocabulary.h"

namespace candor {

namespace {
std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

double pct(uint64_t part, uint64_t whole) { return whole > 0 ? 100.0 * part / whole : 0; }

struct MethodTotals {
  uint64_t self = 0;
  uint64_t total = 0;
};

void writeTable(std::ostream& out, const char* heading, std::vector<std::pair<std::string, MethodTotals>> rows,
                bool bySelf, uint64_t ticks, size_t topN, const char* unit = "samples", const char* what = "method") {
  std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    uint64_t ka = bySelf ? a.second.self : a.second.total, kb = bySelf ? b.second.self : b.second.total;
    return ka != kb ? ka > kb : a.first < b.first;
  });
  out << heading << "\n" << fmt("  %7s %7s %9s  %s\n", "self%", "total%", unit, what);
  size_t shown = 0;
  for (const auto& [name, t] : rows) {
    uint64_t key = bySelf ? t.self : t.total;
    if (key == 0 || shown++ == topN) break;
    out << fmt("  %6.2f%% %6.2f%% %9llu  ", pct(t.self, ticks), pct(t.total, ticks),
               static_cast<unsigned long long>(key))
        << name << "\n";
  }
  out << "\n";
}

// One row per sample kind of a time distribution the kinds report.
void timeTable(std::ostream& out, const char* title, const std::vector<KindReport>& kinds,
               LatencySummary KindReport::*field) {
  out << title << ":\n"
      << fmt("  %-10s %9s %10s %10s %10s %10s %10s\n", "kind", "measured", "mean", "p50", "p99", "p99.9", "max");
  for (const KindReport& k : kinds) {
    const LatencySummary& l = k.*field;
    out << fmt("  %-10s %9llu %8.1fus %8.1fus %8.1fus %8.1fus %8.1fus\n", k.name.c_str(),
               static_cast<unsigned long long>(l.count), l.mean / 1e3, l.p50 / 1e3, l.p99 / 1e3, l.p999 / 1e3,
               l.max / 1e3);
  }
  out << "\n";
}

// Self and total samples per frame, in one walk of the calling-context tree: a node's subtree
// total counts for its method unless the method is already on the path above (recursion), so
// the cost is one visit per node, not per frame of every stack (deep stacks share their prefixes).
// `top`: the node whose subtree is counted (0: the whole tree).
std::unordered_map<uint32_t, MethodTotals> methodTotalsByFrame(const ProfileSnapshot& snap, uint32_t top) {
  const auto& nodes = snap.nodes();
  std::vector<uint64_t> totals = snap.nodeTotals();
  std::vector<uint32_t> onPath(snap.frames().size(), 0);
  std::unordered_map<uint32_t, MethodTotals> byFrame;
  auto counted = [&](uint32_t v) {
    char kind = snap.frames()[nodes[v].frame].kind;
    return kind == kKindJava || kind == kKindNative || kind == kKindKernel || kind == kKindObjectClass;
  };
  uint32_t v = nodes[top].firstChild;
  while (v != ProfileSnapshot::kNone) {
    uint32_t f = nodes[v].frame;  // enter v
    if (counted(v)) {
      MethodTotals& t = byFrame[f];
      if (onPath[f] == 0) t.total += totals[v];
      t.self += nodes[v].self;
    }
    onPath[f]++;
    if (nodes[v].firstChild != ProfileSnapshot::kNone) {
      v = nodes[v].firstChild;
      continue;
    }
    // leave v and every ancestor whose children are done, then go on with the next sibling
    while (v != top) {
      onPath[nodes[v].frame]--;
      if (nodes[v].nextSibling != ProfileSnapshot::kNone) break;
      v = nodes[v].parent;
    }
    v = v == top ? ProfileSnapshot::kNone : nodes[v].nextSibling;
  }
  return byFrame;
}
// Per name (a name may be interned per kind), the frames of the kinds `keep` accepts.
std::vector<std::pair<std::string, MethodTotals>> rowsByName(const ProfileSnapshot& snap, bool (*keep)(char kind),
                                                             uint32_t top = 0) {
  std::unordered_map<std::string, MethodTotals> byName;
  for (const auto& [f, t] : methodTotalsByFrame(snap, top)) {
    if (!keep(snap.frames()[f].kind)) continue;
    MethodTotals& m = byName[snap.frames()[f].name];
    m.self += t.self;
    m.total += t.total;
  }
  return {byName.begin(), byName.end()};
}

// An allocation (bytes) or lock (ns waited) profile: what it covers, then the classes allocated or
// waited for, and the methods that allocated or waited.
void writeValueProfile(std::ostream& out, const ValueProfile& v, const ProfileSnapshot& snap, size_t topN) {
  uint64_t whole = snap.total();
  bool alloc = v.kind == "alloc";
  double scale = alloc ? 1048576.0 : 1e9;
  const char* unit = alloc ? "MB" : "s";
  if (alloc) {
    out << fmt("allocations: %llu samples, one per %.0f kB allocated by a thread on average;",
               static_cast<unsigned long long>(v.samples), v.interval / 1024.0);
  } else {
    out << fmt("lock waits: %llu samples, every wait of at least %.1f us;", static_cast<unsigned long long>(v.samples),
               v.interval / 1e3);
  }
  out << fmt(" %.3f %s %s = recorded %.3f + failed %.3f + dropped %.3f\n\n", v.total() / scale, unit,
             alloc ? "estimated" : "waited", v.recorded / scale, v.failed / scale, v.dropped / scale);
  const char* unitWord = alloc ? "bytes" : "ns";
  writeTable(out, alloc ? "Top allocated classes (percent of all bytes):" : "Top lock classes (percent of all waiting):",
             rowsByName(snap, [](char k) { return k == kKindObjectClass; }), true, whole, topN, unitWord, "class");
  writeTable(out, alloc ? "Top allocating methods by total bytes (percent of all bytes):"
                        : "Top waiting methods by total time waited (percent of all waiting):",
             rowsByName(snap, [](char k) { return k != kKindObjectClass; }), false, whole, topN, unitWord, "method");
}
}  // namespace

// Of all ticks of time (allocation and lock samples have their own profiles); a run that mixes kinds
// (cpu+wall) gets a pair of tables per kind, each of that kind's ticks: a CPU tick and a wall tick
// stand for different things, and one table of both would rank a pool's idle waits over its work.
static void writeTimeTables(std::ostream& out, const ProfileReport& r, size_t topN) {
  const ProfileSnapshot& snap = r.snapshot;
  std::vector<std::pair<const KindReport*, uint32_t>> kindRoots;  // the [cpu], [wall] ... root nodes
  for (const KindReport& k : r.kinds) {
    for (uint32_t c = snap.nodes()[0].firstChild; c != ProfileSnapshot::kNone; c = snap.nodes()[c].nextSibling) {
      if (snap.frames()[snap.nodes()[c].frame].name == "[" + k.name + "]") kindRoots.emplace_back(&k, c);
    }
  }
  auto all = [](char) { return true; };
  if (kindRoots.size() < 2) {
    std::vector<std::pair<std::string, MethodTotals>> rows = rowsByName(snap, all);
    writeTable(out, "Top methods by self time (percent of all ticks):", rows, true, r.timeTicks(), topN);
    writeTable(out, "Top methods by total time (percent of all ticks):", rows, false, r.timeTicks(), topN);
    return;
  }
  for (const auto& [k, node] : kindRoots) {
    std::vector<std::pair<std::string, MethodTotals>> rows = rowsByName(snap, all, node);
    const char* what = k->name.c_str();
    writeTable(out, fmt("Top methods by self time, %s (percent of %s ticks):", what, what).c_str(), rows, true, k->ticks, topN);
    writeTable(out, fmt("Top methods by total time, %s (percent of %s ticks):", what, what).c_str(), rows, false, k->ticks,
               topN);
  }
}

void writeSummary(const ProfileReport& r, std::ostream& out, size_t topN) {
  out << "candor profile summary\n\n";
  std::string signal = r.signalNumber > 0 ? fmt("signal %s (%d)", r.signal.c_str(), r.signalNumber) : "no signal";
  out << fmt("engine:    %s (%s), %s\n", r.engine.c_str(), r.engineDescription.c_str(), signal.c_str());
  const char* walker = r.walker == "vm"       ? "vm (candor's own stack walker)"
                       : r.walker == "remote" ? "remote (candor's own stack walker on a walker thread)"
                       : r.walker == "copy"   ? "copy (candor's own stack walker on perf's stack copies, no signal)"
                                              : "agct (AsyncGetCallTrace)";
  out << fmt("walker:    %s\n", walker);
  bool hasCpu = r.kinds.empty() || r.kinds[0].name == "cpu";
  if (hasCpu) {
    out << fmt("interval:  %.3f ms of CPU time %s, jitter %d%%\n", r.intervalNs / 1e6,
               r.processWideTimer() ? "of the whole process" : "per thread", r.jitterPct);
  }
  if (r.hasSampler) {
    out << fmt("sampler:   %s every %.3f ms of wall time, up to %u threads per tick\n", r.sampler.mode.c_str(),
               r.sampler.intervalNs / 1e6, r.sampler.threadsPerTick);
  }
  out << fmt("duration:  %.3f s wall, process CPU %.3f s, profiled threads %zu with %.3f s CPU\n",
             r.durationNs / 1e9, r.processCpuNs / 1e9, r.threads.size(), r.profiledCpuNs / 1e9);
  std::string unarmed = r.unarmedThreads == 0 ? "" : fmt("; %llu threads the CPU engine could not arm, see the log",
                                                          static_cast<unsigned long long>(r.unarmedThreads));
  if (r.processWideTimer()) {
    out << "not sampled: none: the process-wide timer counts every thread's CPU (GC and JIT compiler threads' too; "
           "candor's own threads' lands on the thread the signal goes to)\n";
  } else {
    out << fmt("not sampled: %.3f s of process CPU (%.1f%%) in threads candor did not sample (GC, JIT compiler and "
               "other JVM threads%s%s)\n",
               r.unsampledThreadsCpuNs() / 1e9, pct(r.unsampledThreadsCpuNs(), r.processCpuNs),
               r.threads.empty() ? "" : "; `allthreads` samples them", unarmed.c_str());
  }
  if (!r.kernel.mode.empty()) {
    out << fmt("kernel:    %s: %s\n", r.kernel.mode.c_str(), r.kernel.reason.c_str());
    out << fmt("           %llu ticks (%.1f%%) with kernel frames, %llu (%.1f%%) kernel time not sampled but counted "
               "as [kernel_unsampled]",
               static_cast<unsigned long long>(r.kernel.sampledTicks), pct(r.kernel.sampledTicks, r.ticks),
               static_cast<unsigned long long>(r.kernel.unsampledTicks), pct(r.kernel.unsampledTicks, r.ticks));
    // percpu: the ticks no CPU's sample covered, counted from the threads' CPU clocks
    uint64_t cpuUnsampled = r.failureCount(bucketName(Bucket::kCpuUnsampled));
    if (cpuUnsampled > 0) {
      out << fmt(", %llu (%.1f%%) CPU time no sample covered, counted as cpu_unsampled",
                 static_cast<unsigned long long>(cpuUnsampled), pct(cpuUnsampled, r.ticks));
    }
    out << "\n";
  }
  if (hasCpu) {
    double achieved = r.samplesPerCpuSecond(), requested = r.requestedPerCpuSecond();
    out << fmt("rate:      %.1f samples per CPU-second achieved, %.1f requested (%.1f%%); %.1f per CPU-second of the "
               "whole process\n", achieved, requested,
               pct(static_cast<uint64_t>(achieved * 1000), static_cast<uint64_t>(requested * 1000)),
               r.samplesPerProcessCpuSecond());
  }
  if (r.hasSampler) {
    out << fmt("rate:      %.1f sampler ticks per second achieved, %.1f requested (%.1f%%)\n", r.sampler.effectiveRate(),
               r.sampler.requestedRate(),
               pct(static_cast<uint64_t>(r.sampler.effectiveRate() * 1000), static_cast<uint64_t>(r.sampler.requestedRate() * 1000)));
  }
  out << fmt("ticks:     %llu = recorded %llu (%.2f%%) + failed %llu (%.2f%%) + dropped %llu (%.2f%%)\n\n",
             static_cast<unsigned long long>(r.ticks), static_cast<unsigned long long>(r.recorded),
             pct(r.recorded, r.ticks), static_cast<unsigned long long>(r.failuresTotal()),
             pct(r.failuresTotal(), r.ticks), static_cast<unsigned long long>(r.dropped), pct(r.dropped, r.ticks));

  // Self is the leaf frame; total counts a method once per stack, however often it recurses.
  const ValueProfile* main = r.unit == r.alloc.unit ? &r.alloc : r.unit == r.lock.unit ? &r.lock : nullptr;
  if (main != nullptr) {
    writeValueProfile(out, *main, r.snapshot, topN);
  } else {
    writeTimeTables(out, r, topN);
  }
  for (const ValueProfile* side : r.sideProfiles()) writeValueProfile(out, *side, side->snapshot, topN);
  if (r.push.enabled) {
    out << fmt("push:      %s as %s: %llu intervals sent (%.1f kB), %llu failed, %llu dropped (backend too slow)\n\n",
               r.push.url.c_str(), r.push.service.c_str(), static_cast<unsigned long long>(r.push.sent),
               r.push.bytes / 1024.0, static_cast<unsigned long long>(r.push.failed),
               static_cast<unsigned long long>(r.push.dropped));
  }

  if (r.kinds.size() > 1 || (!r.kinds.empty() && r.kinds[0].name != "cpu")) {
    out << "Sample kinds:\n" << fmt("  %-10s %9s %9s %9s %9s  %s\n", "kind", "ticks", "recorded", "failed", "dropped", "states");
    for (const KindReport& k : r.kinds) {
      std::string states;
      for (const auto& [name, n] : k.states) states += name + "=" + std::to_string(n) + " ";
      out << fmt("  %-10s %9llu %9llu %9llu %9llu  ", k.name.c_str(), static_cast<unsigned long long>(k.ticks),
                 static_cast<unsigned long long>(k.recorded), static_cast<unsigned long long>(k.failed),
                 static_cast<unsigned long long>(k.dropped))
          << states << "\n";
    }
    out << "\n";
  }
  timeTable(out, "Sampling latency (cpu: CPU time from timer expiry to the handler; others: from the intended time)",
            r.kinds, &KindReport::latency);
  timeTable(out, "Time in candor's handler per tick (walk=remote: including the wait; signal delivery not included)",
            r.kinds, &KindReport::handler);
  if (r.hasSampler) {
    const SamplerReport& s = r.sampler;
    out << fmt("Sampler (%s): %.1f ticks/s effective, %.1f requested; %llu ticks, %llu missed; up to %u threads per "
               "tick of %llu seen\n",
               s.mode.c_str(), s.effectiveRate(), s.requestedRate(), static_cast<unsigned long long>(s.ticks),
               static_cast<unsigned long long>(s.missedTicks), s.threadsPerTick,
               static_cast<unsigned long long>(s.candidatesMax));
    out << fmt("  running threads sampled: %llu of %llu; signals sent %llu, still pending (recorded as runnable) %llu, failed %llu, "
               "idle repeated without a signal %llu\n",
               static_cast<unsigned long long>(s.runningSampled), static_cast<unsigned long long>(s.runningSeen),
               static_cast<unsigned long long>(s.signalsSent), static_cast<unsigned long long>(s.skippedPending),
               static_cast<unsigned long long>(s.signalFailures), static_cast<unsigned long long>(s.repeated));
    out << fmt("  sampler CPU per tick p50 %.1fus p99 %.1fus max %.1fus; JVMTI stack call p50 %.1fus p99 %.1fus max "
               "%.1fus\n\n",
               s.tickCpu.p50 / 1e3, s.tickCpu.p99 / 1e3, s.tickCpu.max / 1e3, s.call.p50 / 1e3, s.call.p99 / 1e3,
               s.call.max / 1e3);
  }
  const DepthReport& d = r.depth;
  out << fmt("Stack depth: limit %u frames%s, deepest recorded %llu; %llu samples deeper than a ring slot (%u frames) "
             "used a spill buffer, %llu found none free; %llu marked [truncated]\n\n",
             d.limit, d.unlimited ? " (unlimited)" : "", static_cast<unsigned long long>(d.deepest),
             static_cast<unsigned long long>(d.spilled), d.slotFrames, static_cast<unsigned long long>(d.spillRefused),
             static_cast<unsigned long long>(d.truncated));
  const MemoryReport& m = r.memory;
  auto mb = [](size_t b) { return static_cast<double>(b) / (1 << 20); };
  out << fmt("Agent memory: %.1f MB accounted of a %.1f MB process: ring %.1f MB resident (of %.1f mapped), spill "
             "%.1f (of %.1f), trace store %.1f (%zu nodes), names %.1f (%zu methods, %zu other frames), symbol "
             "tables %.1f, JFR buffer %.1f\n\n",
             mb(m.accounted()), mb(m.processResident), mb(m.ringResident), mb(m.ringMapped), mb(m.spillResident),
             mb(m.spillMapped), mb(m.storeBytes), m.storeNodes, mb(m.nameBytes), m.methods, m.frames,
             mb(m.symbolBytes), mb(m.jfrBufferBytes));
  if (r.labels.sets > 0 || r.labels.refused > 0) {
    out << fmt("Labels: %llu recorded ticks carried Candor.label sets; %llu sets known, %llu scopes refused over the bound "
               "(shown as candor.labels=overflow)",
               static_cast<unsigned long long>(r.labels.labelled), static_cast<unsigned long long>(r.labels.sets),
               static_cast<unsigned long long>(r.labels.refused));
    if (r.labels.unknown > 0) {
      out << fmt("; %llu ticks were read after their thread's label history was cut (candor.labels=unknown: a"
                 " stalled reader)", static_cast<unsigned long long>(r.labels.unknown));
    }
    out << "\n\n";
  }
  out << "Ticks that did not become a Java stack:\n" << fmt("  %-24s %9s %8s\n", "bucket", "ticks", "share");
  for (const auto& [name, count] : r.failures) {
    out << fmt("  %-24s %9llu %7.2f%%\n", name.c_str(), static_cast<unsigned long long>(count), pct(count, r.ticks));
  }
  out << fmt("  %-24s %9llu %7.2f%%\n", "dropped", static_cast<unsigned long long>(r.dropped), pct(r.dropped, r.ticks));
}

}  // namespace candor
