// Creating output files safely: never through a symlink at the final path component (a link
// planted in a shared directory such as /tmp would redirect the write), with the user's umask,
// and checked at start so an unwritable path is one clear error then, not a lost profile later.
#pragma once
#include <functional>
#include <ostream>
#include <string>

namespace candor {

// Opens `path` for writing (create or truncate), refusing symlinks; returns an fd or -1 with `why`.
int openOutputFile(const std::string& path, std::string* why);
// Writes `content` to `path` as a whole; false with `why`.
bool writeOutputFile(const std::string& path, const std::string& content, std::string* why);
// Streams what `write` produces to `path` through a 64 kB buffer, so a large profile is never
// held in memory twice; false with `why` (the first failed write or close).
bool writeOutputFileStreamed(const std::string& path, const std::function<void(std::ostream&)>& write,
                             std::string* why);
// At start: can `path` be created or overwritten? Does not create or change anything.
bool checkOutputWritable(const std::string& path, std::string* why);

}  // namespace candor
