#include "concurrent/ThreadLabels.h"

namespace candor {

ThreadLabels ThreadLabels::process_;

}  // namespace candor
