#include "base/Up.h"
