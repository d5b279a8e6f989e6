// Kernel text symbols from /proc/kallsyms, for naming kernel frames (writer thread only).
// Only text symbols (t, T) are kept; a module's symbols carry its name ("[ext4]" → "ext4")
// apart from the function name. kallsyms has no sizes: a symbol covers the addresses up to
// the next one, and at most kMaxSymbolBytes, so an address in a gap is not named after the
// function before it.
// Unprivileged readers (kptr_restrict, or without CAP_SYSLOG) see every address as zero: the
// table is then unavailable and says so, instead of naming every frame after one symbol.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace candor {

class KernelSymbols {
 public:
  static constexpr uint64_t kMaxSymbolBytes = 1 << 20;

  // Reads the file (kallsyms' format); false with *why when nothing usable was found.
  bool load(const std::string& path, std::string* why);
  bool load(std::string* why) { return load("/proc/kallsyms", why); }
  bool available() const { return !entries_.empty(); }
  size_t size() const { return entries_.size(); }
  size_t bytes() const { return entries_.capacity() * sizeof(Entry) + names_.capacity(); }

  struct Hit {
    std::string_view name;    // "do_syscall_64"
    std::string_view module;  // "ext4"; empty for the kernel itself
  };
  // The symbol containing addr; false when none does (or the table is unavailable).
  bool lookup(uint64_t addr, Hit* out) const;

 private:
  struct Entry {
    uint64_t addr;
    uint32_t name;    // offset into names_
    uint32_t module;  // offset into names_ of the module's name, 0 = none (names_ starts with "\0")
  };
  std::vector<Entry> entries_;
  std::string names_;
};

}  // namespace candor
