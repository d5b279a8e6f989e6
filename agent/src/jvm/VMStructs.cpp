#include "jvm/VMStructs.h"

#include <dlfcn.h>
#include <cstring>

namespace candor {

namespace {
template <typename T>
T symbolValue(const char* name, T fallback) {
  void* p = dlsym(RTLD_DEFAULT, name);
  return p != nullptr ? *static_cast<T*>(p) : fallback;
}
}  // namespace

int64_t VMStructs::fieldOffset(const char* type, const char* field) {
  char* entry = symbolValue<char*>("gHotSpotVMStructs", nullptr);
  uint64_t typeNameOff = symbolValue<uint64_t>("gHotSpotVMStructEntryTypeNameOffset", UINT64_MAX);
  uint64_t fieldNameOff = symbolValue<uint64_t>("gHotSpotVMStructEntryFieldNameOffset", UINT64_MAX);
  uint64_t offsetOff = symbolValue<uint64_t>("gHotSpotVMStructEntryOffsetOffset", UINT64_MAX);
  uint64_t stride = symbolValue<uint64_t>("gHotSpotVMStructEntryArrayStride", 0);
  if (entry == nullptr || typeNameOff == UINT64_MAX || fieldNameOff == UINT64_MAX ||
      offsetOff == UINT64_MAX || stride == 0) {
    return -1;
  }
  for (;; entry += stride) {
    const char* t = *reinterpret_cast<const char**>(entry + typeNameOff);
    const char* f = *reinterpret_cast<const char**>(entry + fieldNameOff);
    if (t == nullptr) return -1;  // the table ends with an all-null row
    if (f != nullptr && strcmp(t, type) == 0 && strcmp(f, field) == 0) {
      return static_cast<int64_t>(*reinterpret_cast<uint64_t*>(entry + offsetOff));
    }
  }
}

}  // namespace candor
