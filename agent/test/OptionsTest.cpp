#include "control/Options.h"

#include <gtest/gtest.h>

#include <csignal>

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
      {"interval", "option 'interval' needs a value (CPU time between samples of a thread: N[ns|us|ms|s] (default 10ms))"},
      {"event=bogus", "option 'event' needs one of cpu, ctimer, itimer (got 'bogus')"},
      {"start=1", "option 'start' takes no value (got '1')"},
      {"signal=SIGSEGV", "option 'signal' needs a signal the JVM does not use (SIGVTALRM, SIGURG, SIGUSR1, SIGPWR...) (got 'SIGSEGV')"},
      {"signal=nope", "option 'signal' needs a signal name such as SIGVTALRM or a number (got 'nope')"},
      {"jitter=200", "option 'jitter' needs a percentage from 0 to 90 (got '200')"},
      {"depth=0", "option 'depth' needs a number of frames from 1 to 65536 (got '0')"},
      {"ringsize=100", "option 'ringsize' needs a power of two from 16 to 1048576 (got '100')"},
      {"file=out.pdf", "option 'file' needs a path ending in .html, .collapsed, .txt, .jfr or .json (got 'out.pdf')"},
      {"file=", "option 'file' needs a path (got '')"},
      {"start,stop", "give at most one of start, stop, dump, status, help"},
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
