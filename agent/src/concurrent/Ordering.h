// Memory-ordering helpers, named after the JCTools convention so that every access on a shared
// field says which ordering it relies on:
//   lv  = load volatile  (acquire)          sv = store volatile (seq_cst)
//   lp  = load plain     (relaxed)          sp = store plain    (relaxed)
//   so  = store ordered  (release, like AtomicLong.lazySet)
//   cas = compare-and-swap (relaxed: used only to claim an index; the data is published by so)
// All of these are lock-free on x86-64 and async-signal-safe.
#pragma once
#include <atomic>
#include <cstdint>

namespace candor {

template <typename T> inline T lv(const std::atomic<T>& a) { return a.load(std::memory_order_acquire); }
template <typename T> inline T lp(const std::atomic<T>& a) { return a.load(std::memory_order_relaxed); }
template <typename T> inline void so(std::atomic<T>& a, T v) { a.store(v, std::memory_order_release); }
template <typename T> inline void sp(std::atomic<T>& a, T v) { a.store(v, std::memory_order_relaxed); }
template <typename T> inline void sv(std::atomic<T>& a, T v) { a.store(v, std::memory_order_seq_cst); }
template <typename T> inline bool casWeak(std::atomic<T>& a, T& expected, T desired) {
  return a.compare_exchange_weak(expected, desired, std::memory_order_relaxed, std::memory_order_relaxed);
}

}  // namespace candor
