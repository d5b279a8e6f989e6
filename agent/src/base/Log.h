// `candor:` log lines on stderr. Never used on the signal-handler path.
#pragma once

namespace candor {

void setLogQuiet(bool quiet);
void logInfo(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void logError(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace candor
