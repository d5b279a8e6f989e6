#include "control/OptionParser.h"

#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <regex>

#include "control/HttpPost.h"

namespace candor {

namespace {

struct OptionSpec {
  const char* name;
  bool takesValue;
  const char* help;
};

const OptionSpec kSpecs[] = {
    {"start", false, "start profiling now (at load, or when attached)"},
    {"stop", false, "stop profiling and write the outputs (agent already loaded)"},
    {"dump", false, "write the outputs without stopping (agent already loaded)"},
    {"status", false, "print counters of the running profiler (agent already loaded)"},
    {"help", false, "print this help and do nothing else"},
    {"version", false, "print the version and git commit (as candor --version) and do nothing else"},
    {"event", true, "cpu | ctimer | itimer | wall | safepoint | handshake | alloc | lock, or several: event=cpu,wall,alloc"},
    {"alloc", true, "also sample allocations, every N bytes a thread allocates on average: alloc=512k (default; "
                    "alone: alloc)"},
    {"lock", true, "also record lock waits (contended synchronized, parks on j.u.c locks) of at least this long: "
                   "lock=10us (default; alone: lock)"},
    {"interval", true, "CPU time between samples of a thread: N[ns|us|ms|s] (default 10ms; wall alone: 20ms; per-CPU timers run 0.3% under it on average, each CPU within 0.2% of that)"},
    {"wallinterval", true, "wall/safepoint/handshake sampler period when combined with a CPU event (default 20ms)"},
    {"wallthreads", true, "threads sampled per sampler tick, running ones first (default 16)"},
    {"wallsignal", true, "signal for wall samples (default SIGURG)"},
    {"split", true, "thread | state | class | label:KEY, or joined: thread+state: root frames per thread, thread "
                    "state, allocated or locked class (alloc, lock), value of a Candor.label key"},
    {"tid", true, "only these OS thread ids, separated by ':' (e.g. tid=1234:1240)"},
    {"file", true, "output file; .html, .collapsed, .txt, .jfr or .otlp by extension; may repeat"},
    {"stats", true, "write counters as JSON to this file"},
    {"signal", true, "signal for cpu/ctimer: name or number (default SIGVTALRM)"},
    {"jitter", true, "randomize each interval by up to +-PCT percent (default 0)"},
    {"allthreads", false, "also sample GC, compiler and other JVM threads"},
    {"threads", false, "split stacks by thread (same as split=thread); threads=REGEX samples only matching thread names"},
    {"lines", false, "add :line to Java frames"},
    {"depth", true, "maximum frames per stack, a number or unlimited (default unlimited: 262144)"},
    {"walk", true, "agct | vm | remote | copy: who walks the stack; vm is candor's own walker, crash-protected, in the "
                   "handler; remote runs it on a walker thread while the sampled thread waits; copy (experimental, "
                   "event=cpu) takes no signal: perf copies the stack top (stackcopy=), a reader thread walks the "
                   "copy (default vm)"},
    {"cstack", true, "dwarf | fp | no: how C/C++ frames (libc, JNI libraries, libjvm) are walked: DWARF unwind tables "
                     "(default; glibc has no frame pointers), frame pointers only, or not at all"},
    {"percpu", true, "yes | no | auto (bare: yes): event=cpu from one perf timer per CPU instead of one per thread: "
                     "nothing to re-arm when threads switch, no signal (walk=copy), kernel time sampled; needs "
                     "perf_event_paranoid <= 0, CAP_PERFMON or root. auto (default): where perf allows it and no "
                     "walk=, jitter=, signal= or allthreads asks for a timer per thread"},
    {"stackcopy", true, "walk=copy: bytes of stack copied per sample, e.g. 8k (default 8k, with percpu 32k; at most 60k); deeper "
                        "frames are read from the live stack where the callers still hold, else cut and marked [truncated]"},
    {"ringsize", true, "sample ring slots, a power of two (default 1024)"},
    {"title", true, "title of the HTML flame graph"},
    {"quiet", false, "no candor: log lines except errors"},
    {"loop", true, "with a .jfr file: start a new recording file every DURATION (continuous profiling)"},
    {"push", true, "send every loop= interval (default 10s) to a Pyroscope-compatible endpoint, push=http://host:4040, or as OTLP, push=otlp+http://host:4318"},
    {"pushlabels", true, "with push=: static labels of the application, KEY=VALUE joined by '+' (env=prod+region=eu): "
                         "Pyroscope's name{env=prod,...}, OTLP resource attributes"},
    {"service", true, "with push=: the application name the backend files the profiles under (default: the main class)"},
    {"reply", true, "file where an attached agent writes its one-line answer (used by the candor tool)"},
};

const OptionSpec* findSpec(const std::string& name) {
  for (const auto& s : kSpecs) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); j++) prev[j] = j;
  for (size_t i = 1; i <= a.size(); i++) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); j++) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string unknownOption(const std::string& name) {
  const char* best = nullptr;
  size_t bestDistance = 3;  // suggest only close matches
  // A bare event name ("wall") is a missing event=, not a misspelled walk=: suggest nothing.
  static const char* const kEventNames[] = {"cpu", "ctimer", "itimer", "wall", "safepoint", "handshake"};
  for (const char* e : kEventNames) {
    if (name == e) bestDistance = 0;
  }
  for (const auto& s : kSpecs) {
    size_t d = editDistance(name, s.name);
    if (d < bestDistance) {
      bestDistance = d;
      best = s.name;
    }
  }
  std::string msg = "unknown option '" + name + "'";
  if (best != nullptr) msg += std::string(" (did you mean '") + best + "'?)";
  else msg += " (use 'help' to list the options)";
  return msg;
}

bool parseUint(const std::string& text, uint64_t max, uint64_t* out) {
  if (text.empty() || text.size() > 19) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > max) return false;
  *out = v;
  return true;
}

// Signals the JVM (or the kernel) owns; candor must never take them.
bool reservedSignal(int sig) {
  switch (sig) {
    case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP: case SIGUSR2: case SIGQUIT:
    case SIGHUP: case SIGINT: case SIGTERM: case SIGKILL: case SIGSTOP: case SIGPIPE: case SIGCHLD:
    case SIGABRT: case SIGIO: case SIGCONT: case SIGTSTP: case SIGTTIN: case SIGTTOU:
      return true;
    default:
      return false;
  }
}

bool isEventName(const std::string& n) {
  return n == "cpu" || n == "ctimer" || n == "itimer" || n == "wall" || n == "safepoint" || n == "handshake" ||
         n == "alloc" || n == "lock";
}

// Adds one event to the options: at most one CPU engine and one sampler-thread mode.
bool addEvent(Options& o, const std::string& name, std::string* error) {
  if (name == "alloc" || name == "lock") {  // combine with any other event
    (name == "alloc" ? o.alloc : o.lock) = true;
    return true;
  }
  bool cpuKind = name == "cpu" || name == "ctimer" || name == "itimer";
  if (cpuKind ? o.cpuEngine : o.sampler != SamplerMode::kNone) {
    *error = "event '" + name + "' conflicts with another event of its kind; combine one of cpu/ctimer/itimer "
             "with one of wall/safepoint/handshake";
    return false;
  }
  if (name == "cpu") o.engine = EngineKind::kCpu;
  else if (name == "ctimer") o.engine = EngineKind::kCtimer;
  else if (name == "itimer") o.engine = EngineKind::kItimer;
  else if (name == "wall") o.sampler = SamplerMode::kWall;
  else if (name == "safepoint") o.sampler = SamplerMode::kSafepoint;
  else o.sampler = SamplerMode::kHandshake;
  if (cpuKind) o.cpuEngine = true;
  return true;
}

}  // namespace

bool parseDuration(const std::string& text, int64_t* ns) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') digits++;
  uint64_t value;
  if (digits == 0 || !parseUint(text.substr(0, digits), 1'000'000'000'000ULL, &value)) return false;
  std::string unit = text.substr(digits);
  uint64_t scale;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us") scale = 1'000;
  else if (unit == "ms") scale = 1'000'000;
  else if (unit == "s") scale = 1'000'000'000;
  else return false;
  if (value == 0 || value > 3'600'000'000'000ULL / scale) return false;  // at most one hour
  *ns = static_cast<int64_t>(value * scale);
  return true;
}

ParseResult parseOptions(const char* text) {
  ParseResult r;
  Options& o = r.options;
  std::string all = text != nullptr ? text : "";
  size_t pos = 0;
  int commands = 0;
  bool sawEvent = false, intervalGiven = false, samplerIntervalGiven = false, stackCopyGiven = false;
  bool walkGiven = false;
  while (pos <= all.size()) {
    size_t comma = all.find(',', pos);
    if (comma == std::string::npos) comma = all.size();
    std::string item = all.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    const OptionSpec* spec = findSpec(name);
    if (spec == nullptr && !(sawEvent && isEventName(name))) {
      r.error = unknownOption(name);
      return r;
    }
    if (spec == nullptr && eq != std::string::npos) {  // event=cpu,wall=1: found by agent/fuzz (was a null deref)
      r.error = "event '" + name + "' takes no value (got '" + value + "'); list events alone: event=cpu,wall";
      return r;
    }
    bool eventFollowUp = spec == nullptr && sawEvent && isEventName(name) && eq == std::string::npos;
    if (eventFollowUp) {  // event=cpu,wall: the option separator also separates events
      if (!addEvent(o, name, &r.error)) return r;
      continue;
    }
    if (name == "threads" && eq != std::string::npos) {  // threads=REGEX: a filter, not the split
      if (value.empty()) {
        r.error = "option 'threads' needs a regular expression (got '')";
        return r;
      }
      try {
        std::regex check(value);
      } catch (const std::regex_error&) {
        r.error = "option 'threads' needs a valid regular expression (got '" + value + "')";
        return r;
      }
      o.threadFilter = value;
      continue;
    }
    if (name == "percpu" && eq == std::string::npos) {
      o.perCpu = PerCpu::kYes;
      continue;
    }
    if ((name == "alloc" || name == "lock") && eq == std::string::npos) {  // bare, or event=cpu,alloc: the default
      (name == "alloc" ? o.alloc : o.lock) = true;
      continue;
    }
    if (spec->takesValue && eq == std::string::npos) {
      r.error = "option '" + name + "' needs a value (" + spec->help + ")";
      return r;
    }
    if (!spec->takesValue && eq != std::string::npos) {
      r.error = "option '" + name + "' takes no value (got '" + value + "')";
      return r;
    }
    auto bad = [&](const char* expected) {
      r.error = "option '" + name + "' needs " + expected + " (got '" + value + "')";
      return r;
    };
    if (name == "start") { o.command = Command::kStart; commands++; }
    else if (name == "stop") { o.command = Command::kStop; commands++; }
    else if (name == "dump") { o.command = Command::kDump; commands++; }
    else if (name == "status") { o.command = Command::kStatus; commands++; }
    else if (name == "help") { o.command = Command::kHelp; commands++; }
    else if (name == "version") { o.command = Command::kVersion; commands++; }
    else if (name == "event") {
      if (sawEvent) {
        r.error = "give event= once; list several events as event=cpu,wall";
        return r;
      }
      sawEvent = true;
      o.cpuEngine = false;
      size_t start = 0;
      for (;;) {  // event=cpu+wall is accepted too
        size_t plus = value.find('+', start);
        std::string one = value.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        if (!isEventName(one)) return bad("one of cpu, ctimer, itimer, wall, safepoint, handshake, alloc, lock");
        if (!addEvent(o, one, &r.error)) return r;
        if (plus == std::string::npos) break;
        start = plus + 1;
      }
    } else if (name == "interval") {
      if (!parseDuration(value, &o.intervalNs)) return bad("a duration such as 1ms, 500us or 10000000 (ns)");
      if (o.intervalNs < 10'000) return bad("a duration of at least 10us");
      intervalGiven = true;
    } else if (name == "wallinterval") {
      if (!parseDuration(value, &o.samplerIntervalNs) || o.samplerIntervalNs < 100'000) {
        return bad("a duration of at least 100us, such as 20ms");
      }
      samplerIntervalGiven = true;
    } else if (name == "wallthreads") {
      uint64_t v;
      if (!parseUint(value, 4096, &v) || v == 0) return bad("a number of threads from 1 to 4096");
      o.wallThreads = static_cast<uint32_t>(v);
    } else if (name == "wallsignal") {
      int sig = parseSignal(value);
      if (sig <= 0 || sig >= 65) return bad("a signal name such as SIGURG or a number");
      if (reservedSignal(sig)) return bad("a signal the JVM does not use (SIGURG, SIGVTALRM, SIGUSR1, SIGPWR...)");
      o.wallSignal = sig;
    } else if (name == "split") {
      size_t start = 0;  // thread, state, class, or several joined by '+'
      for (;;) {
        size_t plus = value.find('+', start);
        std::string one = value.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        if (one == "thread") o.threads = true;
        else if (one == "state") o.states = true;
        else if (one == "class") o.splitClass = true;
        else if (one.rfind("label:", 0) == 0 && one.size() > 6) o.splitLabel = one.substr(6);
        else return bad("thread, state, class, label:KEY, or several joined by '+' (thread+label:endpoint)");
        if (plus == std::string::npos) break;
        start = plus + 1;
      }
    } else if (name == "tid") {
      size_t start = 0;
      for (;;) {
        size_t colon = value.find(':', start);
        std::string one = value.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        uint64_t v;
        if (!parseUint(one, 1u << 30, &v) || v == 0) return bad("thread ids separated by ':', e.g. 1234:1240");
        o.tidFilter.push_back(static_cast<int>(v));
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
    } else if (name == "file") {
      if (value.empty()) return bad("a path");
      if (outputFormatOf(value) == OutputFormat::kUnknown) {
        return bad("a path ending in .html, .collapsed, .txt, .jfr, .otlp or .json");
      }
      o.files.push_back(value);
    } else if (name == "stats") {
      if (value.empty()) return bad("a path");
      o.statsFile = value;
    } else if (name == "signal") {
      int sig = parseSignal(value);
      if (sig <= 0 || sig >= 65) return bad("a signal name such as SIGVTALRM or a number");
      if (reservedSignal(sig)) return bad("a signal the JVM does not use (SIGVTALRM, SIGURG, SIGUSR1, SIGPWR...)");
      o.signal = sig;
    } else if (name == "jitter") {
      uint64_t v;
      if (!parseUint(value, 90, &v)) return bad("a percentage from 0 to 90");
      o.jitterPct = static_cast<int>(v);
    } else if (name == "depth") {
      uint64_t v;
      if (value == "unlimited") v = kUnlimitedDepth;
      else if (!parseUint(value, kUnlimitedDepth, &v) || v == 0) return bad("a number of frames from 1 to 262144, or unlimited");
      o.depth = static_cast<uint32_t>(v);
    } else if (name == "walk") {
      walkGiven = true;
      if (value == "agct") o.walk = WalkMode::kAgct;
      else if (value == "vm") o.walk = WalkMode::kVm;
      else if (value == "remote") o.walk = WalkMode::kRemote;
      else if (value == "copy") o.walk = WalkMode::kCopy;
      else return bad("agct, vm or remote (or copy, experimental)");
    } else if (name == "cstack") {
      if (value == "dwarf") o.cstack = CStackMode::kDwarf;
      else if (value == "fp") o.cstack = CStackMode::kFp;
      else if (value == "no") o.cstack = CStackMode::kNo;
      else return bad("dwarf, fp or no");
    } else if (name == "stackcopy") {
      uint64_t v;
      bool kilo = !value.empty() && (value.back() == 'k' || value.back() == 'K');
      if (!parseUint(kilo ? value.substr(0, value.size() - 1) : value, 1 << 20, &v)) {
        return bad("a size in bytes or k, e.g. 8k");
      }
      if (kilo) v *= 1024;
      if (v < 512 || v > 60 * 1024) return bad("a size from 512 to 60k bytes");
      o.stackCopyBytes = static_cast<uint32_t>((v + 7) & ~uint64_t{7});  // perf wants whole words
      stackCopyGiven = true;
    } else if (name == "alloc") {
      uint64_t v;
      char unit = value.empty() ? 0 : static_cast<char>(value.back() | 0x20);
      uint64_t scale = unit == 'k' ? 1024 : unit == 'm' ? 1024 * 1024 : unit == 'g' ? 1024ull * 1024 * 1024 : 1;
      if (!parseUint(scale > 1 ? value.substr(0, value.size() - 1) : value, (1ull << 31) / scale, &v)) {
        return bad("a size in bytes, k, m or g up to 2g, e.g. 512k (0: every allocation)");
      }
      o.alloc = true;
      o.allocIntervalBytes = static_cast<int64_t>(v * scale);
    } else if (name == "lock") {
      // 0 (every contended wait) is a threshold, not a duration
      if (value == "0") o.lockThresholdNs = 0;
      else if (!parseDuration(value, &o.lockThresholdNs)) return bad("a duration such as 10us or 1ms (0: every contended wait)");
      o.lock = true;
    } else if (name == "ringsize") {
      uint64_t v;
      if (!parseUint(value, 1 << 20, &v) || v < 16 || (v & (v - 1)) != 0) {
        return bad("a power of two from 16 to 1048576");
      }
      o.ringSize = static_cast<uint32_t>(v);
    } else if (name == "loop") {
      if (!parseDuration(value, &o.loopNs) || o.loopNs < 1'000'000'000) return bad("a duration of at least 1s");
    } else if (name == "push") {
      HttpUrl url;
      PushProtocol protocol;
      std::string why;
      if (!parsePushUrl(value, &protocol, &url, &why)) return bad(why.c_str());
      o.pushUrl = value;
    } else if (name == "pushlabels") {
      size_t start = 0;  // KEY=VALUE, several joined by '+'
      std::map<std::string, std::string> labels;
      for (;;) {
        size_t plus = value.find('+', start);
        std::string one = value.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        size_t eq = one.find('=');
        std::string key = eq == std::string::npos ? one : one.substr(0, eq);
        std::string v = eq == std::string::npos ? "" : one.substr(eq + 1);
        bool keyOk = !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_') &&
                     key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") ==
                         std::string::npos;
        if (!keyOk || v.empty() || v.find_first_of("{}=,\"") != std::string::npos) {
          return bad("KEY=VALUE labels joined by '+' (pushlabels=env=prod+region=eu): keys of letters, digits, _ "
                     "and ., values without {}=,\"");
        }
        labels[key] = v;
        if (plus == std::string::npos) break;
        start = plus + 1;
      }
      o.pushLabels.assign(labels.begin(), labels.end());
    } else if (name == "service") {
      if (value.empty() || value.find_first_of("{}=,\"") != std::string::npos) return bad("a name without {}=,\"");
      o.service = value;
    } else if (name == "percpu") {
      if (value == "yes") o.perCpu = PerCpu::kYes;
      else if (value == "no") o.perCpu = PerCpu::kNo;
      else if (value == "auto") o.perCpu = PerCpu::kAuto;
      else return bad("yes, no or auto");
    } else if (name == "reply") {
      if (value.empty()) return bad("a path");
      o.replyFile = value;
    } else if (name == "title") o.title = value;
    else if (name == "allthreads") o.allThreads = true;
    else if (name == "threads") o.threads = true;
    else if (name == "lines") o.lines = true;
    else if (name == "quiet") o.quiet = true;
  }
  if (!o.pushUrl.empty() && o.loopNs == 0) o.loopNs = 10'000'000'000;  // push=: an interval every 10 s
  if (!intervalGiven && !o.cpuEngine && o.sampler == SamplerMode::kSafepoint) o.samplerIntervalNs = 10'000'000;
  if (!intervalGiven && !o.cpuEngine && o.sampler == SamplerMode::kHandshake) o.samplerIntervalNs = 10'000'000;
  if (intervalGiven && !o.cpuEngine && !samplerIntervalGiven) {
    if (o.intervalNs < 100'000) {
      r.error = "option 'interval' needs at least 100us for event=" + eventsName(o) + " (got " +
                std::to_string(o.intervalNs) + "ns)";
      return r;
    }
    o.samplerIntervalNs = o.intervalNs;  // event=wall alone: interval= is the sampler's
  }
  if (o.wallSignal != 0 && o.cpuEngine && o.wallSignal == (o.signal != 0 ? o.signal : SIGVTALRM)) {
    r.error = "options 'signal' and 'wallsignal' must differ";
    return r;
  }
  if (commands > 1) {
    r.error = "give at most one of start, stop, dump, status, help, version";
    return r;
  }
  // percpu=auto: only where nothing asks for what needs a signal per thread (a walker, jitter, a
  // signal, the C stacks of JVM threads) or another engine.
  if (o.perCpu == PerCpu::kAuto && (!o.cpuEngine || o.engine != EngineKind::kCpu || walkGiven || o.jitterPct != 0 ||
                                    o.signal != 0 || o.allThreads)) {
    o.perCpu = PerCpu::kNo;
  }
  if (o.perCpu == PerCpu::kYes) {
    if (!o.cpuEngine || o.engine != EngineKind::kCpu) {
      r.error = "option 'percpu' needs event=cpu (perf events on each CPU; no other engine has them)";
      return r;
    }
    if (walkGiven && o.walk != WalkMode::kCopy) {
      r.error = "option 'percpu' walks perf's stack copies: it cannot be used with walk=" + std::string(walkModeName(o.walk));
      return r;
    }
    o.walk = WalkMode::kCopy;
    if (!stackCopyGiven) o.stackCopyBytes = kPerCpuStackCopy;
  }
  if (o.walk == WalkMode::kCopy && (!o.cpuEngine || o.engine != EngineKind::kCpu)) {
    r.error = "option 'walk=copy' needs event=cpu (perf copies the stack; no other engine can)";
    return r;
  }
  if (o.walk == WalkMode::kCopy && o.jitterPct != 0) {
    r.error = "option 'jitter' cannot be used with walk=copy (no signal handler re-arms the timer)";
    return r;
  }
  if (stackCopyGiven && o.walk != WalkMode::kCopy) {
    r.error = "option 'stackcopy' only applies to walk=copy";
    return r;
  }
  if (o.engine == EngineKind::kItimer && o.signal != 0 && o.signal != SIGPROF) {
    r.error = "option 'signal' cannot be used with event=itimer (setitimer always sends SIGPROF)";
    return r;
  }
  r.ok = true;
  return r;
}

std::string optionsHelp() {
  std::string s = "candor agent options (comma-separated, name or name=value):\n";
  for (const auto& spec : kSpecs) {
    char line[512];  // the longest help (walk=) is over 200 characters
    snprintf(line, sizeof line, "  %-11s %s\n", spec.takesValue ? (std::string(spec.name) + "=").c_str() : spec.name,
             spec.help);
    s += line;
  }
  s += "example: -agentpath:libcandor.so=start,event=cpu,interval=1ms,file=profile.html\n";
  return s;
}

}  // namespace candor
