#include "walk/vm/MethodIds.h"

#include "walk/vm/GuardedMemory.h"

namespace candor {

jmethodID MethodIds::idOf_signalSafe(uintptr_t method) const {
  if (method == 0 || (method & 7) != 0) return nullptr;
  uintptr_t constMethod = loadPtr_signalSafe(method + l_.methodConst);
  if (constMethod == 0 || (constMethod & 7) != 0) return nullptr;
  uintptr_t pool = loadPtr_signalSafe(constMethod + l_.constConstants);
  if (pool == 0 || (pool & 7) != 0) return nullptr;
  uintptr_t holder = loadPtr_signalSafe(pool + l_.poolHolder);
  if (holder == 0 || (holder & 7) != 0) return nullptr;
  uintptr_t ids = loadPtr_signalSafe(holder + l_.klassJmethodIds);
  if (ids == 0 || (ids & 7) != 0) return nullptr;
  uint64_t idnum = loadUField_signalSafe(constMethod, l_.constIdnum);
  MethodArray methods;
  if (!methodsOf_signalSafe(holder, &methods)) return nullptr;
  if (!inArray_signalSafe(methods, method, idnum)) {
    method = declaredIntrinsic_signalSafe(methods, method);
    if (method == 0) return nullptr;
    idnum = loadUField_signalSafe(loadPtr_signalSafe(method + l_.methodConst), l_.constIdnum);
  }
  uint64_t length = load_signalSafe<uint64_t>(ids);
  if (idnum + 1 > length) return nullptr;
  uintptr_t id = loadPtr_signalSafe(ids + (idnum + 1) * sizeof(uintptr_t));
  if (id == 0 || (l_.jmethodIdIsPointer && ((id & 7) != 0 || loadPtr_signalSafe(id) != method))) return nullptr;
  return reinterpret_cast<jmethodID>(id);
}

uintptr_t MethodIds::MethodArray::at_signalSafe(int32_t i) const { return loadPtr_signalSafe(data + i * 8); }

bool MethodIds::methodsOf_signalSafe(uintptr_t holder, MethodArray* out) const {
  uintptr_t methods = loadPtr_signalSafe(holder + l_.klassMethods);
  if (methods == 0 || (methods & 7) != 0) return false;
  out->length = load_signalSafe<int32_t>(methods + l_.methodArrayLength);
  out->data = methods + l_.methodArrayData;
  return out->length > 0 && out->length <= 65536;
}

bool MethodIds::inArray_signalSafe(const MethodArray& a, uintptr_t method, uint64_t idnum) const {
  // The class file parser numbers methods in their sorted order, so idnum is usually the index.
  if (idnum < static_cast<uint64_t>(a.length) && a.at_signalSafe(static_cast<int32_t>(idnum)) == method) return true;
  for (int32_t i = 0; i < a.length && i < 1024; i++) {  // after redefinition or added overpasses
    if (a.at_signalSafe(i) == method) return true;
  }
  return false;
}

uintptr_t MethodIds::declaredIntrinsic_signalSafe(const MethodArray& a, uintptr_t method) const {
  if (l_.methodIntrinsicId.off < 0 || !isNative_signalSafe(method)) return 0;
  uint64_t iid = loadUField_signalSafe(method, l_.methodIntrinsicId);
  if (iid == 0) return 0;  // vmIntrinsics::_none
  for (int32_t i = 0; i < a.length && i < 1024; i++) {
    uintptr_t declared = a.at_signalSafe(i);
    if (declared == 0 || (declared & 7) != 0 || declared == method) continue;
    if (loadUField_signalSafe(declared, l_.methodIntrinsicId) == iid && isNative_signalSafe(declared)) return declared;
  }
  return 0;
}

bool MethodIds::isNative_signalSafe(uintptr_t method) const {
  return (loadUField_signalSafe(method, l_.methodAccessFlags) & kAccNative) != 0;
}

int32_t MethodIds::bciOf_signalSafe(uintptr_t method, uintptr_t bcp) const {
  uintptr_t constMethod = loadPtr_signalSafe(method + l_.methodConst);
  uintptr_t code = constMethod + l_.constMethodSize;  // bytecodes follow the ConstMethod
  uint64_t size = loadUField_signalSafe(constMethod, l_.constCodeSize);
  if (bcp < code || bcp >= code + size) return -1;
  return static_cast<int32_t>(bcp - code);
}

}  // namespace candor
