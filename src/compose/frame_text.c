/* frame_text.c - frames as the timeline table of `vmmprof report`, and frames read back from the frame JSON */
#include "compose/frame_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strmap.h"
#include "util/table.h"

/* A row's label: "web", "web/vCPU 1". */
static void row_label(const struct collect_frame *f, const struct collect_row *r, char *buf,
		      size_t size)
{
	const char *st = r->state == RS_RUNNING ? "" : r->state == RS_PAUSED ? " (paused)" : " (ended)";

	/* a VM's row names its incarnation: one restarted under its name has another pid */
	if ((r->kind == ENT_VM || r->kind == ENT_PROCESS) && r->pid > 0)
		snprintf(buf, size, "%s [pid %d]%s", r->name ? r->name : "?", r->pid, st);
	else if (r->kind == ENT_VM || r->kind == ENT_PROCESS)
		snprintf(buf, size, "%s%s", r->name ? r->name : "?", st);
	else
		snprintf(buf, size, "%s/%s %d%s", f->rows[r->vm_row].name ? f->rows[r->vm_row].name : "?",
			 r->kind == ENT_THREAD ? "thread" : "vCPU", r->index, st);
}

static void num(char *buf, size_t size, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, size, fmt, v);
	else
		snprintf(buf, size, "n/a");
}

/* The factor columns' titles (">locality", ...) into cols[0 .. FACTOR_N). */
static void factor_titles(const char **cols, char titles[FACTOR_N][24])
{
	int k;

	for (k = 0; k < FACTOR_N; k++) {
		snprintf(titles[k], sizeof(titles[k]), ">%s", factor_name((enum factor_id)k));
		cols[k] = titles[k];
	}
}

/* A factor's cell: n/a where the model cannot see it, else vp_factor_cell(): its cost in %,
 * else its score "sN", each with its quality mark, as diagnose and top print them. */
static void factor_cell(struct table *t, const struct model *m, int k, double cost_pct,
			enum vp_quality cost_q, double score, enum vp_quality score_q)
{
	char b[48];

	if (m->factors[k].quality == VQ_UNAVAILABLE)
		table_cell(t, "n/a");
	else
		table_cell(t, "%s", vp_factor_cell(b, sizeof(b), cost_pct, cost_q, score, score_q));
}

void frame_text_table(struct table *t)
{
	const char *cols[4 + FACTOR_N];
	char titles[FACTOR_N][24];

	cols[0] = ">t(s)";
	cols[1] = "entity";
	cols[2] = ">node";
	cols[3] = ">cycles";
	factor_titles(cols + 4, titles);
	table_init(t, 4 + FACTOR_N, cols);
}

/* One timeline row: label, node, cycles, each factor's cost share or score. */
static void text_row(struct table *t, const struct collect_frame *fr, const struct collect_row *r,
		     const char *label, double t_s, const struct model *m)
{
	char b[32];
	int k;

	table_row(t);
	table_cell(t, "%.1f", t_s);
	table_cell(t, "%s", label);
	if (r->node >= 0)
		table_cell(t, "%d", r->node);
	else
		table_cell(t, "-");
	num(b, sizeof(b), r->cycles, "%.3g");
	table_cell(t, "%s", b);
	for (k = 0; k < FACTOR_N; k++)
		factor_cell(t, m, k, r->fv[k].cost_pct, frame_cost_quality(m, fr, r, k), r->fv[k].score,
			    frame_factor_quality(m, fr, r, k));
}

void frame_text_rows(struct table *t, const struct collect_frame *fr, double t_s,
		     const struct model *m)
{
	char b[96];
	size_t i;

	for (i = 0; i < fr->n_rows; i++) {
		row_label(fr, &fr->rows[i], b, sizeof(b));
		text_row(t, fr, &fr->rows[i], b, t_s, m);
	}
	/* the node rows: the model on each node's own (per-node event) counts */
	for (i = 0; i < fr->n_nodes; i++) {
		const struct collect_row *r = &fr->nodes[i];

		snprintf(b, sizeof(b), "node %d%s", r->node, r->apportioned ? " (split)" : "");
		text_row(t, fr, r, b, t_s, m);
	}
}

struct sum_ent {
	char *key, *label;
	size_t n, paused;
	bool ended;
	double first_t, last_t;
	double cycles;
	size_t n_cycles;
	double cost[FACTOR_N], score[FACTOR_N];
	size_t n_cost[FACTOR_N], n_score[FACTOR_N];
	enum vp_quality cost_q[FACTOR_N], score_q[FACTOR_N]; /* of the last interval that had one */
};

struct frame_summary {
	struct strmap keys;             /* key -> index in e */
	struct sum_ent *e;
	size_t n, cap;
};

struct frame_summary *frame_summary_new(void)
{
	struct frame_summary *s = xcalloc(1, sizeof(*s));

	strmap_init(&s->keys);
	return s;
}

static void summary_row(struct frame_summary *s, const struct model *m,
			const struct collect_frame *fr, const struct collect_row *r, const char *key,
			double t_s)
{
	struct sum_ent *e;
	size_t k;
	int f;

	if (!strmap_get(&s->keys, key, &k)) {
		char b[96];
		struct collect_row plain = *r;

		plain.state = RS_RUNNING; /* the label without this frame's state */
		if (r->kind == ENT_NODE)
			snprintf(b, sizeof(b), "node %d%s", r->node, r->apportioned ? " (split)" : "");
		else
			row_label(fr, &plain, b, sizeof(b));
		VP_GROW(s->e, s->cap, s->n + 1);
		k = s->n++;
		e = &s->e[k];
		memset(e, 0, sizeof(*e));
		e->key = xstrdup(key);
		e->label = xstrdup(b);
		e->first_t = t_s;
		strmap_put(&s->keys, e->key, k);
	}
	e = &s->e[k];
	e->n++;
	e->last_t = t_s;
	e->paused += r->state == RS_PAUSED;
	e->ended |= r->state == RS_ENDED;
	if (isfinite(r->cycles)) {
		e->cycles += r->cycles;
		e->n_cycles++;
	}
	for (f = 0; f < FACTOR_N; f++) {
		if (isfinite(r->fv[f].cost_pct)) {
			e->cost[f] += r->fv[f].cost_pct;
			e->n_cost[f]++;
			e->cost_q[f] = frame_cost_quality(m, fr, r, f);
		}
		if (isfinite(r->fv[f].score)) {
			e->score[f] += r->fv[f].score;
			e->n_score[f]++;
			e->score_q[f] = frame_factor_quality(m, fr, r, f);
		}
	}
}

void frame_summary_add(struct frame_summary *s, const struct model *m, const struct collect_frame *fr,
		       double t_s)
{
	char key[32];
	size_t i;

	for (i = 0; i < fr->n_rows; i++)
		if (fr->rows[i].key)
			summary_row(s, m, fr, &fr->rows[i], fr->rows[i].key, t_s);
	for (i = 0; i < fr->n_nodes; i++) {
		snprintf(key, sizeof(key), "node:%d", fr->nodes[i].node);
		summary_row(s, m, fr, &fr->nodes[i], key, t_s);
	}
}

void frame_summary_table(const struct frame_summary *s, const struct model *m, struct table *t)
{
	const char *cols[6 + FACTOR_N];
	char titles[FACTOR_N][24];
	size_t i;
	int k;

	cols[0] = "entity";
	cols[1] = ">intervals";
	cols[2] = ">from(s)";
	cols[3] = ">to(s)";
	cols[4] = ">cycles";
	factor_titles(cols + 5, titles);
	cols[5 + FACTOR_N] = "state";
	table_init(t, 6 + FACTOR_N, cols);
	for (i = 0; i < s->n; i++) {
		const struct sum_ent *e = &s->e[i];
		char b[48];

		table_row(t);
		table_cell(t, "%s", e->label);
		table_cell(t, "%zu", e->n);
		table_cell(t, "%.1f", e->first_t);
		table_cell(t, "%.1f", e->last_t);
		num(b, sizeof(b), e->n_cycles ? e->cycles / (double)e->n_cycles : NAN, "%.3g");
		table_cell(t, "%s", b);
		for (k = 0; k < FACTOR_N; k++)
			factor_cell(t, m, k, e->n_cost[k] ? e->cost[k] / (double)e->n_cost[k] : NAN,
				    e->cost_q[k], e->n_score[k] ? e->score[k] / (double)e->n_score[k] : NAN,
				    e->score_q[k]);
		if (e->paused && e->ended)
			table_cell(t, "paused in %zu, ended", e->paused);
		else if (e->paused)
			table_cell(t, "paused in %zu", e->paused);
		else
			table_cell(t, "%s", e->ended ? "ended" : "");
	}
}

void frame_summary_free(struct frame_summary *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->e[i].key);
		free(s->e[i].label);
	}
	free(s->e);
	strmap_release(&s->keys);
	free(s);
}

static int kind_of(const char *s, enum ent_kind *k)
{
	static const enum ent_kind all[] = { ENT_VM, ENT_VCPU, ENT_PROCESS, ENT_THREAD };
	size_t i;

	for (i = 0; s && i < VP_ARRAY_SIZE(all); i++) {
		if (!strcmp(s, ent_kind_name(all[i]))) {
			*k = all[i];
			return 0;
		}
	}
	return -1;
}

static int int_or(const struct jv *o, const char *key, int dflt)
{
	double v = jv_num(o, key);

	return isfinite(v) ? (int)v : dflt;
}

/*
 * A row's cycles and factor values (no placement estimate, no memory-stall
 * metric in the frame JSON); unavailable[k] is cleared when factor k has a
 * quality (may be NULL).
 */
static void values_from_json(const struct jv *o, struct collect_row *r, bool *unavailable)
{
	const struct jv *fs = jv_get(o, "factors");
	int k;

	r->cycles = jv_num(o, "cycles");
	r->mem_stall = NAN;
	r->remote.v = NAN;
	r->remote.q = VQ_UNAVAILABLE;
	for (k = 0; k < FACTOR_N; k++) {
		const struct jv *e = jv_get(fs, factor_name((enum factor_id)k));
		const char *q = jv_str(e, "quality");

		r->fv[k].score = jv_num(e, "score");
		r->fv[k].cost_cycles = jv_num(e, "cost_cycles");
		r->fv[k].cost_pct = jv_num(e, "cost_pct");
		if (unavailable && (!q || strcmp(q, "unavailable")))
			unavailable[k] = false;
	}
}

int frame_from_json(const struct jv *v, struct collect_frame *f, bool unavailable[FACTOR_N],
		    struct vp_err *err)
{
	const struct jv *rows = jv_arr(v, "rows"), *nodes = jv_arr(v, "nodes");
	size_t i;
	int k;

	memset(f, 0, sizeof(*f));
	if (!rows || !isfinite(jv_num(v, "duration")))
		return vp_err_set(err, VP_EFORMAT, "not a frame (vmmprof-frame/1): no rows or duration");
	for (k = 0; k < FACTOR_N; k++)
		unavailable[k] = rows->n > 0;
	f->duration = jv_num(v, "duration");
	f->t_ns = isfinite(jv_num(v, "time")) ? (uint64_t)(jv_num(v, "time") * 1e9) : 0;
	f->cpu_mhz = NAN;
	sbuf_set(&f->notes, jv_str(v, "notes") ? jv_str(v, "notes") : "");
	f->rows = xcalloc(rows->n ? rows->n : 1, sizeof(*f->rows));
	for (i = 0; i < rows->n; i++) {
		const struct jv *o = &rows->items[i];
		struct collect_row *r = &f->rows[f->n_rows];
		double vr = jv_num(o, "vm_row");

		if (kind_of(jv_str(o, "kind"), &r->kind) || !isfinite(vr) || (size_t)vr >= rows->n) {
			collect_frame_release(f);
			return vp_err_set(err, VP_EFORMAT, "frame row %zu has no known kind or vm_row", i);
		}
		f->n_rows++;
		r->ent = -1;
		r->vm_row = (size_t)vr;
		r->name = jv_str(o, "name") ? xstrdup(jv_str(o, "name")) : NULL;
		r->key = jv_str(o, "key") ? xstrdup(jv_str(o, "key")) : NULL;
		r->pid = int_or(o, "pid", -1);
		r->started = jv_num(o, "started");
		r->state = jv_str(o, "state") && !strcmp(jv_str(o, "state"), "paused") ? RS_PAUSED :
			   jv_str(o, "state") && !strcmp(jv_str(o, "state"), "ended") ? RS_ENDED :
			   RS_RUNNING;
		r->domid = int_or(o, "domid", -1);
		r->index = int_or(o, "index", -1);
		r->tid = int_or(o, "tid", -1);
		r->cpu = int_or(o, "cpu", -1);
		r->node = int_or(o, "node", -1);
		values_from_json(o, r, unavailable);
	}
	if (nodes) {
		f->nodes = xcalloc(nodes->n ? nodes->n : 1, sizeof(*f->nodes));
		for (i = 0; i < nodes->n; i++) {
			const struct jv *o = &nodes->items[i];
			struct collect_row *r = &f->nodes[f->n_nodes];
			const char *q = jv_str(o, "quality");

			if (!jv_str(o, "kind") || strcmp(jv_str(o, "kind"), "node") ||
			    int_or(o, "node", -1) < 0) {
				collect_frame_release(f);
				return vp_err_set(err, VP_EFORMAT, "frame node row %zu has no node", i);
			}
			f->n_nodes++;
			r->ent = -1;
			r->kind = ENT_NODE;
			r->key = jv_str(o, "key") ? xstrdup(jv_str(o, "key")) : NULL;
			r->pid = r->domid = r->index = r->tid = r->cpu = -1;
			r->node = int_or(o, "node", -1);
			r->apportioned = q && !strcmp(q, "apportioned");
			values_from_json(o, r, NULL);
		}
	}
	return 0;
}
