#include "output/CollapsedWriter.h"

#include <map>

namespace candor {

namespace {
// ';' separates frames and a line is one stack: neither ';' nor a line break (LF, or CR, at
// which readers such as Java's BufferedReader also split) may appear in a name.
void appendSafe(std::string& line, const std::string& name) {
  for (char c : name) line.push_back(c == ';' ? ':' : (c == '\n' || c == '\r' ? ' ' : c));
}
}  // namespace

void writeCollapsed(const ProfileSnapshot& snapshot, std::ostream& out) {
  // Stacks that resolve to the same names (e.g. different bcis without `lines`) merge here;
  // sorted output makes files diffable.
  std::map<std::string, uint64_t> lines;
  for (const auto& stack : snapshot.stacks()) {
    std::string line;
    for (size_t i = 0; i < stack.frames.size(); i++) {
      if (i > 0) line.push_back(';');
      appendSafe(line, snapshot.frames()[stack.frames[i]].name);
    }
    lines[line] += stack.count;
  }
  for (const auto& [line, count] : lines) out << line << ' ' << count << '\n';
}

}  // namespace candor
