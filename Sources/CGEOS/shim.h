#ifndef STROLL_CGEOS_SHIM_H
#define STROLL_CGEOS_SHIM_H
// Only the thread-safe re-entrant API: every call takes an explicit context.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#endif
