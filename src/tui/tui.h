/* tui.h - the ncurses screen of `vmmprof top` */
#ifndef VP_TUI_H
#define VP_TUI_H

#include <stdbool.h>

#include "top/topdata.h"
#include "util/err.h"

/*
 * Run the live view until the user quits.  Returns 0, or VP_EDEP when built
 * without ncurses.  The terminal is restored on every way out.
 */
int tui_run(struct top_state *s, double delay, enum top_sort sort, struct vp_err *err);

/*
 * Where the samples come from: fn fills s with the next one and returns 0,
 * 1 when none has arrived yet (only when block is false: the screen asks
 * again shortly), or a negative code with err filled.  tui_run() samples
 * this machine; the remote client passes the daemon's stream.
 */
typedef int (*tui_sample_fn)(void *ctx, struct top_state *s, bool block, struct vp_err *err);
int tui_run_source(struct top_state *s, double delay, enum top_sort sort, tui_sample_fn fn,
		   void *ctx, struct vp_err *err);

#endif
