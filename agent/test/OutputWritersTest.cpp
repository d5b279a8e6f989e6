#include <gtest/gtest.h>

#include <algorithm>

#include <sstream>

#include "output/CollapsedWriter.h"
#include "output/HtmlWriter.h"
#include "output/ProfileReport.h"
#include "output/StatsWriter.h"
#include "output/SummaryWriter.h"

using namespace candor;

namespace {
ProfileReport sampleReport() {
  ProfileReport r;
  r.title = "t<itle>";
  r.engine = "cpu";
  r.engineDescription = "perf";
  r.signal = "SIGVTALRM";
  r.signalNumber = 26;
  r.intervalNs = 1'000'000;
  r.ticks = 10;
  r.recorded = 7;
  r.dropped = 1;
  r.failures = {{"gc_active", 2}, {"deopt", 0}};
  r.profiledCpuNs = 10'000'000;
  r.threads = {{5, "main", "java", 10'000'000, 9, 7}};
  ProfileSnapshot& s = r.snapshot;
  uint32_t main = s.intern("a.Main.main", kKindJava);
  uint32_t hot = s.intern("a.Main.hot", kKindJava);
  uint32_t cold = s.intern("a.Main.cold;x", kKindJava);
  uint32_t sleep = s.intern("java.lang.Thread.sleep0", kKindNative);
  s.addStack({main, hot}, 4);
  s.addStack({main, cold}, 2);
  s.addStack({main, sleep}, 1);
  s.addStack({s.intern("[gc_active]", kKindFailure)}, 2);
  s.addStack({s.intern("[deopt]", kKindFailure)}, 0);
  s.addStack({s.intern("[dropped]", kKindFailure)}, 1);
  return r;
}
// A time kind of a run that mixes them (cpu+wall), with its ticks.
KindReport kind(const char* name, uint64_t ticks) {
  KindReport k;
  k.name = name;
  k.ticks = ticks;
  return k;
}
}  // namespace

TEST(CollapsedWriter, FoldsStacksRootFirstWithCounts) {
  ProfileReport r = sampleReport();
  uint32_t main = r.snapshot.intern("a.Main.main", kKindJava);
  uint32_t hot = r.snapshot.intern("a.Main.hot", kKindJava);
  r.snapshot.addStack({main, hot}, 3);  // same names again: merged into one line
  std::ostringstream out;
  writeCollapsed(r.snapshot, out);
  EXPECT_EQ(out.str(),
            "[dropped] 1\n"
            "[gc_active] 2\n"
            "a.Main.main;a.Main.cold:x 2\n"
            "a.Main.main;a.Main.hot 7\n"
            "a.Main.main;java.lang.Thread.sleep0 1\n");
}

TEST(CollapsedWriter, EmptyProfileWritesNothing) {
  std::ostringstream out;
  writeCollapsed(ProfileSnapshot(), out);
  EXPECT_EQ(out.str(), "");
}

TEST(ProfileSnapshot, SharesCallersAndWritesDeepStacksWithoutRecursion) {
  // 10,000 frames (a deep recursion) under main, sampled at two leaves: every writer walks it
  // iteratively (this test runs on a thread with an ordinary stack) and the callers are stored once.
  ProfileReport r;
  ProfileSnapshot& s = r.snapshot;
  uint32_t main = s.intern("a.Main.main", kKindJava);
  uint32_t rec = s.intern("a.Main.recurse", kKindJava);
  std::vector<uint32_t> deep{main};
  for (int i = 0; i < 10'000; i++) deep.push_back(rec);
  deep.push_back(s.intern("a.Main.leafA", kKindJava));
  s.addStack(deep, 3);
  deep.back() = s.intern("a.Main.leafB", kKindJava);
  s.addStack(deep, 2);
  EXPECT_EQ(s.nodes().size(), 1u + 1 + 10'000 + 2) << "root, main, the recursion once, two leaves";
  EXPECT_EQ(s.nodeTotals()[0], 5u);
  std::ostringstream collapsed;
  writeCollapsed(s, collapsed);
  std::string text = collapsed.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  EXPECT_NE(text.find(";a.Main.leafA 3\n"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), ';'), 2 * 10'001);
  std::string json = flameGraphJson(r);
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}'));
  EXPECT_NE(json.find("\"n\":\"a.Main.leafB\",\"v\":2,\"k\":\"j\"}"), std::string::npos);
}

TEST(CollapsedWriter, FramesThatPrintAlikeMergeIntoOneLine) {
  ProfileSnapshot s;
  uint32_t main = s.intern("a.Main.main", kKindJava);
  s.addStack({main, s.intern("x.Y.z", kKindJava)}, 1);
  s.addStack({main, s.intern("x.Y.z", kKindNative)}, 2);  // same name, another kind
  s.addStack({main, s.intern("x.Y;z", kKindJava)}, 4);    // ';' prints as ':'
  s.addStack({main, s.intern("x.Y:z", kKindJava)}, 8);
  std::ostringstream out;
  writeCollapsed(s, out);
  EXPECT_EQ(out.str(), "a.Main.main;x.Y.z 3\na.Main.main;x.Y:z 12\n");
}

TEST(HtmlWriter, EmbedsTreeAndEscapesNames) {
  ProfileReport r = sampleReport();
  std::string json = flameGraphJson(r);
  EXPECT_NE(json.find("\"root\":{\"n\":\"all\",\"v\":10,\"k\":\"r\""), std::string::npos) << json;
  EXPECT_NE(json.find("{\"n\":\"a.Main.hot\",\"v\":4,\"k\":\"j\"}"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"n\":\"[gc_active]\",\"v\":2,\"k\":\"f\"}"), std::string::npos) << json;
  EXPECT_NE(json.find("t\\u003citle\\u003e"), std::string::npos) << "no raw '<' may reach the page";
  std::ostringstream page;
  ASSERT_TRUE(writeHtml(r, page));
  EXPECT_EQ(page.str().find("/*CANDOR:DATA*/null"), std::string::npos);
  EXPECT_NE(page.str().find("a.Main.hot"), std::string::npos);
  EXPECT_NE(page.str().find("</html>"), std::string::npos);
}

TEST(SummaryWriter, ShowsRateTopMethodsAndFailures) {
  std::ostringstream out;
  writeSummary(sampleReport(), out);
  std::string s = out.str();
  EXPECT_NE(s.find("engine:    cpu (perf), signal SIGVTALRM (26)"), std::string::npos) << s;
  EXPECT_NE(s.find("1000.0 samples per CPU-second achieved, 1000.0 requested"), std::string::npos) << s;
  EXPECT_NE(s.find("ticks:     10 = recorded 7 (70.00%) + failed 2 (20.00%) + dropped 1 (10.00%)"), std::string::npos) << s;
  // a.Main.hot has the most self time; a.Main.main the most total time.
  size_t self = s.find("Top methods by self");
  EXPECT_NE(s.find("40.00%  40.00%         4  a.Main.hot", self), std::string::npos) << s;
  EXPECT_NE(s.find(" 0.00%  70.00%         7  a.Main.main"), std::string::npos) << s;
  EXPECT_NE(s.find("gc_active                        2   20.00%"), std::string::npos) << s;
  EXPECT_EQ(s.find("[gc_active]"), std::string::npos) << "pseudo-frames are not methods";
}

TEST(SummaryWriter, CountsARecursiveMethodOncePerStack) {
  ProfileReport r;
  r.ticks = 4;
  ProfileSnapshot& s = r.snapshot;
  uint32_t main = s.intern("a.Main.main", kKindJava), rec = s.intern("a.Main.rec", kKindJava);
  s.addStack({main, rec, rec, rec, s.intern("a.Main.leaf", kKindJava)}, 2);
  s.addStack({main, rec, s.intern("a.Main.other", kKindJava)}, 1);
  s.addStack({main, rec, rec}, 1);
  std::ostringstream out;
  writeSummary(r, out);
  std::string text = out.str();
  size_t total = text.find("Top methods by total");
  EXPECT_NE(text.find("25.00% 100.00%         4  a.Main.rec", total), std::string::npos) << text;
  EXPECT_NE(text.find(" 0.00% 100.00%         4  a.Main.main", total), std::string::npos) << text;
  EXPECT_NE(text.find("50.00%  50.00%         2  a.Main.leaf", total), std::string::npos) << text;
}

TEST(SummaryWriter, ARunOfCpuAndWallRanksEachKindByItsOwnTicks) {
  // 10 cpu ticks, all in work; 90 wall ticks, mostly parked: one table of both would put the wait first.
  ProfileReport r;
  r.ticks = 100;
  r.kinds = {kind("cpu", 10), kind("wall", 90)};
  ProfileSnapshot& s = r.snapshot;
  uint32_t work = s.intern("a.Main.work", kKindJava), park = s.intern("a.Pool.park", kKindJava);
  s.addStack({s.intern("[cpu]", kKindThread), work}, 10);
  s.addStack({s.intern("[wall]", kKindThread), work}, 9);
  s.addStack({s.intern("[wall]", kKindThread), park}, 81);
  std::ostringstream out;
  writeSummary(r, out);
  std::string text = out.str();
  size_t cpuSelf = text.find("Top methods by self time, cpu (percent of cpu ticks):");
  size_t wallSelf = text.find("Top methods by self time, wall (percent of wall ticks):");
  ASSERT_NE(cpuSelf, std::string::npos) << text;
  ASSERT_NE(wallSelf, std::string::npos) << text;
  EXPECT_NE(text.find("100.00% 100.00%        10  a.Main.work", cpuSelf), std::string::npos) << text;
  EXPECT_EQ(text.find("a.Pool.park", cpuSelf), text.find("a.Pool.park", wallSelf)) << "no wait among the cpu rows";
  EXPECT_NE(text.find("90.00%  90.00%        81  a.Pool.park", wallSelf), std::string::npos) << text;
  EXPECT_EQ(text.find("(percent of all ticks)"), std::string::npos) << text;
}

TEST(StatsWriter, SamplesPerCpuSecondCountTheCpuEnginesTicksOnly) {
  // cpu+wall: 1,000 cpu ticks for 1 s of CPU and 50 wall ticks; the wall ticks are no CPU samples.
  ProfileReport r;
  r.ticks = 1050;
  r.profiledCpuNs = 1'000'000'000;
  r.processCpuNs = 2'000'000'000;
  r.kinds = {kind("cpu", 1000), kind("wall", 50)};
  std::ostringstream out;
  writeStats(r, out);
  EXPECT_NE(out.str().find("\"samples_per_cpu_second\": 1000.000"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\"samples_per_process_cpu_second\": 500.000"), std::string::npos) << out.str();
}

TEST(StatsWriter, AProcessWideTimersRateIsPerCpuSecondOfTheWholeProcess) {
  // itimer: 2,000 ticks for 2 s of process CPU, 1.5 s of it in the Java threads; the rest (JIT,
  // GC) got its own ticks, and no CPU went unsampled.
  ProfileReport r;
  r.timers = "process";
  r.intervalNs = 1'000'000;
  r.ticks = 2000;
  r.profiledCpuNs = 1'500'000'000;
  r.processCpuNs = 2'000'000'000;
  std::ostringstream stats, summary;
  writeStats(r, stats);
  EXPECT_NE(stats.str().find("\"samples_per_cpu_second\": 1000.000"), std::string::npos) << stats.str();
  EXPECT_NE(stats.str().find("\"unsampled_threads_cpu_ns\": 0"), std::string::npos) << stats.str();
  writeSummary(r, summary);
  EXPECT_NE(summary.str().find("interval:  1.000 ms of CPU time of the whole process"), std::string::npos) << summary.str();
  EXPECT_NE(summary.str().find("not sampled: none: the process-wide timer counts every thread's CPU"), std::string::npos)
      << summary.str();
  r.timers = "per-thread";
  EXPECT_EQ(500'000'000u, r.unsampledThreadsCpuNs());
  EXPECT_NEAR(2000.0 / 1.5, r.samplesPerCpuSecond(), 1e-6);
}

TEST(StatsWriter, WritesCountersAsJson) {
  std::ostringstream out;
  writeStats(sampleReport(), out);
  std::string s = out.str();
  for (const char* needle : {"\"engine\": \"cpu\"", "\"signal\": \"SIGVTALRM\"", "\"interval_ns\": 1000000",
                             "\"ticks\": 10", "\"recorded\": 7", "\"dropped\": 1",
                             "\"failures\": {\"gc_active\": 2, \"deopt\": 0}", "\"threads\": 1",
                             "\"samples_per_cpu_second\": 1000.000", "\"thread_kinds\": {\"java\": 9}",
                             "{\"tid\": 5, \"name\": \"main\", \"kind\": \"java\", \"cpu_ns\": 10000000, \"ticks\": 9"}) {
    EXPECT_NE(s.find(needle), std::string::npos) << needle << "\n" << s;
  }
}
