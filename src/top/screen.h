/* screen.h - what a live screen of top samples from: the interface between top's front ends */
#ifndef VP_TOP_SCREEN_H
#define VP_TOP_SCREEN_H

#include <stdbool.h>

#include "top/topdata.h"
#include "util/err.h"

/*
 * Where a screen's samples come from: fn fills s with the next one and
 * returns 0, 1 when none has arrived yet (only when block is false: the
 * screen asks again shortly), or a negative code with err filled.  `top`
 * samples this machine; the remote client passes the daemon's stream.
 */
typedef int (*top_sample_fn)(void *ctx, struct top_state *s, bool block, struct vp_err *err);

/*
 * A live screen (the TUI's tui_run_source()): shows s, sampled from fn
 * every delay seconds sorted by sort, starting in view (an enum top_view of
 * top/topviews.h; TOP_VIEW_ALL: the VMs), until the user quits.  0, or a
 * negative code with err filled (VP_EDEP: built without the screen).
 */
typedef int (*top_screen_fn)(struct top_state *s, double delay, enum top_sort sort, int view,
			     top_sample_fn fn, void *ctx, struct vp_err *err);

#endif
