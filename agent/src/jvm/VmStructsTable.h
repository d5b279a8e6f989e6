// The agent's one reader of HotSpot's exported type tables (gHotSpotVMStructs, gHotSpotVMTypes,
// gHotSpotVMIntConstants, gHotSpotVMLongConstants): read once into maps, on an ordinary thread.
// The own walker's layout (walk/vm/VmLayout) and the OSThread offsets (Jvm) are picked from it by
// name; nothing here runs in a signal handler.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

namespace candor {

struct VmField {
  bool isStatic = false;
  uint64_t offset = 0;    // instance field: byte offset in its type
  void* address = nullptr;  // static field: its address in libjvm
  std::string type;       // the C++ type as HotSpot declares it ("int", "u2", "address", ...)
};

class VmStructsTable {
 public:
  // This JVM's tables, read on first use (thread-safe); `loaded()` says whether that worked.
  static const VmStructsTable& process();
  // Reads the tables; false (with the reason) when libjvm does not export them.
  bool load(std::string* why);
  bool loaded() const { return !fields_.empty(); }
  const std::string& loadError() const { return error_; }

  const VmField* field(const std::string& type, const std::string& name) const;
  // Byte offset of the instance field `type::name`, or -1 when unknown.
  int64_t fieldOffset(const std::string& type, const std::string& name) const;
  // sizeof(type), or -1 when unknown.
  int64_t typeSize(const std::string& type) const;
  bool intConstant(const std::string& name, int64_t* value) const;
  bool longConstant(const std::string& name, int64_t* value) const;

 private:
  std::unordered_map<std::string, VmField> fields_;  // "Type::field"
  std::unordered_map<std::string, int64_t> sizes_;
  std::unordered_map<std::string, int64_t> ints_;
  std::unordered_map<std::string, int64_t> longs_;
  std::string error_;
  std::string hidden_;  // test hook: CANDOR_TEST_HIDE_VMSTRUCT names an entry to treat as missing
};

}  // namespace candor
