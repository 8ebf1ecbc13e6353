/* timeutil.h - one monotonic clock for every timestamp */
#ifndef VP_TIMEUTIL_H
#define VP_TIMEUTIL_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t vp_now_ns(void);
/* CLOCK_REALTIME in nanoseconds (for recordings' wall-clock stamps). */
uint64_t vp_wall_ns(void);

#endif
