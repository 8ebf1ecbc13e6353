/* cpulist.h - sets of CPU (or node) numbers and the kernel's list syntax */
#ifndef VP_CPULIST_H
#define VP_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/sbuf.h"

#define CPULIST_MAX 65536 /* highest CPU number accepted + 1 */

/* A sorted set of distinct non-negative numbers.  Owned by the caller. */
struct cpulist {
	int *ids;   /* ascending */
	size_t n;
	size_t cap;
};

void cpulist_init(struct cpulist *cl);
void cpulist_release(struct cpulist *cl);
/* Add id (kept sorted and unique). */
void cpulist_add(struct cpulist *cl, int id);
bool cpulist_has(const struct cpulist *cl, int id);
void cpulist_copy(struct cpulist *dst, const struct cpulist *src);

/*
 * Parse "0-3,8,10-11" (the kernel's cpulist format; white space around the
 * list is ignored, an empty string is an empty set).  Errors name the
 * offending text and its column.
 */
int cpulist_parse(struct cpulist *cl, const char *s, struct vp_err *err);

/* Parse a hex mask as in /proc/PID/status Cpus_allowed ("ff,ffffffff"). */
int cpulist_parse_mask(struct cpulist *cl, const char *s, struct vp_err *err);

/* Append the compact list form ("0-3,8") to out; "" for an empty set. */
void cpulist_format(const struct cpulist *cl, struct sbuf *out);

#endif
