// Streams a session to a JFR recording (file=x.jfr): one jdk.ExecutionSample per recorded tick,
// candor's own events for failed ticks, settings and final counters; chunks are flushed as the
// recording grows so memory stays bounded and the file is readable while the JVM runs.
// Writer thread only (called under the profiler's store lock), never the signal handler.
#pragma once
#include <string>
#include <vector>

#include "control/Options.h"
#include "engine/ThreadRegistry.h"
#include "jvm/MethodResolver.h"
#include "output/ProfileReport.h"
#include "store/SampleAccounting.h"
#include "store/TraceStore.h"

namespace candor {

class JfrRecorder : public DrainListener {
 public:
  JfrRecorder(const Options& options, std::string path, const TraceStore& store, MethodResolver& resolver,
              ThreadRegistry& threads);
  ~JfrRecorder() override;

  // At start: creates the file; false with a one-line reason.
  bool open(std::string* why);
  void onDrained(const SampleSlot& slot, uint32_t traceId) override;
  // After every drain step: writes a chunk when the current one is big or old enough, and
  // rotates to a new file when loop= says so.
  void maybeFlush();
  // dump (final=false: flush what is buffered, keep recording) or stop (final=true: write the
  // settings and counters events and close the file).
  void flush(const ProfileReport& report, bool final);

  const std::string& path() const { return path_; }

 private:
  Options options_;
  std::string path_;
  const TraceStore& store_;
  MethodResolver& resolver_;
  ThreadRegistry& threads_;
};

}  // namespace candor
