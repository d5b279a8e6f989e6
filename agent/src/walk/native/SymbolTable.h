// One module's function symbols sorted by address, for naming native frames on the writer
// thread (never in a signal handler).
//
// Source, best first: the file's own .symtab; the separate debug file that the build id names
// (/usr/lib/debug/.build-id/xx/yyyy.debug, as Debian's -dbg/-dbgsym packages install it: it
// names glibc's internal functions such as msort_with_tmp or __memmove_avx_unaligned_erms);
// the file's .dynsym (exported functions only).
//
// Aliases: one address often has several names (glibc: writev, __writev, __GI___writev). The
// one kept is the name callers wrote, as perf shows it for a library without debug symbols:
// an exported (global or weak) name before a local one, then fewer leading underscores, then
// global before weak, then the shorter name. (perf with debug symbols prefers non-weak names
// and would print __GI___writev; async-profiler takes whichever sorts first.)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "walk/native/ElfImage.h"

namespace candor {

class SymbolTable {
 public:
  // Reads the symbols of the ELF file at `path`; *source says which table was used
  // (".symtab", "debug file", ".dynsym" or "none"). `debugRoot` is where build-id files live.
  static SymbolTable load(const std::string& path, std::string* source,
                          const std::string& debugRoot = "/usr/lib/debug");
  // The symbols of an image (its .symtab, else .dynsym), e.g. the vdso mapped in memory.
  static SymbolTable fromImage(const ElfImage& image, std::string* source);

  // The index of the function symbol containing link-time address `addr`, or -1.
  int64_t find(uint64_t addr) const;
  const char* name(int64_t index) const { return names_.data() + entries_[index].name; }
  uint64_t start(int64_t index) const { return entries_[index].start; }
  size_t size() const { return entries_.size(); }
  size_t bytes() const { return entries_.capacity() * sizeof(Entry) + names_.capacity(); }

 private:
  struct Entry {
    uint64_t start;
    uint64_t size;  // 0: unknown, covers up to the next symbol
    uint32_t name;  // offset into names_
    uint32_t rank;  // lower is the better name among aliases
  };
  // false when the image has no table of that kind.
  bool add(const ElfImage& image, bool dynamic);
  void finish();

  std::vector<Entry> entries_;
  std::string names_;
};

}  // namespace candor
