/* info_json.h - the `vmmprof info --json` document, shared by the CLI and the daemon */
#ifndef VP_INFO_JSON_H
#define VP_INFO_JSON_H

#include "plan/coverage.h"
#include "platform/platform.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

/* Append the document (schema vmmprof-info/2, docs/info-json.md), pretty and
 * ending in a newline, to sb. */
void info_json(const struct platform *p, const struct coverage *cv, struct sbuf *sb);

/*
 * Read such a document back into *p and *cv (caller-owned storage, released
 * with platform_release() and coverage_release(), also after an error): every field that
 * info_text() prints, so the remote client prints the daemon's info with the
 * local renderer.  What the document does not carry (per-CPU arrays) stays
 * empty.  Returns 0, or VP_EFORMAT when doc is not vmmprof-info/2.
 */
int info_from_json(const struct jv *doc, struct platform *p, struct coverage *cv,
		   struct vp_err *err);

#endif
