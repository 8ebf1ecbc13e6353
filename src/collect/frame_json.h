/* frame_json.h - one collector frame as the daemon's frame JSON (schema vmmprof-frame/1) */
#ifndef VP_FRAME_JSON_H
#define VP_FRAME_JSON_H

#include <stdint.h>

#include "collect/collect.h"
#include "model/model.h"
#include "util/json.h"

/* What the frame itself does not know. */
struct frame_meta {
	const char *session;            /* "s1" */
	uint64_t seq;                   /* 1 for a session's first frame */
	double time;                    /* Unix time of the sample, seconds */
	const struct model_avail *av;   /* NULL: every factor the model binds is available */
};

/*
 * Write one frame as a JSON object (docs/api.md, "FRAME"): rows with their
 * model metrics and the five factors (NaN as null, unavailable factors with
 * their reason), the per-event scaling and the notes.  Use a non-pretty
 * writer for one line (SSE data, history items).
 */
void frame_json_write(struct jw *w, const struct frame_meta *meta, const struct model *m,
		      const struct collect_frame *f);

#endif
