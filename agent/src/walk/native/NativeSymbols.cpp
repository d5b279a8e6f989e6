#include "walk/native/NativeSymbols.h"

#include <sys/auxv.h>

#include <cstring>

#include "walk/native/CppNames.h"

namespace candor {

namespace {
// The vdso has no file: its image, section headers included, is mapped whole at
// AT_SYSINFO_EHDR. Its size is where the last header or segment ends.
SymbolTable vdsoSymbols(std::string* source) {
  auto base = reinterpret_cast<const uint8_t*>(getauxval(AT_SYSINFO_EHDR));
  if (base == nullptr) return *source = "none", SymbolTable();
  Elf64_Ehdr eh;
  memcpy(&eh, base, sizeof eh);
  uint64_t size = eh.e_shoff + uint64_t(eh.e_shnum) * eh.e_shentsize;
  for (uint32_t i = 0; i < eh.e_phnum && eh.e_phentsize >= sizeof(Elf64_Phdr); i++) {
    Elf64_Phdr ph;
    memcpy(&ph, base + eh.e_phoff + uint64_t(i) * eh.e_phentsize, sizeof ph);
    if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size) size = ph.p_offset + ph.p_filesz;
  }
  std::string why;
  auto image = ElfImage::fromFileBytes(base, size, &why);
  if (image == nullptr) return *source = "none", SymbolTable();
  return SymbolTable::fromImage(*image, source);
}
}  // namespace

NativeSymbols::ModuleSymbols& NativeSymbols::symbolsOf(const NativeModule* m) {
  std::unique_ptr<ModuleSymbols>& slot = cache_[m];
  if (slot == nullptr) {
    slot = std::make_unique<ModuleSymbols>();
    slot->table = m->path.empty() ? vdsoSymbols(&slot->source) : SymbolTable::load(m->path, &slot->source, debugRoot_);
  }
  return *slot;
}

NativeFrameName NativeSymbols::lookup(uintptr_t pc) {
  const NativeModule* m = modules_.module_signalSafe(pc);
  if (m == nullptr) return {};
  ModuleSymbols& s = symbolsOf(m);
  int64_t i = s.table.find(pc - m->bias);
  if (i < 0) return NativeFrameName{m->name, m->name, false};
  auto named = s.frameNames.find(i);
  if (named == s.frameNames.end()) named = s.frameNames.emplace(i, nativeFrameName(s.table.name(i))).first;
  return NativeFrameName{named->second, m->name, true};
}

std::string_view NativeSymbols::sourceOf(const NativeModule* m) const {
  auto found = cache_.find(m);
  return found == cache_.end() ? std::string_view() : std::string_view(found->second->source);
}

size_t NativeSymbols::bytes() const {
  size_t sum = 0;
  for (const auto& [module, symbols] : cache_) {
    sum += symbols->table.bytes() + symbols->source.capacity();
    for (const auto& [index, name] : symbols->frameNames) sum += sizeof(index) + sizeof(name) + name.capacity() + 16;
  }
  return sum;
}

}  // namespace candor
