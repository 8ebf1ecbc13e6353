/* topcount.h - what topdata.c calls of topcount.c: the counters' sample and release */
#ifndef VP_TOPCOUNT_H
#define VP_TOPCOUNT_H

#include "top/topdata.h"

/* Fill the counted factor cells of the rows just built (no-op when counting is off). */
void top_count_sample(struct top_state *s);
/* Close the collector and free the per-row reasons. */
void top_count_release(struct top_state *s);
/*
 * Each factor's state, reason and the status line: from s->cnt.m's
 * bindings and av (what exists here) when counting is on, else the
 * software figures and why counting is off.  top_count_start() and
 * top_count_off() call it; tests call it to stand in for a collector.
 */
void top_count_describe(struct top_state *s, const struct model_avail *av);
/* Free the per-row reasons of the last sample (before its rows are rebuilt). */
void top_count_rows_release(struct top_counting *c);

#endif
