// Parses the agent option string `start,event=cpu,interval=1ms,file=out.html,...` into Options:
// one clear line for anything wrong, with a did-you-mean.
#pragma once
#include <cstdint>
#include <string>

#include "base/Options.h"

namespace candor {

struct ParseResult {
  bool ok = false;
  Options options;
  std::string error;  // one line, without the `candor: ` prefix
};

ParseResult parseOptions(const char* text);

// "1ms" → 1000000; returns false on anything that is not a positive duration.
bool parseDuration(const std::string& text, int64_t* ns);
// The text printed by the `help` option.
std::string optionsHelp();

}  // namespace candor
