#include "output/StatsWriter.h"

#include <cstdio>
#include <map>

#include "output/Json.h"

namespace candor {

namespace {
void field(std::string& out, const char* name, const std::string& jsonValue, bool last = false) {
  out += "  \"";
  out += name;
  out += "\": " + jsonValue + (last ? "\n" : ",\n");
}
std::string str(const std::string& s) {
  std::string out;
  appendJsonString(out, s);
  return out;
}
std::string num(uint64_t v) { return std::to_string(v); }
std::string real(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}
std::string latency(const LatencySummary& l) {
  return "{\"count\": " + num(l.count) + ", \"p50_ns\": " + num(l.p50) + ", \"p99_ns\": " + num(l.p99) +
         ", \"p999_ns\": " + num(l.p999) + ", \"max_ns\": " + num(l.max) + ", \"mean_ns\": " + num(l.mean) + "}";
}
std::string kindJson(const KindReport& k) {
  std::string states = "{";
  for (size_t i = 0; i < k.states.size(); i++) {
    states += (i ? ", " : "") + str(k.states[i].first) + ": " + num(k.states[i].second);
  }
  return "{\"ticks\": " + num(k.ticks) + ", \"recorded\": " + num(k.recorded) + ", \"failed\": " + num(k.failed) +
         ", \"dropped\": " + num(k.dropped) + ", \"states\": " + states + "}, \"latency\": " + latency(k.latency) +
         ", \"handler\": " + latency(k.handler) + "}";
}
std::string samplerJson(const SamplerReport& s) {
  return "{\"mode\": " + str(s.mode) + ", \"signal\": " + str(s.signal) + ", \"interval_ns\": " + num(s.intervalNs) +
         ", \"threads_per_tick\": " + num(s.threadsPerTick) + ", \"ticks\": " + num(s.ticks) +
         ", \"missed_ticks\": " + num(s.missedTicks) + ", \"requested_rate\": " + real(s.requestedRate()) +
         ", \"effective_rate\": " + real(s.effectiveRate()) + ", \"signals_sent\": " + num(s.signalsSent) +
         ", \"pending_recorded_runnable\": " + num(s.skippedPending) + ", \"signal_failures\": " + num(s.signalFailures) +
         ", \"repeated_without_signal\": " + num(s.repeated) + ", \"running_seen\": " + num(s.runningSeen) +
         ", \"running_sampled\": " + num(s.runningSampled) + ", \"candidates_max\": " + num(s.candidatesMax) +
         ", \"tick_cpu\": " + latency(s.tickCpu) + ", \"jvmti_call\": " + latency(s.call) + "}";
}
}  // namespace

void writeStats(const ProfileReport& r, std::ostream& os) {
  std::string out = "{\n";
  field(out, "engine", str(r.engine));
  field(out, "signal", str(r.signal));
  field(out, "walker", str(r.walker));
  field(out, "timers", str(r.timers));
  field(out, "signal_number", num(r.signalNumber));
  field(out, "interval_ns", num(r.intervalNs));
  field(out, "jitter_pct", num(r.jitterPct));
  field(out, "ticks", num(r.ticks));
  field(out, "recorded", num(r.recorded));
  field(out, "dropped", num(r.dropped));
  field(out, "merged_ticks", num(r.merged));
  std::string failures = "{";
  for (size_t i = 0; i < r.failures.size(); i++) {
    failures += (i ? ", " : "") + str(r.failures[i].first) + ": " + num(r.failures[i].second);
  }
  field(out, "failures", failures + "}");
  field(out, "failures_total", num(r.failuresTotal()));
  field(out, "depth", "{\"limit\": " + num(r.depth.limit) + ", \"slot_frames\": " + num(r.depth.slotFrames) +
                          ", \"deepest\": " + num(r.depth.deepest) + ", \"spilled\": " + num(r.depth.spilled) +
                          ", \"spill_refused\": " + num(r.depth.spillRefused) + ", \"truncated\": " +
                          num(r.depth.truncated) + "}");
  field(out, "labels", "{\"sets\": " + num(r.labels.sets) + ", \"refused\": " + num(r.labels.refused) +
                           ", \"labelled_samples\": " + num(r.labels.labelled) +
                           ", \"unknown_samples\": " + num(r.labels.unknown) + "}");
  const MemoryReport& m = r.memory;
  field(out, "memory", "{\"ring_mapped\": " + num(m.ringMapped) + ", \"ring_resident\": " + num(m.ringResident) +
                           ", \"spill_mapped\": " + num(m.spillMapped) + ", \"spill_resident\": " +
                           num(m.spillResident) + ", \"store_nodes\": " + num(m.storeNodes) + ", \"store\": " +
                           num(m.storeBytes) + ", \"methods\": " + num(m.methods) + ", \"frames\": " +
                           num(m.frames) + ", \"names\": " + num(m.nameBytes) + ", \"symbols\": " +
                           num(m.symbolBytes) + ", \"jfr_buffer\": " + num(m.jfrBufferBytes) +
                           ", \"jfr_pool_entries\": " + num(m.jfrPoolEntries) + ", \"label_sets\": " +
                           num(m.labelSets) + ", \"accounted\": " + num(m.accounted()) + ", \"process_rss\": " +
                           num(m.processResident) + ", \"malloc_in_use\": " + num(m.mallocInUse) +
                           ", \"malloc_free\": " + num(m.mallocFree) + "}");
  field(out, "threads", num(r.threads.size()));
  field(out, "duration_ns", num(r.durationNs));
  field(out, "process_cpu_ns", num(r.processCpuNs));
  field(out, "profiled_cpu_ns", num(r.profiledCpuNs));
  field(out, "samples_per_cpu_second", real(r.samplesPerCpuSecond()));
  field(out, "samples_per_process_cpu_second", real(r.samplesPerProcessCpuSecond()));
  field(out, "unsampled_threads_cpu_ns", num(r.unsampledThreadsCpuNs()));
  field(out, "unarmed_threads", num(r.unarmedThreads));
  field(out, "kernel", "{\"mode\": " + str(r.kernel.mode) + ", \"reason\": " + str(r.kernel.reason) +
                           ", \"sampled_ticks\": " + num(r.kernel.sampledTicks) + ", \"unsampled_ticks\": " +
                           num(r.kernel.unsampledTicks) + ", \"estimated_ticks\": " + num(r.kernel.estimatedTicks) + "}");
  field(out, "requested_per_cpu_second", real(r.requestedPerCpuSecond()));
  field(out, "preload_ns", num(r.preloadNs));
  field(out, "classes_preloaded", num(r.classesPreloaded));
  field(out, "class_prepare_ns", num(r.classPrepareNs));
  field(out, "classes_prepared", num(r.classesPrepared));
  std::string kindsJson = "{";
  for (size_t i = 0; i < r.kinds.size(); i++) {
    kindsJson += std::string(i ? ",\n    " : "\n    ") + str(r.kinds[i].name) + ": " + kindJson(r.kinds[i]);
  }
  field(out, "kinds", kindsJson + (r.kinds.empty() ? "}" : "\n  }"));
  if (r.hasSampler) field(out, "sampler", samplerJson(r.sampler));
  // Samples are in kinds.alloc and kinds.lock; these are the bytes and nanoseconds they stand for.
  if (r.alloc.enabled) {
    field(out, "alloc", "{\"interval_bytes\": " + num(static_cast<uint64_t>(r.alloc.interval)) +
                            ", \"samples\": " + num(r.alloc.samples) + ", \"bytes\": " + num(r.alloc.total()) +
                            ", \"recorded_bytes\": " + num(r.alloc.recorded) + ", \"failed_bytes\": " +
                            num(r.alloc.failed) + ", \"dropped_bytes\": " + num(r.alloc.dropped) + "}");
  }
  if (r.lock.enabled) {
    field(out, "lock", "{\"threshold_ns\": " + num(static_cast<uint64_t>(r.lock.interval)) +
                           ", \"samples\": " + num(r.lock.samples) + ", \"waited_ns\": " + num(r.lock.total()) +
                           ", \"recorded_ns\": " + num(r.lock.recorded) + ", \"failed_ns\": " + num(r.lock.failed) +
                           ", \"dropped_ns\": " + num(r.lock.dropped) + "}");
  }
  if (r.push.enabled) {  // intervals: sent + failed (after retries) + dropped (queue full) = finished
    field(out, "push", "{\"url\": " + str(r.push.url) + ", \"service\": " + str(r.push.service) +
                           ", \"sent\": " + num(r.push.sent) + ", \"failed\": " + num(r.push.failed) +
                           ", \"dropped\": " + num(r.push.dropped) + ", \"bytes\": " + num(r.push.bytes) + "}");
  }
  field(out, "unit", str(r.unit));
  std::map<std::string, uint64_t> kinds;
  for (const auto& t : r.threads) kinds[t.kind] += t.ticks;
  std::string kindJson = "{";
  for (const auto& [k, v] : kinds) kindJson += (kindJson.size() > 1 ? ", " : "") + str(k) + ": " + num(v);
  field(out, "thread_kinds", kindJson + "}");
  std::string threads = "[";
  for (size_t i = 0; i < r.threads.size(); i++) {
    const ThreadReport& t = r.threads[i];
    threads += std::string(i ? ",\n    " : "\n    ") + "{\"tid\": " + num(t.tid) + ", \"name\": " + str(t.name) +
               ", \"kind\": " + str(t.kind) + ", \"cpu_ns\": " + num(t.cpuNs) + ", \"ticks\": " + num(t.ticks) +
               ", \"recorded\": " + num(t.recorded) + "}";
  }
  field(out, "per_thread", threads + (r.threads.empty() ? "]" : "\n  ]"), true);
  out += "}\n";
  os << out;
}

}  // namespace candor
