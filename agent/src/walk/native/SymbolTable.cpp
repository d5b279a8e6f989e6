#include "walk/native/SymbolTable.h"

#include <algorithm>

namespace candor {

namespace {
// Lower is better; see the file head of SymbolTable.h for the order.
uint32_t rankOf(const ElfSymbol& s) {
  uint32_t underscores = 0;
  while (underscores < s.name.size() && s.name[underscores] == '_') underscores++;
  uint32_t local = s.binding == STB_LOCAL ? 1 : 0;
  uint32_t weak = s.binding == STB_WEAK ? 1 : 0;
  uint32_t length = s.name.size() < 0xffff ? uint32_t(s.name.size()) : 0xffff;
  return local << 31 | std::min(underscores, 0xffu) << 20 | weak << 19 | std::min(length, 0x7ffffu);
}

// At most this many symbols before the nearest one are tried for one that contains the address
// (a large function with small symbols inside it: local labels of hand-written assembly).
constexpr int kNestedLookback = 16;
}  // namespace

SymbolTable SymbolTable::load(const std::string& path, std::string* source, const std::string& debugRoot) {
  SymbolTable t;
  std::string why;
  auto image = ElfImage::open(path, &why);
  if (image == nullptr) return *source = "none", t;
  if (t.add(*image, false)) return t.finish(), *source = ".symtab", t;
  std::string id = image->buildId();
  if (id.size() > 2) {
    auto debug = ElfImage::open(debugRoot + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug", &why);
    if (debug != nullptr && debug->buildId() == id && t.add(*debug, false)) {
      return t.finish(), *source = "debug file", t;
    }
  }
  *source = t.add(*image, true) ? ".dynsym" : "none";
  t.finish();
  return t;
}

SymbolTable SymbolTable::fromImage(const ElfImage& image, std::string* source) {
  SymbolTable t;
  *source = t.add(image, false) ? ".symtab" : t.add(image, true) ? ".dynsym" : "none";
  t.finish();
  return t;
}

bool SymbolTable::add(const ElfImage& image, bool dynamic) {
  return image.forEachSymbol(dynamic, [this](const ElfSymbol& s) {
    if ((s.type != STT_FUNC && s.type != STT_GNU_IFUNC) || s.value == 0) return;
    // Versioned names of a .symtab ("__libc_start_main@GLIBC_2.2.5") are named without the version.
    ElfSymbol unversioned = s;
    size_t at = s.name.find('@');
    if (at != std::string_view::npos && at > 0) unversioned.name = s.name.substr(0, at);
    entries_.push_back(Entry{s.value, s.size, uint32_t(names_.size()), rankOf(unversioned)});
    names_.append(unversioned.name);
    names_.push_back('\0');
  });
}

void SymbolTable::finish() {
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return a.start != b.start ? a.start < b.start : a.rank < b.rank;
  });
  // One entry per address: the best-ranked name; the largest size of the aliases.
  size_t kept = 0;
  for (size_t i = 0; i < entries_.size(); i++) {
    if (kept > 0 && entries_[kept - 1].start == entries_[i].start) {
      entries_[kept - 1].size = std::max(entries_[kept - 1].size, entries_[i].size);
      continue;
    }
    entries_[kept++] = entries_[i];
  }
  entries_.resize(kept);
  entries_.shrink_to_fit();
}

int64_t SymbolTable::find(uint64_t addr) const {
  auto after = std::upper_bound(entries_.begin(), entries_.end(), addr,
                                [](uint64_t a, const Entry& e) { return a < e.start; });
  int64_t i = (after - entries_.begin()) - 1;
  for (int tried = 0; i >= 0 && tried < kNestedLookback; i--, tried++) {
    const Entry& e = entries_[i];
    if (e.size > 0 ? addr - e.start < e.size : tried == 0) return i;
  }
  return -1;
}

}  // namespace candor
