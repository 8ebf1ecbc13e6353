/* tui.c - the ncurses screen of `vmmprof top`: nodes, VMs and vCPUs views, sorting, drill-down, help */
#include "tui/tui.h"
#include "util/timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_NCURSES
#include <curses.h>

enum view { VIEW_NODES, VIEW_VMS, VIEW_VCPUS };

struct ui {
	enum view view;
	enum top_sort sort;
	int sel;              /* selected VM row in the VMs view */
	int drill;            /* VM entity shown alone in the vCPUs view, -1 all */
	char drill_name[96];
	bool help;
	bool colors;
};

enum { C_HEAD = 1, C_GOOD, C_WARN, C_BAD, C_NA, C_SEL };

static void header(struct ui *u, const struct top_state *s)
{
	static const char *const names[] = { "1:Nodes", "2:VMs", "3:vCPUs" };
	char b[32];
	int i;

	attron(A_BOLD);
	mvprintw(0, 0, "vmmprof top");
	attroff(A_BOLD);
	for (i = 0; i < 3; i++) {
		if ((int)u->view == i)
			attron(A_REVERSE);
		printw("  %s", names[i]);
		if ((int)u->view == i)
			attroff(A_REVERSE);
	}
	top_fmt(b, sizeof(b), "%.1fs", s->interval_s);
	printw("   sort:%s  interval:%s  sample:%lu   ?:help q:quit", top_sort_name(u->sort), b,
	       s->samples);
	if (u->view == VIEW_VCPUS && u->drill >= 0)
		mvprintw(1, 0, "vCPUs of %s (Esc: all vCPUs)", u->drill_name);
	else if (s->cnt.status[0])
		mvprintw(1, 0, "%.*s", COLS > 1 ? COLS - 1 : 1, s->cnt.status);
}

static void col_head(int row, const char *text)
{
	if (has_colors())
		attron(COLOR_PAIR(C_HEAD));
	attron(A_BOLD);
	mvprintw(row, 0, "%-*s", COLS > 1 ? COLS - 1 : 1, text);
	attroff(A_BOLD);
	if (has_colors())
		attroff(COLOR_PAIR(C_HEAD));
}

/*
 * Severity colour of a factor cell: the model's severity for a counted
 * value; the locality estimate by remote fraction (the thresholds the
 * models give locality: 0.2 and 0.5).
 */
static int severity(int f, const struct top_cell *c)
{
	if (isnan(c->q.v))
		return C_NA;
	if (c->src == TOP_SRC_MODEL)
		return c->sev == SEV_CRITICAL ? C_BAD : c->sev == SEV_WARNING ? C_WARN :
		       c->sev == SEV_OK ? C_GOOD : 0;
	if (f != 0)
		return 0;
	return c->q.v >= 0.5 ? C_BAD : c->q.v >= 0.2 ? C_WARN : C_GOOD;
}

static void factor_cells(struct ui *u, const struct top_cell *q)
{
	char b[32];
	int f;

	for (f = 0; f < TOP_NFACTORS; f++) {
		int c = severity(f, &q[f]);

		/* colour is the severity; without colours, the ! marks say it */
		top_fmt_factor(b, sizeof(b), f, &q[f], !u->colors);
		if (u->colors && c)
			attron(COLOR_PAIR(c));
		printw(" %10s", b);
		if (u->colors && c)
			attroff(COLOR_PAIR(c));
	}
}

/* --resctrl: LLC occupancy (MiB) and memory traffic (MB/s) after a row's other cells. */
static void rdt_cells(const struct top_rdt *r)
{
	char a[24], b[24];

	top_fmt(a, sizeof(a), "%.1f", r->llc_bytes / 1048576.0);
	top_fmt(b, sizeof(b), "%.1f", r->mbm_bps / 1e6);
	printw(" %8s %9s", a, b);
}

static void draw_nodes(const struct top_state *s)
{
	char a[24], b[24], c[24], d[24], e[24], f[24];
	size_t i;
	int row = 3;

	col_head(2, s->rdt_on ? " NODE  MEM_USED MEM_TOTAL   LOCAL/s  REMOTE/s    MISS/s   LOAD  VCPUS"
				"  LLC_MiB  MBM_MB/s" :
				" NODE  MEM_USED MEM_TOTAL   LOCAL/s  REMOTE/s    MISS/s   LOAD  VCPUS");
	for (i = 0; i < s->n_nodes && row < LINES - 2; i++, row++) {
		const struct top_node *n = &s->nodes[i];

		top_fmt(a, sizeof(a), "%.0fM", n->mem_used / 1048576.0);
		top_fmt(b, sizeof(b), "%.0fM", n->mem_total / 1048576.0);
		top_fmt(c, sizeof(c), "%.0f", n->local_rate);
		top_fmt(d, sizeof(d), "%.0f", n->remote_rate);
		top_fmt(e, sizeof(e), "%.0f", n->miss_rate);
		top_fmt(f, sizeof(f), "%.0f%%", 100.0 * n->cpu_load);
		mvprintw(row, 0, " %4d %9s %9s %9s %9s %9s %6s %6d", n->node, a, b, c, d, e, f,
			 n->n_vcpus);
		if (s->rdt_on)
			rdt_cells(&n->rdt);
	}
	mvprintw(row + 1, 0, "local/remote: pages allocated per second on this node for local / "
			     "other nodes' tasks (numastat)");
}

static void draw_vms(struct ui *u, const struct top_state *s)
{
	char a[24], b[24];
	size_t i;
	int row = 3;

	col_head(2, s->rdt_on ?
		 " VM                   HV       ID VCPU   CPU%   MEM_MiB HOME      LOCAL        LLC      SHARE        IMC      QUEUE  LLC_MiB  MBM_MB/s" :
		 " VM                   HV       ID VCPU   CPU%   MEM_MiB HOME      LOCAL        LLC      SHARE        IMC      QUEUE");
	if (u->sel >= (int)s->n_vms)
		u->sel = s->n_vms ? (int)s->n_vms - 1 : 0;
	for (i = 0; i < s->n_vms && row < LINES - 2; i++, row++) {
		const struct top_vm *v = &s->vms[i];

		if ((int)i == u->sel)
			attron(A_REVERSE);
		top_fmt(a, sizeof(a), "%.1f", v->cpu_pct);
		top_fmt(b, sizeof(b), "%.1f", v->mem / 1048576.0);
		mvprintw(row, 0, " %-20.20s %-6s %4d %4zu %6s %9s %4d", v->name, v->hypervisor, v->id,
			 v->n_vcpus, a, b, v->home);
		factor_cells(u, v->factor);
		if (s->rdt_on)
			rdt_cells(&v->rdt);
		if ((int)i == u->sel)
			attroff(A_REVERSE);
	}
	if (!s->n_vms)
		mvprintw(row, 1, "no VMs found");
	mvprintw(LINES - 1, 0, "Enter: vCPUs of the selected VM   e estimate, p proxy, a apportioned; "
			       "/N%% cost share of cycles");
}

static void draw_vcpus(struct ui *u, const struct top_state *s)
{
	char a[24];
	size_t i;
	int row = 3, shown = 0;

	col_head(2, " VM                 VCPU     TID  CPU NODE AFFINITY     CPU%      LOCAL        LLC      SHARE        IMC      QUEUE");
	for (i = 0; i < s->n_vcpus && row < LINES - 2; i++) {
		const struct top_vcpu *c = &s->vcpus[i];

		if (u->drill >= 0 && s->vms[c->vm].ent != u->drill)
			continue;
		top_fmt(a, sizeof(a), "%.1f", c->cpu_pct);
		mvprintw(row++, 0, " %-18.18s %4d %7d %4d %4d %-10.10s %6s", s->vms[c->vm].name,
			 c->index, c->tid, c->cpu, c->node, c->affinity, a);
		factor_cells(u, c->factor);
		shown++;
	}
	if (!shown)
		mvprintw(row, 1, u->drill >= 0 ? "the VM has ended" : "no vCPUs");
}

static void draw_help(const struct top_state *s)
{
	int row = 2, f;

	erase();
	mvprintw(0, 0, "vmmprof top - keys");
	mvprintw(row++, 2, "1 / 2 / 3    nodes, VMs, vCPUs view;  Tab: next view");
	mvprintw(row++, 2, "Up / Down    select a VM;  Enter: its vCPUs;  Esc / Backspace: back");
	mvprintw(row++, 2, "c r m n      sort by CPU, remote fraction, memory, name");
	mvprintw(row++, 2, "q            quit;   any key closes this help");
	row++;
	mvprintw(row++, 0, "factor columns");
	if (s->cnt.status[0])
		mvprintw(row++, 2, "%.*s", COLS > 3 ? COLS - 3 : 1, s->cnt.status);
	mvprintw(row++, 2, "counted: score, quality letter (a apportioned, p proxy), /N%% cost share of");
	mvprintw(row++, 2, "cycles, colour = severity.  LOCAL estimate: run time per node x VM memory");
	mvprintw(row++, 2, "on the other nodes, 'e' (no counters)");
	for (f = 0; f < TOP_NFACTORS && row < LINES - 1; f++)
		mvprintw(row++, 2, "%-6s %-9s %.*s", top_factor_title(f),
			 s->cnt.state[f] == TOP_F_COUNTED ? "counted:" :
			 s->cnt.state[f] == TOP_F_ESTIMATED ? "estimate:" : "n/a:",
			 COLS > 20 ? COLS - 20 : 1, s->factor_why[f]);
	if (s->rdt_on && row < LINES - 1)
		mvprintw(row++, 2, "LLC_MiB MBM_MB/s: resctrl occupancy and memory traffic of each VM's "
				   "group; a node: the VMs' groups on its L3");
	for (size_t i = 0; s->rdt_on && i < s->n_vms && row < LINES - 1; i++)
		if (s->vms[i].rdt.why[0])
			mvprintw(row++, 2, "resctrl n/a: %s: %.*s", s->vms[i].name,
				 COLS > 40 ? COLS - 40 : 1, s->vms[i].rdt.why);
	if (s->notes[0] && row < LINES - 1)
		mvprintw(row + 1, 0, "note: %.*s", COLS > 8 ? COLS - 8 : 1, s->notes);
}

static void draw(struct ui *u, const struct top_state *s)
{
	if (u->help) {
		draw_help(s);
		refresh();
		return;
	}
	erase();
	header(u, s);
	switch (u->view) {
	case VIEW_NODES: draw_nodes(s); break;
	case VIEW_VMS: draw_vms(u, s); break;
	case VIEW_VCPUS: draw_vcpus(u, s); break;
	}
	refresh();
}

/* Returns false when the user quits. */
static bool key(struct ui *u, struct top_state *s, int ch)
{
	if (u->help && ch != KEY_RESIZE && ch != ERR) {
		u->help = false;
		return ch != 'q' && ch != 3;
	}
	switch (ch) {
	case 'q': case 'Q': case 3: /* Ctrl-C in raw mode */
		return false;
	case '?': case 'h': u->help = true; break;
	case '1': u->view = VIEW_NODES; break;
	case '2': u->view = VIEW_VMS; break;
	case '3': u->view = VIEW_VCPUS; u->drill = -1; break;
	case '\t': u->view = (u->view + 1) % 3; u->drill = -1; break;
	case 'c': u->sort = TOP_SORT_CPU; break;
	case 'r': u->sort = TOP_SORT_REMOTE; break;
	case 'm': u->sort = TOP_SORT_MEM; break;
	case 'n': u->sort = TOP_SORT_NAME; break;
	case KEY_UP: case 'k': if (u->sel > 0) u->sel--; break;
	case KEY_DOWN: case 'j': if (u->sel + 1 < (int)s->n_vms) u->sel++; break;
	case '\n': case '\r': case KEY_ENTER:
		if (u->view == VIEW_VMS && u->sel < (int)s->n_vms) {
			u->drill = s->vms[u->sel].ent;
			snprintf(u->drill_name, sizeof(u->drill_name), "%s", s->vms[u->sel].name);
			u->view = VIEW_VCPUS;
		}
		break;
	case 27: case KEY_BACKSPACE: case 127: case 8:
		if (u->view == VIEW_VCPUS && u->drill >= 0)
			u->view = VIEW_VMS;
		u->drill = -1;
		break;
	case KEY_RESIZE:
		/* ncurses has the new size: drop what was on screen and redraw */
		clear();
		break;
	default: break;
	}
	top_sort(s, u->sort);
	return true;
}

static int local_sample(void *ctx, struct top_state *s, bool block, struct vp_err *err)
{
	(void)ctx;
	(void)block;
	return top_sample(s, err) ? err->code : 0;
}

int tui_run(struct top_state *s, double delay, enum top_sort sort, struct vp_err *err)
{
	return tui_run_source(s, delay, sort, local_sample, NULL, err);
}

int tui_run_source(struct top_state *s, double delay, enum top_sort sort, tui_sample_fn fn,
		   void *ctx, struct vp_err *err)
{
	struct ui u = { VIEW_VMS, sort, 0, -1, "", false, false };
	uint64_t next;
	int ret = 0;

	if ((ret = fn(ctx, s, true, err)))
		return ret < 0 ? ret : vp_err_set(err, -EPIPE, "no first sample");
	if (!initscr())
		return vp_err_set(err, VP_EUNSUPP, "cannot initialise the terminal");
	raw();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(C_HEAD, COLOR_BLACK, COLOR_GREEN);
		init_pair(C_GOOD, COLOR_GREEN, -1);
		init_pair(C_WARN, COLOR_YELLOW, -1);
		init_pair(C_BAD, COLOR_RED, -1);
		init_pair(C_NA, COLOR_BLUE, -1);
		u.colors = true;
	}
	timeout(100);
	top_sort(s, u.sort);
	next = vp_now_ns() + (uint64_t)(delay * 1e9);
	draw(&u, s);
	for (;;) {
		int ch = getch();

		if (ch != ERR) {
			if (!key(&u, s, ch))
				break;
			draw(&u, s);
		}
		if (vp_now_ns() >= next) {
			ret = fn(ctx, s, false, err);
			if (ret < 0)
				break;
			if (ret > 0) { /* not there yet: look again soon */
				ret = 0;
				next = vp_now_ns() + 50000000ull;
				continue;
			}
			top_sort(s, u.sort);
			next = vp_now_ns() + (uint64_t)(delay * 1e9);
			draw(&u, s);
		}
	}
	endwin();
	return ret;
}
#else
int tui_run_source(struct top_state *s, double delay, enum top_sort sort, tui_sample_fn fn,
		   void *ctx, struct vp_err *err)
{
	(void)fn;
	(void)ctx;
	return tui_run(s, delay, sort, err);
}

int tui_run(struct top_state *s, double delay, enum top_sort sort, struct vp_err *err)
{
	(void)s;
	(void)delay;
	(void)sort;
	return vp_err_set(err, VP_EDEP, "built without ncurses: use 'vmmprof top --batch'");
}
#endif
