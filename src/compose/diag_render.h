/* diag_render.h - the diagnosis as text and JSON, for `diagnose` and `report` */
#ifndef VP_DIAG_RENDER_H
#define VP_DIAG_RENDER_H

#include <stddef.h>

#include "collect/cost_ci.h"
#include "analysis/diagnose.h"
#include "collect/collect.h"
#include "model/model.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

/* Everything a rendering shows, live or from a recording. */
struct dview {
	const struct model *m;
	const struct model_avail *av;
	const char *const *input_reason; /* m->n_inputs: why not counted, NULL when counted */
	size_t targets;                   /* threads counted */
	const struct collect_frame *fr;   /* the frame diagnosed (the whole run) */
	const struct diag_input *in;
	const struct diag_result *r;
	const char *cal_note;
	const char *recording;            /* the file, NULL live */
	const struct cost_ci_set *ci;     /* live: each VM's cost intervals, NULL none */
};

/* head comes first (the caller's summary lines). */
void diag_render_text(const struct dview *dv, const char *head, struct sbuf *out);
void diag_render_json(const struct dview *dv, struct sbuf *out);
/*
 * A dview read back from `diagnose --json` (what the daemon answers), so
 * that the remote client prints it with diag_render_text().  Storage owned
 * by the caller; its strings point into the parsed document, which must
 * outlive it.  dview_json_release() in any case.
 */
struct dview_json {
	struct dview dv;
	struct model m;                   /* name and factor labels only */
	struct model_avail av;
	struct collect_frame fr;          /* one row per VM: its scores; the notes */
	struct diag_input in;
	struct diag_result r;
	const char *no_reason[1];
	struct cost_ci_set ci;            /* "cost_intervals" when the document has them */
};
int dview_from_json(struct dview_json *dj, const struct jv *doc, struct vp_err *err);
void dview_json_release(struct dview_json *dj);

/* Why factor f cannot be evaluated with this model here; NULL when it can. */
const char *factor_unavailable(const struct model *m, const struct model_avail *av,
			       enum factor_id f);

#endif
