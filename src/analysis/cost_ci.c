/* cost_ci.c - each VM's factor costs over one-second samples: a 95 % interval, and what it accounts for */
#include "analysis/cost_ci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
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

static size_t vm_at(struct cost_ci_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_vms; i++)
		if (!strcmp(s->names[i], name))
			return i;
	s->names = xrealloc(s->names, (s->n_vms + 1) * sizeof(char *));
	s->v = xrealloc(s->v, (s->n_vms + 1) * sizeof(double *));
	s->names[s->n_vms] = xstrdup(name);
	s->v[s->n_vms] = NULL;
	return s->n_vms++;
}

static bool is_vm(const struct collect_row *r)
{
	return (r->kind == ENT_VM || r->kind == ENT_PROCESS) && r->name;
}

void cost_ci_add(struct cost_ci_set *s, const struct collect_frame *fr)
{
	size_t i, k;
	int f;

	for (i = 0; i < fr->n_rows; i++)
		if (is_vm(&fr->rows[i]))
			vm_at(s, fr->rows[i].name);
	if (s->n_s == s->cap_s)
		s->cap_s = s->cap_s ? 2 * s->cap_s : 16;
	for (k = 0; k < s->n_vms; k++) {
		bool fresh = !s->v[k];

		s->v[k] = xrealloc(s->v[k], s->cap_s * FACTOR_N * sizeof(double));
		/* a VM first seen now had no cost in the samples before */
		for (i = fresh ? 0 : s->n_s; i <= s->n_s; i++)
			for (f = 0; f < FACTOR_N; f++)
				s->v[k][i * FACTOR_N + f] = NAN;
	}
	for (i = 0; i < fr->n_rows; i++) {
		const struct collect_row *r = &fr->rows[i];

		if (!is_vm(r))
			continue;
		k = vm_at(s, r->name);
		for (f = 0; f < FACTOR_N; f++)
			s->v[k][s->n_s * FACTOR_N + f] = r->fv[f].cost_pct;
	}
	s->n_s++;
}

void cost_ci_finish(struct cost_ci_set *s, const struct cost_ci_ctx *ctx)
{
	double *col = xcalloc(s->n_s + 1, sizeof(double));
	size_t k, i;
	int f;

	s->ctx = *ctx;
	free(s->ci);
	s->ci = xcalloc(s->n_vms + 1, sizeof(*s->ci));
	for (k = 0; k < s->n_vms; k++) {
		for (f = 0; f < FACTOR_N; f++) {
			for (i = 0; i < s->n_s; i++)
				col[i] = s->v[k][i * FACTOR_N + f];
			cost_ci_compute(col, s->n_s, &s->ctx, &s->ci[k][f]);
		}
	}
	free(col);
}

const struct cost_ci *cost_ci_find(const struct cost_ci_set *s, const char *name, int f)
{
	size_t k;

	if (!s || !s->ci || !name || f < 0 || f >= FACTOR_N)
		return NULL;
	for (k = 0; k < s->n_vms; k++)
		if (!strcmp(s->names[k], name))
			return isfinite(s->ci[k][f].value) ? &s->ci[k][f] : NULL;
	return NULL;
}

void cost_ci_release(struct cost_ci_set *s)
{
	size_t k;

	for (k = 0; k < s->n_vms; k++) {
		free(s->names[k]);
		free(s->v[k]);
	}
	free(s->names);
	free(s->v);
	free(s->ci);
	memset(s, 0, sizeof(*s));
}

/* What the intervals account for, in words. */
static void accounts_text(const struct cost_ci_ctx *c, struct sbuf *out)
{
	if (isfinite(c->running) && c->running < 1)
		sbuf_addf(out, "  multiplexing: events counted %.0f %% of the time at worst; widened "
			       "x%.2f (1/sqrt of that share)\n", 100 * c->running, 1 / sqrt(c->running));
	else if (isfinite(c->running))
		sbuf_addstr(out, "  multiplexing: none (every event counted all the time)\n");
	sbuf_addf(out, "  residency per node: %s%s\n", c->residency ? c->residency : "unknown",
		  c->residency && !strcmp(c->residency, "sampled") ?
		  " (once per frame: not in the width)" : "");
	if (!c->calibrated)
		sbuf_addstr(out, "  no calibration: the model's default latencies, a bias not in "
				 "the width\n");
}

void cost_ci_text(const struct cost_ci_set *s, struct sbuf *out)
{
	size_t k;
	int f;

	if (!s->ci || s->n_s < 2 || !s->n_vms)
		return;
	sbuf_addf(out, "\nCosts second by second (mean of %zu one-second samples ±95 %% interval by "
		       "bootstrap; 'holds 0': not distinguishable from no cost)\n", s->n_s);
	for (k = 0; k < s->n_vms; k++) {
		bool any = false;

		sbuf_addf(out, "  %s:", s->names[k]);
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
}

void cost_ci_json(const struct cost_ci_set *s, struct jw *w)
{
	size_t k;
	int f;

	jw_obj_begin(w);
	jw_kuint(w, "samples", s->n_s);
	jw_kdouble(w, "confidence", 0.95);
	jw_key(w, "accounts_for");
	jw_obj_begin(w);
	jw_kstr(w, "spread", "percentile bootstrap of the mean over one-second samples");
	jw_kdouble(w, "multiplexing_running_ratio", s->ctx.running);
	jw_kstr(w, "residency", s->ctx.residency ? s->ctx.residency : "unknown");
	jw_kbool(w, "calibrated", s->ctx.calibrated);
	jw_obj_end(w);
	jw_key(w, "vms");
	jw_arr_begin(w);
	for (k = 0; s->ci && k < s->n_vms; k++) {
		jw_obj_begin(w);
		jw_kstr(w, "vm", s->names[k]);
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
	jw_obj_end(w);
}
