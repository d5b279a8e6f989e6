#include "control/OptionParser.h"
#include "base/Version.h"

#include <gtest/gtest.h>

#include <csignal>
#include <regex>

using namespace candor;

TEST(Options, Defaults) {
  ParseResult r = parseOptions("");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.options.command, Command::kNone);
  EXPECT_EQ(r.options.engine, EngineKind::kCpu);
  EXPECT_EQ(r.options.intervalNs, 10'000'000);
  EXPECT_EQ(r.options.signal, 0);
  EXPECT_EQ(parseOptions(nullptr).ok, true);
}

TEST(Options, FullString) {
  ParseResult r = parseOptions("start,event=ctimer,interval=500us,file=a.html,file=b.collapsed,stats=s.json,"
                               "signal=SIGURG,jitter=10,allthreads,threads,lines,depth=64,ringsize=256,title=x y");
  ASSERT_TRUE(r.ok) << r.error;
  const Options& o = r.options;
  EXPECT_EQ(o.command, Command::kStart);
  EXPECT_EQ(o.engine, EngineKind::kCtimer);
  EXPECT_EQ(o.intervalNs, 500'000);
  ASSERT_EQ(o.files.size(), 2u);
  EXPECT_EQ(o.files[1], "b.collapsed");
  EXPECT_EQ(o.statsFile, "s.json");
  EXPECT_EQ(o.signal, SIGURG);
  EXPECT_EQ(o.jitterPct, 10);
  EXPECT_TRUE(o.allThreads && o.threads && o.lines);
  EXPECT_EQ(o.depth, 64u);
  EXPECT_EQ(o.ringSize, 256u);
  EXPECT_EQ(o.title, "x y");
}

TEST(Options, EventLists) {
  ParseResult r = parseOptions("start,event=cpu,wall,interval=1ms,wallinterval=5ms,wallthreads=4");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.options.cpuEngine);
  EXPECT_EQ(r.options.engine, EngineKind::kCpu);
  EXPECT_EQ(r.options.sampler, SamplerMode::kWall);
  EXPECT_EQ(r.options.intervalNs, 1'000'000);
  EXPECT_EQ(r.options.samplerIntervalNs, 5'000'000);
  EXPECT_EQ(r.options.wallThreads, 4u);
  EXPECT_EQ(eventsName(r.options), "cpu+wall");
  EXPECT_EQ(eventsName(parseOptions("event=ctimer+handshake").options), "ctimer+handshake");

  r = parseOptions("event=wall");  // wall alone: its own default period
  ASSERT_TRUE(r.ok);
  EXPECT_FALSE(r.options.cpuEngine);
  EXPECT_EQ(r.options.samplerIntervalNs, 20'000'000);
  r = parseOptions("event=wall,interval=1ms");  // interval= is the sampler's when it is alone
  EXPECT_EQ(r.options.samplerIntervalNs, 1'000'000);
  r = parseOptions("event=safepoint");
  EXPECT_EQ(r.options.samplerIntervalNs, 10'000'000);
}

TEST(Options, ThreadFiltersAndSplit) {
  ParseResult r = parseOptions("threads=^worker-[0-9]+$,tid=12:34,split=thread+state");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.threadFilter, "^worker-[0-9]+$");
  EXPECT_EQ(r.options.tidFilter, (std::vector<int>{12, 34}));
  EXPECT_TRUE(r.options.threads);
  EXPECT_TRUE(r.options.states);
  r = parseOptions("threads");  // the bare flag still means split by thread
  EXPECT_TRUE(r.options.threads);
  EXPECT_TRUE(r.options.threadFilter.empty());
  r = parseOptions("event=alloc,split=class");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.options.splitClass);
  EXPECT_FALSE(r.options.threads);
  r = parseOptions("lock=0");  // every contended wait
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.options.lock);
  EXPECT_EQ(r.options.lockThresholdNs, 0);
  r = parseOptions("push=http://p:4040,pushlabels=region=eu+env=prod");
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ((std::vector<std::pair<std::string, std::string>>{{"env", "prod"}, {"region", "eu"}}), r.options.pushLabels);
  for (const char* bad : {"pushlabels=env", "pushlabels=env=", "pushlabels=1x=a", "pushlabels=env=a{b}", "pushlabels=a=b+"}) {
    EXPECT_FALSE(parseOptions(bad).ok) << bad;
  }
  r = parseOptions("split=thread+label:endpoint");
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.options.threads);
  EXPECT_EQ("endpoint", r.options.splitLabel);
  r = parseOptions("event=lock,split=thread+class");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.options.splitClass && r.options.threads);
}

TEST(Options, Durations) {
  int64_t ns;
  EXPECT_TRUE(parseDuration("1ms", &ns));
  EXPECT_EQ(ns, 1'000'000);
  EXPECT_TRUE(parseDuration("100us", &ns));
  EXPECT_EQ(ns, 100'000);
  EXPECT_TRUE(parseDuration("2s", &ns));
  EXPECT_EQ(ns, 2'000'000'000);
  EXPECT_TRUE(parseDuration("12345", &ns));
  EXPECT_EQ(ns, 12345);
  EXPECT_TRUE(parseDuration("50ns", &ns));
  for (const char* bad : {"", "ms", "1.5ms", "-1ms", "1 ms", "1min", "0", "0ms", "99999999999999999999", "2h"}) {
    EXPECT_FALSE(parseDuration(bad, &ns)) << bad;
  }
}

TEST(Options, UnknownOptionSuggestsClosest) {
  ParseResult r = parseOptions("start,intervl=1ms");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error, "unknown option 'intervl' (did you mean 'interval'?)");
  r = parseOptions("evnt=cpu");
  EXPECT_EQ(r.error, "unknown option 'evnt' (did you mean 'event'?)");
  r = parseOptions("zzzzzzzz");
  EXPECT_EQ(r.error, "unknown option 'zzzzzzzz' (use 'help' to list the options)");
}

TEST(Options, BadValuesGetOneClearLine) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"interval=abc", "option 'interval' needs a duration such as 1ms, 500us or 10000000 (ns) (got 'abc')"},
      {"interval=1us", "option 'interval' needs a duration of at least 10us (got '1us')"},
      {"interval", "option 'interval' needs a value (CPU time between samples of a thread: N[ns|us|ms|s] (default 10ms; wall alone: 20ms; per-CPU timers run 0.3% under it on average, each CPU within 0.2% of that))"},
      {"event=bogus", "option 'event' needs one of cpu, ctimer, itimer, wall, safepoint, handshake, alloc, lock (got 'bogus')"},
      {"event=cpu,itimer", "event 'itimer' conflicts with another event of its kind; combine one of cpu/ctimer/itimer with one of wall/safepoint/handshake"},
      {"event=wall,safepoint", "event 'safepoint' conflicts with another event of its kind; combine one of cpu/ctimer/itimer with one of wall/safepoint/handshake"},
      {"event=cpu,event=wall", "give event= once; list several events as event=cpu,wall"},
      {"wall", "unknown option 'wall' (use 'help' to list the options)"},
      {"split=foo", "option 'split' needs thread, state, class, label:KEY, or several joined by '+' "
                    "(thread+label:endpoint) (got 'foo')"},
      {"split=label:", "option 'split' needs thread, state, class, label:KEY, or several joined by '+' "
                       "(thread+label:endpoint) (got 'label:')"},
      {"tid=12:x", "option 'tid' needs thread ids separated by ':', e.g. 1234:1240 (got '12:x')"},
      {"threads=(", "option 'threads' needs a valid regular expression (got '(')"},
      {"wallthreads=0", "option 'wallthreads' needs a number of threads from 1 to 4096 (got '0')"},
      {"event=wall,interval=50us", "option 'interval' needs at least 100us for event=wall (got 50000ns)"},
      {"event=cpu,wall,wallsignal=SIGVTALRM", "options 'signal' and 'wallsignal' must differ"},
      {"start=1", "option 'start' takes no value (got '1')"},
      {"signal=SIGSEGV", "option 'signal' needs a signal the JVM does not use (SIGVTALRM, SIGURG, SIGUSR1, SIGPWR...) (got 'SIGSEGV')"},
      {"signal=nope", "option 'signal' needs a signal name such as SIGVTALRM or a number (got 'nope')"},
      {"jitter=200", "option 'jitter' needs a percentage from 0 to 90 (got '200')"},
      {"depth=0", "option 'depth' needs a number of frames from 1 to 262144, or unlimited (got '0')"},
      {"ringsize=100", "option 'ringsize' needs a power of two from 16 to 1048576 (got '100')"},
      {"file=out.pdf", "option 'file' needs a path ending in .html, .collapsed, .txt, .jfr, .otlp or .json (got 'out.pdf')"},
      {"file=", "option 'file' needs a path (got '')"},
      {"start,stop", "give at most one of start, stop, dump, status, help, version"},
      {"event=itimer,signal=SIGURG", "option 'signal' cannot be used with event=itimer (setitimer always sends SIGPROF)"},
  };
  for (const auto& c : cases) {
    ParseResult r = parseOptions(c.text);
    EXPECT_FALSE(r.ok) << c.text;
    EXPECT_EQ(r.error, c.error) << c.text;
    EXPECT_EQ(r.error.find('\n'), std::string::npos);
  }
}

TEST(Options, SignalNamesAndNumbers) {
  EXPECT_EQ(parseSignal("SIGVTALRM"), SIGVTALRM);
  EXPECT_EQ(parseSignal("vtalrm"), SIGVTALRM);
  EXPECT_EQ(parseSignal("27"), 27);
  EXPECT_EQ(parseSignal("SIGFOO"), 0);
  EXPECT_STREQ(signalName(SIGVTALRM), "SIGVTALRM");
}

TEST(Options, OutputFormatByExtension) {
  EXPECT_EQ(outputFormatOf("a/b.html"), OutputFormat::kHtml);
  EXPECT_EQ(outputFormatOf("x.collapsed"), OutputFormat::kCollapsed);
  EXPECT_EQ(outputFormatOf("x.txt"), OutputFormat::kSummary);
  EXPECT_EQ(outputFormatOf("x.json"), OutputFormat::kStats);
  EXPECT_EQ(outputFormatOf("x.otlp"), OutputFormat::kOtlp);
  EXPECT_EQ(outputFormatOf(".html"), OutputFormat::kUnknown);
  EXPECT_EQ(outputFormatOf("html"), OutputFormat::kUnknown);
}

TEST(Options, HelpListsEveryOption) {
  std::string help = optionsHelp();
  for (const char* name : {"start", "stop", "dump", "status", "event=", "interval=", "file=", "stats=", "signal=",
                           "jitter=", "allthreads", "threads", "lines", "depth=", "ringsize=", "title=", "quiet"}) {
    EXPECT_NE(help.find(name), std::string::npos) << name;
  }
}

TEST(Options, VersionIsACommandWithTheBuildsVersionLine) {
  ParseResult r = parseOptions("version");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.command, Command::kVersion);
  EXPECT_FALSE(parseOptions("version,start").ok);  // one command at a time
  // the line `candor --version` prints too: "candor <pom version> (commit <12 hex or unknown>)"
  EXPECT_TRUE(std::regex_match(versionLine(), std::regex(R"(candor \S+ \(commit ([0-9a-f]{12}|unknown)\))")))
      << versionLine();
}

TEST(Options, AllocAloneOrBesideOtherEvents) {
  ParseResult alone = parseOptions("event=alloc");
  ASSERT_TRUE(alone.ok) << alone.error;
  EXPECT_TRUE(alone.options.alloc);
  EXPECT_FALSE(alone.options.cpuEngine);
  EXPECT_EQ(alone.options.allocIntervalBytes, 512 * 1024);
  EXPECT_EQ(eventsName(alone.options), "alloc");

  ParseResult both = parseOptions("event=cpu,alloc,interval=1ms");
  ASSERT_TRUE(both.ok) << both.error;
  EXPECT_TRUE(both.options.alloc && both.options.cpuEngine);
  EXPECT_EQ(eventsName(both.options), "cpu+alloc");

  ParseResult sized = parseOptions("alloc=2m");
  ASSERT_TRUE(sized.ok) << sized.error;
  EXPECT_TRUE(sized.options.alloc && sized.options.cpuEngine);  // the default cpu event, plus allocations
  EXPECT_EQ(sized.options.allocIntervalBytes, 2 * 1024 * 1024);
  EXPECT_EQ(parseOptions("alloc=1000").options.allocIntervalBytes, 1000);
  EXPECT_EQ(parseOptions("alloc=0").options.allocIntervalBytes, 0);
  EXPECT_EQ(parseOptions("alloc=lots").error,
            "option 'alloc' needs a size in bytes, k, m or g up to 2g, e.g. 512k (0: every allocation) (got 'lots')");
  EXPECT_FALSE(parseOptions("alloc=3g").ok);

  EXPECT_EQ(sideOutputPath("out/x.html", "alloc"), "out/x-alloc.html");
  EXPECT_EQ(sideOutputPath("a.b/x", "lock"), "a.b/x-lock");
}
