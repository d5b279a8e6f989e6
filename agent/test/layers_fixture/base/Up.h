#include "control/Profiler.h"  // points up: the check must fail on this fixture
