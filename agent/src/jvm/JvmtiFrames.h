// A frame buffer for JVMTI GetStackTrace that grows with the stacks it meets. It starts at
// kFirstDepth frames (32 KB) and grows fourfold, retrying the call, while a stack fills it, up to
// the session's depth= (unlimited by default: 262144 frames, 4 MB). Asking for depth= frames on
// every call would need the deepest possible buffer for every thread that samples itself: the
// allocation and lock samplers keep one per application thread, and zero-filling 4 MB in each of
// a server's 200 threads cost it 1.6 GB of memory, and a fifth of its CPU from its start.
// The buffer is not zeroed: JVMTI writes the frames it reports, and only those pages are touched.
//
// Thread context: one owner at a time (a thread's thread_local, or the sampler thread's member).
#pragma once
#include <jvmti.h>

#include <cstdint>
#include <memory>

namespace candor {

class JvmtiFrames {
 public:
  static constexpr uint32_t kFirstDepth = 2048;

  // GetStackTrace of `thread` (nullptr: the current thread), outermost frames up to `maxDepth`.
  // `*cut`: the stack filled maxDepth frames, so its outermost callers may be missing.
  jvmtiError stackTrace(jvmtiEnv* jvmti, jthread thread, uint32_t maxDepth, jint* count, bool* cut);
  const jvmtiFrameInfo* data() const { return frames_.get(); }

 private:
  std::unique_ptr<jvmtiFrameInfo[]> frames_;
  uint32_t size_ = 0;
};

}  // namespace candor
