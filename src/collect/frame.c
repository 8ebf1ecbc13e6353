/* frame.c - collector frames: a row's model evaluated from its inputs, frames released, frames turned into the diagnosis input */
#include "collect/collect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/run.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/strmap.h"

static int find_tclk(const struct model *m)
{
	size_t i;

	for (i = 0; i < m->n_inputs; i++)
		if (m->inputs[i].kind == INPUT_EVENT && !strcmp(m->inputs[i].spec, "task-clock"))
			return (int)i;
	return -1;
}

void frame_eval_row(const struct model *m, const struct platform *plat, const struct calib *cal,
		    double cpu_mhz, struct collect_row *r, double duration)
{
	int tclk = find_tclk(m), t;
	struct expr_env env;

	model_env_fill(&env, plat, cal, duration);
	if (r->kind == ENT_NODE)
		env.consts[EC_ROW_NODES] = 1; /* its counts are one node's */
	env.inputs = r->inputs;
	env.n_inputs = m->n_inputs;
	free(r->metrics);
	r->metrics = xcalloc(m->n_metrics ? m->n_metrics : 1, sizeof(double));
	model_eval(m, &env, r->metrics, r->fv);
	r->cycles = m->cycles ? expr_eval(m->cycles, &env) : NAN;
	r->cycles_proxy = false;
	if (!isfinite(r->cycles) && tclk >= 0 && isfinite(r->inputs[tclk]) && isfinite(cpu_mhz)) {
		/* task-clock ns x cycles per ns */
		r->cycles = r->inputs[tclk] * cpu_mhz / 1000.0;
		r->cycles_proxy = true;
	}
	for (t = 0; t < CT_N; t++) {
		double v = m->cost_term[t] ? expr_eval(m->cost_term[t], &env) : NAN;

		r->term[t] = isfinite(v) ? v : NAN;
	}
	/* the cost stage fills these (frame_cost()); until then nothing is known */
	r->mem_stall = NAN;
	r->solo_mpki = NAN;
	cost_out_none(&r->cost);
	for (t = 0; t < FACTOR_N; t++)
		r->fv[t].cost_cycles = r->fv[t].cost_pct = NAN;
	/* paused: its vCPUs were given no guest time, there is nothing to rate (nor cost) */
	for (t = 0; r->state == RS_PAUSED && t < FACTOR_N; t++) {
		r->fv[t].score = NAN;
		r->fv[t].sev = SEV_NA;
	}
	for (t = 0; r->state == RS_PAUSED && t < CT_N; t++)
		r->term[t] = NAN;
}

const char *row_state_name(enum row_state s)
{
	static const char *const n[] = { "running", "paused", "ended" };

	return s <= RS_ENDED ? n[s] : "?";
}

/* ---- the cost stage over a frame ---- */

struct cost_solo {
	struct strmap idx;     /* row key -> index into mpki */
	double *mpki;          /* the lowest rate seen alone */
	size_t n, cap;
};

struct cost_solo *cost_solo_new(void)
{
	struct cost_solo *s = xcalloc(1, sizeof(*s));

	strmap_init(&s->idx);
	return s;
}

void cost_solo_free(struct cost_solo *s)
{
	if (!s)
		return;
	strmap_release(&s->idx);
	free(s->mpki);
	free(s);
}

static double row_mpki(const struct collect_row *r)
{
	double ins = r->term[CT_INSTR], miss = r->term[CT_LLC_MISS];

	return isfinite(ins) && ins > 0 && isfinite(miss) && miss >= 0 ? 1000 * miss / ins : NAN;
}

void cost_solo_lookup(const struct cost_solo *s, const struct collect_row *r, double *mpki,
		      const char **why)
{
	size_t k;

	*mpki = NAN;
	*why = NULL;
	if (isfinite(r->solo_mpki)) {
		*mpki = r->solo_mpki;
		return;
	}
	if (r->llc_alone == 1 && isfinite(row_mpki(r))) {
		*mpki = row_mpki(r);   /* alone now: whatever it misses is its own */
		return;
	}
	if (s && r->key && strmap_get(&s->idx, r->key, &k)) {
		*mpki = s->mpki[k];
		return;
	}
	*why = r->llc_alone == 0 ?
	       "no solo miss rate: whether its LLC had other busy tenants is not known here" :
	       "no solo miss rate for this row yet (no interval in which its LLC had no other busy "
	       "tenant)";
}

void cost_solo_update(struct cost_solo *s, const struct collect_frame *f)
{
	size_t i, k;

	for (i = 0; s && i < f->n_rows; i++) {
		const struct collect_row *r = &f->rows[i];
		double v = row_mpki(r);

		if (r->llc_alone != 1 || !r->key || !isfinite(v))
			continue;
		if (strmap_get(&s->idx, r->key, &k)) {
			if (v < s->mpki[k])
				s->mpki[k] = v;
			continue;
		}
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 16;
			s->mpki = xrealloc(s->mpki, s->cap * sizeof(double));
		}
		s->mpki[s->n] = v;
		strmap_put(&s->idx, r->key, s->n++);
	}
}

static double row_ghz(const struct model *m, const struct collect_frame *f,
		      const struct collect_row *r)
{
	int g = model_find_metric(m, "ghz");

	if (g >= 0 && r->metrics && isfinite(r->metrics[g]) && r->metrics[g] > 0)
		return r->metrics[g];
	return isfinite(f->cpu_mhz) && f->cpu_mhz > 0 ? f->cpu_mhz / 1000.0 : NAN;
}

static bool is_thread_row(const struct collect_row *r)
{
	return r->kind == ENT_VCPU || r->kind == ENT_THREAD;
}

/* Each node's state from its row (bandwidth, trackers) and the DRAM mix of the
 * threads that ran there. */
static void node_states(const struct cost_calib *cc, const struct collect_frame *f,
			struct cost_node *ns, const int *node_ids, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		double loc = 0, rem = 0, fr = NAN;

		cost_node_unknown(&ns[i]);
		for (j = 0; j < f->n_rows; j++) {
			const struct collect_row *r = &f->rows[j];

			if (!is_thread_row(r) || r->node != node_ids[i])
				continue;
			if (isfinite(r->term[CT_DRAM_LOCAL]))
				loc += r->term[CT_DRAM_LOCAL];
			if (isfinite(r->term[CT_DRAM_REMOTE]))
				rem += r->term[CT_DRAM_REMOTE];
		}
		if (loc + rem > 0)
			fr = rem / (loc + rem);
		for (j = 0; j < f->n_nodes; j++)
			if (f->nodes[j].node == node_ids[i])
				cost_node_from_terms(cc, f->nodes[j].term, fr, &ns[i]);
		/* --resctrl's memory bandwidth of the node, when no IMC count has it */
		if (isnan(ns[i].util) && f->rdt_node && (int)i < f->n_rdt_nodes && f->duration > 0 &&
		    isfinite(f->rdt_node[3 * i + 1]) && isfinite(cc->peak_bw)) {
			ns[i].util = f->rdt_node[3 * i + 1] / f->duration / 1e9 / cc->peak_bw;
			ns[i].q_ns = cost_imc_delay(cc, ns[i].util);
		}
	}
}

/* The state a row's remote accesses meet: the other nodes, weighted by where
 * its VM's memory is (evenly when that is not known). */
static void remote_state(const struct cost_node *ns, const int *node_ids, size_t n, int here,
			 const struct collect_row *vm, struct cost_node *out)
{
	double w_sum = 0, q = 0, util = 0;
	size_t i;

	cost_node_unknown(out);
	for (i = 0; i < n; i++) {
		double w = 1;

		if (node_ids[i] == here || !isfinite(ns[i].q_ns))
			continue;
		if (vm && vm->mem_node && node_ids[i] >= 0 && node_ids[i] < vm->n_mem_nodes)
			w = (double)vm->mem_node[node_ids[i]];
		if (!(w > 0))
			continue;
		w_sum += w;
		q += w * ns[i].q_ns;
		util += w * ns[i].util;
	}
	if (w_sum > 0) {
		out->q_ns = q / w_sum;
		out->util = util / w_sum;
	}
}

/* The row's factor values from its split: costs in cycles and in % of cycles. */
static void fill_fv(struct collect_row *r, double cycles)
{
	int fi;

	r->mem_stall = r->cost.budget;
	for (fi = 0; fi < FACTOR_N; fi++) {
		r->fv[fi].cost_cycles = r->cost.cost[fi];
		r->fv[fi].cost_pct = isfinite(r->cost.cost[fi]) && cycles > 0 ?
				     100.0 * r->cost.cost[fi] / cycles : NAN;
	}
}

/* Split row r's stall with `local` the state of the node it runs on (-1 none). */
static void row_cost(const struct model *m, const struct cost_calib *cc,
		     const struct collect_frame *f, const struct cost_solo *solo,
		     const struct cost_node *ns, const int *ids, size_t n, int here,
		     const struct collect_row *vm, struct collect_row *r)
{
	struct cost_in in;
	size_t j;

	memset(&in, 0, sizeof(in));
	memcpy(in.term, r->term, sizeof(in.term));
	in.cycles = r->cycles;
	in.ghz = row_ghz(m, f, r);
	cost_node_unknown(&in.local);
	for (j = 0; j < n; j++)
		if (ids[j] == here)
			in.local = ns[j];
	remote_state(ns, ids, n, here, vm, &in.remote);
	cost_solo_lookup(solo, r, &in.solo_mpki, &in.solo_why);
	cost_row(cc, &in, &r->cost);
	fill_fv(r, r->cycles);
}

void frame_cost(const struct model *m, const struct calib *cal, struct collect_frame *f,
		struct cost_solo *solo)
{
	struct cost_calib cc;
	struct cost_node *ns;
	int *ids;
	size_t i, j, n = f->n_nodes;

	cost_calib_init(&cc, cal);
	/* node ids: the node rows', else those the threads ran on */
	ids = xcalloc(n + f->n_rows + 1, sizeof(int));
	for (i = 0; i < f->n_nodes; i++)
		ids[i] = f->nodes[i].node;
	if (!n)
		for (i = 0; i < f->n_rows; i++) {
			int id = f->rows[i].node;

			if (!is_thread_row(&f->rows[i]) || id < 0)
				continue;
			for (j = 0; j < n && ids[j] != id; j++)
				;
			if (j == n)
				ids[n++] = id;
		}
	ns = xcalloc(n + 1, sizeof(*ns));
	node_states(&cc, f, ns, ids, n);

	/* threads first: each with its node's state */
	for (i = 0; i < f->n_rows; i++)
		if (is_thread_row(&f->rows[i]))
			row_cost(m, &cc, f, solo, ns, ids, n, f->rows[i].node,
				 f->rows[i].vm_row < f->n_rows ? &f->rows[f->rows[i].vm_row] : NULL,
				 &f->rows[i]);
	/* a VM or process: the sum of its threads, or evaluated itself when it has none */
	for (i = 0; i < f->n_rows; i++) {
		struct collect_row *r = &f->rows[i];
		bool any = false;

		if (is_thread_row(r))
			continue;
		cost_out_none(&r->cost);
		for (j = 0; j < f->n_rows; j++)
			if (is_thread_row(&f->rows[j]) && f->rows[j].vm_row == i) {
				cost_out_add(&r->cost, &f->rows[j].cost);
				any = true;
			}
		if (any)
			fill_fv(r, r->cycles);
		else
			row_cost(m, &cc, f, solo, ns, ids, n, -1, r, r);
	}
	/* a node: the sum of the threads that ran on it, over their cycles */
	for (i = 0; i < f->n_nodes; i++) {
		struct collect_row *r = &f->nodes[i];

		cost_out_none(&r->cost);
		for (j = 0; j < f->n_rows; j++)
			if (is_thread_row(&f->rows[j]) && f->rows[j].node == r->node)
				cost_out_add(&r->cost, &f->rows[j].cost);
		fill_fv(r, r->cost.cycles);
	}
	cost_solo_update(solo, f);
	free(ns);
	free(ids);
	cost_calib_release(&cc);
}

static void row_release(struct collect_row *r)
{
	free(r->inputs);
	free(r->metrics);
	free(r->name);
	free(r->key);
	free(r->mem_node);
	free(r->mem_reason);
	hv_pcidevs_free(r->pci, r->n_pci);
	hv_iothreads_free(r->io, r->n_io);
	free(r->io_busy);
	hv_vnodes_free(r->vnodes, r->n_vnodes);
}

static void rows_release(struct collect_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		row_release(&rows[i]);
	free(rows);
}

void collect_frame_keep_vms(struct collect_frame *f,
			    bool (*keep)(const struct collect_row *vm, void *ctx), void *ctx)
{
	size_t *to = xcalloc(f->n_rows ? f->n_rows : 1, sizeof(*to)), i, n = 0;

	for (i = 0; i < f->n_rows; i++) {
		struct collect_row *r = &f->rows[i];
		size_t v = r->vm_row < f->n_rows ? r->vm_row : i;

		/* a VM row comes before its vCPUs: its verdict (to[v] != 0) is known */
		if (v == i ? keep(r, ctx) : to[v] != 0) {
			to[i] = n + 1;
			r->vm_row = v == i ? n : to[v] - 1;
			if (n != i)
				f->rows[n] = *r;
			n++;
		} else {
			row_release(r);
		}
	}
	f->n_rows = n;
	free(to);
}

/* A per-node input is "missing": what reads it comes out NaN in the probe. */
static int fail_node_input(void *ctx, const struct model_input *in, char **reason)
{
	const bool *node_input = ((const bool *const *)ctx)[0];
	const struct model *m = ((const struct model *const *)ctx)[1];

	(void)reason;
	return node_input[in - m->inputs] ? VP_EUNSUPP : 0;
}

void frame_mark_node_inputs(const struct model *m, const bool *node_input, struct collect_frame *f)
{
	struct model_avail av;
	const void *ctx[2] = { node_input, m };
	size_t i;
	bool any = false;
	int fi;

	free(f->node_input);
	free(f->metric_node);
	f->node_input = NULL;
	f->metric_node = NULL;
	memset(f->factor_node, 0, sizeof(f->factor_node));
	for (i = 0; node_input && i < m->n_inputs; i++)
		any |= node_input[i];
	if (!any)
		return;
	f->node_input = xcalloc(m->n_inputs, sizeof(bool));
	memcpy(f->node_input, node_input, m->n_inputs * sizeof(bool));
	f->metric_node = xcalloc(m->n_metrics + 1, sizeof(bool));
	model_check_inputs(m, fail_node_input, ctx, &av, NULL);
	for (i = 0; i < m->n_metrics; i++)
		f->metric_node[i] = !av.metric_ok[i];
	for (fi = 0; fi < FACTOR_N; fi++)
		f->factor_node[fi] = m->factors[fi].score && m->factors[fi].quality != VQ_UNAVAILABLE &&
				     !av.factor_ok[fi];
	model_avail_release(m, &av);
}

bool frame_metric_apportioned(const struct collect_frame *f, const struct collect_row *r, size_t i)
{
	return r->apportioned && f->metric_node && f->metric_node[i];
}

enum vp_quality frame_factor_quality(const struct model *m, const struct collect_frame *f,
					 const struct collect_row *r, int fi)
{
	enum vp_quality q = m->factors[fi].quality;

	if (q == VQ_MEASURED && r->apportioned && f->factor_node[fi])
		return VQ_APPORTIONED;
	return q;
}

enum vp_quality frame_value_quality(const struct model *m, const struct collect_frame *f,
				    const struct collect_row *r, int fi)
{
	if (!m->factors[fi].bound || m->factors[fi].quality == VQ_UNAVAILABLE ||
	    (isnan(r->fv[fi].score) && isnan(r->fv[fi].cost_cycles)))
		return VQ_UNAVAILABLE;
	return frame_factor_quality(m, f, r, fi);
}

enum vp_quality frame_cost_quality(const struct model *m, const struct collect_frame *f,
				      const struct collect_row *r, int fi)
{
	if (isnan(r->fv[fi].cost_cycles))
		return VQ_UNAVAILABLE;
	if (r->cost.anchor == ANCHOR_ESTIMATED)
		return VQ_ESTIMATE;
	(void)m;
	return r->apportioned && (f->factor_node[fi] || fi == FACTOR_IMC || fi == FACTOR_QUEUE) ?
	       VQ_APPORTIONED : VQ_MEASURED;
}

void collect_frame_release(struct collect_frame *f)
{
	size_t i;

	rows_release(f->rows, f->n_rows);
	rows_release(f->nodes, f->n_nodes);
	free(f->node_input);
	free(f->metric_node);
	free(f->rdt_node);
	free(f->cpu_busy);
	free(f->cpu_queued);
	free(f->cpu_steal);
	free(f->isolated);
	for (i = 0; i < f->n_scaling; i++)
		free(f->scaling[i].event);
	free(f->scaling);
	sbuf_release(&f->rdt_why);
	sbuf_release(&f->notes);
	memset(f, 0, sizeof(*f));
}

/* ---- the diagnosis input ---- */

static void factor_evidence(const struct model *m, const bool *factor_ok,
			    const struct collect_frame *f, const struct collect_row *r, enum factor_id fi,
			    struct diag_factor_in *out)
{
	const struct model_factor *mf = &m->factors[fi];
	struct sbuf sb = SBUF_INIT;

	out->cost_cycles = r->fv[fi].cost_cycles;
	out->score = r->fv[fi].score;
	out->sev = r->fv[fi].sev;
	out->quality = frame_factor_quality(m, f, r, (int)fi);
	if (!factor_ok[fi] || mf->quality == VQ_UNAVAILABLE)
		out->quality = VQ_UNAVAILABLE;
	else if (isfinite(out->cost_cycles) && r->cost.anchor == ANCHOR_ESTIMATED &&
		 out->quality != VQ_PROXY)
		out->quality = VQ_ESTIMATE;   /* a cost without a stall count is an estimate */
	if (mf->score && mf->score->k == EX_METRIC && mf->score->name)
		sbuf_addf(&sb, "%s ", mf->score->name);
	else
		sbuf_addstr(&sb, "score ");
	if (isfinite(r->fv[fi].score))
		sbuf_addf(&sb, "%.3g", r->fv[fi].score);
	else
		sbuf_addstr(&sb, "n/a");
	sbuf_addf(&sb, " (%s)", vp_quality_name(out->quality));
	if (isfinite(out->cost_cycles) && r->cost.anchor == ANCHOR_ESTIMATED)
		sbuf_addf(&sb, "; cost estimated from counts x latency, MLP %.2g: %s", r->cost.mlp,
			  r->cost.anchor_why ? r->cost.anchor_why : "no stall count");
	free(out->evidence);
	out->evidence = sbuf_detach(&sb);
}

/* The model's input that reads software source spec ("sched.run_ns"), -1 none. */
static int sched_input(const struct model *m, const char *spec)
{
	size_t i;

	for (i = 0; i < m->n_inputs; i++)
		if (m->inputs[i].kind == INPUT_SOURCE && !strcmp(m->inputs[i].spec, spec))
			return (int)i;
	return -1;
}

/*
 * The host's CPUs for the placement rules: node, SMT core and LLC domain
 * from the topology, isolcpus= and the load over the run from the frame
 * (a whole-run frame of a live collector; unknown otherwise).
 */
static void host_cpus(const struct topology *topo, const struct collect_frame *f,
		      struct diag_input *in)
{
	struct cpulist iso, from_nodes;
	const struct cpulist *online = &topo->online;
	size_t i, j;
	int d;

	cpulist_init(&iso);
	cpulist_init(&from_nodes);
	if (f->host_read && f->isolated)
		cpulist_parse(&iso, f->isolated, NULL);
	/* a recording keeps each node's CPUs, not the online list: where the
	 * caller read the CPUs' load over it (frame_host_cpus()), its CPUs are
	 * the nodes' */
	if (!online->n && f->cpu_busy) {
		for (i = 0; i < (size_t)topo->n_nodes; i++)
			for (j = 0; j < topo->nodes[i].cpus.n; j++)
				cpulist_add(&from_nodes, topo->nodes[i].cpus.ids[j]);
		online = &from_nodes;
	}
	in->duration_s = f->duration > 0 ? f->duration : NAN;
	in->numa_balancing = f->host_read && f->numa_balancing;
	in->numad_pid = f->host_read ? f->numad_pid : 0;
	in->cpus = xcalloc(online->n ? online->n : 1, sizeof(*in->cpus));
	for (i = 0; i < online->n; i++) {
		struct diag_cpu *c = &in->cpus[in->n_cpus++];
		int id = online->ids[i];
		size_t k;

		c->id = id;
		c->node = c->core = c->llc = -1;
		for (k = 0; k < in->n_nodes; k++)
			if (cpulist_has(&topo->nodes[k].cpus, id))
				c->node = (int)k;
		if (topo->cpu_core && topo->cpu_package && id < topo->max_cpu &&
		    topo->cpu_core[id] >= 0 && topo->cpu_package[id] >= 0)
			c->core = topo->cpu_package[id] * 65536 + topo->cpu_core[id];
		for (d = 0; d < topo->n_llc; d++)
			if (cpulist_has(&topo->llc[d].cpus, id))
				c->llc = d;
		c->isolated = cpulist_has(&iso, id);
		c->busy = f->cpu_busy && id < f->n_cpu_stat ? f->cpu_busy[id] : NAN;
		c->queued = f->cpu_queued && id < f->n_cpu_stat ? f->cpu_queued[id] : NAN;
	}
	cpulist_release(&iso);
	cpulist_release(&from_nodes);
}

/* How weak a cost quality is, for a sum over threads: the sum is as weak as its weakest part. */
static int cost_rank(enum vp_quality q)
{
	switch (q) {
	case VQ_MEASURED: return 0;
	case VQ_APPORTIONED: return 1;
	case VQ_ESTIMATE: return 2;
	case VQ_PROXY: return 3;
	default: return 4;
	}
}

/*
 * The denominator is the cycles of the threads whose cost is known, not of
 * every thread that ran on the node: a thread without the factor's cost
 * (no counter on it, no model input) has an unknown cost, not a zero one,
 * and counting its cycles as cost-free would bias the share low -- by its
 * share of the node's cycles.  So the share is that of the costed threads,
 * and left_out / left_out_cycles say how much of the node it does not see.
 */
void frame_node_cost(const struct model *m, const struct collect_frame *f, int node_id,
		     struct frame_node_cost nc[FACTOR_N])
{
	double pct_cost[FACTOR_N] = { 0 };
	size_t j;
	int k;

	for (k = 0; k < FACTOR_N; k++) {
		nc[k].cost_cycles = nc[k].cycles = nc[k].pct = NAN;
		nc[k].left_out_cycles = 0;
		nc[k].n_threads = nc[k].left_out = 0;
		nc[k].q = VQ_UNAVAILABLE;
	}
	for (j = 0; j < f->n_rows; j++) {
		const struct collect_row *r = &f->rows[j];
		bool ran = r->cycles > 0;

		if ((r->kind != ENT_VCPU && r->kind != ENT_THREAD) || r->node != node_id)
			continue;
		for (k = 0; k < FACTOR_N; k++) {
			struct frame_node_cost *c = &nc[k];

			if (!isfinite(r->fv[k].cost_cycles)) {
				/* ran there, cost unknown: not in the share, counted as left out */
				if (ran) {
					c->left_out++;
					c->left_out_cycles += r->cycles;
				}
				continue;
			}
			if (isnan(c->cost_cycles)) {
				c->cost_cycles = 0;
				c->q = VQ_MEASURED;
			}
			c->cost_cycles += r->fv[k].cost_cycles;
			if (m) {
				enum vp_quality rq = frame_cost_quality(m, f, r, k);

				if (cost_rank(rq) > cost_rank(c->q))
					c->q = rq;
			}
			if (ran) {
				c->cycles = isnan(c->cycles) ? r->cycles : c->cycles + r->cycles;
				pct_cost[k] += r->fv[k].cost_cycles;
				c->n_threads++;
			}
		}
	}
	for (k = 0; k < FACTOR_N; k++)
		if (nc[k].n_threads > 0)
			nc[k].pct = 100 * pct_cost[k] / nc[k].cycles;
}

void frame_node_cost_pct(const struct collect_frame *f, int node_id, double pct[FACTOR_N])
{
	struct frame_node_cost nc[FACTOR_N];
	int k;

	frame_node_cost(NULL, f, node_id, nc);
	for (k = 0; k < FACTOR_N; k++)
		pct[k] = nc[k].pct;
}

/*
 * Steal time inside a guest (/proc/stat): what the hypervisor ran instead
 * while a vCPU of this guest wanted to run -- the host's run-queue wait of
 * its thread, seen from inside (KVM's steal time is that thread's schedstat
 * run_delay).  A vCPU of the guest adapter (vCPU = its CPU) takes its CPU's
 * time over the run: what it ran (busy less steal) and the steal.  A thread
 * in view (native) takes the steal of the CPU it was last seen on in
 * proportion to its run time there (its schedstat run excludes steal with
 * paravirtual steal accounting); apportioned, since it may have moved.
 * Only a whole-run frame has the CPUs' times.
 */
static void guest_steal(const struct collect_frame *f, const struct collect_row *r,
			struct diag_vcpu *v)
{
	double busy, steal;

	if ((r->adapter != HVA_GUEST && r->adapter != HVA_NATIVE) || !f->cpu_busy ||
	    !f->cpu_steal || r->cpu < 0 ||
	    r->cpu >= f->n_cpu_stat || !(f->duration > 0))
		return;
	busy = f->cpu_busy[r->cpu];
	steal = f->cpu_steal[r->cpu];
	if (!isfinite(busy) || !isfinite(steal) || steal > busy)
		return;
	if (r->adapter == HVA_NATIVE) {
		/* ran run_ns of the CPU's busy - steal: the steal in that proportion */
		if (steal > 0 && busy > steal && isfinite(v->run_ns) && v->run_ns > 0)
			v->steal_ns = v->run_ns * steal / (busy - steal);
		return;
	}
	v->run_ns = (busy - steal) * f->duration * 1e9;
	v->wait_ns = steal * f->duration * 1e9;
	v->wait_steal = true;
}

void frame_diag_input(const struct model *m, const bool *factor_ok, const struct topology *topo,
		      const struct calib *cal, const struct collect_frame *f, struct diag_input *in)
{
	int remote_metric = model_find_metric(m, "remote_frac");
	int intensity_metric = model_find_metric(m, "mem_bw");
	int queue_metric = model_find_metric(m, "queue_full_frac");
	int run_in = sched_input(m, "sched.run_ns"), wait_in = sched_input(m, "sched.wait_ns");
	size_t i, j, nv = 0, nvc = 0, *vm_of_row;
	int fi;

	memset(in, 0, sizeof(*in));
	diag_params_default(&in->params);
	in->lat_local_loaded_ns = cal ? cal->val[CAL_LAT_LOADED_NS] : NAN;
	in->lat_remote_idle_ns = cal ? cal->val[CAL_LAT_REMOTE_NS] : NAN;
	in->migrate_gbs = cal ? cal->val[CAL_MIGRATE_GBS] : NAN;
	in->nodes = xcalloc(topo->n_nodes > 0 ? (size_t)topo->n_nodes : 1, sizeof(*in->nodes));
	in->n_nodes = topo->n_nodes > 0 ? (size_t)topo->n_nodes : 0;
	for (i = 0; i < in->n_nodes; i++) {
		struct diag_node *n = &in->nodes[i];
		struct sbuf sb = SBUF_INIT;

		cpulist_format(&topo->nodes[i].cpus, &sb);
		diag_node_init(n, topo->nodes[i].id, sbuf_detach(&sb), (int)topo->nodes[i].cpus.n);
		n->peak_gbs = cal ? cal->val[CAL_PEAK_BW_GBS] : NAN;
		/* a recording keeps each node's total, not its free memory (read back as 0):
		 * no free memory is known there, and a move is not refused for it */
		n->mem_free_bytes = topo->nodes[i].mem_known && topo->nodes[i].mem_free > 0 ?
					    (double)topo->nodes[i].mem_free : NAN;
		if (f->rdt_node && (int)i < f->n_rdt_nodes) {
			n->rdt = true;
			n->rdt_llc_bytes = f->rdt_node[3 * i];
			n->rdt_mbm_gbs = f->duration > 0 ? f->rdt_node[3 * i + 1] / f->duration / 1e9 : NAN;
			n->rdt_mbm_local_gbs = f->duration > 0 ?
					       f->rdt_node[3 * i + 2] / f->duration / 1e9 : NAN;
			n->rdt_why = f->rdt_why.len ? sbuf_str(&f->rdt_why) :
				     isnan(n->rdt_llc_bytes) && isnan(n->rdt_mbm_gbs) ?
				     "no L3 monitoring domain of this node alone (its L3 spans nodes, or "
				     "the cache id is unknown): the VMs' values hold it" :
				     isnan(n->rdt_mbm_gbs) ? "no valid MBM count on its L3 domain (it "
				     "read 'Unavailable', or the counter was reset)" : NULL;
		}
		/* the factors' costs of the threads that ran there (those that have them) */
		{
			struct frame_node_cost nc[FACTOR_N];
			int k;

			frame_node_cost(m, f, n->id, nc);
			for (k = 0; k < FACTOR_N; k++) {
				double all = (isnan(nc[k].cycles) ? 0 : nc[k].cycles) +
					     nc[k].left_out_cycles;

				n->cost_pct[k] = nc[k].pct;
				n->cost_left_out[k] = nc[k].left_out;
				n->cost_left_out_share[k] = all > 0 ? nc[k].left_out_cycles / all : NAN;
			}
		}
		/* the node rows: the model's mem_bw and queue_full_frac on the node's counts */
		for (j = 0; j < f->n_nodes; j++) {
			const struct collect_row *r = &f->nodes[j];

			if (r->node != n->id || !r->metrics)
				continue;
			if (intensity_metric >= 0 && isfinite(r->metrics[intensity_metric])) {
				n->bw_gbs = r->metrics[intensity_metric];
				n->bw_quality = r->apportioned ? VQ_APPORTIONED : VQ_MEASURED;
			}
			if (queue_metric >= 0 && isfinite(r->metrics[queue_metric]))
				n->queue_full_frac = r->metrics[queue_metric];
			else if (m->cost_term[CT_TRACKER_FULL] && isfinite(r->term[CT_TRACKER_FULL]))
				n->queue_full_frac = r->term[CT_TRACKER_FULL];
		}
	}
	host_cpus(topo, f, in);
	for (i = 0; i < f->n_rows; i++)
		if (f->rows[i].kind == ENT_VM || f->rows[i].kind == ENT_PROCESS)
			nv++;
		else
			nvc++;
	in->vms = xcalloc(nv ? nv : 1, sizeof(*in->vms));
	in->vcpus = xcalloc(nvc ? nvc : 1, sizeof(*in->vcpus));
	vm_of_row = xcalloc(f->n_rows ? f->n_rows : 1, sizeof(size_t));
	for (i = 0; i < f->n_rows; i++)
		if (f->rows[i].kind == ENT_VM || f->rows[i].kind == ENT_PROCESS)
			vm_of_row[i] = in->n_vms++;
	in->n_vms = 0;
	for (i = 0; i < f->n_rows; i++) {
		const struct collect_row *r = &f->rows[i];

		if (r->kind == ENT_VM || r->kind == ENT_PROCESS) {
			struct diag_vm *d = &in->vms[in->n_vms++];
			uint64_t tot = 0;
			int n;

			d->name = r->name;
			d->adapter = r->adapter;
			d->libvirt = r->libvirt;
			d->persist = r->persist;
			d->numa_mode = r->numa_mode;
			d->n_iothreads = r->n_iothreads > 0 ? r->n_iothreads : 0;
			memcpy(d->iothread_ids, r->iothread_ids, sizeof(d->iothread_ids));
			d->pid = r->pid;
			d->domid = r->domid;
			d->pci = r->pci;
			d->n_pci = r->n_pci;
			d->io = r->io;
			d->n_io = r->n_io;
			d->io_busy = r->io_busy;
			d->vnodes = r->vnodes;
			d->n_vnodes = r->n_vnodes;
			d->scored = r->state != RS_PAUSED; /* paused: shown, never rated */
			for (fi = 0; fi < FACTOR_N; fi++) {
				d->score[fi] = r->fv[fi].score;
				d->sev[fi] = r->fv[fi].sev;
			}
			d->mem_node = r->mem_node;
			d->n_mem_nodes = r->mem_node ? r->n_mem_nodes : 0;
			d->mem_reason = r->mem_reason;
			for (n = 0; n < r->n_mem_nodes; n++)
				tot += r->mem_node[n];
			if (tot) {
				double *frac = xcalloc(in->n_nodes ? in->n_nodes : 1, sizeof(double));
				size_t k;

				for (k = 0; k < in->n_nodes; k++) {
					int id = in->nodes[k].id;

					frac[k] = id >= 0 && id < r->n_mem_nodes ?
						  (double)r->mem_node[id] / (double)tot : 0;
				}
				d->mem_frac = frac;
			}
			continue;
		}
		{
			struct diag_vcpu *v = &in->vcpus[in->n_vcpus++];

			v->vm = r->vm_row < f->n_rows ? vm_of_row[r->vm_row] : 0;
			v->index = r->index;
			v->tid = r->tid;
			v->node = r->node;
			v->cycles = r->cycles;
			v->cycles_proxy = r->cycles_proxy;
			v->mem_stall_cycles = r->mem_stall;
			v->remainder_cycles = r->cost.remainder;
			v->remote_frac = remote_metric >= 0 && isfinite(r->metrics[remote_metric]) ?
					 r->metrics[remote_metric] : r->remote.v;
			v->mem_intensity = intensity_metric >= 0 ? r->metrics[intensity_metric] : NAN;
			v->mem_gbs = v->mem_intensity; /* mem_bw is GB/s in every model */
			/* CPU contention: the model's schedstat sources on the vCPU's row,
			 * else the collector's own schedstat of its thread */
			v->run_ns = run_in >= 0 && r->inputs ? r->inputs[run_in] : NAN;
			v->wait_ns = wait_in >= 0 && r->inputs ? r->inputs[wait_in] : NAN;
			if (!(isfinite(v->run_ns) && isfinite(v->wait_ns)) &&
			    r->sched_run_ns + r->sched_wait_ns > 0) {
				v->run_ns = r->sched_run_ns;
				v->wait_ns = r->sched_wait_ns;
			}
			v->wait_window_s = r->sched_window_s;
			v->cpu = r->cpu;
			guest_steal(f, r, v);
			for (fi = 0; fi < FACTOR_N; fi++)
				factor_evidence(m, factor_ok, f, r, (enum factor_id)fi, &v->f[fi]);
		}
	}
	free(vm_of_row);
}

void collect_diag_release(struct diag_input *in)
{
	size_t i;

	for (i = 0; i < in->n_nodes; i++)
		free((char *)in->nodes[i].cpus);
	for (i = 0; i < in->n_vms; i++)
		free((double *)in->vms[i].mem_frac);
	for (i = 0; i < in->n_vcpus; i++) {
		int fi;

		for (fi = 0; fi < FACTOR_N; fi++)
			free(in->vcpus[i].f[fi].evidence);
	}
	free(in->nodes);
	free(in->vms);
	free(in->vcpus);
	free(in->cpus);
	memset(in, 0, sizeof(*in));
}
