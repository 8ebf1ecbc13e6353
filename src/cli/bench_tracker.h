/* bench_tracker.h - the shared trackers' full share counted beside bench queue's cores scenario (bench, verify) */
#ifndef VP_BENCH_TRACKER_H
#define VP_BENCH_TRACKER_H

#include <stdbool.h>

#include "cli/pipeline.h"

/*
 * The model chosen for this machine, counted on this process (native
 * mode), its node row of the first CPU's node read after each point (the
 * metric queue_full_frac: docs/models.md "The queue factor").
 */
struct bench_tracker {
	struct pipeline p;
	struct platform plat;
	bool have_plat;
	int metric, node;
	int self;                  /* the pid counted: the collector keeps a pointer to it */
	bool failed;               /* the collector could not be made (why says why) */
	char why[640];
};

/*
 * 0 with tc ready to count (a model that counts the share; its collector is
 * made at the first bench_tracker_start()), or -1 with tc->why saying why
 * not; bench_tracker_close() either way.
 */
int bench_tracker_open(struct bench_tracker *tc, int node);
void bench_tracker_close(struct bench_tracker *tc);
/* The bench_tracker_hook functions (ctx: the bench_tracker). */
int bench_tracker_start(void *ctx, const char **why);
double bench_tracker_stop(void *ctx, const char **why);

#endif
