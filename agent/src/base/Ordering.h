// Memory-ordering helpers. Every access to a field shared with a signal handler (or between the
// handler path and another thread) goes through one of these, so the access says which ordering
// it relies on and the file's ordering argument can be checked against the code. Names follow
// the JCTools convention, extended to read-modify-writes:
//
//   loads            lp = plain (relaxed)        lv = volatile (acquire)     lvSc = seq_cst
//   stores           sp = plain (relaxed)        so = ordered (release)      sv   = seq_cst
//   fetch_add        addPlain (relaxed)          addOrdered (release)        addSc (seq_cst)
//   fetch_sub/or/and subOrdered, orOrdered, andOrdered (release)
//   compare-and-swap casPlain, casWeak (relaxed: arbitrate only, publish nothing)
//                    casAcquire, casWeakAcquire (a claim)   casAcqRel    casSc
//   exchange         xchgPlain (relaxed)         xchgAcqRel
//   fences           acquireFence  releaseFence  fullFence  signalFence (same thread's handler only)
//
// The *Raw forms take a plain pointer: memory that is not a std::atomic because someone else
// lays it out (a perf ring's metadata page, written by the kernel) or because it is a plain
// table guarded by a SeqLock (relaxed atomic reads of plain fields, per the seqlock argument).
// All of these are lock-free on x86-64 and async-signal-safe.
#pragma once
#include <atomic>
#include <cstdint>
#include <type_traits>

namespace candor {

template <typename T> inline T lp(const std::atomic<T>& a) { return a.load(std::memory_order_relaxed); }
template <typename T> inline T lv(const std::atomic<T>& a) { return a.load(std::memory_order_acquire); }
template <typename T> inline T lvSc(const std::atomic<T>& a) { return a.load(std::memory_order_seq_cst); }

template <typename T> inline void sp(std::atomic<T>& a, std::type_identity_t<T> v) { a.store(v, std::memory_order_relaxed); }
template <typename T> inline void so(std::atomic<T>& a, std::type_identity_t<T> v) { a.store(v, std::memory_order_release); }
template <typename T> inline void sv(std::atomic<T>& a, std::type_identity_t<T> v) { a.store(v, std::memory_order_seq_cst); }

template <typename T> inline T addPlain(std::atomic<T>& a, std::type_identity_t<T> v) { return a.fetch_add(v, std::memory_order_relaxed); }
template <typename T> inline T addOrdered(std::atomic<T>& a, std::type_identity_t<T> v) { return a.fetch_add(v, std::memory_order_release); }
template <typename T> inline T addSc(std::atomic<T>& a, std::type_identity_t<T> v) { return a.fetch_add(v, std::memory_order_seq_cst); }
template <typename T> inline T subOrdered(std::atomic<T>& a, std::type_identity_t<T> v) { return a.fetch_sub(v, std::memory_order_release); }
template <typename T> inline T orOrdered(std::atomic<T>& a, std::type_identity_t<T> v) { return a.fetch_or(v, std::memory_order_release); }
template <typename T> inline T andOrdered(std::atomic<T>& a, std::type_identity_t<T> v) { return a.fetch_and(v, std::memory_order_release); }

// Strong CAS unless named weak; on failure `expected` holds the value seen.
template <typename T> inline bool casPlain(std::atomic<T>& a, T& expected, std::type_identity_t<T> desired) {
  return a.compare_exchange_strong(expected, desired, std::memory_order_relaxed, std::memory_order_relaxed);
}
template <typename T> inline bool casWeak(std::atomic<T>& a, T& expected, std::type_identity_t<T> desired) {
  return a.compare_exchange_weak(expected, desired, std::memory_order_relaxed, std::memory_order_relaxed);
}
// Acquire: a claim that must see what the previous owner published before it released the word.
template <typename T> inline bool casAcquire(std::atomic<T>& a, T& expected, std::type_identity_t<T> desired) {
  return a.compare_exchange_strong(expected, desired, std::memory_order_acquire, std::memory_order_relaxed);
}
template <typename T> inline bool casWeakAcquire(std::atomic<T>& a, T& expected, std::type_identity_t<T> desired) {
  return a.compare_exchange_weak(expected, desired, std::memory_order_acquire, std::memory_order_relaxed);
}
template <typename T> inline bool casAcqRel(std::atomic<T>& a, T& expected, std::type_identity_t<T> desired) {
  return a.compare_exchange_strong(expected, desired, std::memory_order_acq_rel, std::memory_order_acquire);
}
template <typename T> inline bool casSc(std::atomic<T>& a, T& expected, std::type_identity_t<T> desired) {
  return a.compare_exchange_strong(expected, desired, std::memory_order_seq_cst, std::memory_order_relaxed);
}

template <typename T> inline T xchgPlain(std::atomic<T>& a, std::type_identity_t<T> v) { return a.exchange(v, std::memory_order_relaxed); }
template <typename T> inline T xchgAcqRel(std::atomic<T>& a, std::type_identity_t<T> v) { return a.exchange(v, std::memory_order_acq_rel); }

inline void acquireFence() { std::atomic_thread_fence(std::memory_order_acquire); }
inline void releaseFence() { std::atomic_thread_fence(std::memory_order_release); }
inline void fullFence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
// Orders against a signal handler on the same thread only (a compiler barrier, no instruction).
inline void signalFence() { std::atomic_signal_fence(std::memory_order_seq_cst); }

template <typename T> inline T lpRaw(const T* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
template <typename T> inline T lvRaw(const T* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
template <typename T> inline void spRaw(T* p, std::type_identity_t<T> v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
template <typename T> inline void soRaw(T* p, std::type_identity_t<T> v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

}  // namespace candor
