/* tui.c - the ncurses screen of `vmmprof top`: nodes, VMs, vCPUs and processes views, sorting, drill-down, help */
#include "tui/tui.h"
#include "top/topviews.h"
#include "util/timeutil.h"
#include "util/sbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_NCURSES
#include <curses.h>

enum view { VIEW_NODES, VIEW_VMS, VIEW_VCPUS, VIEW_PROCS, VIEW_N };

/* Below this width the screen drops to its narrow layout (every factor within 80 columns). */
#define WIDE_COLS 130

struct ui {
	enum view view;
	enum top_sort sort;
	int sel;              /* selected VM row in the VMs view */
	int drill;            /* VM entity shown alone in the vCPUs view, -1 all */
	char drill_name[96];
	bool help;
	bool colors;
	int page;             /* narrow layout: 0 the factors, 1 identity and resctrl columns */
	char filter[64];      /* VMs and vCPUs whose VM name contains it; "" all */
	bool editing;         /* typing the filter on the last line */
	char edit[64];
};

enum { C_HEAD = 1, C_GOOD, C_WARN, C_BAD, C_SEL };

/* Text from the cursor on, cut at the screen's last column: a row never wraps.  Terminal
 * text (sbuf_sanitize()): a VM name's newline or escape sequence is '?' on the screen. */
static void put(const char *text)
{
	int room = COLS - 1 - getcurx(stdscr);
	struct sbuf sb = SBUF_INIT;

	if (room <= 0)
		return;
	sbuf_addtext(&sb, text);
	addnstr(sbuf_str(&sb), room);
	sbuf_release(&sb);
}

static void vput(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void vput(const char *fmt, va_list ap)
{
	char b[1024];

	vsnprintf(b, sizeof(b), fmt, ap);
	put(b);
}

static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(fmt, ap);
	va_end(ap);
}

static void at(int row, int col)
{
	move(row, col);
}

static bool narrow(void)
{
	return COLS < WIDE_COLS;
}

static bool shown(const struct ui *u, const char *name)
{
	return !u->filter[0] || (name && strstr(name, u->filter));
}

static void header(struct ui *u, const struct top_state *s)
{
	static const char *const names[] = { "1:Nodes", "2:VMs", "3:vCPUs", "4:Procs" };
	char b[32];
	int i, f;

	at(0, 0);
	attron(A_BOLD);
	put("vmmprof top");
	attroff(A_BOLD);
	for (i = 0; i < VIEW_N; i++) {
		put(" ");
		if ((int)u->view == i)
			attron(A_REVERSE);
		put(names[i]);
		if ((int)u->view == i)
			attroff(A_REVERSE);
	}
	top_fmt(b, sizeof(b), "%.1fs", s->interval_s);
	putf(" sort:%s %s #%lu", top_sort_name(u->sort), b, s->samples);
	if (u->filter[0])
		putf(" filter:%s", u->filter);
	put(narrow() && u->view != VIEW_PROCS ? (u->page ? " <-" : " ->") : "");
	put(" ?:help q:quit");
	at(1, 0);
	if (u->view == VIEW_VCPUS && u->drill >= 0) {
		putf("vCPUs of %s (Esc: all vCPUs)", u->drill_name);
		return;
	}
	/* the status in a line: the model's name (its path is on the help screen), each factor's state */
	if (s->cnt.on)
		putf("model %s:", sbuf_str(&s->cnt.model));
	else
		put("counters off:");
	for (f = 0; f < TOP_NFACTORS; f++)
		putf(" %s %s", top_factor_title(f),
		     s->cnt.state[f] == TOP_F_COUNTED ? "counted" :
		     s->cnt.state[f] == TOP_F_ESTIMATED ? "estimate" : "n/a");
}

static void col_head(const struct ui *u, int row, const char *text)
{
	at(row, 0);
	if (u->colors)
		attron(COLOR_PAIR(C_HEAD));
	else
		attron(A_REVERSE);
	attron(A_BOLD);
	putf("%-*s", COLS > 1 ? COLS - 1 : 1, text);
	attroff(A_BOLD);
	if (u->colors)
		attroff(COLOR_PAIR(C_HEAD));
	else
		attroff(A_REVERSE);
}

/*
 * Severity colour of a factor cell: the model's severity for a counted
 * value; the locality estimate by remote fraction (the thresholds the
 * models give locality: 0.2 and 0.5).  -1: n/a, drawn dim in the
 * terminal's own colour (readable on dark and light backgrounds).
 */
static int severity(int f, const struct top_cell *c)
{
	if (isnan(c->q.v))
		return -1;
	if (c->src == TOP_SRC_MODEL)
		return c->sev == SEV_CRITICAL ? C_BAD : c->sev == SEV_WARNING ? C_WARN :
		       c->sev == SEV_OK ? C_GOOD : 0;
	if (f != 0)
		return 0;
	return c->q.v >= 0.5 ? C_BAD : c->q.v >= 0.2 ? C_WARN : C_GOOD;
}

/*
 * The five factor cells.  Wide: the value, its quality letter and /cost, as
 * --batch prints them, 10 columns each.  Narrow: 8 columns each, the cost
 * share when it is known (it is what ranks), else the value.
 */
static void factor_cells(struct ui *u, const struct top_cell *q)
{
	char b[32];
	int f, w = narrow() ? 8 : 10;

	for (f = 0; f < TOP_NFACTORS; f++) {
		int c = severity(f, &q[f]);

		/* colour is the severity; without colours, the ! marks say it */
		if (narrow())
			top_fmt_factor_short(b, sizeof(b), f, &q[f], !u->colors);
		else
			top_fmt_factor(b, sizeof(b), f, &q[f], !u->colors);
		if (c < 0)
			attron(A_DIM);
		else if (u->colors && c)
			attron(COLOR_PAIR(c));
		putf(" %*s", w, b);
		if (c < 0)
			attroff(A_DIM);
		else if (u->colors && c)
			attroff(COLOR_PAIR(c));
	}
}

/* --resctrl: LLC occupancy (MiB) and memory traffic (MB/s) after a row's other cells. */
static void rdt_cells(const struct top_rdt *r)
{
	char a[24], b[24];

	top_fmt(a, sizeof(a), "%.1f", r->llc_bytes / 1048576.0);
	top_fmt(b, sizeof(b), "%.1f", r->mbm_bps / 1e6);
	putf(" %8s %9s", a, b);
}

/*
 * The nodes view: memory, load, vCPUs and the five factors (each the
 * highest cell of the vCPUs on the node, top_node_factors()); the numastat
 * page rates on the second page of a narrow screen, after the rest on a
 * wide one.
 */
static void draw_nodes(struct ui *u, const struct top_state *s)
{
	char a[24], b[24], c[24], d[24], e[24], f[24];
	bool detail = narrow() && u->page;
	size_t i;
	int row = 3;

	if (!narrow())
		col_head(u, 2, s->rdt_on ?
			 " NODE  MEM_USED MEM_TOTAL   LOCAL/s  REMOTE/s    MISS/s   LOAD  VCPUS      LOCAL        LLC      SHARE        IMC      QUEUE  LLC_MiB  MBM_MB/s" :
			 " NODE  MEM_USED MEM_TOTAL   LOCAL/s  REMOTE/s    MISS/s   LOAD  VCPUS      LOCAL        LLC      SHARE        IMC      QUEUE");
	else if (!detail)
		col_head(u, 2, " NODE  MEM_USED   LOAD VCPUS    LOCAL      LLC    SHARE      IMC    QUEUE");
	else
		col_head(u, 2, s->rdt_on ? " NODE MEM_TOTAL   LOCAL/s  REMOTE/s    MISS/s  LLC_MiB  MBM_MB/s" :
					   " NODE MEM_TOTAL   LOCAL/s  REMOTE/s    MISS/s");
	for (i = 0; i < s->n_nodes && row < LINES - 2; i++, row++) {
		const struct top_node *n = &s->nodes[i];
		struct top_cell cell[TOP_NFACTORS];

		top_node_factors(s, i, cell);
		top_fmt(a, sizeof(a), "%.0fM", n->mem_used / 1048576.0);
		top_fmt(b, sizeof(b), "%.0fM", n->mem_total / 1048576.0);
		top_fmt(c, sizeof(c), "%.0f", n->local_rate);
		top_fmt(d, sizeof(d), "%.0f", n->remote_rate);
		top_fmt(e, sizeof(e), "%.0f", n->miss_rate);
		top_fmt(f, sizeof(f), "%.0f%%", 100.0 * n->cpu_load);
		at(row, 0);
		if (!narrow()) {
			putf(" %4d %9s %9s %9s %9s %9s %6s %6d", n->node, a, b, c, d, e, f, n->n_vcpus);
			factor_cells(u, cell);
			if (s->rdt_on)
				rdt_cells(&n->rdt);
		} else if (!detail) {
			putf(" %4d %9s %6s %5d", n->node, a, f, n->n_vcpus);
			factor_cells(u, cell);
		} else {
			putf(" %4d %9s %9s %9s %9s", n->node, b, c, d, e);
			if (s->rdt_on)
				rdt_cells(&n->rdt);
		}
	}
	at(row + 1, 0);
	put(detail || !narrow() ? "local/remote: pages allocated per second on this node for local / "
				  "other nodes' tasks (numastat)" :
				  "factors: the highest of the vCPUs on the node;  Right: page rates");
}

/* The processes view (numatop's main screen for VMs): pid, CPU%, memory away from home, factors. */
static void draw_procs(struct ui *u, const struct top_state *s)
{
	char a[24], c[24];
	size_t i;
	int row = 3, n = 0;

	col_head(u, 2, narrow() ? "     PID PROCESS     CPU% RMEM%    LOCAL      LLC    SHARE      IMC    QUEUE" :
			 "     PID PROCESS                CPU% RMEM%      LOCAL        LLC      SHARE        IMC      QUEUE");
	for (i = 0; i < s->n_vms && row < LINES - 2; i++) {
		const struct top_vm *v = &s->vms[i];
		struct top_proc p;

		if (!shown(u, sbuf_str(&v->name)))
			continue;
		n++;
		top_proc_row(v, &p);
		top_fmt(a, sizeof(a), "%.1f", v->cpu_pct);
		top_fmt(c, sizeof(c), "%.1f", 100.0 * p.remote_frac);
		at(row++, 0);
		if (narrow())
			putf(" %7d %-10.10s %5s %5s", v->id, sbuf_str(&v->name), a, c);
		else
			putf(" %7d %-20.20s %5s %5s", v->id, sbuf_str(&v->name), a, c);
		factor_cells(u, v->factor);
	}
	if (!n) {
		at(row, 1);
		put(s->n_vms ? "no VM matches the filter" : "no VMs found");
	}
	if (!u->editing) {
		at(LINES - 1, 0);
		put("PID: the QEMU pid (Xen: the domain id)  RMEM%: memory on other nodes than home");
	}
}

static void draw_vms(struct ui *u, const struct top_state *s)
{
	char a[24], b[24];
	size_t i;
	int row = 3, n = 0;
	bool detail = narrow() && u->page;

	if (!narrow())
		col_head(u, 2, s->rdt_on ?
			 " VM                   HV       ID VCPU   CPU%   MEM_MiB HOME      LOCAL        LLC      SHARE        IMC      QUEUE  LLC_MiB  MBM_MB/s" :
			 " VM                   HV       ID VCPU   CPU%   MEM_MiB HOME      LOCAL        LLC      SHARE        IMC      QUEUE");
	else if (!detail)
		col_head(u, 2, " VM            CPU% MEM_MiB HOME    LOCAL      LLC    SHARE      IMC    QUEUE");
	else
		col_head(u, 2, s->rdt_on ? " VM           HV       ID VCPU  LLC_MiB  MBM_MB/s" :
					   " VM           HV       ID VCPU");
	if (u->sel >= (int)s->n_vms)
		u->sel = s->n_vms ? (int)s->n_vms - 1 : 0;
	for (i = 0; i < s->n_vms && row < LINES - 2; i++) {
		const struct top_vm *v = &s->vms[i];

		if (!shown(u, sbuf_str(&v->name)))
			continue;
		n++;
		if ((int)i == u->sel)
			attron(A_REVERSE);
		top_fmt(a, sizeof(a), "%.1f", v->cpu_pct);
		at(row++, 0);
		if (!narrow()) {
			top_fmt(b, sizeof(b), "%.1f", v->mem / 1048576.0);
			putf(" %-20.20s %-6s %4d %4zu %6s %9s %4d", sbuf_str(&v->name), v->hypervisor, v->id,
			     v->n_vcpus, a, b, v->home);
			factor_cells(u, v->factor);
			if (s->rdt_on)
				rdt_cells(&v->rdt);
		} else if (!detail) {
			top_fmt(b, sizeof(b), "%.0f", v->mem / 1048576.0);
			putf(" %-12.12s %5s %7s %4d", sbuf_str(&v->name), a, b, v->home);
			factor_cells(u, v->factor);
		} else {
			putf(" %-12.12s %-6s %4d %4zu", sbuf_str(&v->name), v->hypervisor, v->id, v->n_vcpus);
			if (s->rdt_on)
				rdt_cells(&v->rdt);
		}
		if ((int)i == u->sel)
			attroff(A_REVERSE);
	}
	if (!n) {
		at(row, 1);
		put(s->n_vms ? "no VM matches the filter" : "no VMs found");
	}
	if (!u->editing) {
		at(LINES - 1, 0);
		put(narrow() ? "Enter: vCPUs  cells: cost % (value when no cost) e a p: quality  ?: legend" :
			       "Enter: vCPUs of the selected VM   e estimate, p proxy, a apportioned; "
			       "/N% cost share of cycles");
	}
}

static void draw_vcpus(struct ui *u, const struct top_state *s)
{
	char a[24];
	size_t i;
	int row = 3, n = 0;
	bool detail = narrow() && u->page;

	if (!narrow())
		col_head(u, 2, " VM                 VCPU     TID  CPU NODE AFFINITY     CPU%      LOCAL        LLC      SHARE        IMC      QUEUE");
	else if (!detail)
		col_head(u, 2, " VM         VCPU  CPU NODE  CPU%    LOCAL      LLC    SHARE      IMC    QUEUE");
	else
		col_head(u, 2, " VM         VCPU     TID AFFINITY");
	for (i = 0; i < s->n_vcpus && row < LINES - 2; i++) {
		const struct top_vcpu *c = &s->vcpus[i];
		const char *name = sbuf_str(&s->vms[c->vm].name);

		if (u->drill >= 0 && s->vms[c->vm].ent != u->drill)
			continue;
		if (!shown(u, name))
			continue;
		top_fmt(a, sizeof(a), "%.1f", c->cpu_pct);
		at(row++, 0);
		if (!narrow()) {
			putf(" %-18.18s %4d %7d %4d %4d %-10.10s %6s", name, c->index, c->tid, c->cpu,
			     c->node, sbuf_str(&c->affinity), a);
			factor_cells(u, c->factor);
		} else if (!detail) {
			putf(" %-10.10s %4d %4d %4d %5s", name, c->index, c->cpu, c->node, a);
			factor_cells(u, c->factor);
		} else {
			putf(" %-10.10s %4d %7d %s", name, c->index, c->tid, sbuf_str(&c->affinity));
		}
		n++;
	}
	if (!n) {
		at(row, 1);
		put(u->drill >= 0 ? "the VM has ended" : s->n_vcpus ? "no vCPU matches the filter" :
			"no vCPUs");
	}
}

/* One help line at (row, col), cut at the screen's width. */
static void help_line(int row, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void help_line(int row, int col, const char *fmt, ...)
{
	va_list ap;

	at(row, col);
	va_start(ap, fmt);
	vput(fmt, ap);
	va_end(ap);
}

static void draw_help(const struct top_state *s)
{
	int row = 2, f;

	erase();
	help_line(0, 0, "vmmprof top - keys");
	help_line(row++, 2, "1 2 3 4  nodes, VMs, vCPUs, processes;  Tab: next;  Left/Right: columns");
	help_line(row++, 2, "Up Down: select a VM;  Enter: its vCPUs;  Esc Backspace: back");
	help_line(row++, 2, "sort: c CPU  r remote  l LLC  s sharing  i IMC  u queue  m memory  n name");
	help_line(row++, 2, "      < > previous/next key;  /: filter by VM name;  q: quit");
	row++;
	help_line(row++, 0, "factor columns");
	if (s->cnt.status.len)
		help_line(row++, 2, "%s", sbuf_str(&s->cnt.status));
	help_line(row++, 2, "counted: value, quality (a apportioned, p proxy), /N%% cost share of cycles;");
	help_line(row++, 2, "narrow screens show the cost share alone when known.  Colour = severity,");
	help_line(row++, 2, "! warning !! critical without colour.  LOCAL estimate 'e': run time per");
	help_line(row++, 2, "node x VM memory on the other nodes (no counters)");
	for (f = 0; f < TOP_NFACTORS && row < LINES - 1; f++)
		help_line(row++, 2, "%-6s %-9s %s", top_factor_title(f),
		      s->cnt.state[f] == TOP_F_COUNTED ? "counted:" :
		      s->cnt.state[f] == TOP_F_ESTIMATED ? "estimate:" : "n/a:", sbuf_str(&s->factor_why[f]));
	if (s->rdt_on && row < LINES - 1)
		help_line(row++, 2, "LLC_MiB MBM_MB/s: resctrl occupancy and memory traffic of each VM's "
				"group; a node: the VMs' groups on its L3");
	for (size_t i = 0; s->rdt_on && i < s->n_vms && row < LINES - 1; i++)
		if (s->vms[i].rdt.why.len)
			help_line(row++, 2, "resctrl n/a: %s: %s", sbuf_str(&s->vms[i].name), sbuf_str(&s->vms[i].rdt.why));
	if (s->notes.len && row < LINES - 1)
		help_line(row + 1, 0, "note: %s", sbuf_str(&s->notes));
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
	case VIEW_NODES: draw_nodes(u, s); break;
	case VIEW_VMS: draw_vms(u, s); break;
	case VIEW_VCPUS: draw_vcpus(u, s); break;
	default: draw_procs(u, s); break;
	}
	if (u->editing) {
		at(LINES - 1, 0);
		putf("filter (VM name contains, Enter applies, Esc cancels): %s", u->edit);
	}
	refresh();
}

/* Typing the filter: true when the key was the editor's. */
static bool edit_key(struct ui *u, int ch)
{
	size_t n = strlen(u->edit);

	if (!u->editing)
		return false;
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		snprintf(u->filter, sizeof(u->filter), "%s", u->edit);
		u->editing = false;
	} else if (ch == 27) {
		u->editing = false;
	} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
		u->edit[n - 1] = '\0';
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(u->edit)) {
		u->edit[n] = (char)ch;
		u->edit[n + 1] = '\0';
	}
	return true;
}

/* Returns false when the user quits. */
static bool key(struct ui *u, struct top_state *s, int ch)
{
	if (u->help && ch != KEY_RESIZE && ch != ERR) {
		u->help = false;
		return ch != 'q' && ch != 3;
	}
	if (ch == 3)
		return false;
	if (ch != KEY_RESIZE && edit_key(u, ch))
		return true;
	switch (ch) {
	case 'q': case 'Q': case 3: /* Ctrl-C in raw mode */
		return false;
	case '?': case 'h': u->help = true; break;
	case '1': u->view = VIEW_NODES; break;
	case '2': u->view = VIEW_VMS; break;
	case '3': u->view = VIEW_VCPUS; u->drill = -1; break;
	case '4': u->view = VIEW_PROCS; break;
	case '\t': u->view = (u->view + 1) % VIEW_N; u->drill = -1; break;
	case 'c': u->sort = TOP_SORT_CPU; break;
	case 'r': u->sort = TOP_SORT_REMOTE; break;
	case 'm': u->sort = TOP_SORT_MEM; break;
	case 'n': u->sort = TOP_SORT_NAME; break;
	case 'l': u->sort = TOP_SORT_LLC; break;
	case 's': u->sort = TOP_SORT_SHARING; break;
	case 'i': u->sort = TOP_SORT_IMC; break;
	case 'u': u->sort = TOP_SORT_QUEUE; break;
	case '>': u->sort = (enum top_sort)((u->sort + 1) % TOP_SORT_N); break;
	case '<': u->sort = (enum top_sort)((u->sort + TOP_SORT_N - 1) % TOP_SORT_N); break;
	case '/':
		u->editing = true;
		snprintf(u->edit, sizeof(u->edit), "%s", u->filter);
		break;
	case KEY_RIGHT: u->page = 1; break;
	case KEY_LEFT: u->page = 0; break;
	case KEY_UP: case 'k': if (u->sel > 0) u->sel--; break;
	case KEY_DOWN: case 'j': if (u->sel + 1 < (int)s->n_vms) u->sel++; break;
	case '\n': case '\r': case KEY_ENTER:
		if (u->view == VIEW_VMS && u->sel < (int)s->n_vms) {
			u->drill = s->vms[u->sel].ent;
			snprintf(u->drill_name, sizeof(u->drill_name), "%s", sbuf_str(&s->vms[u->sel].name));
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
	return tui_run_source(s, delay, sort, TOP_VIEW_ALL, local_sample, NULL, err);
}

int tui_run_source(struct top_state *s, double delay, enum top_sort sort, int view,
		   top_sample_fn fn, void *ctx, struct vp_err *err)
{
	struct ui u = { view >= 0 && view < VIEW_N ? (enum view)view : VIEW_VMS, sort, 0, -1, "",
			false, false, 0, "", false, "" };
	const char *no_color = getenv("NO_COLOR");
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
	/* https://no-color.org: any non-empty NO_COLOR turns colours off */
	if (has_colors() && !(no_color && *no_color)) {
		start_color();
		use_default_colors();
		init_pair(C_HEAD, COLOR_BLACK, COLOR_GREEN);
		init_pair(C_GOOD, COLOR_GREEN, -1);
		init_pair(C_WARN, COLOR_YELLOW, -1);
		init_pair(C_BAD, COLOR_RED, -1);
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
int tui_run_source(struct top_state *s, double delay, enum top_sort sort, int view,
		   top_sample_fn fn, void *ctx, struct vp_err *err)
{
	(void)fn;
	(void)ctx;
	(void)view;
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
