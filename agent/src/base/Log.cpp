#include "base/Log.h"

#include <cstdarg>
#include <cstdio>

namespace candor {

namespace {
bool gQuiet = false;

void vlog(const char* fmt, va_list ap) {
  char line[1024];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(stderr, "candor: %s\n", line);  // one fprintf: lines from threads do not interleave
}
}  // namespace

void setLogQuiet(bool quiet) { gQuiet = quiet; }

void logInfo(const char* fmt, ...) {
  if (gQuiet) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void logError(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

}  // namespace candor
