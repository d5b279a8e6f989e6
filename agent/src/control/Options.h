// The agent option string: `start,event=cpu,interval=1ms,file=out.html,...`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace candor {

enum class EngineKind { kCpu, kCtimer, kItimer };
enum class Command { kNone, kStart, kStop, kDump, kStatus, kHelp };

const char* engineName(EngineKind e);

struct Options {
  Command command = Command::kNone;
  EngineKind engine = EngineKind::kCpu;
  int64_t intervalNs = 10'000'000;
  std::vector<std::string> files;
  std::string statsFile;
  int signal = 0;  // 0: the engine's default
  int jitterPct = 0;
  bool allThreads = false;
  bool threads = false;
  bool lines = false;
  bool quiet = false;
  uint32_t depth = 2048;
  uint32_t ringSize = 1024;
  std::string title = "candor profile";
  std::string replyFile;   // where an attached agent writes its one-line answer (for tools)
  int64_t loopNs = 0;      // JFR: start a new file every loopNs (0: one file)
};

struct ParseResult {
  bool ok = false;
  Options options;
  std::string error;  // one line, without the `candor: ` prefix
};

ParseResult parseOptions(const char* text);

enum class OutputFormat { kUnknown, kHtml, kCollapsed, kSummary, kStats, kJfr };
// The format a `file=` path asks for, by its extension.
OutputFormat outputFormatOf(const std::string& path);

// "1ms" → 1000000; returns false on anything that is not a positive duration.
bool parseDuration(const std::string& text, int64_t* ns);
// "SIGVTALRM", "VTALRM" or a number; returns 0 when the name is unknown.
int parseSignal(const std::string& text);
const char* signalName(int sig);
// The text printed by the `help` option.
std::string optionsHelp();

}  // namespace candor
