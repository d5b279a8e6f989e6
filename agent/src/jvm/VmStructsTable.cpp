#include "jvm/VmStructsTable.h"

#include <dlfcn.h>

#include <cstdlib>

namespace candor {

namespace {
// Each table is an array of rows; the exported *Offset symbols say where each column sits.
template <typename T>
bool symbol(const char* name, T* out) {
  void* p = dlsym(RTLD_DEFAULT, name);
  if (p == nullptr) return false;
  *out = *static_cast<T*>(p);
  return true;
}

const char* str(const char* row, uint64_t off) { return *reinterpret_cast<const char* const*>(row + off); }
}  // namespace

const VmStructsTable& VmStructsTable::process() {
  static const VmStructsTable* table = [] {
    auto* t = new VmStructsTable();  // never freed: used until the process exits
    if (!t->load(&t->error_)) t->fields_.clear();
    return t;
  }();
  return *table;
}

int64_t VmStructsTable::fieldOffset(const std::string& type, const std::string& name) const {
  const VmField* f = field(type, name);
  return f != nullptr && !f->isStatic ? static_cast<int64_t>(f->offset) : -1;
}

bool VmStructsTable::load(std::string* why) {
  const char* env = getenv("CANDOR_TEST_HIDE_VMSTRUCT");
  hidden_ = env != nullptr ? env : "";
  const char* row = nullptr;
  uint64_t typeOff, fieldOff, typeStrOff, staticOff, offsetOff, addrOff, stride;
  if (!symbol("gHotSpotVMStructs", &row) || row == nullptr ||
      !symbol("gHotSpotVMStructEntryTypeNameOffset", &typeOff) ||
      !symbol("gHotSpotVMStructEntryFieldNameOffset", &fieldOff) ||
      !symbol("gHotSpotVMStructEntryTypeStringOffset", &typeStrOff) ||
      !symbol("gHotSpotVMStructEntryIsStaticOffset", &staticOff) ||
      !symbol("gHotSpotVMStructEntryOffsetOffset", &offsetOff) ||
      !symbol("gHotSpotVMStructEntryAddressOffset", &addrOff) ||
      !symbol("gHotSpotVMStructEntryArrayStride", &stride)) {
    *why = "gHotSpotVMStructs";
    return false;
  }
  for (; str(row, typeOff) != nullptr; row += stride) {
    const char* name = str(row, fieldOff);
    if (name == nullptr) continue;
    VmField f;
    f.isStatic = *reinterpret_cast<const int32_t*>(row + staticOff) != 0;
    f.offset = *reinterpret_cast<const uint64_t*>(row + offsetOff);
    f.address = *reinterpret_cast<void* const*>(row + addrOff);
    const char* type = str(row, typeStrOff);
    f.type = type != nullptr ? type : "";
    fields_[std::string(str(row, typeOff)) + "::" + name] = f;
  }
  uint64_t nameOff, sizeOff;
  if (!symbol("gHotSpotVMTypes", &row) || row == nullptr || !symbol("gHotSpotVMTypeEntryTypeNameOffset", &nameOff) ||
      !symbol("gHotSpotVMTypeEntrySizeOffset", &sizeOff) || !symbol("gHotSpotVMTypeEntryArrayStride", &stride)) {
    *why = "gHotSpotVMTypes";
    return false;
  }
  for (; str(row, nameOff) != nullptr; row += stride) {
    sizes_[str(row, nameOff)] = static_cast<int64_t>(*reinterpret_cast<const uint64_t*>(row + sizeOff));
  }
  uint64_t valueOff;
  if (!symbol("gHotSpotVMIntConstants", &row) || row == nullptr ||
      !symbol("gHotSpotVMIntConstantEntryNameOffset", &nameOff) ||
      !symbol("gHotSpotVMIntConstantEntryValueOffset", &valueOff) ||
      !symbol("gHotSpotVMIntConstantEntryArrayStride", &stride)) {
    *why = "gHotSpotVMIntConstants";
    return false;
  }
  for (; str(row, nameOff) != nullptr; row += stride) ints_[str(row, nameOff)] = *reinterpret_cast<const int32_t*>(row + valueOff);
  if (!symbol("gHotSpotVMLongConstants", &row) || row == nullptr ||
      !symbol("gHotSpotVMLongConstantEntryNameOffset", &nameOff) ||
      !symbol("gHotSpotVMLongConstantEntryValueOffset", &valueOff) ||
      !symbol("gHotSpotVMLongConstantEntryArrayStride", &stride)) {
    *why = "gHotSpotVMLongConstants";
    return false;
  }
  for (; str(row, nameOff) != nullptr; row += stride) longs_[str(row, nameOff)] = *reinterpret_cast<const int64_t*>(row + valueOff);
  return true;
}

const VmField* VmStructsTable::field(const std::string& type, const std::string& name) const {
  std::string key = type + "::" + name;
  if (key == hidden_) return nullptr;
  auto it = fields_.find(key);
  return it != fields_.end() ? &it->second : nullptr;
}

int64_t VmStructsTable::typeSize(const std::string& type) const {
  if (type == hidden_) return -1;
  auto it = sizes_.find(type);
  return it != sizes_.end() ? it->second : -1;
}

bool VmStructsTable::intConstant(const std::string& name, int64_t* value) const {
  auto it = ints_.find(name);
  if (it == ints_.end() || name == hidden_) return false;
  *value = it->second;
  return true;
}

bool VmStructsTable::longConstant(const std::string& name, int64_t* value) const {
  auto it = longs_.find(name);
  if (it == longs_.end() || name == hidden_) return false;
  *value = it->second;
  return true;
}

}  // namespace candor
