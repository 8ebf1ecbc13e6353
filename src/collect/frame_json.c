/* frame_json.c - one collector frame as the daemon's frame JSON (schema vmmprof-frame/1) */
#include "collect/frame_json.h"

#include <math.h>

/* Whether factor f is unavailable in every row of this frame; *reason why. */
static bool factor_off(const struct frame_meta *meta, const struct model *m, int f,
		       const char **reason)
{
	const struct model_factor *fa = &m->factors[f];

	if (fa->quality == VQ_UNAVAILABLE) {
		*reason = fa->reason;
		return true;
	}
	if (meta->av && !meta->av->factor_ok[f]) {
		*reason = meta->av->factor_reason[f];
		return true;
	}
	*reason = NULL;
	return false;
}

/* An unavailable factor's object: the same in every row. */
static void factor_off_json(struct jw *w, const char *reason)
{
	jw_obj_begin(w);
	jw_kdouble(w, "score", NAN);
	jw_kdouble(w, "cost_cycles", NAN);
	jw_kdouble(w, "cost_pct", NAN);
	jw_kstr(w, "quality", "unavailable");
	jw_kstr(w, "reason", reason ? reason : "not available here");
	jw_obj_end(w);
}

/* off: factor f's object when it is unavailable in every row, written once per frame */
static void factor_json(struct jw *w, const struct frame_meta *meta, const struct model *m,
			const struct collect_frame *fr, const struct collect_row *r, int f,
			const struct sbuf *off)
{
	const char *reason;

	jw_key(w, factor_name((enum factor_id)f));
	if (off && off->len) {
		jw_raw(w, off->buf, off->len);
		return;
	}
	if (factor_off(meta, m, f, &reason)) {
		factor_off_json(w, reason);
		return;
	}
	jw_obj_begin(w);
	jw_kdouble(w, "score", r->fv[f].score);
	jw_kdouble(w, "cost_cycles", r->fv[f].cost_cycles);
	jw_kdouble(w, "cost_pct", r->fv[f].cost_pct);
	/* the word report, top and /metrics say of the same value: unavailable too when the
	 * row has neither a score nor a cost in this interval */
	jw_kstr(w, "quality", vp_quality_name(frame_value_quality(m, fr, r, f)));
	if (isnan(r->fv[f].score) && isnan(r->fv[f].cost_cycles))
		jw_kstr(w, "reason", r->cost.why[f] ? r->cost.why[f] :
				     "no score and no cost for this row in the interval");
	else if (isnan(r->fv[f].cost_cycles))
		jw_kstr(w, "cost_why", r->cost.why[f] ? r->cost.why[f] :
				       "no cost was computed for this row");
	else
		jw_kstr(w, "cost_quality", vp_quality_name(frame_cost_quality(m, fr, r, f)));
	jw_obj_end(w);
}

/* The cost stage's budget and what no single factor owns (docs/method.md "Costs"). */
static void costs_json(struct jw *w, const struct collect_row *r)
{
	const struct cost_out *c = &r->cost;
	bool none = c->anchor == ANCHOR_NONE; /* no split: nothing below is a number */

	jw_key(w, "costs");
	jw_obj_begin(w);
	jw_kstr(w, "anchor", cost_anchor_name(c->anchor));
	jw_kdouble(w, "budget_cycles", none ? NAN : c->budget);
	jw_kdouble(w, "remainder_cycles", none ? NAN : c->remainder);
	jw_kdouble(w, "base_cycles", none ? NAN : c->base);
	jw_kdouble(w, "llc_base_cycles", none ? NAN : c->llc_base);
	jw_kdouble(w, "mlp", none ? NAN : c->mlp);
	jw_kbool(w, "suspect", c->suspect);
	jw_kstr(w, "anchor_why", c->anchor_why);
	jw_obj_end(w);
}

static void row_json(struct jw *w, const struct frame_meta *meta, const struct model *m,
		     const struct collect_frame *fr, const struct collect_row *r,
		     const struct sbuf *off)
{
	bool vcpu = r->kind == ENT_VCPU || r->kind == ENT_THREAD;
	bool node = r->kind == ENT_NODE;
	size_t i;
	int f;

	jw_obj_begin(w);
	jw_kstr(w, "kind", ent_kind_name(r->kind));
	jw_kstr(w, "key", r->key);
	if (node) {
		/* a node's own counts; split: a package's counts shared by its nodes */
		jw_kint(w, "node", r->node);
		jw_kstr(w, "quality", r->apportioned ? "apportioned" : "measured");
	} else if (!vcpu) {
		jw_kstr(w, "name", r->name);
		jw_kint_or_null(w, "pid", r->pid);
		jw_kint(w, "domid", r->domid);
	}
	if (!node) {
		jw_kuint(w, "vm_row", r->vm_row);
		/* the incarnation (with pid) and where it is in its life */
		jw_kdouble(w, "started", r->started > 0 ? r->started : NAN);
		jw_kstr(w, "state", row_state_name(r->state));
	}
	if (vcpu) {
		jw_kint_or_null(w, "index", r->index);
		jw_kint_or_null(w, "tid", r->tid);
		jw_kint_or_null(w, "cpu", r->cpu);
		jw_kint_or_null(w, "node", r->node);
		/* the window its run-queue wait (sched.* inputs, wait_frac) was measured over */
		jw_kdouble(w, "sched_window_s", r->sched_window_s > 0 ? r->sched_window_s : NAN);
	}
	jw_kdouble(w, "cycles", r->cycles);
	jw_key(w, "metrics");
	jw_obj_begin(w);
	for (i = 0; i < m->n_metrics; i++)
		jw_kdouble(w, m->metrics[i].name, r->metrics ? r->metrics[i] : NAN);
	jw_obj_end(w);
	if (!node && r->apportioned && fr->metric_node) {
		/* the metrics whose values here are shares of per-node counts */
		jw_key(w, "apportioned");
		jw_arr_begin(w);
		for (i = 0; i < m->n_metrics; i++)
			if (frame_metric_apportioned(fr, r, i))
				jw_str(w, m->metrics[i].name);
		jw_arr_end(w);
	}
	jw_key(w, "factors");
	jw_obj_begin(w);
	for (f = 0; f < FACTOR_N; f++)
		factor_json(w, meta, m, fr, r, f, off ? &off[f] : NULL);
	jw_obj_end(w);
	costs_json(w, r);
	jw_obj_end(w);
}

void frame_json_write(struct jw *w, const struct frame_meta *meta, const struct model *m,
		      const struct collect_frame *f)
{
	/* an unavailable factor's object (a quarter of a row's text, and its longest
	 * strings, under the software model) escaped once per frame, not once per row */
	struct sbuf off[FACTOR_N];
	const char *reason;
	size_t i;
	int k;

	for (k = 0; k < FACTOR_N; k++) {
		sbuf_init(&off[k]);
		if (!w->pretty && factor_off(meta, m, k, &reason)) {
			struct jw o;

			jw_init(&o, &off[k], false);
			factor_off_json(&o, reason);
		}
	}

	jw_obj_begin(w);
	jw_kstr(w, "schema", "vmmprof-frame/1");
	jw_kstr(w, "session", meta->session);
	jw_kuint(w, "seq", meta->seq);
	jw_kdouble(w, "time", meta->time);
	jw_kdouble(w, "duration", f->duration);
	jw_kstr(w, "model", m->name);
	jw_key(w, "rows");
	jw_arr_begin(w);
	for (i = 0; i < f->n_rows; i++)
		row_json(w, meta, m, f, &f->rows[i], off);
	jw_arr_end(w);
	if (f->n_nodes) {
		jw_key(w, "nodes");
		jw_arr_begin(w);
		for (i = 0; i < f->n_nodes; i++)
			row_json(w, meta, m, f, &f->nodes[i], off);
		jw_arr_end(w);
	}
	jw_key(w, "scaling");
	jw_arr_begin(w);
	for (i = 0; i < f->n_scaling; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "event", f->scaling[i].event);
		jw_kdouble(w, "running_pct", f->scaling[i].running_pct);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_kstr(w, "notes", f->notes.len ? sbuf_str(&f->notes) : NULL);
	jw_obj_end(w);
	for (k = 0; k < FACTOR_N; k++)
		sbuf_release(&off[k]);
}
