/* run.c - a model applied to a counting session */
#include "model/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/swsource.h"
#include "util/alloc.h"

const char *model_run_event_spec(const struct model_run *r, size_t i)
{
	const struct model_input *in = &r->m->inputs[i];

	if (in->kind == INPUT_EVENT)
		return in->spec;
	return swsource_event_for(in->spec, r->mm.scope);
}

int model_run_init(struct model_run *r, const struct model *m, const struct model_machine *mm,
		   struct diags *d, struct vp_err *err)
{
	struct diags local;
	struct diags *dd = d ? d : &local;
	size_t i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->m = m;
	r->mm = *mm;
	evdesc_list_init(&r->events);
	r->src_prev = xcalloc(m->n_inputs + 1, sizeof(double));
	r->src_start = xcalloc(m->n_inputs + 1, sizeof(double));
	r->spec_of = xcalloc(m->n_inputs + 1, sizeof(int));
	if (!d)
		diags_init(&local);
	model_check_inputs(m, model_machine_check, &r->mm, &r->av, dd);
	for (i = 0; i < m->n_inputs; i++) {
		const struct model_input *in = &m->inputs[i];
		char *reason = NULL;

		const char *spec = model_run_event_spec(r, i);

		r->src_prev[i] = r->src_start[i] = NAN;
		r->spec_of[i] = spec ? (int)i : -1;
		if (!r->av.input_ok[i]) {
			if (!in->optional && !ret)
				ret = vp_err_set(err, VP_EUNSUPP, "model '%s' cannot run here: %s '%s' "
						 "(%s): %s", m->name, in->kind == INPUT_EVENT ?
						 "event" : "source", in->name, in->spec,
						 r->av.input_reason[i] ? r->av.input_reason[i] : "absent");
			continue;
		}
		if (!spec)
			continue;
		if (model_resolve_event(&r->mm, spec, (int)i, &r->events, &reason)) {
			/* it resolved a moment ago: only a changing machine gets here */
			r->av.input_ok[i] = false;
			free(r->av.input_reason[i]);
			r->av.input_reason[i] = reason;
			continue;
		}
		free(reason);
	}
	if (!d)
		diags_release(&local);
	return ret;
}

void model_run_release(struct model_run *r)
{
	if (r->m)
		model_avail_release(r->m, &r->av);
	evdesc_list_release(&r->events);
	free(r->src_prev);
	free(r->src_start);
	free(r->spec_of);
	memset(r, 0, sizeof(*r));
}

static double read_source(struct model_run *r, size_t i)
{
	double v;

	if (r->mm.live) {
		int ret = r->mm.live(r->mm.live_ctx, r->m->inputs[i].spec, &v, NULL);

		if (!ret)
			return v;
		if (ret != VP_ENOTFOUND)
			return NAN;
	}
	if (swsource_read_scoped(r->mm.root, r->m->inputs[i].spec, r->mm.scope, &v, NULL))
		return NAN;
	return v;
}

void model_run_bind(struct model_run *r, const int *map)
{
	size_t i, k, n = 0;

	for (i = 0; i < r->m->n_inputs; i++) {
		if (!model_run_event_spec(r, i) || !r->av.input_ok[i]) {
			r->spec_of[i] = -1;
			continue;
		}
		for (k = 0; k < r->events.n; k++)
			if (r->events.v[k].spec_index == (int)i)
				r->events.v[k].spec_index = -2 - map[n]; /* marked: not rebound twice */
		r->spec_of[i] = map[n++];
	}
	for (k = 0; k < r->events.n; k++)
		if (r->events.v[k].spec_index <= -2)
			r->events.v[k].spec_index = -2 - r->events.v[k].spec_index;
}

int model_run_renumber(struct model_run *r, int first)
{
	size_t i, n = 0;
	int *map = xcalloc(r->m->n_inputs + 1, sizeof(int));

	for (i = 0; i < r->m->n_inputs; i++)
		if (model_run_event_spec(r, i) && r->av.input_ok[i]) {
			map[n] = first + (int)n;
			n++;
		}
	model_run_bind(r, map);
	free(map);
	return (int)n;
}

void model_run_dropped(struct model_run *r, int spec_index, const char *why)
{
	size_t i;

	for (i = 0; i < r->m->n_inputs; i++)
		if (r->spec_of[i] == spec_index && r->av.input_ok[i]) {
			r->av.input_ok[i] = false;
			free(r->av.input_reason[i]);
			r->av.input_reason[i] = xstrdup(why && *why ? why : "could not be opened");
		}
}

void model_run_start(struct model_run *r)
{
	size_t i;

	for (i = 0; i < r->m->n_inputs; i++)
		if (!model_run_event_spec(r, i) && r->av.input_ok[i])
			r->src_prev[i] = r->src_start[i] = read_source(r, i);
}

void model_run_inputs(struct model_run *r, const struct cnt_session *s,
		      const struct cnt_snapshot *snap, bool total, int entity, double *inputs)
{
	size_t i;

	for (i = 0; i < r->m->n_inputs; i++) {
		const struct model_input *in = &r->m->inputs[i];

		inputs[i] = NAN;
		if (!r->av.input_ok[i])
			continue;
		if (model_run_event_spec(r, i)) {  /* an event, or a source counted by one */
			struct cnt_value v;
			struct cnt_filter f = CNT_FILTER_ANY;

			f.spec_index = r->spec_of[i];
			f.entity = entity;
			if (f.spec_index >= 0 && cnt_sum(s, snap, total, &f, &v) > 0)
				inputs[i] = v.value;
		} else {
			const struct swsource_def *def = swsource_find(in->spec);
			double now = read_source(r, i);

			if (def && def->cumulative) {
				/* NaN when either reading is */
				inputs[i] = now - (total ? r->src_start[i] : r->src_prev[i]);
				if (inputs[i] < 0)
					inputs[i] = NAN; /* a counter that went back was reset */
			} else {
				inputs[i] = now;
			}
			if (!total)
				r->src_prev[i] = now;
		}
	}
}

void model_env_fill(struct expr_env *env, const struct platform *p, const struct calib *cal,
		    double duration_s)
{
	int k;

	expr_env_init(env);
	if (p && p->topo.known) {
		env->consts[EC_NUM_CPUS] = p->topo.n_cpus;
		env->consts[EC_NUM_NODES] = p->topo.n_nodes;
		env->consts[EC_NUM_PACKAGES] = p->topo.n_packages;
		env->consts[EC_SMT_ON] = p->topo.smt_on;
		env->consts[EC_ROW_NODES] = p->topo.n_nodes; /* a node row sets 1 */
	}
	for (k = 0; cal && k < CAL_N; k++)
		env->cal[k] = cal->val[k];
	env->duration = duration_s;
}
