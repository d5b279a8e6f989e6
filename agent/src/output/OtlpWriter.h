// The OTLP output (file=x.otlp, push=otlp+http://): one ExportProfilesServiceRequest of
// opentelemetry-proto's profiles/v1development, binary protobuf as an OTLP exporter sends it,
// encoded by hand (ProtoWriter) with the mapping of the Java tools' OtlpWriter (candor report
// --format otlp), so both say the same about a profile:
//   one resource (service.name: service=, else OTEL_SERVICE_NAME, else unknown_service:java), one
//   scope (candor, its version), a profile per unit: the report's main one and each value profile
//   beside it (samples/count for cpu and wall time, alloc_space/bytes, lock_time/nanoseconds),
//   with candor.events, its interval's start and duration;
//   a function per frame name, a location per function and line with profile.frame.type (jvm,
//   native, kernel) or candor.frame.kind (pseudo, class);
//   samples by stack and thread (thread.name, candor.tid), one aggregated value each (the agent
//   keeps counts, not times); failures and drops keep their pseudo-frame with candor.failure, a
//   stack cut at the depth limit keeps [truncated] with candor.truncated, so totals equal the
//   other outputs'.
// Writer thread only (it allocates); never the signal handler.
#pragma once
#include <ostream>
#include <string>

#include "output/ProfileReport.h"

namespace candor {

std::string encodeOtlp(const ProfileReport& report);
void writeOtlp(const ProfileReport& report, std::ostream& out);

}  // namespace candor
