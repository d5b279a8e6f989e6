#include "walk/native/KernelSymbols.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace candor {

bool KernelSymbols::load(const std::string& path, std::string* why) {
  entries_.clear();
  names_.assign(1, '\0');
  FILE* f = fopen(path.c_str(), "re");
  if (f == nullptr) return *why = path + ": " + strerror(errno), false;
  std::unordered_map<std::string, uint32_t> modules;  // each module's name is stored once
  char line[1024];
  size_t lines = 0, zero = 0;
  while (fgets(line, sizeof line, f) != nullptr) {
    lines++;
    // "ffffffff81000000 T _stext" or "ffffffffc0a01000 t ext4_fill_super\t[ext4]"
    char* end = nullptr;
    unsigned long long addr = strtoull(line, &end, 16);
    if (end == line || end[0] != ' ' || end[1] == 0 || end[2] != ' ') continue;
    char type = end[1];
    if (type != 't' && type != 'T') continue;
    if (addr == 0) {
      zero++;
      continue;
    }
    char* name = end + 3;
    name[strcspn(name, "\n")] = 0;
    uint32_t module = 0;
    if (char* tab = strchr(name, '\t')) {
      *tab = 0;
      char* mod = tab + 1;
      if (*mod == '[') mod++;
      mod[strcspn(mod, "]")] = 0;
      auto [it, fresh] = modules.emplace(mod, uint32_t(names_.size()));
      if (fresh) names_.append(mod).push_back('\0');
      module = it->second;
    }
    entries_.push_back(Entry{addr, uint32_t(names_.size()), module});
    names_.append(name).push_back('\0');
  }
  fclose(f);
  if (entries_.empty()) {
    *why = zero > 0 ? path + " shows no addresses (kptr_restrict or no CAP_SYSLOG): kernel frames stay unnamed"
                    : path + ": no text symbols in " + std::to_string(lines) + " lines";
    names_.clear();
    return false;
  }
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.addr < b.addr; });
  entries_.shrink_to_fit();
  names_.shrink_to_fit();
  return true;
}

bool KernelSymbols::lookup(uint64_t addr, Hit* out) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), addr,
                                [](uint64_t a, const Entry& e) { return a < e.addr; });
  if (after == entries_.begin()) return false;
  const Entry& e = *(after - 1);
  if (addr - e.addr >= kMaxSymbolBytes) return false;
  out->name = names_.data() + e.name;
  out->module = names_.data() + e.module;
  return true;
}

}  // namespace candor
