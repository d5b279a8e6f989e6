// walk=copy and percpu: the part of a sampled stack that lies beyond perf's copy, read from the
// thread's stack as it is now. A stack deeper than the copy (32k percpu, 8k walk=copy) would
// otherwise be cut at the copy's end and lose its callers: in a 300-level recursion, half the
// samples.
//
// Why the live stack may give the callers. Between the sample and the read, the thread changed
// its stack only above the shallowest point it returned to: the callers of the copied frames,
// whose activations outlive the copied ones, are untouched unless the thread returned past them.
// The walk takes the copied frames from the copy (exact), then follows return addresses and frame
// sizes through the live words. A thread that did return past them and built other frames there
// breaks that chain: a word read where the sample's frame layout expects a return address is then
// not one, the sizes stop adding up, or (frames of the same size, a recursion of the same shape on
// another path) the return address follows a direct call to another method than the frame it
// returns from (FrameWalker::mayReturnFrom). So the caller (RingReader) keeps a walk through the
// tail only if it reaches the thread's first Java call (the entry frame with no Java frame before
// it) with no such break, and otherwise walks again from the copy alone, cut and marked
// [truncated] as before. What the checks cannot tell apart is a thread that returned past the copy
// and built the same frames at the same addresses again (a recursion going down the same path):
// those callers are the same methods at the same call sites. Calls that do not name their target
// (through a register, a stub, the interpreter's dispatch) are not checked.
// Measured (CopyWalkTest, the accuracy suite, percpu, JDK 17): a 10,000-frame recursion standing
// still under its leaf is whole in 99% of the samples; two same-shaped recursions alternating every
// 2 ms are whole in half (the other half, the thread was in the other one when the reader came),
// never mixed (half of them mixed without the call check); the 300-level recursion, which unwinds
// every 40 ms, is cut in 1.2-1.5% of the samples, its hot method 2.6 points under a truth of 39.7%
// (7.6% and 8.6 points while the reader read every 25-50 ms; it now comes back within 5 ms while
// stacks are this deep: bench/results/RESULTS-deep-reader.md): the thread had unwound the rest.
//
// Reads go through process_vm_readv on this process, one page per element: a page no longer
// mapped (the thread exited, its stack unmapped) ends the tail instead of faulting.
//
// Thread context: the ring reader, under the engine's lock (one walk at a time); a few system
// calls per walk of a deep stack, none for a stack that fits the copy.
#pragma once
#include <cstddef>
#include <cstdint>

namespace candor {

class LiveStackTail {
 public:
  // `capacityBytes` of address space reserved (no memory until a deep stack is read).
  explicit LiveStackTail(size_t capacityBytes);
  ~LiveStackTail();
  LiveStackTail(const LiveStackTail&) = delete;
  LiveStackTail& operator=(const LiveStackTail&) = delete;

  // A new walk, of a copy that ends at `copyEnd`: nothing read yet.
  void begin(uintptr_t copyEnd);
  // The word at `addr`, at or past the copy's end: from the live stack, read on first need.
  // false when it cannot be read (not mapped, or farther than the capacity).
  bool load(uintptr_t addr, uintptr_t* out);
  // Whether this walk took a word from the live stack.
  bool used() const { return used_; }

 private:
  // Reads pages from the live stack until `bytes` of it, from start_, are in buf_.
  void fillTo(size_t bytes);

  char* buf_ = nullptr;
  size_t capacity_ = 0;
  uintptr_t start_ = 0;  // the live address of buf_[0]: the copy's end
  size_t filled_ = 0;
  bool used_ = false;
};

}  // namespace candor
