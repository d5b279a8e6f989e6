#include "engine/PerfRingEngine.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "engine/PerfEvents.h"
#include "engine/PerfSampleRecord.h"
#include "engine/ThreadRegistry.h"

namespace candor {

namespace {
// percpu: a CPU's ring holds this long of samples at the interval (the reader wakes at a quarter),
// at most kMaxCpuRingBytes, and all CPUs' rings together at most kMaxCpuRingsBytes of locked
// memory (a large machine gets shorter rings and a reader that wakes more often).
constexpr long long kCpuRingSpanNs = 100'000'000;  // with 32k copies, the memory 200 ms of 16k ones took
constexpr size_t kMinCpuRecords = 64;
constexpr size_t kMaxCpuRingBytes = 16 << 20;
constexpr size_t kMaxCpuRingsBytes = 64 << 20;

perf_event_attr sampleAttr(long long periodNs, uint32_t stackBytes, size_t dataBytes, bool perCpu,
                           bool switches = false) {
  // A thread's event counts user space only (all that perf_event_paranoid 2 allows), whose
  // registers are all that is of use; a CPU's is privileged, and samples the kernel too.
  perf_event_attr attr = perfCpuClockAttr(periodNs);
  attr.sample_type = perCpu ? kPerfCpuSampleType : kPerfSampleType;
  attr.sample_regs_user = kPerfRegsMask;
  attr.sample_stack_user = stackBytes;
  attr.use_clockid = 1;  // sample times on the clock of the ring's other producers
  attr.clockid = CLOCK_MONOTONIC;
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<__u32>(dataBytes / (perCpu ? 4 : 2));
  if (perCpu) {
    attr.exclude_kernel = 0;
    attr.exclude_callchain_user = 1;  // the reader walks user space from the copy
    attr.sample_max_stack = kMaxKernelFrames;
    attr.exclude_idle = 1;  // the idle task's ticks write nothing
    // Switch records (with the sample's tid and time): which thread a late tick was taken in.
    attr.context_switch = switches ? 1 : 0;
    attr.sample_id_all = switches ? 1 : 0;
  }
  return attr;
}
}  // namespace

bool PerfRingEngine::available(uint32_t stackBytes, bool perCpu, std::string* why) {
  perf_event_attr attr = sampleAttr(10'000'000, stackBytes, 4096, perCpu);
  // Without switch records: openRing asks for them, and does without where the kernel refuses them.
  int fd = perCpu ? perfEventOpenOnCpu(&attr, 0) : perfEventOpen(&attr, 0);
  if (fd < 0) {
    *why = perfOpenError(perCpu ? "perf_event_open of a CPU-wide event failed" : "perf_event_open with user registers and stack failed", errno);
    return false;
  }
  close(fd);
  return true;
}

uint64_t PerfRingEngine::sampleType() const { return perCpu_ ? kPerfCpuSampleType : kPerfSampleType; }

std::string PerfRingEngine::kernelTimeReason() const {
  if (perCpu_) return "percpu: one perf event per CPU counts user and kernel time, with the kernel's callchain";
  return "walk=copy's events count user space only; the reader counts what they skipped from each sample's CPU time";
}

size_t PerfRingEngine::pagesFor(size_t bytes, size_t pageSize) {
  size_t pages = 1;
  while (pages * pageSize < bytes) pages *= 2;
  return pages;
}

bool PerfRingEngine::startEngine(const Options& options, std::string* why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    covered_.clear();
  }
  stackBytes_ = options.stackCopyBytes;
  perCpu_ = options.perCpu == PerCpu::kYes;
  pageSize_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t record = perfSampleRecordBytes(stackBytes_, sampleType());
  smallPages_ = pagesFor(kSmallRecords * record, pageSize_);
  largePages_ = std::max(smallPages_, pagesFor(std::min(kLargeRecords * record, kMaxLargeBytes), pageSize_));
  if (perCpu_) {  // sized by rate: kCpuRingSpanNs of one CPU's samples
    size_t records = static_cast<size_t>(kCpuRingSpanNs / std::max<long long>(intervalNs_, 1));
    size_t cpus = static_cast<size_t>(std::max(1L, sysconf(_SC_NPROCESSORS_CONF)));
    size_t bytes = std::min({records * record, kMaxCpuRingBytes, kMaxCpuRingsBytes / cpus});
    smallPages_ = largePages_ = pagesFor(std::max(bytes, kMinCpuRecords * record), pageSize_);
  }
  shrunk_ = enlarged_ = 0;
  if (!available(stackBytes_, perCpu_, why)) return false;
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  wakeFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.fd = wakeFd_;
  if (epoll_ < 0 || wakeFd_ < 0 || epoll_ctl(epoll_, EPOLL_CTL_ADD, wakeFd_, &ev) != 0) {
    *why = std::string("epoll for the sample rings: ") + strerror(errno);
    stop();
    return false;
  }
  if (perCpu_ && !openCpuRings(why)) {
    stop();
    return false;
  }
  return true;
}

uint64_t PerfRingEngine::cpuPeriodNs(uint64_t periodNs, int cpu, int cpus) {
  if (cpus < 2) return periodNs;
  // Evenly from spread/2 under (CPU 0) to spread/2 over (the last), so their mean is the
  // interval; at perf's 10 µs floor, upwards from it.
  auto spread = static_cast<int64_t>(periodNs) * kCpuSpreadPerMille / 1000;
  int64_t lowest = std::max<int64_t>(static_cast<int64_t>(periodNs) - spread / 2, 10'000);
  return static_cast<uint64_t>(lowest + spread * cpu / (cpus - 1));
}

bool PerfRingEngine::openCpuRings(std::string* why) {
  std::lock_guard<std::mutex> lock(mutex_);
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < cpus; cpu++) {
    auto ring = std::make_unique<PerfRing>();
    ring->tid = cpu;
    ring->periodNs = cpuPeriodNs(tickPeriodNs(), cpu, static_cast<int>(cpus));
    ring->grid = TickGrid(ring->periodNs);
    std::string cpuWhy;
    if (!openRing(cpu, smallPages_, ring.get(), &cpuWhy)) {
      if (errno == ENODEV) continue;  // an offline CPU
      *why = "CPU " + std::to_string(cpu) + ": " + cpuWhy;
      return false;
    }
    rings_[ring.get()] = std::move(ring);
  }
  if (rings_.empty()) *why = "no online CPU to sample";
  return !rings_.empty();
}

void PerfRingEngine::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (perCpu_) {  // a thread's ring is unmapped when it is disarmed; a CPU's here
      for (auto& [key, ring] : rings_) unmapRing(*ring);
      rings_.clear();
    }
  }
  if (wakeFd_ >= 0) close(wakeFd_);
  if (epoll_ >= 0) close(epoll_);
  wakeFd_ = epoll_ = -1;
}

bool PerfRingEngine::openRing(int tid, size_t pages, PerfRing* ring, std::string* why) {
  // Halved until the locked-memory limit lets it be mapped, down to two samples.
  size_t minPages = pagesFor(2 * perfSampleRecordBytes(stackBytes_), pageSize_);
  for (size_t p = pages; p >= minPages; p /= 2) {
    auto periodNs = static_cast<long long>(ring->periodNs);
    perf_event_attr attr = sampleAttr(periodNs, stackBytes_, p * pageSize_, perCpu_, switches_);
    int fd = perCpu_ ? perfEventOpenOnCpu(&attr, tid) : perfEventOpen(&attr, tid);
    if (fd < 0 && perCpu_ && switches_ && errno == EINVAL) {  // a kernel before 4.3: no switch records
      switches_ = false;
      attr = sampleAttr(periodNs, stackBytes_, p * pageSize_, perCpu_, false);
      fd = perfEventOpenOnCpu(&attr, tid);
    }
    if (fd < 0) {
      int err = errno;
      *why = perfOpenError("perf_event_open", err);
      errno = err;
      return false;
    }
    size_t bytes = (1 + p) * pageSize_;
    void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
      int err = errno;
      close(fd);
      if (err == EPERM || err == ENOMEM) continue;
      *why = std::string("cannot map the sample ring: ") + strerror(err);
      return false;
    }
    if (p != pages) shrunk_++;
    ring->fd = fd;
    ring->page = static_cast<perf_event_mmap_page*>(map);
    ring->mapBytes = bytes;
    epoll_event ev = {};
    ev.events = EPOLLIN | EPOLLET;  // one wake per watermark; an exited thread's HUP only once
    ev.data.fd = fd;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    return true;
  }
  *why = "cannot map a sample ring (locked memory: perf_event_mlock_kb, ulimit -l)";
  return false;
}

void PerfRingEngine::unmapRing(PerfRing& ring) {
  epoll_ctl(epoll_, EPOLL_CTL_DEL, ring.fd, nullptr);
  munmap(ring.page, ring.mapBytes);
  close(ring.fd);  // after the unmap: the fd number may be reused at once
  ring.fd = -1;
  ring.page = nullptr;
}

bool PerfRingEngine::armThread(int tid, ThreadTimer* timer, std::string* why) {
  if (perCpu_) {  // the CPUs' events see it already: it only joins the threads kept
    std::lock_guard<std::mutex> lock(mutex_);
    covered_[tid] = CoveredThread{monotonicNs(), timer->cpuAtArmNs, 0, timer->javaThread};
    timer->tid = tid;
    timer->armed = true;
    return true;
  }
  auto ring = std::make_unique<PerfRing>();
  ring->tid = tid;
  ring->periodNs = tickPeriodNs();
  ring->javaThread = timer->javaThread;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!openRing(tid, smallPages_, ring.get(), why)) return false;
  timer->ring = ring.get();
  timer->fd = ring->fd;  // informational: the ring may get another event (enlarge)
  timer->armed = true;
  rings_[ring.get()] = std::move(ring);
  return true;
}

void PerfRingEngine::disarmThread(ThreadTimer* timer) {
  if (!timer->armed) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (perCpu_) {  // its last samples are read from every CPU's ring before it leaves the set
    auto it = covered_.find(timer->tid);
    if (consumer_ != nullptr && it != covered_.end()) {
      for (auto& [key, ring] : rings_) consumer_->consume(*ring);
      settleLocked(timer->tid, it->second, *consumer_);
      timer->cpuAtDisarmNs = it->second.settledCpuNs;
    }
    if (it != covered_.end()) covered_.erase(it);
    timer->armed = false;
    return;
  }
  auto it = rings_.find(static_cast<PerfRing*>(timer->ring));
  if (it != rings_.end()) {
    PerfRing& ring = *it->second;
    if (consumer_ != nullptr) endRing(ring, *consumer_);  // its last samples, and the ticks no sample showed
    unmapRing(ring);
    rings_.erase(it);
  }
  timer->fd = -1;
  timer->ring = nullptr;
  timer->armed = false;
}

void PerfRingEngine::enlarge(PerfRing& ring, RingConsumer& consumer) {
  ring.large = true;  // once, whether or not it succeeds
  PerfRing bigger;
  bigger.periodNs = ring.periodNs;
  std::string why;
  // The old event stops before the new one starts, so no tick is sampled twice; the partial
  // period of the old counter is lost once per thread.
  ioctl(ring.fd, PERF_EVENT_IOC_DISABLE, 0);
  consumeRing(ring, consumer);
  if (!openRing(ring.tid, largePages_, &bigger, &why)) {
    ioctl(ring.fd, PERF_EVENT_IOC_ENABLE, 0);  // keep the small ring
    return;
  }
  endRing(ring, consumer);  // disabled and read already: its count
  unmapRing(ring);
  ring.fd = bigger.fd;
  ring.page = bigger.page;
  ring.mapBytes = bigger.mapBytes;
  ring.lastCpuNs = 0;  // a new event counts from zero
  ring.lostSinceSample = 0;
  ring.filledUp = false;
  ring.grid = TickGrid(ring.periodNs);  // and its timer starts a grid of its own
  enlarged_++;
}

void PerfRingEngine::setConsumer(RingConsumer* consumer) {
  std::lock_guard<std::mutex> lock(mutex_);
  consumer_ = consumer;
}

void PerfRingEngine::wait(int timeoutMs) {
  epoll_event events[16];
  int n = epoll_wait(epoll_, events, 16, timeoutMs);
  for (int i = 0; i < n; i++) {
    if (events[i].data.fd != wakeFd_) continue;
    uint64_t count;
    while (read(wakeFd_, &count, sizeof count) > 0) {
    }
  }
}

void PerfRingEngine::wake() {
  uint64_t one = 1;
  if (write(wakeFd_, &one, sizeof one) < 0) {
    // nothing to do: the reader wakes on its timeout anyway
  }
}

void PerfRingEngine::consumeAll(RingConsumer& consumer, bool settle) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, ring] : rings_) {
    uint64_t pending = consumeRing(*ring, consumer);
    if (!ring->large && largePages_ > smallPages_ && pending >= ring->page->data_size / 2) enlarge(*ring, consumer);
  }
  if (settle && perCpu_) {
    for (auto& [tid, thread] : covered_) settleLocked(tid, thread, consumer);
  }
}

uint64_t PerfRingEngine::consumeRing(PerfRing& ring, RingConsumer& consumer) {
  perf_event_mmap_page* page = ring.page;
  uint64_t pending = lvRaw(&page->data_head) - page->data_tail;
  consumer.consume(ring);
  if (pending > 0) ring.filledUp = pending + perfSampleRecordBytes(stackBytes_, sampleType()) > page->data_size;
  return pending;
}

void PerfRingEngine::endRing(PerfRing& ring, RingConsumer& consumer) {
  ioctl(ring.fd, PERF_EVENT_IOC_DISABLE, 0);
  consumeRing(ring, consumer);
  uint64_t count = 0;  // read_format 0: the value alone
  if (read(ring.fd, &count, sizeof count) == sizeof count) consumer.ended(ring, count);
}

void PerfRingEngine::settleLocked(int tid, CoveredThread& thread, RingConsumer& consumer) {
  // A sample taken between the rings' read and this clock read is counted in the next
  // settlement, its CPU in this one: the consumer's balance evens that out.
  uint64_t now = threadCpuNs(tid);  // 0 for a thread gone already: nothing to settle
  if (now <= thread.settledCpuNs) return;
  consumer.settle(tid, thread, now - thread.settledCpuNs, thread.ticks);
  thread.settledCpuNs = now;
  thread.blockedSwitches = thread.preemptedSwitches = 0;
  thread.ticks = 0;
}

}  // namespace candor
