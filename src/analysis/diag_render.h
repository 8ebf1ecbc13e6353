/* diag_render.h - the diagnosis as text and JSON, for `diagnose` and `report` */
#ifndef VP_DIAG_RENDER_H
#define VP_DIAG_RENDER_H

#include <stddef.h>

#include "analysis/diagnose.h"
#include "collect/collect.h"
#include "model/model.h"
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
};

/* head comes first (the caller's summary lines). */
void diag_render_text(const struct dview *dv, const char *head, struct sbuf *out);
void diag_render_json(const struct dview *dv, struct sbuf *out);
/* Why factor f cannot be evaluated with this model here; NULL when it can. */
const char *factor_unavailable(const struct model *m, const struct model_avail *av,
			       enum factor_id f);

#endif
