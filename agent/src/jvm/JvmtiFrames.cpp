#include "jvm/JvmtiFrames.h"

#include <algorithm>

namespace candor {

jvmtiError JvmtiFrames::stackTrace(jvmtiEnv* jvmti, jthread thread, uint32_t maxDepth, jint* count, bool* cut) {
  maxDepth = std::max<uint32_t>(maxDepth, 1);
  *cut = false;
  uint32_t want = std::min(maxDepth, std::max(size_, kFirstDepth));
  for (;;) {
    if (want > size_) {
      frames_.reset();
      frames_.reset(new jvmtiFrameInfo[want]);  // default-initialized: no page is touched here
      size_ = want;
    }
    *count = 0;
    jvmtiError err = jvmti->GetStackTrace(thread, 0, static_cast<jint>(want), frames_.get(), count);
    if (err != JVMTI_ERROR_NONE || static_cast<uint32_t>(*count) < want) return err;
    if (want >= maxDepth) {
      *cut = true;
      return err;
    }
    want = std::min(maxDepth, want * 4);  // the stack filled the buffer: grow it, take the stack again
  }
}

}  // namespace candor
