/* topcount.c - the counters of `vmmprof top`: a collector view over the VMs shown, its frames into the factor columns */
#include "top/topcount.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "model/run.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/strmap.h"

const char *top_fstate_name(enum top_fstate st)
{
	static const char *const n[] = { "counted", "estimated", "unavailable" };

	return st <= TOP_F_UNAVAILABLE ? n[st] : "?";
}

/* A reason that lives as long as the rows of this sample (one copy per distinct text). */
static const char *intern(struct top_counting *c, const char *text)
{
	size_t i;

	for (i = 0; i < c->n_whys; i++)
		if (!strcmp(c->whys[i], text))
			return c->whys[i];
	c->whys = xrealloc(c->whys, (c->n_whys + 1) * sizeof(*c->whys));
	c->whys[c->n_whys] = xstrdup(text);
	return c->whys[c->n_whys++];
}

void top_count_rows_release(struct top_counting *c)
{
	size_t i;

	for (i = 0; i < c->n_whys; i++)
		free(c->whys[i]);
	free(c->whys);
	c->whys = NULL;
	c->n_whys = 0;
}

/*
 * Each factor's state and the reason behind it: the model's binding when
 * counting is on (av: what exists here), else top's software figure and
 * why counting is off (`vmmprof info` says what the model chosen here
 * would count).
 */
/*
 * The cells of the rows shown point at s->factor_why (top_cell.q.why); a
 * reason set again may move, so those that pointed at old[f] point at the
 * new text.
 */
static void repoint_whys(struct top_state *s, const char *const old[TOP_NFACTORS])
{
	size_t i;
	int f;

	for (f = 0; f < TOP_NFACTORS; f++) {
		const char *now = sbuf_str(&s->factor_why[f]);

		if (!old[f])
			continue;
		for (i = 0; i < s->n_vms; i++)
			if (s->vms[i].factor[f].q.why == old[f])
				s->vms[i].factor[f].q.why = now;
		for (i = 0; i < s->n_vcpus; i++)
			if (s->vcpus[i].factor[f].q.why == old[f])
				s->vcpus[i].factor[f].q.why = now;
	}
}

void top_count_describe(struct top_state *s, const struct model_avail *av)
{
	struct top_counting *c = &s->cnt;
	struct sbuf st = SBUF_INIT, counted = SBUF_INIT, est = SBUF_INIT, na = SBUF_INIT;
	const char *old[TOP_NFACTORS];
	int f;

	for (f = 0; f < TOP_NFACTORS; f++)
		old[f] = s->factor_why[f].buf;  /* NULL: no cell points at it */

	for (f = 0; f < TOP_NFACTORS; f++) {
		const struct model_factor *mf = c->m && c->on ? &c->m->factors[f] : NULL;
		struct sbuf why = SBUF_INIT;

		if (mf && av && av->factor_ok[f] && mf->quality != VQ_UNAVAILABLE) {
			c->state[f] = TOP_F_COUNTED;
			c->quality[f] = mf->quality;
			sbuf_addf(&why, "model '%s' (%s): %s", sbuf_str(&c->model), vp_quality_name(mf->quality),
				  mf->desc ? mf->desc : "its score");
			sbuf_addf(&counted, "%s%s (%s)", counted.len ? ", " : "", factor_name(f),
				  vp_quality_name(mf->quality));
		} else {
			c->state[f] = f == FACTOR_LOCALITY ? TOP_F_ESTIMATED : TOP_F_UNAVAILABLE;
			c->quality[f] = VQ_UNAVAILABLE;
			/* av's reason first: on a Xen dom0 the collector adds what would
			 * measure it there */
			if (mf)
				sbuf_addf(&why, "model '%s': %s", sbuf_str(&c->model),
					  av && av->factor_reason[f] ? av->factor_reason[f] :
					  mf->quality == VQ_UNAVAILABLE && mf->reason ? mf->reason :
					  "cannot compute it here");
			else {
				sbuf_addf(&why, "counters are off: %s ('vmmprof info' says what "
					  "would count it here)", sbuf_str(&c->off));
				struct sbuf xen = SBUF_INIT;

				if (platform_xen_factor_why(&s->plat, f, &xen))
					sbuf_addf(&why, "; on this Xen dom0: %s", sbuf_str(&xen));
				sbuf_release(&xen);
			}
			if (f == FACTOR_LOCALITY)
				sbuf_addf(&est, "locality (placement estimate)");
			else
				sbuf_addf(&na, "%s%s", na.len ? ", " : "", factor_name(f));
		}
		sbuf_set(&s->factor_why[f], sbuf_str(&why));
		sbuf_release(&why);
	}
	if (c->on)
		sbuf_addf(&st, "counters: model '%s' (%s)", sbuf_str(&c->model), sbuf_str(&c->model_why));
	else
		sbuf_addf(&st, "counters: off (%s)", sbuf_str(&c->off));
	sbuf_addf(&st, "; counted: %s; estimated: %s; unavailable: %s",
		  counted.len ? sbuf_str(&counted) : "none", est.len ? sbuf_str(&est) : "none",
		  na.len ? sbuf_str(&na) : "none");
	sbuf_set(&c->status, sbuf_str(&st));
	repoint_whys(s, old);
	sbuf_release(&st);
	sbuf_release(&counted);
	sbuf_release(&est);
	sbuf_release(&na);
}

static void stop(struct top_counting *c)
{
	collect_free(c->col);
	c->col = NULL;
	free(c->tids);
	c->tids = NULL;
	c->n_tids = 0;
	c->on = false;
}

void top_count_off(struct top_state *s, const char *why)
{
	stop(&s->cnt);
	sbuf_set(&s->cnt.off, why && why[0] ? why : "not asked for");
	top_count_describe(s, NULL);
}

void top_count_release(struct top_state *s)
{
	stop(&s->cnt);
	top_count_rows_release(&s->cnt);
	sbuf_release(&s->cnt.model);
	sbuf_release(&s->cnt.model_why);
	sbuf_release(&s->cnt.off);
	sbuf_release(&s->cnt.status);
}

/* Open the collector over every VM now, and note the vCPU threads it counts. */
static int open_collector(struct top_state *s, struct vp_err *err)
{
	struct top_counting *c = &s->cnt;
	struct collect_opts o;
	const struct attrib *a;
	size_t i;
	int ret;

	memset(&o, 0, sizeof(o));
	o.root = s->root;
	o.plat = &s->plat;
	o.model = c->m;
	o.cal = c->cal;
	o.vm_names = s->vm_names;
	o.n_vm_names = s->n_vm_names;
	o.trace = s->trace; /* top's own recorder: one set of ring buffers, not two */
	o.cache = s->cache; /* and one scan of the host per sample, not two */
	/* --resctrl: the model's resctrl.* inputs from top's groups, one per VM */
	o.resctrl = s->rdt_on && !s->xen_psr;
	o.rdt = s->rdt;
	o.xen_psr = s->xen_psr;   /* --xen-psr: the model's resctrl.* inputs of Xen domains */
	o.xen_imc = s->xen_imc;   /* --xen-imc: its uncore_imc inputs from PCI config space */
	ret = collect_new(&c->col, &o, err);
	if (ret) {
		c->col = NULL;
		return ret;
	}
	a = collect_attrib(c->col);
	for (i = 0; a && i < a->n; i++) {
		if (a->ents[i].kind != ENT_VCPU || !a->ents[i].alive || a->ents[i].tid <= 0)
			continue;
		c->tids = xrealloc(c->tids, (c->n_tids + 1) * sizeof(*c->tids));
		c->tids[c->n_tids++] = a->ents[i].tid;
	}
	c->on = true;
	return 0;
}

int top_count_start(struct top_state *s, const struct model *m, const struct calib *cal,
		    const char *why, struct vp_err *err)
{
	struct top_counting *c = &s->cnt;
	int ret;

	stop(c);
	c->m = m;
	c->cal = cal;
	sbuf_set(&c->model, m->name);
	sbuf_set(&c->model_why, why ? why : "");
	sbuf_reset(&c->off);
	ret = open_collector(s, err);
	if (ret) {
		struct sbuf off = SBUF_INIT;

		sbuf_addf(&off, "model '%s': no counter could be opened: %s", m->name, err->msg);
		top_count_off(s, sbuf_str(&off));
		sbuf_release(&off);
		return ret;
	}
	top_count_describe(s, collect_avail(c->col));
	return 0;
}

/* A counted cell without a model value: top's software figure when it has one, else n/a. */
static void no_value(struct top_cell *cell, const char *why)
{
	cell->cost_pct = NAN;
	cell->cost_q = VQ_UNAVAILABLE;
	cell->sev = SEV_NA;
	if (cell->src == TOP_SRC_PLACEMENT || cell->src == TOP_SRC_RESCTRL ||
	    cell->src == TOP_SRC_XEN_PSR)
		return;
	cell->q.v = NAN;
	cell->q.q = VQ_UNAVAILABLE;
	cell->q.why = why;
	cell->src = TOP_SRC_NONE;
}

struct reason_src {
	const char *(*fn)(const void *ctx, size_t input);
	const void *ctx;
};

/* Why a row's model score is NaN: the first input it reads that is missing for this row. */
static const char *nan_why(struct top_state *s, const struct model *m, const struct model_avail *av,
			   const struct reason_src *rs, const struct collect_frame *f,
			   const struct collect_row *r, int k)
{
	struct model_avail row = *av;
	bool *ok = xcalloc(m->n_inputs + 1, sizeof(bool));
	char **why = xcalloc(m->n_inputs + 1, sizeof(char *));
	struct expr_env env;
	struct sbuf sb = SBUF_INIT;
	const char *out;
	size_t i;

	for (i = 0; i < m->n_inputs; i++) {
		const char *counted = rs->fn ? rs->fn(rs->ctx, i) : NULL;

		ok[i] = av->input_ok[i] && !counted && !isnan(r->inputs[i]);
		why[i] = (char *)(counted ? counted : av->input_reason[i] ? av->input_reason[i] :
				  isnan(r->inputs[i]) ? "no value for this row in the interval" : NULL);
	}
	row.input_ok = ok;
	row.input_reason = why;
	model_env_fill(&env, &s->plat, s->cnt.cal, f->duration);
	env.inputs = r->inputs;
	env.n_inputs = m->n_inputs;
	env.metrics = r->metrics;
	env.n_metrics = r->metrics ? m->n_metrics : 0;
	sbuf_addf(&sb, "model '%s': ", m->name);
	if (m->factors[k].score)
		model_nan_reason(m, &row, m->factors[k].score, &env, &sb);
	else
		sbuf_addstr(&sb, "no score");
	out = intern(&s->cnt, sbuf_str(&sb));
	sbuf_release(&sb);
	free(ok);
	free(why);
	return out;
}

static void fill(struct top_state *s, const struct model *m, const struct model_avail *av,
		 const struct reason_src *rs, const struct collect_frame *f,
		 const struct collect_row *r, struct top_cell *cells)
{
	int k;

	for (k = 0; k < TOP_NFACTORS; k++) {
		struct top_cell *cell = &cells[k];

		if (s->cnt.state[k] != TOP_F_COUNTED)
			continue;
		if (!r) {
			no_value(cell, intern(&s->cnt, "not counted yet: it appeared after the counters "
						  "were opened (they reopen at the next sample)"));
		} else if (isnan(r->fv[k].score)) {
			no_value(cell, nan_why(s, m, av, rs, f, r, k));
		} else {
			cell->q.v = r->fv[k].score;
			/* the row's own quality, as the frame JSON, report and /metrics say it */
			cell->q.q = frame_factor_quality(m, f, r, k);
			cell->q.why = sbuf_str(&s->factor_why[k]);
			cell->cost_pct = r->fv[k].cost_pct;
			cell->cost_q = frame_cost_quality(m, f, r, k);
			cell->sev = r->fv[k].sev;
			cell->src = TOP_SRC_MODEL;
		}
	}
}

void top_apply_frame(struct top_state *s, const struct model *m, const struct model_avail *av,
		     const struct collect_frame *f,
		     const char *(*reason)(const void *ctx, size_t input), const void *ctx)
{
	struct reason_src rs = { reason, ctx };
	struct strmap keys;
	size_t i, at;

	strmap_init(&keys);
	for (i = 0; i < f->n_rows; i++)
		if (f->rows[i].key)
			strmap_put(&keys, f->rows[i].key, i);
	for (i = 0; i < s->n_vms; i++) {
		const char *key = s->attrib.ents[s->vms[i].ent].key;

		fill(s, m, av, &rs, f, strmap_get(&keys, key, &at) ? &f->rows[at] : NULL,
		     s->vms[i].factor);
	}
	for (i = 0; i < s->n_vcpus; i++) {
		const char *key = s->attrib.ents[s->vcpus[i].ent].key;

		fill(s, m, av, &rs, f, strmap_get(&keys, key, &at) ? &f->rows[at] : NULL,
		     s->vcpus[i].factor);
	}
	strmap_release(&keys);
}

static bool counted_tid(const struct top_counting *c, int tid)
{
	size_t i;

	for (i = 0; i < c->n_tids; i++)
		if (c->tids[i] == tid)
			return true;
	return false;
}

static const char *input_reason(const void *ctx, size_t input)
{
	return collect_input_reason(ctx, input);
}

/* Counting stops for good: what failed is shown as the reason. */
static void fail(struct top_state *s, const char *what, const char *msg)
{
	struct sbuf off = SBUF_INIT;

	sbuf_addf(&off, "model '%s': %s: %s", sbuf_str(&s->cnt.model), what, msg);
	top_count_off(s, sbuf_str(&off));
	sbuf_release(&off);
}

/*
 * One sample of the counters into the rows top_sample() has just built.  A
 * VM or vCPU thread that came since is counted by the collector itself
 * (it looks at the host before each sample and opens the new threads'
 * counters, src/collect/hub.c), the same way for record, diagnose and the
 * daemon's sessions: its first sample has no model value, the next ones do.
 * A failing read turns counting off with the reason.
 */
void top_count_sample(struct top_state *s)
{
	struct top_counting *c = &s->cnt;
	struct collect_frame f;
	struct vp_err err = { 0, "" };
	bool *fresh = NULL, *fresh_vm = NULL, any = false;
	size_t i;
	int k;

	if (!c->col)
		return;
	fresh = xcalloc(s->n_vcpus + 1, sizeof(bool));
	fresh_vm = xcalloc(s->n_vms + 1, sizeof(bool));
	for (i = 0; i < s->n_vcpus; i++) {
		if (s->vcpus[i].tid <= 0 || counted_tid(c, s->vcpus[i].tid))
			continue;
		fresh[i] = any = true;
		if (s->vcpus[i].vm < s->n_vms)
			fresh_vm[s->vcpus[i].vm] = true;
		c->tids = xrealloc(c->tids, (c->n_tids + 1) * sizeof(*c->tids));
		c->tids[c->n_tids++] = s->vcpus[i].tid;
	}
	if (any)
		c->reopened++;
	if (collect_sample(c->col, &f, &err)) {
		free(fresh);
		free(fresh_vm);
		fail(s, "reading the counters failed", err.msg);
		return;
	}
	top_apply_frame(s, c->m, collect_avail(c->col), &f, input_reason, c->col);
	collect_frame_release(&f);
	/* seen for the first time: its counters opened at this sample (whichever scan saw it first) */
	for (k = 0; any && k < TOP_NFACTORS; k++) {
		const char *why = intern(c, "counted from the next sample: its vCPU threads came "
					 "since the last one");

		if (c->state[k] != TOP_F_COUNTED)
			continue;
		for (i = 0; i < s->n_vcpus; i++)
			if (fresh[i])
				no_value(&s->vcpus[i].factor[k], why);
		for (i = 0; i < s->n_vms; i++)
			if (fresh_vm[i])
				no_value(&s->vms[i].factor[k], why);
	}
	free(fresh);
	free(fresh_vm);
}

static const char *replay_reason(const void *ctx, size_t input)
{
	const char *const *why = ctx;

	return why ? why[input] : NULL;
}

void top_replay_start(struct top_state *s, const struct model *m, const struct calib *cal,
		      const struct model_avail *av, const char *what)
{
	struct top_counting *c = &s->cnt;

	c->m = m;
	c->cal = cal;
	c->on = true;
	sbuf_set(&c->model, m->name);
	sbuf_set(&c->model_why, what);
	sbuf_reset(&c->off);
	top_count_describe(s, av);
}

void top_replay_frame(struct top_state *s, const struct model_avail *av,
		      const struct collect_frame *f, const char *const *input_reason)
{
	const struct model *m = s->cnt.m;
	const struct topology *t = &s->plat.topo;
	struct reason_src rs = { replay_reason, input_reason };
	size_t *vm_of = xcalloc(f->n_rows + 1, sizeof(size_t));
	size_t i, k;
	int n;

	top_count_rows_release(&s->cnt);
	top_rows_release(s);
	s->samples++;
	s->t_ns = f->t_ns;
	s->interval_s = f->duration;
	/* what a recording does not keep is n/a, never 0: node memory, page rates, load */
	s->n_nodes = (size_t)t->n_nodes;
	s->nodes = xcalloc(s->n_nodes + 1, sizeof(*s->nodes));
	for (i = 0; i < s->n_nodes; i++) {
		struct top_node *r = &s->nodes[i];

		r->node = t->nodes[i].id;
		r->mem_total = r->mem_used = r->local_rate = r->remote_rate = r->miss_rate = NAN;
		r->cpu_load = NAN;
	}
	s->vms = xcalloc(f->n_rows + 1, sizeof(*s->vms));
	s->vcpus = xcalloc(f->n_rows + 1, sizeof(*s->vcpus));
	s->n_vms = s->n_vcpus = 0;
	for (i = 0; i < f->n_rows; i++) {
		const struct collect_row *r = &f->rows[i];
		struct top_cell *cells;

		if (r->kind == ENT_VM || r->kind == ENT_PROCESS) {
			struct top_vm *v = &s->vms[s->n_vms];
			uint64_t most = 0, all = 0;

			vm_of[i] = s->n_vms++;
			v->ent = -1;
			sbuf_set(&v->name, r->name ? r->name : "?");
			v->hypervisor = hv_adapter_name(r->adapter);
			v->id = r->domid >= 0 ? r->domid : r->pid;
			v->cpu_pct = NAN;
			v->home = -1;
			for (k = 0; k < VP_ARRAY_SIZE(v->mem_node); k++)
				v->mem_node[k] = NAN;
			for (n = 0; r->mem_node && n < r->n_mem_nodes; n++) {
				all += r->mem_node[n];
				if ((size_t)n < VP_ARRAY_SIZE(v->mem_node))
					v->mem_node[n] = (double)r->mem_node[n];
				if (r->mem_node[n] > most) {
					most = r->mem_node[n];
					v->home = n;
				}
			}
			v->mem = r->mem_node ? (double)all : NAN;
			cells = v->factor;
		} else if ((r->kind == ENT_VCPU || r->kind == ENT_THREAD) && r->vm_row < i) {
			struct top_vcpu *c = &s->vcpus[s->n_vcpus++];

			c->vm = vm_of[r->vm_row];
			c->ent = -1;
			c->index = r->index;
			c->tid = r->tid;
			c->cpu = r->cpu;
			c->node = r->node;
			c->cpu_pct = NAN;
			for (k = 0; k < VP_ARRAY_SIZE(c->node_run_s); k++)
				c->node_run_s[k] = NAN;
			sbuf_setf(&c->affinity, "-");
			snprintf(c->residency, sizeof(c->residency), "%s",
				 f->residency ? f->residency : "sampled");
			if (c->vm < s->n_vms)
				s->vms[c->vm].n_vcpus++;
			for (k = 0; k < s->n_nodes; k++)
				s->nodes[k].n_vcpus += s->nodes[k].node == r->node;
			cells = c->factor;
		} else {
			continue;
		}
		for (n = 0; n < TOP_NFACTORS; n++) {
			cells[n].q.v = NAN;
			cells[n].q.q = VQ_UNAVAILABLE;
			cells[n].q.why = sbuf_str(&s->factor_why[n]);
			cells[n].cost_pct = NAN;
			cells[n].cost_q = VQ_UNAVAILABLE;
			cells[n].sev = SEV_NA;
			cells[n].src = TOP_SRC_NONE;
		}
		fill(s, m, av, &rs, f, r, cells);
	}
	free(vm_of);
}
