// Helpers shared by the walk/native unit tests: this process's module table and a reader of
// the current thread's stack that refuses every word outside it.
#pragma once
#include <dlfcn.h>
#include <pthread.h>

#include <cstdint>

#include "walk/native/NativeModules.h"
#include "walk/native/NativeUnwinder.h"

namespace candor::testing {

// The module table of this process, refreshed once (tests that dlopen refresh it again).
inline NativeModules& processModules() {
  static NativeModules* modules = [] {
    auto* m = new NativeModules();
    m->refresh();
    return m;
  }();
  return *modules;
}

// libc's own definition of `name` (under ASan, RTLD_DEFAULT finds the sanitizer's interceptor).
inline void* libcSymbol(const char* name) {
  static void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  return libc != nullptr ? dlsym(libc, name) : nullptr;
}

// Reads only words of [low, high): a stray address is refused, never touched.
inline bool readStackWord_signalSafe(void* ctx, uintptr_t addr, uintptr_t* out) {
  auto* mem = static_cast<const NativeMemory*>(ctx);
  if (addr < mem->low || addr + sizeof(uintptr_t) > mem->high) return false;
  *out = *reinterpret_cast<const volatile uintptr_t*>(addr);
  return true;
}

// The calling thread's stack as a NativeMemory (ctx points at the object itself: keep it in place).
inline void currentStackMemory(NativeMemory* mem) {
  pthread_attr_t attr;
  void* low = nullptr;
  size_t size = 0;
  pthread_getattr_np(pthread_self(), &attr);
  pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  mem->read = readStackWord_signalSafe;
  mem->ctx = mem;
  mem->low = reinterpret_cast<uintptr_t>(low);
  mem->high = mem->low + size;
}

}  // namespace candor::testing
