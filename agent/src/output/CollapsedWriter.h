// Folded stacks for FlameGraph and speedscope: `root;child;leaf count`, one line per stack.
#pragma once
#include <ostream>

#include "output/ProfileReport.h"

namespace candor {

void writeCollapsed(const ProfileSnapshot& snapshot, std::ostream& out);

}  // namespace candor
