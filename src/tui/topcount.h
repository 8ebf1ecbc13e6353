/* topcount.h - what topdata.c calls of topcount.c: the counters' sample and release */
#ifndef VP_TOPCOUNT_H
#define VP_TOPCOUNT_H

#include "tui/topdata.h"

/* Fill the counted factor cells of the rows just built (no-op when counting is off). */
void top_count_sample(struct top_state *s);
/* Close the collector and free the per-row reasons. */
void top_count_release(struct top_state *s);
/* Free the per-row reasons of the last sample (before its rows are rebuilt). */
void top_count_rows_release(struct top_counting *c);

#endif
