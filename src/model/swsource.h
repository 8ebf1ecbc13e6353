/* swsource.h - the names of software (non-perf) sources a model can read, and their providers */
#ifndef VP_SWSOURCE_H
#define VP_SWSOURCE_H

#include <stdbool.h>

#include "util/err.h"

/*
 * A model reads values that are not perf events through
 *   source NAME = provider.counter
 * (docs/models.md lists them).  The names are fixed here so that models
 * and the modules that produce the values (src/source/, src/hv/) agree on
 * them.  A name whose provider is not built yet resolves to VP_EUNSUPP
 * with the reason "no provider for source 'x' in this build yet"; a name
 * not in the table is an error: "unknown source 'x'".
 */

struct swsource_def {
	const char *name;     /* "numastat.other_node" */
	const char *unit;     /* "pages", "ns", "bytes", "ratio", "events" */
	const char *desc;
	bool cumulative;      /* a counter: a model sees its delta over the interval */
	/*
	 * Machine-wide value through root (cumulative counters as read), or
	 * NULL while no provider exists.  Per-entity values (a VM's
	 * placement, a vCPU's schedstat) come from the attribution stage.
	 */
	int (*read)(const char *root, const char *name, double *val, struct vp_err *err);
	/*
	 * When read is NULL but the collector provides it per entity: how to
	 * get it (the reason everything else gives), NULL otherwise.
	 */
	const char *entity;
};

/* The entry for name, or NULL. */
const struct swsource_def *swsource_find(const char *name);
/* Every entry, ending with an entry whose name is NULL. */
const struct swsource_def *swsource_table(void);
/*
 * 0 when name can be read in this build; VP_EUNSUPP (no provider yet) or
 * VP_ENOTFOUND (unknown source) with the message in err.
 */
int swsource_check(const char *name, struct vp_err *err);
/* Read the machine-wide value of a source (see read above). */
int swsource_read(const char *root, const char *name, double *val, struct vp_err *err);

#endif
