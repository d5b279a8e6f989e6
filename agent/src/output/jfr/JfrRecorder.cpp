#include "output/jfr/JfrRecorder.h"

#include "control/Log.h"

namespace candor {

JfrRecorder::JfrRecorder(const Options& options, std::string path, const TraceStore& store, MethodResolver& resolver,
                         ThreadRegistry& threads)
    : options_(options), path_(std::move(path)), store_(store), resolver_(resolver), threads_(threads) {}

JfrRecorder::~JfrRecorder() = default;

bool JfrRecorder::open(std::string* why) {
  *why = "JFR output is not implemented yet";
  return false;
}

void JfrRecorder::onDrained(const SampleSlot&, uint32_t) {}

void JfrRecorder::maybeFlush() {}

void JfrRecorder::flush(const ProfileReport&, bool) {}

}  // namespace candor
