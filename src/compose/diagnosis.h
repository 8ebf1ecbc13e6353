/* diagnosis.h - a frame's diagnosis rendered whole: diagnose's output, live or of a recording */
#ifndef VP_COMPOSE_DIAGNOSIS_H
#define VP_COMPOSE_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>

#include "compose/diag_render.h"
#include "util/err.h"
#include "util/sbuf.h"

struct recording;
struct cost_ci_set;

/*
 * Diagnose base->fr (on topo, with cal or NULL) and append it to out: JSON,
 * or text under head.  0, or a negative code with err filled.
 */
int diagnosis_render(const struct dview *base, const struct topology *topo, const struct calib *cal,
		     const char *head, bool json, bool xen_hard_pin, struct sbuf *out,
		     struct vp_err *err);

/*
 * The diagnosis of a recording's whole-run frame (rec_total_finish()) of
 * `intervals` intervals (all read, or those report selected), appended to
 * out as `diagnose FILE` prints it; damaged: the file ended in damage
 * after rec->n_read frames, said in the head; ci (NULL: none): each VM's
 * costs interval by interval (cost_ci_add() of every frame read),
 * finished here into the intervals given with it.  0, or a negative code
 * with err filled.
 */
int diagnosis_recorded(const struct recording *rec, const struct model *m,
		       const struct model_avail *av, const struct collect_frame *total,
		       size_t intervals, struct cost_ci_set *ci, bool json, bool damaged,
		       struct sbuf *out, struct vp_err *err);

#endif
