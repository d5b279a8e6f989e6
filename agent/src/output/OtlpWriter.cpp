#include "output/OtlpWriter.h"

#include <cstdlib>
#include <map>
#include <unordered_map>

#include "base/Version.h"
#include "output/OtlpDictionary.h"

namespace candor {

namespace {
// Field numbers: collector/profiles/v1development/profiles_service.proto, profiles.proto,
// resource/v1/resource.proto and common/v1/common.proto of opentelemetry-proto 1.11.0-alpha.
constexpr uint32_t kRequestResourceProfiles = 1, kRequestDictionary = 2;
constexpr uint32_t kResourceProfilesResource = 1, kResourceProfilesScopeProfiles = 2;
constexpr uint32_t kResourceAttributes = 1;
constexpr uint32_t kKeyValueKey = 1, kKeyValueValue = 2, kAnyString = 1;
constexpr uint32_t kScopeProfilesScope = 1, kScopeProfilesProfiles = 2;
constexpr uint32_t kScopeName = 1, kScopeVersion = 2;
constexpr uint32_t kProfileSampleType = 1, kProfileSamples = 2, kProfileTime = 3, kProfileDuration = 4,
                   kProfileAttributes = 11;
constexpr uint32_t kValueTypeType = 1, kValueTypeUnit = 2;
constexpr uint32_t kSampleStack = 1, kSampleAttributes = 2, kSampleValues = 4;

constexpr const char* kUnknownService = "unknown_service:java";  // as an OpenTelemetry SDK names it

bool isPseudo(const SnapshotFrame& f) {
  return f.kind == kKindThread || f.kind == kKindFailure ||
         (f.name.size() >= 2 && f.name.front() == '[' && f.name.back() == ']');
}

bool isTruncated(const SnapshotFrame& f) { return f.kind == kKindFailure && f.name == "[truncated]"; }

// One profile's samples: a sample per (stack, attributes), as the Java writer merges them.
class Samples {
 public:
  Samples(OtlpDictionary& dict, const ProfileSnapshot& snap, const std::unordered_map<int32_t, std::string>& names,
          const std::unordered_map<uint32_t, LabelPairs>& labels)
      : dict_(dict), snap_(snap), names_(names), labels_(labels), locationOf_(snap.frames().size(), -1) {}

  void write(ProtoWriter& profile) {
    std::vector<uint64_t> unthreaded(snap_.nodes().size());
    for (size_t i = 0; i < unthreaded.size(); i++) unthreaded[i] = snap_.nodes()[i].self;
    for (const ProfileSnapshot::ThreadCount& t : snap_.byThread()) {
      add(t.node, t.tid, t.count, t.labels);
      unthreaded[t.node] -= t.count;
    }
    for (uint32_t n = 0; n < unthreaded.size(); n++) {
      if (unthreaded[n] > 0) add(n, -1, unthreaded[n]);
    }
    for (const auto& [key, value] : samples_) {
      size_t mark = profile.begin(kProfileSamples);
      if (key[0] != 0) profile.int64(kSampleStack, key[0]);
      profile.packedVarints(kSampleAttributes, std::vector<int64_t>(key.begin() + 1, key.end()));
      profile.packedVarints(kSampleValues, {static_cast<int64_t>(value)});
      profile.end(mark);
    }
  }

 private:
  void add(uint32_t node, int32_t tid, uint64_t count, uint32_t labelSet = 0) {
    std::vector<int32_t> key = stack(node);
    if (tid > 0) {
      auto it = names_.find(tid);
      if (it != names_.end() && !it->second.empty()) key.push_back(dict_.attribute("thread.name", it->second));
      key.push_back(dict_.attributeInt("candor.tid", tid));
    }
    // Candor.label scopes: each key and value a string attribute of the sample
    if (auto set = labels_.find(labelSet); labelSet != 0 && set != labels_.end()) {
      for (const auto& [k, v] : set->second) key.push_back(dict_.attribute(k, v));
    }
    auto [it, isNew] = index_.try_emplace(key, samples_.size());
    if (isNew) samples_.emplace_back(std::move(key), 0);
    samples_[it->second].second += count;
  }

  // {stack index, failure and truncation attribute indices} of a node.
  std::vector<int32_t> stack(uint32_t node) {
    auto cached = stacks_.find(node);
    if (cached != stacks_.end()) return cached->second;
    std::vector<int32_t> locations;
    bool truncated = false;
    for (uint32_t n = node; n != 0; n = snap_.nodes()[n].parent) {  // OTLP: leaf first
      const SnapshotFrame& f = snap_.frames()[snap_.nodes()[n].frame];
      locations.push_back(location(snap_.nodes()[n].frame));
      truncated |= isTruncated(f);
    }
    std::vector<int32_t> out{dict_.stack(locations)};
    // a failure bucket stands where the stack would end, below any context root ([cpu], a thread)
    if (node != 0) {
      const SnapshotFrame& leaf = snap_.frames()[snap_.nodes()[node].frame];
      if (leaf.kind == kKindFailure && !isTruncated(leaf)) {
        out.push_back(dict_.attribute("candor.failure", leaf.name.substr(1, leaf.name.size() - 2)));
      }
    }
    if (truncated) out.push_back(dict_.attributeBool("candor.truncated", true));
    stacks_.emplace(node, out);
    return out;
  }

  int32_t location(uint32_t frame) {
    if (locationOf_[frame] >= 0) return locationOf_[frame];
    const SnapshotFrame& f = snap_.frames()[frame];
    std::string name = f.name;
    int64_t line = 0;
    int32_t kind;
    if (isPseudo(f)) {
      kind = dict_.attribute("candor.frame.kind", "pseudo");
    } else if (f.kind == kKindObjectClass) {
      kind = dict_.attribute("candor.frame.kind", "class");
    } else if (f.kind == kKindKernel) {  // the attribute says kernel: no _[k]
      if (name.size() > 4 && name.compare(name.size() - 4, 4, "_[k]") == 0) name.resize(name.size() - 4);
      kind = dict_.attribute("profile.frame.type", "kernel");
    } else if (f.kind == kKindJava) {
      // lines=: "pkg.Class.method:42" is the function and its line
      size_t colon = name.rfind(':');
      if (colon != std::string::npos && colon + 1 < name.size() &&
          name.find_first_not_of("0123456789", colon + 1) == std::string::npos && name.size() - colon <= 10) {
        line = std::strtoll(name.c_str() + colon + 1, nullptr, 10);
        name.resize(colon);
      }
      kind = dict_.attribute("profile.frame.type", "jvm");
    } else {
      kind = dict_.attribute("profile.frame.type", "native");
    }
    int32_t function = dict_.function(name, name);
    return locationOf_[frame] = dict_.location(function, line, {kind});
  }

  OtlpDictionary& dict_;
  const ProfileSnapshot& snap_;
  const std::unordered_map<int32_t, std::string>& names_;
  const std::unordered_map<uint32_t, LabelPairs>& labels_;
  std::vector<int32_t> locationOf_;
  std::unordered_map<uint32_t, std::vector<int32_t>> stacks_;
  std::map<std::vector<int32_t>, size_t> index_;                 // {stack, attributes...} -> sample
  std::vector<std::pair<std::vector<int32_t>, uint64_t>> samples_;  // in the order first seen
};

// Type and unit of the sample values, with pprof's names.
std::pair<const char*, const char*> sampleType(const std::string& unit) {
  if (unit == "bytes") return {"alloc_space", "bytes"};
  if (unit == "ns") return {"lock_time", "nanoseconds"};
  return {"samples", "count"};
}

void writeProfile(ProtoWriter& out, OtlpDictionary& dict, const ProfileReport& r, const ProfileSnapshot& snap,
                  const std::string& unit, const std::string& events,
                  const std::unordered_map<int32_t, std::string>& names) {
  size_t profile = out.begin(kScopeProfilesProfiles);
  auto [type, typeUnit] = sampleType(unit);
  size_t valueType = out.begin(kProfileSampleType);
  out.int64(kValueTypeType, dict.string(type));
  out.int64(kValueTypeUnit, dict.string(typeUnit));
  out.end(valueType);
  Samples(dict, snap, names, r.labelPairs).write(out);
  if (r.startUnixNs > 0) out.fixed64(kProfileTime, r.startUnixNs);
  if (r.durationNs > 0) out.varint(kProfileDuration, r.durationNs);
  out.packedVarints(kProfileAttributes, {dict.attribute("candor.events", events)});
  out.end(profile);
}
}  // namespace

std::string encodeOtlp(const ProfileReport& r) {
  std::unordered_map<int32_t, std::string> names;
  for (const ThreadReport& t : r.threads) names.emplace(t.tid, t.name);
  std::string service = r.service;
  if (service.empty()) {  // as OpenTelemetry SDKs take it
    const char* env = getenv("OTEL_SERVICE_NAME");
    service = env != nullptr ? env : "";
    service.erase(0, service.find_first_not_of(" \t"));
    service.erase(service.find_last_not_of(" \t") + 1);
  }
  if (service.empty()) service = kUnknownService;

  OtlpDictionary dict;
  ProtoWriter out;
  size_t resourceProfiles = out.begin(kRequestResourceProfiles);
  size_t resource = out.begin(kResourceProfilesResource);
  auto resourceAttribute = [&](const std::string& key, const std::string& text) {
    size_t attribute = out.begin(kResourceAttributes);
    out.bytes(kKeyValueKey, key);
    size_t value = out.begin(kKeyValueValue);
    out.bytes(kAnyString, text);
    out.end(value);
    out.end(attribute);
  };
  resourceAttribute("service.name", service);
  for (const auto& [key, label] : r.resourceLabels) resourceAttribute(key, label);  // pushlabels=
  out.end(resource);
  size_t scopeProfiles = out.begin(kResourceProfilesScopeProfiles);
  size_t scope = out.begin(kScopeProfilesScope);
  out.bytes(kScopeName, "candor");
  out.bytes(kScopeVersion, version());
  out.end(scope);
  // The main profile: its kinds of time, or the value profile that is main without them.
  std::string events;
  if (r.unit == "bytes" || r.unit == "ns") {
    events = r.unit == "bytes" ? "alloc" : "lock";
  } else {
    for (const KindReport& k : r.kinds) {
      if (k.name == "alloc" || k.name == "lock") continue;
      events += (events.empty() ? "" : ", ") + k.name;
    }
  }
  writeProfile(out, dict, r, r.snapshot, r.unit, events, names);
  for (const ValueProfile* side : r.sideProfiles()) {
    writeProfile(out, dict, r, side->snapshot, side->unit, side->kind, names);
  }
  out.end(scopeProfiles);
  out.end(resourceProfiles);
  dict.write(out, kRequestDictionary);
  return out.take();
}

void writeOtlp(const ProfileReport& report, std::ostream& out) {
  std::string bytes = encodeOtlp(report);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace candor
