/* generic.h - perf's generic event names: hardware, software and hardware-cache */
#ifndef VP_GENERIC_H
#define VP_GENERIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct generic_event {
	const char *name;      /* perf's name: "cycles" */
	const char *alias;     /* a second name perf accepts ("cpu-cycles"), or NULL */
	uint32_t type;         /* PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE */
	uint64_t config;       /* PERF_COUNT_HW_*, PERF_COUNT_SW_* */
	const char *desc;
};

/* The hardware and software names, in perf's order; a static table. */
const struct generic_event *generic_events(size_t *n);

/*
 * Look name (len bytes, case-insensitive) up among the hardware and software
 * names, then as a hardware-cache name ("L1-dcache-load-misses", "LLC-loads",
 * "dTLB-load-misses": cache-op[-result] or cache-result, perf's spellings).
 * Returns true and fills *type / *config.
 */
bool generic_lookup(const char *name, size_t len, uint32_t *type, uint64_t *config);

/*
 * The i-th hardware-cache name perf lists (for `vmmprof list`): writes it to
 * buf and returns true, or false past the end.
 */
bool generic_cache_name(size_t i, char *buf, size_t size, uint64_t *config);

#endif
