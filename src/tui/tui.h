/* tui.h - the ncurses screen of `vmmprof top` */
#ifndef VP_TUI_H
#define VP_TUI_H

#include "tui/topdata.h"
#include "util/err.h"

/*
 * Run the live view until the user quits.  Returns 0, or VP_EDEP when built
 * without ncurses.  The terminal is restored on every way out.
 */
int tui_run(struct top_state *s, double delay, enum top_sort sort, struct vp_err *err);

#endif
