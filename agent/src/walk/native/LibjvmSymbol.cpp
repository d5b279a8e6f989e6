#include "walk/native/LibjvmSymbol.h"

#include <dlfcn.h>
#include <elf.h>

#include <cstdint>

#include "walk/native/ElfImage.h"

namespace candor {

void* findLibjvmSymbol(std::string_view name, std::string* why) {
  // JNI_CreateJavaVM is libjvm's own export: its Dl_info names the file and its base.
  void* anchor = dlsym(RTLD_DEFAULT, "JNI_CreateJavaVM");
  Dl_info info;
  if (anchor == nullptr || dladdr(anchor, &info) == 0 || info.dli_fname == nullptr) {
    *why = "libjvm is not found in this process";
    return nullptr;
  }
  auto image = ElfImage::open(info.dli_fname, why);
  if (image == nullptr) return nullptr;
  if (image->loadSegments().empty()) {
    *why = std::string(info.dli_fname) + ": no loadable segment";
    return nullptr;
  }
  // dli_fbase is where the first PT_LOAD's page starts; a symbol's value is relative to that
  // segment's link-time address.
  uintptr_t bias = reinterpret_cast<uintptr_t>(info.dli_fbase) - (image->loadSegments().front().vaddr & ~uint64_t{0xfff});
  uint64_t value = 0;
  for (bool dynamic : {false, true}) {
    image->forEachSymbol(dynamic, [&](const ElfSymbol& s) {
      if (value == 0 && s.type == STT_FUNC && s.value != 0 && s.name == name) value = s.value;
    });
    if (value != 0) break;
  }
  if (value == 0) {
    *why = std::string(info.dli_fname) + " has no symbol " + std::string(name) + " (stripped symbol table?)";
    return nullptr;
  }
  return reinterpret_cast<void*>(bias + value);
}

}  // namespace candor
