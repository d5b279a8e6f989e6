// libFuzzer target: names from the JVM on their way into candor's outputs. Class and method
// names are whatever bytes a class file (or a hidden/generated class) carries, in modified
// UTF-8. Properties: javaClassName never crashes; a JSON string written by appendJsonString is
// one valid JSON string token with no raw control character and no '<' or '>' (it is embedded in
// an HTML page); every collapsed line is "frames count" with no line break inside.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "jvm/Jvm.h"
#include "jvm/MethodResolver.h"
#include "jvm/ModifiedUtf8.h"
#include "output/CollapsedWriter.h"
#include "output/Json.h"
#include "output/ProfileReport.h"

using namespace candor;

// MethodResolver::resolve (not fuzzed) refers to it; there is no JVM here.
JNIEnv* candor::Jvm::currentEnv() { return nullptr; }

#define REQUIRE(cond)                                                         \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                \
    }                                                                         \
  } while (0)

namespace {
// A strict check of one JSON string token (RFC 8259 escapes; bytes >= 0x80 pass as they are).
bool validJsonString(const std::string& s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return false;
  for (size_t i = 1; i + 1 < s.size(); i++) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '<' || c == '>') return false;
    if (c == '"') return false;
    if (c == '\\') {
      if (i + 2 >= s.size()) return false;
      char e = s[++i];
      if (e == 'u') {
        if (i + 4 >= s.size()) return false;
        for (int k = 0; k < 4; k++) {
          if (!isxdigit(static_cast<unsigned char>(s[++i]))) return false;
        }
      } else if (!strchr("\"\\/bfnrt", e)) {
        return false;
      }
    }
  }
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  // Split the input at 0xff bytes into up to 8 names (a stack, root first).
  std::vector<std::string> names;
  size_t start = 0;
  for (size_t i = 0; i <= text.size() && names.size() < 8; i++) {
    if (i == text.size() || static_cast<unsigned char>(text[i]) == 0xff) {
      names.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }

  std::string cls = javaClassName(names[0].c_str());
  REQUIRE(cls.size() <= strlen(names[0].c_str()) * 2 + 2);
  // Modified UTF-8 → UTF-8 never grows a name by more than a replacement character per byte.
  REQUIRE(standardUtf8(names[0].c_str()).size() <= strlen(names[0].c_str()) * 3);

  MethodInfo info;
  info.className = cls;
  info.methodName = names.size() > 1 ? names[1] : "m";
  for (size_t i = 0; i + 1 < size && i < 16; i += 2) info.lines.emplace_back(data[i], data[i + 1]);
  std::string frame = info.frameName(size > 0 ? data[0] : 0, true);
  REQUIRE(frame.size() >= info.methodName.size());

  for (const std::string& n : names) {
    std::string json;
    appendJsonString(json, n);
    REQUIRE(validJsonString(json));
  }

  ProfileSnapshot snapshot;
  std::vector<uint32_t> frames;
  for (const std::string& n : names) frames.push_back(snapshot.intern(n, kKindJava));
  snapshot.addStack(frames, 7);
  snapshot.addStack({snapshot.intern("[gc_active]", kKindFailure)}, 3);
  std::ostringstream out;
  writeCollapsed(snapshot, out);
  std::string collapsed = out.str();
  size_t lines = 0;
  uint64_t total = 0;
  size_t pos = 0;
  while (pos < collapsed.size()) {
    size_t nl = collapsed.find('\n', pos);
    REQUIRE(nl != std::string::npos);  // every line ends with a newline
    std::string line = collapsed.substr(pos, nl - pos);
    REQUIRE(line.find('\r') == std::string::npos);  // readers also split lines at CR
    size_t sp = line.rfind(' ');
    REQUIRE(sp != std::string::npos && sp + 1 < line.size());
    total += strtoull(line.c_str() + sp + 1, nullptr, 10);
    lines++;
    pos = nl + 1;
  }
  REQUIRE(total == 10);
  REQUIRE(lines >= 1 && lines <= 2);
  return 0;
}
