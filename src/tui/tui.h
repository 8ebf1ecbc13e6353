/* tui.h - the ncurses screen of `vmmprof top` */
#ifndef VP_TUI_H
#define VP_TUI_H

#include <stdbool.h>

#include "top/screen.h"
#include "top/topdata.h"
#include "util/err.h"

/*
 * Run the live view until the user quits.  Returns 0, or VP_EDEP when built
 * without ncurses.  The terminal is restored on every way out.
 */
int tui_run(struct top_state *s, double delay, enum top_sort sort, struct vp_err *err);

/*
 * The same over a sample source (top/screen.h), starting in view (an enum
 * top_view; TOP_VIEW_ALL: the VMs): a top_screen_fn, which the
 * binary's main() (src/bin/) hands the command line for `top`, local or
 * remote.
 */
int tui_run_source(struct top_state *s, double delay, enum top_sort sort, int view,
		   top_sample_fn fn, void *ctx, struct vp_err *err);

#endif
