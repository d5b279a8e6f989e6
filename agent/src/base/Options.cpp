#include "base/Options.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace candor {

namespace {
struct SignalEntry {
  const char* name;
  int number;
};
const SignalEntry kSignals[] = {
    {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF}, {"SIGURG", SIGURG},   {"SIGUSR1", SIGUSR1},
    {"SIGALRM", SIGALRM},     {"SIGWINCH", SIGWINCH}, {"SIGPWR", SIGPWR}, {"SIGXCPU", SIGXCPU},
    // Known so that asking for them gets the right refusal (see reservedSignal).
    {"SIGSEGV", SIGSEGV},     {"SIGBUS", SIGBUS},     {"SIGUSR2", SIGUSR2}, {"SIGQUIT", SIGQUIT},
    {"SIGINT", SIGINT},       {"SIGTERM", SIGTERM},   {"SIGHUP", SIGHUP},   {"SIGIO", SIGIO},
};
}  // namespace

const char* samplerModeName(SamplerMode m) {
  switch (m) {
    case SamplerMode::kNone: return "none";
    case SamplerMode::kWall: return "wall";
    case SamplerMode::kSafepoint: return "safepoint";
    case SamplerMode::kHandshake: return "handshake";
  }
  return "?";
}

std::string eventsName(const Options& o) {
  std::string s = o.cpuEngine ? engineName(o.engine) : "";
  if (o.sampler != SamplerMode::kNone) s += std::string(s.empty() ? "" : "+") + samplerModeName(o.sampler);
  if (o.alloc) s += std::string(s.empty() ? "" : "+") + "alloc";
  if (o.lock) s += std::string(s.empty() ? "" : "+") + "lock";
  return s;
}

const char* cstackModeName(CStackMode m) {
  return m == CStackMode::kDwarf ? "dwarf" : m == CStackMode::kFp ? "fp" : "no";
}

const char* walkModeName(WalkMode w) {
  return w == WalkMode::kVm ? "vm" : w == WalkMode::kRemote ? "remote" : w == WalkMode::kCopy ? "copy" : "agct";
}

const char* engineName(EngineKind e) {
  switch (e) {
    case EngineKind::kCpu: return "cpu";
    case EngineKind::kCtimer: return "ctimer";
    case EngineKind::kItimer: return "itimer";
  }
  return "?";
}

std::string sideOutputPath(const std::string& path, const std::string& kind) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "-" + kind;
  return path.substr(0, dot) + "-" + kind + path.substr(dot);
}

OutputFormat outputFormatOf(const std::string& path) {
  auto ends = [&](const char* ext) {
    size_t n = strlen(ext);
    return path.size() > n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (ends(".html") || ends(".htm")) return OutputFormat::kHtml;
  if (ends(".collapsed") || ends(".folded")) return OutputFormat::kCollapsed;
  if (ends(".txt")) return OutputFormat::kSummary;
  if (ends(".json")) return OutputFormat::kStats;
  if (ends(".jfr")) return OutputFormat::kJfr;
  if (ends(".otlp")) return OutputFormat::kOtlp;
  return OutputFormat::kUnknown;
}

int parseSignal(const std::string& text) {
  if (!text.empty() && text.size() <= 19 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    unsigned long long n = std::strtoull(text.c_str(), nullptr, 10);
    if (n <= 64) return static_cast<int>(n);
  }
  std::string upper = text;
  for (char& c : upper) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
  if (upper.rfind("SIG", 0) != 0) upper = "SIG" + upper;
  for (const auto& s : kSignals) {
    if (upper == s.name) return s.number;
  }
  return 0;
}

const char* signalName(int sig) {
  for (const auto& s : kSignals) {
    if (s.number == sig) return s.name;
  }
  static thread_local char buf[16];
  snprintf(buf, sizeof buf, "signal %d", sig);
  return buf;
}

}  // namespace candor
