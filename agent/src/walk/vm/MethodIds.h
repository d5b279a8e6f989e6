// Method* → jmethodID without JVMTI, so the sampling path can fill the ordinary frame array
// that the writer's MethodResolver already understands:
//   Method::_constMethod → ConstMethod::_constants → ConstantPool::_pool_holder (InstanceKlass)
//   → InstanceKlass::_methods_jmethod_ids[idnum + 1]   (element 0 holds the array length)
// The ids exist because MethodPreloader creates them on ClassPrepare. On JDK 25 a jmethodID is
// an opaque handle rather than a pointer to a Method* slot, but the per-class array still holds
// exactly what JVMTI hands out, so the writer's JVMTI calls accept it.
#pragma once
#include <jni.h>

#include <cstdint>

#include "walk/vm/VmLayout.h"

namespace candor {

constexpr uint16_t kAccNative = 0x0100;

class MethodIds {
 public:
  explicit MethodIds(const VmLayout& layout) : l_(layout) {}

  // Signal-handler path, inside the crash guard. nullptr when the class has no id for it yet.
  // A Method* taken from a frame or from debug info is checked before its id is used: it must
  // be in its own class's method array, and a pointer-style id must point back at it. A stale or
  // garbage Method* thus yields nullptr ([unknown_method]) rather than an id that would make
  // the writer's JVMTI calls read random memory. One kind of Method* is outside its class's array
  // by design: the VM's own copies of MethodHandle.invokeBasic and linkTo* (one per signature,
  // made by Method::make_method_handle_intrinsic, run as compiled code of their own). Such a copy
  // takes the id of the native method its class declares with the same intrinsic id, the name
  // async-profiler and JFR give it too.
  jmethodID idOf_signalSafe(uintptr_t method) const;
  bool isNative_signalSafe(uintptr_t method) const;
  // bcp → bci of an interpreted frame; -1 when bcp is not inside the method's bytecodes.
  int32_t bciOf_signalSafe(uintptr_t method, uintptr_t bcp) const;

 private:
  // A class's method array (InstanceKlass::_methods), read once per lookup.
  struct MethodArray {
    uintptr_t data = 0;
    int32_t length = 0;
    uintptr_t at_signalSafe(int32_t i) const;
  };
  bool methodsOf_signalSafe(uintptr_t holder, MethodArray* out) const;
  bool inArray_signalSafe(const MethodArray& a, uintptr_t method, uint64_t idnum) const;
  uintptr_t declaredIntrinsic_signalSafe(const MethodArray& a, uintptr_t method) const;
  const VmLayout& l_;
};

}  // namespace candor
