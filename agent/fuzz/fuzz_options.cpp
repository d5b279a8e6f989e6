// libFuzzer target: the agent option string (what -agentpath:...=OPTIONS and every attach pass).
// Bad input must give ok=false with one line of error, never a crash, a hang or an out-of-range
// value in an accepted Options.
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "control/OptionParser.h"

using namespace candor;

#define REQUIRE(cond)                                                         \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                \
    }                                                                         \
  } while (0)

namespace {
bool validSignal(int s) {
  return s == 0 || (s > 0 && s < 65 && s != SIGSEGV && s != SIGBUS && s != SIGILL && s != SIGFPE && s != SIGUSR2 &&
                    s != SIGQUIT && s != SIGKILL && s != SIGSTOP && s != SIGINT && s != SIGTERM && s != SIGHUP);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);  // may hold NULs: the C string ends there
  std::string cstr = text.c_str();

  ParseResult r = parseOptions(text.c_str());
  if (r.ok) {
    const Options& o = r.options;
    REQUIRE(o.intervalNs >= 10'000 && o.intervalNs <= 3'600'000'000'000LL);
    REQUIRE(o.depth >= 1 && o.depth <= kUnlimitedDepth);
    REQUIRE(o.stackCopyBytes >= 512 && o.stackCopyBytes <= 60 * 1024 && o.stackCopyBytes % 8 == 0);
    REQUIRE(o.ringSize >= 16 && o.ringSize <= (1u << 20) && (o.ringSize & (o.ringSize - 1)) == 0);
    REQUIRE(o.jitterPct >= 0 && o.jitterPct <= 90);
    REQUIRE(validSignal(o.signal));
    REQUIRE(o.loopNs == 0 || o.loopNs >= 1'000'000'000);
    for (const std::string& f : o.files) REQUIRE(!f.empty() && outputFormatOf(f) != OutputFormat::kUnknown);
    REQUIRE(r.error.empty());
  } else {
    REQUIRE(!r.error.empty());
    REQUIRE(r.error.find('\n') == std::string::npos || cstr.find('\n') != std::string::npos);  // one line, unless echoed
    REQUIRE(r.error.size() <= cstr.size() * 2 + 400);  // bounded: no runaway messages
  }
  // Deterministic: the same string parses the same way.
  ParseResult again = parseOptions(cstr.c_str());
  REQUIRE(again.ok == r.ok && again.error == r.error);

  int64_t ns = -1;
  if (parseDuration(cstr, &ns)) REQUIRE(ns >= 1 && ns <= 3'600'000'000'000LL);
  int sig = parseSignal(cstr);
  REQUIRE(sig >= 0 && sig <= 64);
  const char* name = signalName(sig);
  REQUIRE(name != nullptr && strlen(name) < 32);
  (void)outputFormatOf(cstr);
  return 0;
}
