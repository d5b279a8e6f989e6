// `stats=FILE.json`: the session's counters for machines (tests, bench, CI dashboards).
#pragma once
#include <ostream>

#include "output/ProfileReport.h"

namespace candor {

void writeStats(const ProfileReport& report, std::ostream& out);

}  // namespace candor
