/* info_text.h - the `vmmprof info` text, shared by the local command and the remote client */
#ifndef VP_INFO_TEXT_H
#define VP_INFO_TEXT_H

#include "plan/coverage.h"
#include "platform/platform.h"
#include "util/sbuf.h"

/*
 * Append the text page for p and cv to sb.  where names the machine in the
 * first line ("this machine", a fixture root, the daemon's URL).  The local
 * command renders its own probe; the remote client renders the daemon's
 * info document read back with info_from_json().
 */
void info_text(const struct platform *p, const struct coverage *cv, const char *where,
	       struct sbuf *sb);

#endif
