// The human-readable `.txt` summary: what ran, how fast it sampled, where the time went, and
// what could not be seen.
#pragma once
#include <ostream>

#include "output/ProfileReport.h"

namespace candor {

void writeSummary(const ProfileReport& report, std::ostream& out, size_t topN = 20);

}  // namespace candor
