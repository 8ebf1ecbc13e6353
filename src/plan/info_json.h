/* info_json.h - the `vmmprof info --json` document, shared by the CLI and the daemon */
#ifndef VP_INFO_JSON_H
#define VP_INFO_JSON_H

#include "plan/coverage.h"
#include "platform/platform.h"
#include "util/sbuf.h"

/* Append the document (schema vmmprof-info/1, docs/info-json.md), pretty and
 * ending in a newline, to sb. */
void info_json(const struct platform *p, const struct coverage *cv, struct sbuf *sb);

#endif
