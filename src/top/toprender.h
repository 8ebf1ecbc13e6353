/* toprender.h - `vmmprof top` rows as --batch text and --json lines, and those lines read back */
#ifndef VP_TOPRENDER_H
#define VP_TOPRENDER_H

#include <stdint.h>

#include "top/topdata.h"
#include "top/topviews.h"
#include "util/err.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

/*
 * One renderer for the local command and the remote client: `vmmprof top`
 * renders its own samples, the daemon streams top_render_json() lines as
 * server-sent events, and `vmmprof --remote URL top` turns each line back
 * into a struct top_state (top_from_json()) for the same text and screen.
 */

/* One sample as --batch text. */
void top_render_text(const struct top_state *s, struct sbuf *out);
/*
 * One view of a sample as --batch text (top --batch --view): the node view
 * (memory, load, vCPUs and the five factors) and the process view (pid,
 * name, CPU%, memory away from its home node, the five factors) fit 80
 * columns; the VM and vCPU views are those sections of top_render_text().
 * The factors' legend follows, as after top_render_text().
 */
void top_render_view(const struct top_state *s, enum top_view v, struct sbuf *out);
/* One sample as one JSON line (with its newline); times relative to start_ns. */
void top_render_json(const struct top_state *s, uint64_t start_ns, struct sbuf *out);

/*
 * Fill the rows of s (nodes, VMs, vCPUs, ended, sample number, interval,
 * notes, factor reasons) from one parsed top_render_json() line.  The rows'
 * strings (hypervisor names, reasons) point into v: keep v until the next
 * call.  Returns 0, or VP_EFORMAT when v is not a top sample (err says what
 * is wrong).  s must come from top_init_remote() (or top_init()).
 */
int top_from_json(struct top_state *s, const struct jv *v, struct vp_err *err);
/* A top_state that is only filled by top_from_json(): no platform probe. */
void top_init_remote(struct top_state *s);

#endif
