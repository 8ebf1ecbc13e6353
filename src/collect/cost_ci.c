/* cost_ci.c - each VM's factor costs over one-second samples: a 95 % interval, and what it accounts for */
#include "collect/cost_ci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "model/expr.h"
#include "util/alloc.h"

void cost_ci_compute(const double *v, size_t n, const struct cost_ci_ctx *ctx, struct cost_ci *out)
{
	double mean, lo, hi, w = 1;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		out->n += isfinite(v[i]) != 0;
	cmp_mean_interval(v, n, ctx->resamples ? ctx->resamples : 1000, ctx->seed, &mean, &lo, &hi);
	out->value = out->n ? mean : NAN;
	out->widen = 1;
	if (!isfinite(lo) || !isfinite(hi) || out->n < 2) {
		out->lo = out->hi = out->half = NAN;
		return;
	}
	if (isfinite(ctx->running) && ctx->running > 0 && ctx->running < 1)
		w = 1 / sqrt(ctx->running);
	out->widen = w;
	out->lo = mean - (mean - lo) * w;
	out->hi = mean + (hi - mean) * w;
	if (out->lo < 0)
		out->lo = 0;
	out->half = fmax(mean - out->lo, out->hi - mean);
	out->holds_zero = out->lo <= 0;
}

double cost_ci_running(const struct collect_frame *f)
{
	double r = NAN;
	size_t i;

	for (i = 0; i < f->n_scaling; i++) {
		double p = f->scaling[i].running_pct;

		if (isfinite(p) && (isnan(r) || p / 100 < r))
			r = p / 100;
	}
	return r;
}

/* The cost terms factor fac's cost reads (docs/method.md, "The split"). */
static bool term_of_factor(int fac, enum cost_term t)
{
	switch (t) {
	/* every cost is stall cycles: the anchor, the MLP and W_D scale them all */
	case CT_STALL_MEM: case CT_STALL_L3_MISS: case CT_RD_OCCUPANCY: case CT_RD_CYCLES:
	case CT_DRAM_LOCAL: case CT_DRAM_REMOTE: case CT_CACHE_REMOTE:
		return true;
	case CT_STALL_L2_MISS: case CT_HITM_LOCAL: case CT_L3_HIT:
		return fac == FACTOR_SHARING;
	/* x, the misses above the solo rate, splits the DRAM loads */
	case CT_LLC_MISS: case CT_INSTR:
		return fac != FACTOR_SHARING;
	case CT_NODE_BW_GBS:
		return fac == FACTOR_IMC || fac == FACTOR_QUEUE;
	case CT_TRACKER_NS: case CT_TRACKER_FULL:
		return fac == FACTOR_QUEUE;
	default:
		return false;
	}
}

struct reads {
	const struct model *m;
	bool *input, *metric;
};

static void visit_reads(void *ctx, const struct expr *node)
{
	struct reads *rd = ctx;

	if (node->k == EX_METRIC && node->id >= 0 && (size_t)node->id < rd->m->n_metrics) {
		if (!rd->metric[node->id]) {
			rd->metric[node->id] = true;
			expr_visit(rd->m->metrics[node->id].e, visit_reads, rd);
		}
	} else if (node->k == EX_INPUT && node->id >= 0 && (size_t)node->id < rd->m->n_inputs) {
		rd->input[node->id] = true;
	}
}

double cost_ci_running_factor(const struct model *m, const struct collect_frame *f, int fac)
{
	struct reads rd;
	double r = NAN;
	size_t i;
	int t;

	if (!m || fac < 0 || fac >= FACTOR_N)
		return NAN;
	rd.m = m;
	rd.input = xcalloc(m->n_inputs + 1, sizeof(bool));
	rd.metric = xcalloc(m->n_metrics + 1, sizeof(bool));
	for (t = 0; t < CT_N; t++)
		if (m->cost_term[t] && term_of_factor(fac, (enum cost_term)t))
			expr_visit(m->cost_term[t], visit_reads, &rd);
	if (m->cycles)
		expr_visit(m->cycles, visit_reads, &rd);
	for (i = 0; i < f->n_scaling; i++) {
		double p = f->scaling[i].running_pct;

		if (f->scaling[i].input < m->n_inputs && rd.input[f->scaling[i].input] &&
		    isfinite(p) && (isnan(r) || p / 100 < r))
			r = p / 100;
	}
	free(rd.input);
	free(rd.metric);
	return r;
}

void cost_ci_ctx_running(struct cost_ci_ctx *ctx, const struct model *m,
			 const struct collect_frame *f)
{
	int fac;

	ctx->running = cost_ci_running(f);
	for (fac = 0; fac < FACTOR_N; fac++)
		ctx->running_f[fac] = cost_ci_running_factor(m, f, fac);
}

void cost_ci_ctx_init(struct cost_ci_ctx *ctx, const struct model *m,
		      const struct collect_frame *f, bool calibrated)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->residency = f->residency;
	ctx->calibrated = calibrated;
	ctx->resamples = 1000;
	ctx->seed = 1;
	cost_ci_ctx_running(ctx, m, f);
}

/* Factor f's running share: its own events', else all events' (a context
 * that never set running_f has zeros there: a counted event runs > 0). */
static double factor_running(const struct cost_ci_ctx *c, int f)
{
	return isfinite(c->running_f[f]) && c->running_f[f] > 0 ? c->running_f[f] : c->running;
}

static size_t ent_at(struct cost_ci_set *s, enum cost_ci_kind kind, const char *name, int id)
{
	size_t i;

	for (i = 0; i < s->n_ent; i++)
		if (s->kind[i] == kind && s->id[i] == id && !strcmp(s->names[i], name))
			return i;
	s->names = xrealloc(s->names, (s->n_ent + 1) * sizeof(char *));
	s->kind = xrealloc(s->kind, (s->n_ent + 1) * sizeof(*s->kind));
	s->id = xrealloc(s->id, (s->n_ent + 1) * sizeof(int));
	s->v = xrealloc(s->v, (s->n_ent + 1) * sizeof(double *));
	s->names[s->n_ent] = xstrdup(name);
	s->kind[s->n_ent] = kind;
	s->id[s->n_ent] = id;
	s->v[s->n_ent] = NULL;
	return s->n_ent++;
}

static bool is_vm(const struct collect_row *r)
{
	return (r->kind == ENT_VM || r->kind == ENT_PROCESS) && r->name;
}

/* A vCPU (or thread) row of a named VM: its VM's name, else NULL. */
static const char *vcpu_vm(const struct collect_frame *fr, const struct collect_row *r)
{
	if ((r->kind != ENT_VCPU && r->kind != ENT_THREAD) || r->vm_row >= fr->n_rows ||
	    !is_vm(&fr->rows[r->vm_row]))
		return NULL;
	return fr->rows[r->vm_row].name;
}

/* The entities of fr, in order: VMs, vCPUs, then the nodes its threads ran on. */
struct ent_cost {
	size_t k;
	double pct[FACTOR_N];
};

static size_t frame_ents(struct cost_ci_set *s, const struct collect_frame *fr,
			 struct ent_cost **out)
{
	struct ent_cost *e = xcalloc(2 * fr->n_rows + 1, sizeof(*e)); /* rows, then nodes */
	size_t i, j, n = 0;
	int f;

	for (i = 0; i < fr->n_rows; i++) {
		const struct collect_row *r = &fr->rows[i];
		const char *vm = vcpu_vm(fr, r);

		if (is_vm(r))
			e[n].k = ent_at(s, CCI_VM, r->name, -1);
		else if (vm && !s->skip_vcpus)
			e[n].k = ent_at(s, CCI_VCPU, vm, r->index);
		else
			continue;
		for (f = 0; f < FACTOR_N; f++)
			e[n].pct[f] = r->fv[f].cost_pct;
		n++;
	}
	/* each node a thread ran on, once (frame_diag_input()'s node costs) */
	for (i = 0; i < fr->n_rows; i++) {
		const struct collect_row *r = &fr->rows[i];
		bool seen = false;

		if ((r->kind != ENT_VCPU && r->kind != ENT_THREAD) || r->node < 0)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = (fr->rows[j].kind == ENT_VCPU || fr->rows[j].kind == ENT_THREAD) &&
			       fr->rows[j].node == r->node;
		if (seen)
			continue;
		e[n].k = ent_at(s, CCI_NODE, "", r->node);
		frame_node_cost_pct(fr, r->node, e[n].pct);
		n++;
	}
	*out = e;
	return n;
}

void cost_ci_add(struct cost_ci_set *s, const struct collect_frame *fr)
{
	struct ent_cost *e;
	size_t i, k, n;
	int f;

	n = frame_ents(s, fr, &e);
	if (s->max_s && s->n_s >= s->max_s) {
		/* the oldest sample goes */
		for (k = 0; k < s->n_ent; k++)
			if (s->v[k])
				memmove(s->v[k], s->v[k] + FACTOR_N,
					(s->n_s - 1) * FACTOR_N * sizeof(double));
		s->n_s--;
	}
	if (s->n_s == s->cap_s)
		s->cap_s = s->cap_s ? 2 * s->cap_s : 16;
	for (k = 0; k < s->n_ent; k++) {
		bool fresh = !s->v[k];

		s->v[k] = xrealloc(s->v[k], s->cap_s * FACTOR_N * sizeof(double));
		/* an entity first seen now had no cost in the samples before */
		for (i = fresh ? 0 : s->n_s; i <= s->n_s; i++)
			for (f = 0; f < FACTOR_N; f++)
				s->v[k][i * FACTOR_N + f] = NAN;
	}
	for (i = 0; i < n; i++)
		for (f = 0; f < FACTOR_N; f++)
			s->v[e[i].k][s->n_s * FACTOR_N + f] = e[i].pct[f];
	s->n_s++;
	free(e);
}

void cost_ci_finish(struct cost_ci_set *s, const struct cost_ci_ctx *ctx)
{
	double *col = xcalloc(s->n_s + 1, sizeof(double));
	size_t k, i;
	int f;

	s->ctx = *ctx;
	free(s->ci);
	s->ci = xcalloc(s->n_ent + 1, sizeof(*s->ci));
	for (k = 0; k < s->n_ent; k++) {
		for (f = 0; f < FACTOR_N; f++) {
			struct cost_ci_ctx fc = s->ctx;

			/* the factor's own events' share; all events' where it has none */
			fc.running = factor_running(&s->ctx, f);
			for (i = 0; i < s->n_s; i++)
				col[i] = s->v[k][i * FACTOR_N + f];
			cost_ci_compute(col, s->n_s, &fc, &s->ci[k][f]);
		}
	}
	free(col);
}

static const struct cost_ci *find(const struct cost_ci_set *s, enum cost_ci_kind kind,
				  const char *name, int id, int f)
{
	size_t k;

	if (!s || !s->ci || !name || f < 0 || f >= FACTOR_N)
		return NULL;
	for (k = 0; k < s->n_ent; k++)
		if (s->kind[k] == kind && s->id[k] == id && !strcmp(s->names[k], name))
			return isfinite(s->ci[k][f].value) ? &s->ci[k][f] : NULL;
	return NULL;
}

const struct cost_ci *cost_ci_find(const struct cost_ci_set *s, const char *name, int f)
{
	return find(s, CCI_VM, name, -1, f);
}

const struct cost_ci *cost_ci_find_vcpu(const struct cost_ci_set *s, const char *vm, int index,
					int f)
{
	return find(s, CCI_VCPU, vm, index, f);
}

const struct cost_ci *cost_ci_find_node(const struct cost_ci_set *s, int id, int f)
{
	return find(s, CCI_NODE, "", id, f);
}

void cost_ci_attach(const struct cost_ci_set *s, const struct diag_input *in,
		    struct diag_result *r)
{
	size_t i;

	for (i = 0; i < r->n_b; i++) {
		struct diag_bottleneck *b = &r->b[i];
		const struct cost_ci *c = NULL;

		b->ci_lo = b->ci_hi = NAN;
		b->ci_holds_zero = false;
		if (b->factor >= FACTOR_N)
			continue;
		if (b->scope == DIAG_VM && b->entity < in->n_vms)
			c = cost_ci_find(s, in->vms[b->entity].name, (int)b->factor);
		else if (b->scope == DIAG_VCPU && b->entity < in->n_vcpus &&
			 in->vcpus[b->entity].vm < in->n_vms)
			c = cost_ci_find_vcpu(s, in->vms[in->vcpus[b->entity].vm].name,
					      in->vcpus[b->entity].index, (int)b->factor);
		else if (b->scope == DIAG_NODE && b->entity < in->n_nodes)
			c = cost_ci_find_node(s, in->nodes[b->entity].id, (int)b->factor);
		if (!c || !isfinite(c->lo) || !isfinite(c->hi))
			continue;
		b->ci_lo = c->lo;
		b->ci_hi = c->hi;
		b->ci_holds_zero = c->holds_zero;
	}
}

void cost_ci_release(struct cost_ci_set *s)
{
	size_t k;

	for (k = 0; k < s->n_ent; k++) {
		free(s->names[k]);
		free(s->v[k]);
	}
	free(s->names);
	free(s->kind);
	free(s->id);
	free(s->v);
	free(s->ci);
	memset(s, 0, sizeof(*s));
}

/* What the intervals account for, in words. */
static void accounts_text(const struct cost_ci_ctx *c, struct sbuf *out)
{
	int f;
	bool any = false;

	if (isfinite(c->running) && c->running < 1) {
		sbuf_addf(out, "  multiplexing: events counted %.0f %% of the time at worst; each "
			       "factor widened by 1/sqrt of its own events' share:", 100 * c->running);
		for (f = 0; f < FACTOR_N; f++) {
			double r = factor_running(c, f);

			if (isfinite(r) && r < 1) {
				sbuf_addf(out, "%s %s x%.2f", any ? "," : "",
					  factor_name((enum factor_id)f), 1 / sqrt(r));
				any = true;
			}
		}
		sbuf_addstr(out, any ? "\n" : " none\n");
	} else if (isfinite(c->running)) {
		sbuf_addstr(out, "  multiplexing: none (every event counted all the time)\n");
	} else if (c->running_why) {
		sbuf_addf(out, "  multiplexing: %s; not in the width\n", c->running_why);
	}
	sbuf_addf(out, "  residency per node: %s%s\n", c->residency ? c->residency : "unknown",
		  c->residency && !strcmp(c->residency, "sampled") ?
		  " (once per frame: not in the width)" : "");
	if (!c->calibrated)
		sbuf_addstr(out, "  no calibration: the model's default latencies, a bias not in "
				 "the width\n");
}

void cost_ci_text(const struct cost_ci_set *s, struct sbuf *out)
{
	size_t k, from = out->len;
	int f;

	for (k = 0; k < s->n_ent && s->kind[k] != CCI_VM; k++)
		;
	if (!s->ci || s->n_s < 2 || k == s->n_ent)
		return;
	sbuf_addf(out, "\nCosts %s (mean of %zu %s ±95 %% interval by bootstrap; 'holds 0': "
		       "not distinguishable from no cost)\n",
		  s->ctx.samples ? "interval by interval" : "second by second", s->n_s,
		  s->ctx.samples ? s->ctx.samples : "one-second samples");
	for (k = 0; k < s->n_ent; k++) {
		bool any = false;

		if (s->kind[k] != CCI_VM)
			continue;
		sbuf_addtextf(out, "  %s:", s->names[k]);
		for (f = 0; f < FACTOR_N; f++) {
			const struct cost_ci *c = &s->ci[k][f];

			if (!isfinite(c->value))
				continue;
			if (any)
				sbuf_addch(out, ',');
			any = true;
			if (isfinite(c->half))
				sbuf_addf(out, " %s %.1f %% ±%.1f%s", factor_name((enum factor_id)f),
					  c->value, c->half, c->holds_zero ? " (holds 0)" : "");
			else
				sbuf_addf(out, " %s %.1f %% (one sample)", factor_name((enum factor_id)f),
					  c->value);
		}
		sbuf_addstr(out, any ? "\n" : " no cost known in any sample\n");
	}
	accounts_text(&s->ctx, out);
	/* VM names: no escape sequence reaches a terminal */
	sbuf_sanitize(out, from, true);
}

/* "vms", "vcpus" or "nodes": each entity of kind with its costs' intervals. */
static void ci_json_ents(const struct cost_ci_set *s, enum cost_ci_kind kind, const char *key,
			 struct jw *w)
{
	size_t k;
	int f;

	jw_key(w, key);
	jw_arr_begin(w);
	for (k = 0; s->ci && k < s->n_ent; k++) {
		if (s->kind[k] != kind)
			continue;
		jw_obj_begin(w);
		if (kind == CCI_NODE) {
			jw_kint(w, "node", s->id[k]);
		} else {
			jw_kstr(w, "vm", s->names[k]);
			if (kind == CCI_VCPU)
				jw_kint(w, "vcpu", s->id[k]);
		}
		jw_key(w, "costs");
		jw_obj_begin(w);
		for (f = 0; f < FACTOR_N; f++) {
			const struct cost_ci *c = &s->ci[k][f];

			jw_key(w, factor_name((enum factor_id)f));
			if (!isfinite(c->value)) {
				jw_null(w);
				continue;
			}
			jw_obj_begin(w);
			jw_kdouble(w, "value", c->value);
			jw_kdouble(w, "lo", c->lo);
			jw_kdouble(w, "hi", c->hi);
			jw_kuint(w, "n", c->n);
			jw_kdouble(w, "widened_by", c->widen);
			jw_kbool(w, "holds_zero", c->holds_zero);
			jw_obj_end(w);
		}
		jw_obj_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

void cost_ci_json(const struct cost_ci_set *s, struct jw *w)
{
	int f;

	jw_obj_begin(w);
	jw_kuint(w, "samples", s->n_s);
	jw_kdouble(w, "confidence", 0.95);
	jw_key(w, "accounts_for");
	jw_obj_begin(w);
	{
		char *spread = xasprintf("percentile bootstrap of the mean over %s",
					 s->ctx.samples ? s->ctx.samples : "one-second samples");

		jw_kstr(w, "spread", spread);
		free(spread);
	}
	jw_kdouble(w, "multiplexing_running_ratio", s->ctx.running);
	if (!isfinite(s->ctx.running) && s->ctx.running_why)
		jw_kstr(w, "multiplexing_why", s->ctx.running_why);
	jw_key(w, "multiplexing_running_ratio_by_factor");
	jw_obj_begin(w);
	for (f = 0; f < FACTOR_N; f++)
		jw_kdouble(w, factor_name((enum factor_id)f), factor_running(&s->ctx, f));
	jw_obj_end(w);
	jw_kstr(w, "residency", s->ctx.residency ? s->ctx.residency : "unknown");
	jw_kbool(w, "calibrated", s->ctx.calibrated);
	jw_obj_end(w);
	ci_json_ents(s, CCI_VM, "vms", w);
	ci_json_ents(s, CCI_VCPU, "vcpus", w);
	ci_json_ents(s, CCI_NODE, "nodes", w);
	jw_obj_end(w);
}

static size_t count_of(const struct jv *o, const char *key)
{
	double v = jv_num(o, key);

	return isfinite(v) && v >= 0 && v < 1e15 ? (size_t)v : 0;
}

/* One entity's "costs" object read back into ci[FACTOR_N]. */
static void ci_from_json(struct cost_ci *ci, const struct jv *costs)
{
	int f;

	for (f = 0; f < FACTOR_N; f++) {
		struct cost_ci *c = &ci[f];
		const struct jv *o = costs ? jv_get(costs, factor_name((enum factor_id)f)) : NULL;

		memset(c, 0, sizeof(*c));
		c->value = c->lo = c->hi = c->half = NAN;
		c->widen = 1;
		if (!o || o->type != JV_OBJ)
			continue;
		c->value = jv_num(o, "value");
		c->lo = jv_num(o, "lo");
		c->hi = jv_num(o, "hi");
		c->n = count_of(o, "n");
		c->widen = jv_num(o, "widened_by");
		c->holds_zero = jv_get(o, "holds_zero") && jv_get(o, "holds_zero")->b;
		if (isfinite(c->lo) && isfinite(c->hi))
			c->half = fmax(c->value - c->lo, c->hi - c->value);
	}
}

int cost_ci_from_json(struct cost_ci_set *s, const struct jv *v)
{
	const struct jv *a, *vms, *bf;
	size_t k;
	int f;

	memset(s, 0, sizeof(*s));
	if (!v || v->type != JV_OBJ || !(vms = jv_arr(v, "vms")))
		return -1;
	s->n_s = count_of(v, "samples");
	a = jv_get(v, "accounts_for");
	s->ctx.running = a ? jv_num(a, "multiplexing_running_ratio") : NAN;
	s->ctx.running_why = a ? jv_str(a, "multiplexing_why") : NULL;
	s->ctx.residency = a ? jv_str(a, "residency") : NULL;
	s->ctx.calibrated = a && jv_get(a, "calibrated") && jv_get(a, "calibrated")->b;
	bf = a ? jv_get(a, "multiplexing_running_ratio_by_factor") : NULL;
	for (f = 0; f < FACTOR_N; f++)
		s->ctx.running_f[f] = bf ? jv_num(bf, factor_name((enum factor_id)f)) : NAN;
	{
		const char *spread = a ? jv_str(a, "spread") : NULL;

		/* "... over recorded intervals": what a sample is, as the producer said */
		if (spread && strstr(spread, " over ") && !strstr(spread, "one-second samples"))
			s->ctx.samples = strstr(spread, " over ") + 6;
	}
	{
		static const char *const keys[3] = { "vms", "vcpus", "nodes" };
		static const enum cost_ci_kind kinds[3] = { CCI_VM, CCI_VCPU, CCI_NODE };
		size_t n = 0, j, e = 0;

		for (j = 0; j < 3; j++)
			n += jv_arr(v, keys[j]) ? jv_arr(v, keys[j])->n : 0;
		s->names = xcalloc(n + 1, sizeof(char *));
		s->kind = xcalloc(n + 1, sizeof(*s->kind));
		s->id = xcalloc(n + 1, sizeof(int));
		s->v = xcalloc(n + 1, sizeof(double *));
		s->ci = xcalloc(n + 1, sizeof(*s->ci));
		for (j = 0; j < 3; j++) {
			const struct jv *arr = jv_arr(v, keys[j]);

			for (k = 0; arr && k < arr->n; k++, e++) {
				const struct jv *x = &arr->items[k], *costs = jv_get(x, "costs");
				const char *name = jv_str(x, "vm");
				double id = jv_num(x, kinds[j] == CCI_NODE ? "node" : "vcpu");

				s->kind[e] = kinds[j];
				s->names[e] = xstrdup(kinds[j] == CCI_NODE ? "" : name ? name : "?");
				s->id[e] = kinds[j] != CCI_VM && isfinite(id) && fabs(id) < 1e9 ?
					   (int)id : -1;
				ci_from_json(s->ci[e], costs);
			}
		}
		s->n_ent = e;
	}
	return 0;
}
