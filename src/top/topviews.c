/* topviews.c - top's node and process views: rows composed from a sample's nodes, VMs and vCPUs */
#include "top/topviews.h"

#include <math.h>
#include <string.h>

static const char *const view_names[TOP_VIEW_N] = { "node", "vm", "vcpu", "process" };
static const char *const view_plurals[TOP_VIEW_N] = { "nodes", "vms", "vcpus", "processes" };

const char *top_view_name(enum top_view v)
{
	return v >= 0 && v < TOP_VIEW_N ? view_names[v] : "all";
}

int top_view_lookup(const char *name)
{
	int v;

	for (v = 0; v < TOP_VIEW_N; v++)
		if (!strcmp(name, view_names[v]) || !strcmp(name, view_plurals[v]))
			return v;
	return -1;
}

/* How a cell ranks: its cost share when it has one, else its value; NaN when it has none. */
static double rank(const struct top_cell *c)
{
	if (isnan(c->q.v))
		return NAN;
	return isfinite(c->cost_pct) ? 1e6 + c->cost_pct : c->q.v;
}

void top_node_factors(const struct top_state *s, size_t i, struct top_cell out[TOP_NFACTORS])
{
	int node = s->nodes[i].node, f;
	size_t k, on = 0;

	for (f = 0; f < TOP_NFACTORS; f++) {
		memset(&out[f], 0, sizeof(out[f]));
		out[f].q.v = NAN;
		out[f].cost_pct = NAN;
		out[f].sev = SEV_NA;
		out[f].src = TOP_SRC_NONE;
		out[f].q.q = VQ_UNAVAILABLE;
	}
	for (k = 0; k < s->n_vcpus; k++) {
		const struct top_vcpu *c = &s->vcpus[k];

		if (c->node != node)
			continue;
		on++;
		for (f = 0; f < TOP_NFACTORS; f++) {
			double r = rank(&c->factor[f]);

			if (!isnan(r) && (isnan(rank(&out[f])) || r > rank(&out[f])))
				out[f] = c->factor[f];
		}
	}
	for (f = 0; f < TOP_NFACTORS; f++) {
		if (!isnan(out[f].q.v))
			continue;
		out[f].q.why = on ? "no vCPU on the node has a value" :
			"no vCPU ran on the node in the sample";
		/* the vCPUs' own reason when they give one (counters off, an input absent) */
		for (k = 0; k < s->n_vcpus; k++)
			if (s->vcpus[k].node == node && s->vcpus[k].factor[f].q.why &&
			    s->vcpus[k].factor[f].q.why[0]) {
				out[f].q.why = s->vcpus[k].factor[f].q.why;
				break;
			}
	}
}

void top_proc_row(const struct top_vm *v, struct top_proc *p)
{
	double local = NAN, total = 0;
	int n;

	memset(p, 0, sizeof(*p));
	p->vm = v;
	p->mem_local = p->mem_remote = p->remote_frac = NAN;
	if (v->home < 0 || v->home >= 8 || isnan(v->mem_node[v->home]))
		return;
	for (n = 0; n < 8; n++) {
		if (isnan(v->mem_node[n]))
			continue;
		total += v->mem_node[n];
		if (n == v->home)
			local = v->mem_node[n];
	}
	/* nodes past the first 8: what the VM has there is in mem, not in mem_node */
	if (!isnan(v->mem) && v->mem > total)
		total = v->mem;
	p->mem_local = local;
	p->mem_remote = total - local;
	p->remote_frac = total > 0 ? p->mem_remote / total : NAN;
}
