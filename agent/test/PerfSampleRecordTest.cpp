// walk=copy without a JVM: the sample record parser, reading records out of a ring (also when
// they wrap), the stack copy's window, the options, and a real perf ring on this thread.
#include "engine/PerfSampleRecord.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <vector>

#include "control/OptionParser.h"
#include "engine/PerfRingEngine.h"
#include "engine/ThreadRegistry.h"
#include "walk/vm/StackCopy.h"

using namespace candor;

namespace {
// A PERF_RECORD_SAMPLE as the kernel lays it out for kPerfSampleType / kPerfRegsMask, or with
// `callchain` for kPerfCpuSampleType.
std::vector<uint8_t> sampleRecord(uint32_t pid, uint32_t tid, uint64_t time, bool regs,
                                  const std::vector<uint8_t>& stack, uint64_t dynSize,
                                  const std::vector<uint64_t>* callchain = nullptr) {
  std::vector<uint8_t> r(sizeof(perf_event_header));
  auto u64 = [&](uint64_t v) {
    size_t at = r.size();
    r.resize(at + 8);
    memcpy(r.data() + at, &v, 8);
  };
  u64(uint64_t{tid} << 32 | pid);
  u64(time);
  if (callchain == nullptr) {
    u64(time / 2);  // read: the event's count
  } else {
    u64(callchain->size());
    for (uint64_t ip : *callchain) u64(ip);
  }
  u64(regs ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE);
  if (regs) {
    for (int i = 0; i < kPerfRegCount; i++) u64(0x1000 + i);  // bp, sp, ip, r13, r15
  }
  u64(stack.size());
  if (!stack.empty()) {
    r.insert(r.end(), stack.begin(), stack.end());
    u64(dynSize);
  }
  perf_event_header h{PERF_RECORD_SAMPLE, 0, static_cast<uint16_t>(r.size())};
  memcpy(r.data(), &h, sizeof h);
  return r;
}

// A fake perf ring: the metadata page, then `dataBytes` of data.
struct FakeRing {
  explicit FakeRing(size_t dataBytes) : memory(4096 + dataBytes) {
    page()->data_offset = 4096;
    page()->data_size = dataBytes;
  }
  perf_event_mmap_page* page() { return reinterpret_cast<perf_event_mmap_page*>(memory.data()); }
  void write(const std::vector<uint8_t>& record) {  // as the kernel does, wrapping at the end
    uint64_t size = page()->data_size;
    for (uint8_t b : record) memory[4096 + (page()->data_head++ & (size - 1))] = b;
  }
  std::vector<uint8_t> memory;
};
}  // namespace

TEST(PerfSampleRecord, ParsesRegistersAndStack) {
  std::vector<uint8_t> stack(64);
  for (size_t i = 0; i < stack.size(); i++) stack[i] = static_cast<uint8_t>(i);
  std::vector<uint8_t> rec = sampleRecord(7, 9, 123456789, true, stack, 40);
  EXPECT_EQ(rec.size(), perfSampleRecordBytes(64));
  PerfSample s;
  ASSERT_TRUE(parsePerfSample(rec.data(), rec.size(), &s));
  EXPECT_EQ(s.pid, 7u);
  EXPECT_EQ(s.tid, 9u);
  EXPECT_EQ(s.timeNs, 123456789u);
  EXPECT_EQ(s.cpuNs, 123456789u / 2);
  EXPECT_TRUE(s.hasRegs);
  EXPECT_EQ(s.regs[kPerfRegBp], 0x1000u);
  EXPECT_EQ(s.regs[kPerfRegSp], 0x1001u);
  EXPECT_EQ(s.regs[kPerfRegIp], 0x1002u);
  EXPECT_EQ(s.regs[kPerfRegR13], 0x1003u);
  EXPECT_EQ(s.regs[kPerfRegR15], 0x1004u);
  EXPECT_EQ(s.stackSize, 40u);  // dyn_size, not the size asked for
  ASSERT_NE(s.stack, nullptr);
  EXPECT_EQ(s.stack[39], 39);
}

TEST(PerfSampleRecord, ParsesAKernelCallchain) {
  std::vector<uint8_t> stack(64);
  std::vector<uint64_t> chain = {static_cast<uint64_t>(PERF_CONTEXT_KERNEL), 0xffffffff81000010, 0xffffffff81000020};
  std::vector<uint8_t> rec = sampleRecord(7, 9, 5, true, stack, 64, &chain);
  reinterpret_cast<perf_event_header*>(rec.data())->misc = PERF_RECORD_MISC_KERNEL;
  EXPECT_LE(rec.size(), perfSampleRecordBytes(64, kPerfCpuSampleType));
  PerfSample s;
  ASSERT_TRUE(parsePerfSample(rec.data(), rec.size(), &s, kPerfCpuSampleType));
  EXPECT_EQ(s.tid, 9u);
  EXPECT_TRUE(s.inKernel);
  EXPECT_EQ(s.cpuNs, 0u);  // no READ
  ASSERT_EQ(s.callchainSize, 3u);
  uint64_t second;
  memcpy(&second, s.callchain + 16, 8);
  EXPECT_EQ(second, 0xffffffff81000020u);
  EXPECT_EQ(s.regs[kPerfRegR15], 0x1004u);
  EXPECT_EQ(s.stackSize, 64u);
  // A callchain longer than the record is malformed.
  std::vector<uint64_t> huge(4);
  std::vector<uint8_t> bad = sampleRecord(7, 9, 5, false, {}, 0, &huge);
  memcpy(bad.data() + sizeof(perf_event_header) + 16, "\xff\xff\x00\x00\x00\x00\x00\x00", 8);
  EXPECT_FALSE(parsePerfSample(bad.data(), bad.size(), &s, kPerfCpuSampleType));
}

TEST(PerfSampleRecord, NoUserRegistersMeansNoStack) {
  std::vector<uint8_t> rec = sampleRecord(1, 2, 3, false, {}, 0);
  PerfSample s;
  ASSERT_TRUE(parsePerfSample(rec.data(), rec.size(), &s));
  EXPECT_FALSE(s.hasRegs);
  EXPECT_EQ(s.stack, nullptr);
  EXPECT_EQ(s.stackSize, 0u);
}

// A CPU-wide switch record: {header, next_prev_pid, next_prev_tid, sample_id {pid, tid, time}}.
// Out: next_prev names the task switched to, sample_id the one switched out.
TEST(PerfSampleRecord, ParsesASwitchOutRecord) {
  struct {
    perf_event_header header;
    uint32_t nextPrevPid, nextPrevTid, pid, tid;
    uint64_t time;
  } rec = {{PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, 32},
           7, 8, 5, 6, 1234};
  const auto* bytes = reinterpret_cast<const uint8_t*>(&rec);
  uint32_t tid = 0, prev = 0;
  uint64_t at = 0;
  bool out = false, preempted = false;
  ASSERT_TRUE(parsePerfSwitch(bytes, sizeof rec, &tid, &at, &out));
  EXPECT_TRUE(out);
  EXPECT_EQ(tid, 8u) << "switched to";
  EXPECT_EQ(at, 1234u);
  parsePerfSwitchOut(bytes, &prev, &preempted);
  EXPECT_EQ(prev, 6u) << "switched out";
  EXPECT_TRUE(preempted);
  rec.header.misc = PERF_RECORD_MISC_SWITCH_OUT;  // it blocked
  parsePerfSwitchOut(bytes, &prev, &preempted);
  EXPECT_FALSE(preempted);
}

TEST(PerfSampleRecord, RejectsMalformedRecords) {
  std::vector<uint8_t> stack(64);
  std::vector<uint8_t> rec = sampleRecord(1, 2, 3, true, stack, 64);
  PerfSample s;
  for (size_t cut : {size_t{0}, size_t{7}, size_t{30}, rec.size() - 9}) {  // header size says more than there is
    perf_event_header h{PERF_RECORD_SAMPLE, 0, static_cast<uint16_t>(cut)};
    std::vector<uint8_t> shorter(rec.begin(), rec.begin() + static_cast<long>(std::max(cut, sizeof h)));
    memcpy(shorter.data(), &h, sizeof h);
    EXPECT_FALSE(parsePerfSample(shorter.data(), shorter.size(), &s)) << cut;
  }
  std::vector<uint8_t> bigDyn = sampleRecord(1, 2, 3, true, stack, 65);  // dyn_size beyond the copy
  EXPECT_FALSE(parsePerfSample(bigDyn.data(), bigDyn.size(), &s));
  std::vector<uint8_t> lost = rec;
  reinterpret_cast<perf_event_header*>(lost.data())->type = PERF_RECORD_LOST;
  EXPECT_FALSE(parsePerfSample(lost.data(), lost.size(), &s));
}

TEST(PerfSampleRecord, ReadsRecordsThatWrapAroundTheRing) {
  FakeRing ring(1024);
  std::vector<uint8_t> scratch(64 * 1024);
  std::vector<uint8_t> stack(200);
  int seen = 0;
  for (int round = 0; round < 20; round++) {  // 20 x 2 records of 312 bytes: wraps at many offsets
    for (int i = 0; i < 2; i++) {
      for (size_t b = 0; b < stack.size(); b++) stack[b] = static_cast<uint8_t>(round * 2 + i + b);
      ring.write(sampleRecord(1, static_cast<uint32_t>(round * 2 + i), 0, true, stack, stack.size()));
    }
    uint64_t n = forEachPerfRecord(ring.page(), scratch.data(), [&](const perf_event_header& h, const uint8_t* rec) {
      PerfSample s;
      ASSERT_TRUE(parsePerfSample(rec, h.size, &s));
      EXPECT_EQ(s.tid, static_cast<uint32_t>(seen));
      EXPECT_EQ(s.stack[199], static_cast<uint8_t>(seen + 199));
      seen++;
    });
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(ring.page()->data_tail, ring.page()->data_head);  // every record's space given back
  }
  EXPECT_EQ(seen, 40);
}

TEST(PerfSampleRecord, StopsAtAHeaderItCannotTrust) {
  FakeRing ring(1024);
  std::vector<uint8_t> scratch(64 * 1024);
  perf_event_header zero{PERF_RECORD_SAMPLE, 0, 0};
  std::vector<uint8_t> bytes(sizeof zero);
  memcpy(bytes.data(), &zero, sizeof zero);
  ring.write(bytes);
  int calls = 0;
  EXPECT_EQ(forEachPerfRecord(ring.page(), scratch.data(), [&](const perf_event_header&, const uint8_t*) { calls++; }),
            0u);
  EXPECT_EQ(calls, 0);
}

TEST(StackCopy, ServesWordsInsideTheCopyAndMarksReadsBeyondIt) {
  uint64_t words[4] = {11, 22, 33, 44};
  uintptr_t sp = 0x7000;
  StackCopy copy(SampledRegs{0x1234, sp, sp + 16, 0}, words, sizeof words);
  EXPECT_EQ(copy.load_signalSafe(sp), 11u);
  EXPECT_EQ(copy.load_signalSafe(sp + 24), 44u);
  EXPECT_FALSE(copy.beyond());
  EXPECT_EQ(copy.load_signalSafe(sp + 28), 0u);  // straddles the end
  EXPECT_TRUE(copy.beyond());
  StackCopy below(SampledRegs{0, sp, 0, 0}, words, sizeof words);
  EXPECT_EQ(below.load_signalSafe(sp - 8), 0u);  // under sp: dead when the sample was taken
  EXPECT_TRUE(below.beyond());
  StackCopy beyondEnd(SampledRegs{0, sp, 0, 0}, words, sizeof words);
  beyondEnd.load_signalSafe(sp + 32);
  EXPECT_TRUE(beyondEnd.beyond());
}

TEST(StackCopy, ReadsPastTheCopyFromTheLiveStackWhenATailIsAttached) {
  // A "live stack" of 20 pages followed by an unmapped page (a stack's end, a thread gone);
  // perf's copy is its first 2 pages, as they were at the sample.
  const size_t page = 4096, pages = 20, copied = 2 * page;
  auto* live = static_cast<uint64_t*>(mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(live, MAP_FAILED);
  ASSERT_EQ(munmap(reinterpret_cast<char*>(live) + pages * page, page), 0);
  for (size_t i = 0; i < pages * page / 8; i++) live[i] = 1000 + i;
  std::vector<uint64_t> copy(live, live + copied / 8);
  live[1] = 7;  // the thread has moved on: the copy, not the live stack, holds the sampled words
  auto sp = reinterpret_cast<uintptr_t>(live);
  SampledRegs regs{0x1234, sp, sp, 0};
  LiveStackTail tail(1 << 20);

  StackCopy deep(regs, copy.data(), copied);
  deep.attachTail(&tail);
  EXPECT_EQ(deep.load_signalSafe(sp + 8), 1001u);
  EXPECT_FALSE(deep.usedTail());
  EXPECT_EQ(deep.load_signalSafe(sp + copied), 1000u + copied / 8);  // the first word past the copy
  EXPECT_EQ(deep.load_signalSafe(sp + 19 * page), 1000u + 19 * page / 8);  // past the first read's pages
  EXPECT_TRUE(deep.usedTail());
  EXPECT_FALSE(deep.beyond());
  EXPECT_EQ(deep.load_signalSafe(sp + pages * page), 0u);  // the unmapped page ends the tail, no fault
  EXPECT_TRUE(deep.beyond());
  EXPECT_EQ(deep.load_signalSafe(sp + copied), 0u);  // and the walk with it

  // Each walk reads afresh: a word the thread wrote since is read as it is now.
  live[copied / 8 + 1] = 9;
  StackCopy next(regs, copy.data(), copied);
  next.attachTail(&tail);
  EXPECT_EQ(next.load_signalSafe(sp + copied + 8), 9u);
  // Farther than the tail's capacity: cut, as without a tail.
  LiveStackTail small(page);
  StackCopy capped(regs, copy.data(), copied);
  capped.attachTail(&small);
  EXPECT_EQ(capped.load_signalSafe(sp + copied + page - 8), 1000u + (copied + page - 8) / 8);
  EXPECT_EQ(capped.load_signalSafe(sp + copied + page), 0u);
  EXPECT_TRUE(capped.beyond());
  // Without a tail, as before: cut at the copy's end.
  StackCopy alone(regs, copy.data(), copied);
  EXPECT_EQ(alone.load_signalSafe(sp + copied), 0u);
  EXPECT_TRUE(alone.beyond());
  EXPECT_FALSE(alone.usedTail());
  munmap(live, pages * page);
}

TEST(CopyOptions, WalkCopyAndStackCopy) {
  ParseResult r = parseOptions("start,event=cpu,walk=copy,stackcopy=16k");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.walk, WalkMode::kCopy);
  EXPECT_EQ(r.options.stackCopyBytes, 16384u);
  EXPECT_STREQ(walkModeName(WalkMode::kCopy), "copy");
  EXPECT_EQ(parseOptions("walk=copy").options.stackCopyBytes, 8192u);
  EXPECT_EQ(parseOptions("walk=copy,stackcopy=1001").options.stackCopyBytes, 1008u);  // whole words
  for (const char* bad : {"walk=copy,stackcopy=100", "walk=copy,stackcopy=61k", "walk=copy,stackcopy=x",
                          "walk=copy,stackcopy=", "stackcopy=8k", "event=ctimer,walk=copy", "event=wall,walk=copy",
                          "walk=copy,jitter=10"}) {
    ParseResult p = parseOptions(bad);
    EXPECT_FALSE(p.ok) << bad;
    EXPECT_FALSE(p.error.empty()) << bad;
  }
  EXPECT_TRUE(parseOptions("event=cpu,wall,walk=copy").ok);
  EXPECT_NE(optionsHelp().find("stackcopy="), std::string::npos);
}

TEST(CopyOptions, PerCpuImpliesWalkCopy) {
  ParseResult r = parseOptions("start,event=cpu,interval=1ms,percpu");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.perCpu, PerCpu::kYes);
  EXPECT_EQ(r.options.walk, WalkMode::kCopy);
  EXPECT_EQ(r.options.stackCopyBytes, 32768u);  // past libjava's 8 KB buffers under a system call, and most VM frames
  EXPECT_EQ(parseOptions("percpu,walk=copy,stackcopy=16k").options.stackCopyBytes, 16384u);
  EXPECT_EQ(parseOptions("percpu=yes").options.perCpu, PerCpu::kYes);
  EXPECT_EQ(parseOptions("percpu=no").options.perCpu, PerCpu::kNo);
  // auto (the default) stays open only where nothing asks for a timer per thread
  EXPECT_EQ(parseOptions("start,interval=1ms").options.perCpu, PerCpu::kAuto);
  EXPECT_EQ(parseOptions("start,interval=1ms").options.walk, WalkMode::kVm);  // until the profiler resolves it
  EXPECT_EQ(parseOptions("event=cpu,wall,alloc").options.perCpu, PerCpu::kAuto);
  for (const char* perThread : {"walk=vm", "walk=agct", "jitter=5", "signal=SIGPROF", "allthreads", "event=ctimer",
                                "event=itimer", "event=wall", "percpu=auto,walk=copy"}) {
    EXPECT_EQ(parseOptions(perThread).options.perCpu, PerCpu::kNo) << perThread;
  }
  for (const char* bad : {"event=ctimer,percpu", "event=wall,percpu", "percpu,walk=vm", "percpu,jitter=5", "percpu=maybe"}) {
    ParseResult p = parseOptions(bad);
    EXPECT_FALSE(p.ok) << bad;
    EXPECT_FALSE(p.error.empty()) << bad;
  }
  EXPECT_NE(optionsHelp().find("percpu"), std::string::npos);
}

namespace {
struct CountingConsumer : RingConsumer {
  void consume(PerfRing& ring) override {
    forEachPerfRecord(ring.page, scratch.data(), [&](const perf_event_header& h, const uint8_t* rec) {
      PerfSample s;
      if (h.type != PERF_RECORD_SAMPLE || !parsePerfSample(rec, h.size, &s)) return;
      samples++;
      if (static_cast<int>(s.tid) != ring.tid || !s.hasRegs) wrongThread++;
      // The copy starts at the sampled sp, which is on this thread's stack, near `here`.
      if (s.stackSize > 0 && s.regs[kPerfRegSp] < here && here - s.regs[kPerfRegSp] < (1u << 20)) onOurStack++;
    });
  }
  void settle(int, const CoveredThread&, uint64_t, uint64_t) override {}
  void ended(PerfRing& ring, uint64_t countNs) override {
    endings++;
    endedCountNs += countNs;  // a ring enlarged on the way ends twice: each event counts its part
    endedFull = ring.filledUp;
  }
  std::vector<uint8_t> scratch = std::vector<uint8_t>(64 * 1024);
  uintptr_t here = 0;
  int samples = 0, wrongThread = 0, onOurStack = 0, endings = 0;
  uint64_t enlarged = 0;  // the engine's rings replaced by larger ones, each ending once more
  uint64_t endedCountNs = 0;
  bool endedFull = false;
};

uint64_t threadCpuNsNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// walk=copy at 200 us on this thread while `spin` runs on it (given the engine), then disarmed
// (its last samples read, its end told to the consumer). False, with why, where perf refuses.
bool sampleThisThread(CountingConsumer& consumer, ThreadTimer& timer, std::string* why,
                      const std::function<void(PerfRingEngine&)>& spin) {
  Options options;
  options.walk = WalkMode::kCopy;
  options.intervalNs = 200'000;
  PerfRingEngine engine;
  if (!engine.start(options, why)) return false;
  engine.setConsumer(&consumer);
  bool armed = engine.armThread(static_cast<int>(syscall(SYS_gettid)), &timer, why);
  if (armed) spin(engine);
  engine.disarmThread(&timer);
  consumer.enlarged = engine.ringsEnlarged();
  engine.setConsumer(nullptr);
  engine.stop();
  return armed;
}
}  // namespace

// The kernel side for real: a ring on this thread fills with samples of this thread's own stack.
TEST(PerfRingEngine, SamplesThisThreadWithoutASignal) {
  std::string why;
  if (!PerfRingEngine::available(8192, false, &why)) GTEST_SKIP() << why;
  CountingConsumer consumer;
  int marker = 0;
  consumer.here = reinterpret_cast<uintptr_t>(&marker);
  ThreadTimer timer;
  ASSERT_TRUE(sampleThisThread(consumer, timer, &why, [&](PerfRingEngine& engine) {
    // 60 ms of the thread's CPU, not of wall time: a CPU shared with another test must not cut it.
    auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    uint64_t cpuBefore = threadCpuNsNow();
    volatile uint64_t spin = 0;
    while (threadCpuNsNow() - cpuBefore < 60'000'000 && std::chrono::steady_clock::now() < giveUp) {
      for (int i = 0; i < 10000; i++) spin = spin + i;
      engine.consumeAll(consumer);
    }
  })) << why;
  EXPECT_GT(consumer.samples, 20) << "60 ms of CPU at 200 us";
  EXPECT_EQ(consumer.wrongThread, 0);
  EXPECT_GT(consumer.onOurStack, consumer.samples / 2);
  EXPECT_FALSE(timer.armed);
  // A loaded machine may delay the reads until the small ring is half full: it is then replaced
  // by a large one (its event ends too), once.
  EXPECT_LE(consumer.enlarged, 1u);
  EXPECT_EQ(consumer.endings, 1 + static_cast<int>(consumer.enlarged))
      << "the disarmed ring's event count reaches the consumer";
  EXPECT_GE(consumer.endedCountNs, 40'000'000u) << "the events counted this thread's 60 ms";
  EXPECT_FALSE(consumer.endedFull) << "read all along";
}

// A ring nobody reads fills up after a few samples; the kernel then loses the rest without a
// PERF_RECORD_LOST (it writes one only before a later sample): the ring's end says it was full,
// and the event's count holds the thread's CPU time, the ticks the ring never showed.
TEST(PerfRingEngine, ARingThatFilledUpSaysSoAtItsEnd) {
  std::string why;
  if (!PerfRingEngine::available(8192, false, &why)) GTEST_SKIP() << why;
  CountingConsumer consumer;
  ThreadTimer timer;
  uint64_t cpuBefore = threadCpuNsNow();
  ASSERT_TRUE(sampleThisThread(consumer, timer, &why, [&](PerfRingEngine&) {
    volatile uint64_t spin = 0;
    while (threadCpuNsNow() - cpuBefore < 30'000'000) {
      for (int i = 0; i < 10000; i++) spin = spin + i;
    }
  })) << why;
  uint64_t cpu = threadCpuNsNow() - cpuBefore;
  EXPECT_EQ(consumer.enlarged, 0u) << "nobody read it, so nobody enlarged it";
  EXPECT_EQ(consumer.endings, 1);
  EXPECT_TRUE(consumer.endedFull) << consumer.samples << " samples read at the end";
  EXPECT_LT(consumer.samples, 100) << "a small ring holds few of 30 ms at 200 us";
  EXPECT_GE(consumer.endedCountNs, 25'000'000u);
  // The cpu-clock event counts the time the thread is on a CPU by the CPU's clock, interrupts and
  // the hypervisor's steal included, which the thread's CPU clock leaves out (25 us over 30 ms
  // seen on a fresh clone): the count holds the thread's CPU time, not exactly it.
  EXPECT_LE(consumer.endedCountNs, cpu + cpu / 10);
}

namespace {
// percpu: counts the samples of one thread among every thread's.
struct ThreadConsumer : RingConsumer {
  void consume(PerfRing& ring) override {
    forEachPerfRecord(ring.page, scratch.data(), [&](const perf_event_header& h, const uint8_t* rec) {
      uint32_t next = 0, prev = 0;
      uint64_t at = 0;
      bool out = false, preempted = false;
      if (parsePerfSwitch(rec, h.size, &next, &at, &out) && out) {  // as the reader counts them
        parsePerfSwitchOut(rec, &prev, &preempted);
        CoveredThread* covered = engine->coveredLocked(static_cast<int>(prev));
        if (covered != nullptr) (preempted ? covered->preemptedSwitches : covered->blockedSwitches)++;
        if (covered != nullptr && !preempted) blocked++;
        return;
      }
      PerfSample s;
      if (h.type != PERF_RECORD_SAMPLE || !parsePerfSample(rec, h.size, &s, kPerfCpuSampleType)) return;
      if (static_cast<int>(s.tid) != tid) return;
      CoveredThread* covered = engine->coveredLocked(tid);  // consume runs with the engine's lock held
      if (covered == nullptr || s.timeNs < covered->armNs) {
        notCovered++;
        return;
      }
      if (covered->javaThread == 0x1234) withJavaThread++;
      ours++;
      covered->ticks++;  // as the reader counts them
      if (s.inKernel && s.callchainSize > 1) kernelWithChain++;
      if (s.hasRegs && s.stackSize > 0) withStack++;
    });
  }
  void ended(PerfRing&, uint64_t) override {}  // percpu: no ring ends with a thread
  void settle(int settledTid, const CoveredThread& thread, uint64_t cpuNs, uint64_t ticks) override {
    if (settledTid != tid) return;
    settledBlocked += thread.blockedSwitches;
    settled++;
    settledCpuNs += cpuNs;
    settledTicks += ticks;
  }
  std::vector<uint8_t> scratch = std::vector<uint8_t>(64 * 1024);
  PerfRingEngine* engine = nullptr;
  int tid = 0, ours = 0, kernelWithChain = 0, withStack = 0, notCovered = 0, withJavaThread = 0, settled = 0;
  uint64_t blocked = 0, settledBlocked = 0;  // the thread's switches out as it blocked
  uint64_t settledCpuNs = 0, settledTicks = 0;
};
}  // namespace

// percpu for real (root or perf_event_paranoid <= 0): the CPUs' rings hold this thread's samples,
// those taken in the kernel with its callchain, and arming is a set membership, not an event.
TEST(PerfRingEngine, PerCpuSamplesThisThreadAndTheKernel) {
  std::string why;
  if (!PerfRingEngine::available(8192, true, &why)) GTEST_SKIP() << why;
  Options options;
  options.walk = WalkMode::kCopy;
  options.perCpu = PerCpu::kYes;
  options.intervalNs = 200'000;
  PerfRingEngine engine;
  ASSERT_TRUE(engine.start(options, &why)) << why;
  EXPECT_EQ(engine.kernelTime(), KernelTime::kSampled);
  ThreadConsumer consumer;
  consumer.tid = static_cast<int>(syscall(SYS_gettid));
  consumer.engine = &engine;
  engine.setConsumer(&consumer);
  volatile uint64_t spin = 0;
  for (int i = 0; i < 3'000'000; i++) spin = spin + i;  // before arming: its samples are not ticks
  ThreadTimer timer;
  timer.javaThread = 0x1234;  // as the registry passes it on
  timer.cpuAtArmNs = threadCpuNs(consumer.tid);
  ASSERT_TRUE(engine.armThread(consumer.tid, &timer, &why)) << why;
  EXPECT_EQ(timer.fd, -1);
  // 80 ms of the thread's CPU, not of wall time: under ctest -j2 a CPU shared with another test
  // gave 39.9 ms in 80 ms of wall (a fresh clone's failure of the bound below).
  auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  char buf[4096] = {};
  int fd = open("/dev/null", O_WRONLY);
  uint64_t iterations = 0, slept = 0;
  while (threadCpuNs(consumer.tid) - timer.cpuAtArmNs < 80'000'000 && std::chrono::steady_clock::now() < giveUp) {
    for (int i = 0; i < 10000; i++) spin = spin + i;
    for (int i = 0; i < 50; i++) EXPECT_GT(write(fd, buf, sizeof buf), 0);  // kernel time
    if (iterations++ % 64 == 0) {  // blocks: a switch out, not preempted
      usleep(100);
      slept++;
    }
    engine.consumeAll(consumer, true);  // settles as the reader does once a second
  }
  close(fd);
  engine.disarmThread(&timer);  // reads the last samples
  engine.setConsumer(nullptr);
  engine.stop();
  EXPECT_GT(consumer.ours, 40) << "80 ms of CPU at 200 us";
  EXPECT_GT(consumer.withStack, consumer.ours / 2);
  EXPECT_GT(consumer.kernelWithChain, 0);
  EXPECT_GT(consumer.notCovered, 0) << "the samples taken before arming";
  EXPECT_EQ(consumer.withJavaThread, consumer.ours);
  EXPECT_FALSE(timer.armed);
  // Every settlement (each consumeAll here, and the disarm) hands over the thread's CPU and
  // samples since the previous one: together, its CPU while armed (80 ms and the last loop's
  // part) and every sample the consumer counted, each once.
  EXPECT_GT(consumer.settled, 1);
  // The switch records name the thread switched out and whether it blocked: each sleep blocked it,
  // but for one preempted between marking itself asleep and calling the scheduler (a busy CPU under
  // ctest -j2): it stays runnable, is switched out as preempted, and finds its 100 us over when it
  // comes back, so it never blocks (a fresh clone's 30 of 31 sleeps).
  EXPECT_GE(consumer.blocked + 1 + slept / 10, slept);
  EXPECT_EQ(consumer.settledBlocked, consumer.blocked) << "each settlement hands over the switches since the last";
  EXPECT_EQ(consumer.settledTicks, static_cast<uint64_t>(consumer.ours));
  EXPECT_GT(consumer.settledCpuNs, 40'000'000u);
  EXPECT_LT(consumer.settledCpuNs, 200'000'000u);
}
