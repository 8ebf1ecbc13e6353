/* diagnosis.c - a frame's diagnosis rendered whole: diagnose's output, live or of a recording */
#include "compose/diagnosis.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose.h"
#include "collect/cost_ci.h"
#include "record/record.h"
#include "util/alloc.h"

int diagnosis_render(const struct dview *base, const struct topology *topo, const struct calib *cal,
		     const char *head, bool json, bool xen_hard_pin, struct sbuf *out,
		     struct vp_err *err)
{
	struct dview dv = *base;
	struct diag_input din;
	struct diag_result res;
	int rc;

	frame_diag_input(dv.m, dv.av->factor_ok, topo, cal, dv.fr, &din);
	din.params.xen_hard_pin = xen_hard_pin;
	if ((rc = diagnose(&din, &res, err))) {
		collect_diag_release(&din);
		return rc;
	}
	if (dv.ci)
		cost_ci_attach(dv.ci, &din, &res);
	dv.in = &din;
	dv.r = &res;
	if (json)
		diag_render_json(&dv, out);
	else
		diag_render_text(&dv, head, out);
	diag_result_release(&res);
	collect_diag_release(&din);
	return 0;
}

int diagnosis_recorded(const struct recording *rec, const struct model *m,
		       const struct model_avail *av, const struct collect_frame *total,
		       size_t intervals, struct cost_ci_set *ci, bool json, bool damaged,
		       struct sbuf *out, struct vp_err *err)
{
	const char **reasons = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(char *));
	struct sbuf head = SBUF_INIT;
	struct dview dv;
	size_t i, k;
	int rc;

	memset(&dv, 0, sizeof(dv));
	dv.m = m;
	dv.av = av;
	for (i = 0; i < m->n_inputs; i++)
		for (k = 0; k < rec->n_inputs; k++)
			if (!strcmp(rec->input_names[k], m->inputs[i].name))
				reasons[i] = rec->input_reason[k];
	dv.input_reason = reasons;
	for (i = 0; i < total->n_rows; i++)
		dv.targets += total->rows[i].kind == ENT_VCPU || total->rows[i].kind == ENT_THREAD;
	dv.fr = total;
	dv.cal_note = rec->have_cal ? "calibration as recorded" : "no calibration in the recording";
	dv.recording = rec->path;
	/* what the recording says of itself is one line of terminal text */
	sbuf_addtextf(&head, "vmmprof diagnose: recording '%s' (%s, %zu intervals, %.1f s), model '%s'",
		      rec->path, rec->created ? rec->created : "?", intervals, total->duration, m->name);
	sbuf_addch(&head, '\n');
	if (damaged)
		sbuf_addf(&head, "  damaged after interval %zu: the diagnosis covers the intervals "
				 "before it\n", rec->n_read);
	sbuf_addf(&head, "  %s\n", dv.cal_note);
	if (ci) {
		/* the recorded intervals' spread, widened by the recorded running
		 * shares as a live run's by its own (docs/record-format.md) */
		struct cost_ci_ctx cx;

		cost_ci_ctx_init(&cx, m, total, rec->have_cal);
		if (!rec->scaling_kept)
			cx.running_why = "not in the recording (written before recordings kept "
					 "the running shares)";
		cx.samples = "recorded intervals";
		cost_ci_finish(ci, &cx);
		dv.ci = ci;
	}
	rc = diagnosis_render(&dv, &rec->plat.topo, rec->have_cal ? &rec->cal : NULL,
			      sbuf_str(&head), json, false, out, err);
	if (!rc && !json && ci)
		cost_ci_text(ci, out);
	free(reasons);
	sbuf_release(&head);
	return rc;
}
