/* frame_text.h - frames as the timeline table of `vmmprof report` (and the remote stat), and frames read back from the frame JSON */
#ifndef VP_FRAME_TEXT_H
#define VP_FRAME_TEXT_H

#include <stdint.h>

#include "collect/collect.h"
#include "model/model.h"
#include "util/err.h"
#include "util/jsonread.h"
#include "util/sbuf.h"
#include "util/table.h"

/*
 * The timeline table: t(s), entity ("web", "web/vCPU 1"), node, cycles,
 * and a column per factor (cost in % of cycles, or the score as "sN" where
 * the model gives no cost; n/a for a factor the model cannot see).
 * frame_text_table() initialises t (table_release() it); frame_text_rows()
 * adds one frame's rows, t_s being the time its t(s) column shows.
 */
void frame_text_table(struct table *t);
void frame_text_rows(struct table *t, const struct collect_frame *fr, double t_s,
		     const struct model *m);

/*
 * The summary of many frames: per entity (a VM's incarnation, a vCPU, a
 * node), the intervals it was in, first and last t(s), and the mean per
 * interval of its cycles and of each factor's cost (or score where no
 * cost), over the intervals that have one.  Memory grows with the
 * entities, not the frames.  frame_summary_table() initialises t.
 */
struct frame_summary;
struct frame_summary *frame_summary_new(void);
void frame_summary_add(struct frame_summary *s, const struct model *m, const struct collect_frame *fr,
		       double t_s);
void frame_summary_table(const struct frame_summary *s, const struct model *m, struct table *t);
void frame_summary_free(struct frame_summary *s);

/*
 * Read one frame of the daemon's JSON (vmmprof-frame/1, docs/api.md) back
 * into *f (collect_frame_release() it): rows with their kind, names, vCPU
 * placement, cycles and factors; t_ns from "time".  Model inputs and
 * metrics are not read (NULL).  unavailable[k] is set when every row says
 * factor k is unavailable (the model cannot see it here).  Returns 0 or
 * VP_EFORMAT with err saying what is missing.
 */
int frame_from_json(const struct jv *v, struct collect_frame *f, bool unavailable[FACTOR_N],
		    struct vp_err *err);

#endif
