/* verify_count.h - the chosen model counted on this process around verify's factor scenarios */
#ifndef VP_VERIFY_COUNT_H
#define VP_VERIFY_COUNT_H

#include "bench/provoke.h"
#include "cli/pipeline.h"

/*
 * The model of a chosen pipeline (verify's: -m or the one for this
 * machine) counted on this process (native mode): each stop() reads the
 * process row, a thread's row and a node row of the frame since start().
 */
struct verify_count {
	struct collector *col;     /* made at the first start(), freed at end(): else NULL */
	const struct pipeline *pl;
	const struct platform *plat;
	char failed[700];          /* why the collector could not be made ("" not tried or made) */
	const struct model *model;
	int self;                  /* the pid counted: the collector keeps a pointer to it */
	char why[640];
	struct provoke_counter hook;
};

/*
 * 0 with vc->hook ready, or -1 with vc->why saying why not (no model);
 * verify_count_close() either way.  pl and plat must outlive vc.
 */
int verify_count_open(struct verify_count *vc, const struct pipeline *pl,
		      const struct platform *plat);
void verify_count_close(struct verify_count *vc);

#endif
