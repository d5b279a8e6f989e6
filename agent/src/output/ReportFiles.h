// Writing one report to the files a session names: each path in the format its extension (or
// stats=) says, and beside an html or collapsed profile the allocation and lock profiles the
// report also holds (x-alloc.html, x-lock.html). Writer thread or a command, never a handler.
// A file that cannot be written is one logged line; the others are still written.
#pragma once
#include <string>
#include <vector>

#include "output/ProfileReport.h"

namespace candor {

// Every path but .jfr ones (the recorder writes those): `statsFile` is written as stats whatever
// its extension; with a `stamp`, each path x.ext becomes x-STAMP.ext (loop= rotation). Returns
// whether `paths` held a .jfr one, for the caller to flush the recording.
bool writeReportFiles(const ProfileReport& report, const std::vector<std::string>& paths,
                      const std::string& statsFile, const std::string& stamp);

}  // namespace candor
