/* topdata.c - what `vmmprof top` shows, sampled once per interval: nodes, VMs, vCPUs, factor columns */
#include "top/topdata.h"
#include "top/topcount.h"

#include "collect/resctrl_vm.h"
#include "hv/xen.h"
#include "source/schedtrace.h"
#include "source/resctrl.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/run.h"
#include "util/sbuf.h"
#include "util/timeutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *top_factor_title(int f)
{
	static const char *const t[TOP_NFACTORS] = { "LOCAL", "LLC", "SHARE", "IMC", "QUEUE" };

	return f >= 0 && f < TOP_NFACTORS ? t[f] : "?";
}

const char *top_sort_name(enum top_sort k)
{
	static const char *const n[TOP_SORT_N] = { "name", "cpu", "remote", "memory", "llc",
						   "sharing", "imc", "queue" };

	return k >= 0 && k < TOP_SORT_N ? n[k] : "?";
}

int top_sort_lookup(const char *name)
{
	int k;

	for (k = 0; k < TOP_SORT_N; k++)
		if (!strcmp(name, top_sort_name((enum top_sort)k)))
			return k;
	return -1;
}

/* The factor a sort key orders by; -1 none. */
static int sort_factor(enum top_sort k)
{
	switch (k) {
	case TOP_SORT_REMOTE: return FACTOR_LOCALITY;
	case TOP_SORT_LLC: return FACTOR_LLC;
	case TOP_SORT_SHARING: return FACTOR_SHARING;
	case TOP_SORT_IMC: return FACTOR_IMC;
	case TOP_SORT_QUEUE: return FACTOR_QUEUE;
	default: return -1;
	}
}

/* What a factor column sorts by: the cost when the cell has one, else the value. */
static double sort_value(const struct top_cell *c)
{
	return isfinite(c->cost_pct) ? c->cost_pct : c->q.v;
}

/* A fixture tree's thread ids are not this machine's: counting them would count strangers. */
#define FIXTURE_OFF VP_FIXTURE_THREADS

int top_init(struct top_state *s, const char *root, struct vp_err *err)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->root = root;
	ret = platform_probe(&s->plat, root, err);
	if (ret)
		return ret;
	attrib_init(&s->attrib, &s->plat.topo);
	s->cache = hv_cache_new(root);
	{
		struct vp_err terr = { 0, "" };

		/* the CPUs this kernel runs on: a dom0's vCPUs, not Xen's pCPUs */
		const struct topology *lt = platform_local_topo(&s->plat);

		if (!schedtrace_open(&s->trace, root, lt->online.ids, lt->online.n, &terr)) {
			attrib_use_schedtrace(&s->attrib, s->trace, &s->plat.topo);
			sbuf_setf(&s->residency,
				 "residency per node: exact, from context-switch records");
		} else {
			sbuf_setf(&s->residency,
				 "residency per node: sampled at each update (%s)", terr.msg);
		}
		/* dom0's context switches are dom0's vCPUs: Xen schedules the domains */
		if (s->plat.topo.from_xen)
			sbuf_setf(&s->residency,
				 "residency per node: sampled from xl vcpu-list at each update (a "
				 "vCPU that moved inside an interval is charged to one node; exact "
				 "with --xentrace)");
	}
	s->interval_s = NAN;
	/* until a model is given: the software figures, and what could count the rest */
	top_count_off(s, root && strcmp(root, "/") ? FIXTURE_OFF :
			 "no model given: software sources only");
	return 0;
}

void top_rows_release(struct top_state *s)
{
	size_t i;

	for (i = 0; i < s->n_nodes; i++)
		sbuf_release(&s->nodes[i].rdt.why);
	for (i = 0; i < s->n_vms; i++) {
		sbuf_release(&s->vms[i].name);
		sbuf_release(&s->vms[i].rdt.why);
	}
	for (i = 0; i < s->n_vcpus; i++)
		sbuf_release(&s->vcpus[i].affinity);
	for (i = 0; i < s->n_ended; i++)
		sbuf_release(&s->ended[i].name);
	free(s->nodes);
	free(s->vms);
	free(s->vcpus);
	free(s->ended);
	s->nodes = NULL;
	s->vms = NULL;
	s->vcpus = NULL;
	s->ended = NULL;
	s->n_nodes = s->n_vms = s->n_vcpus = s->n_ended = 0;
}

static void free_rows(struct top_state *s)
{
	top_count_rows_release(&s->cnt);
	top_rows_release(s);
}

void top_resctrl_start(struct top_state *s, int owner)
{
	top_resctrl_share(s, resctrl_vms_new(s->root, &s->plat, owner));
	s->rdt_own = true;
}

void top_resctrl_share(struct top_state *s, struct resctrl_vms *set)
{
	s->rdt_on = true;
	s->rdt = set;
	if (!resctrl_vms_unavailable(s->rdt))
		s->rdt_meter = resctrl_meter_new(s->rdt);
}

void top_release(struct top_state *s)
{
	int f;

	free_rows(s);
	top_count_release(s);
	hv_cache_free(s->cache); /* after the collector that shares it */
	/* the meter lets go of the VMs, then the set removes every group left */
	resctrl_meter_free(s->rdt_meter);
	if (s->rdt_own)
		resctrl_vms_free(s->rdt);
	free(s->ns_prev);
	cpustat_release(&s->cs_prev);
	attrib_release(&s->attrib);
	schedtrace_free(s->trace);
	platform_release(&s->plat);
	for (f = 0; f < TOP_NFACTORS; f++)
		sbuf_release(&s->factor_why[f]);
	sbuf_release(&s->notes);
	sbuf_release(&s->residency);
	memset(s, 0, sizeof(*s));
}

static double rate(const struct node_stat *prev, const struct node_stat *now, int f, double dt)
{
	uint32_t bit = 1u << f;

	if (!prev || !(prev->ns_have & bit) || !(now->ns_have & bit) || !(dt > 0) ||
	    now->ns[f] < prev->ns[f])
		return NAN;
	return (double)(now->ns[f] - prev->ns[f]) / dt;
}

static const struct node_stat *find_ns(const struct node_stat *v, size_t n, int node)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].node == node)
			return &v[i];
	return NULL;
}

static void build_nodes(struct top_state *s, struct node_stat *ns, size_t n_ns,
			const struct cpustat *cs)
{
	const struct topology *t = &s->plat.topo;
	size_t i, k;

	s->n_nodes = n_ns;
	s->nodes = xcalloc(n_ns ? n_ns : 1, sizeof(*s->nodes));
	for (i = 0; i < n_ns; i++) {
		struct top_node *r = &s->nodes[i];
		const struct node_stat *p = find_ns(s->ns_prev, s->n_ns_prev, ns[i].node);
		int idx = topology_node_index(t, ns[i].node), n_load = 0;
		double load = 0;

		r->node = ns[i].node;
		r->mem_total = ns[i].mem_have & (1u << NM_MEM_TOTAL) ? (double)ns[i].mem[NM_MEM_TOTAL] : NAN;
		r->mem_used = ns[i].mem_have & (1u << NM_MEM_USED) ? (double)ns[i].mem[NM_MEM_USED] :
			      ns[i].mem_have & (1u << NM_MEM_FREE) ? r->mem_total - (double)ns[i].mem[NM_MEM_FREE] :
			      NAN;
		r->local_rate = rate(p, &ns[i], NS_LOCAL_NODE, s->interval_s);
		r->remote_rate = rate(p, &ns[i], NS_OTHER_NODE, s->interval_s);
		r->miss_rate = rate(p, &ns[i], NS_NUMA_MISS, s->interval_s);
		if (idx >= 0) {
			for (k = 0; k < t->nodes[idx].cpus.n; k++) {
				double b = cpustat_busy(&s->cs_prev, cs, t->nodes[idx].cpus.ids[k]);

				if (!isnan(b)) {
					load += b;
					n_load++;
				}
			}
		}
		r->cpu_load = n_load ? load / n_load : NAN;
	}
}

/*
 * A Xen dom0: the node rows are Xen's nodes (xl info -n, read again for
 * each sample: memfree moves).  dom0's numastat and /proc/stat are dom0's
 * own, so the page rates are n/a; the load is filled from the domains'
 * vCPU time once the vCPU rows exist (xen_node_load).
 */
static void build_nodes_xen(struct top_state *s, uint64_t since_ns)
{
	const struct topology *t = &s->plat.topo;
	struct topology now;
	struct vp_err e = { 0, "" };
	char *text = NULL;
	bool fresh = false;
	size_t i;

	memset(&now, 0, sizeof(now));
	/* this sample's scan's copy when it read it, else xl now (hv_xen_info_n()) */
	if (!hv_xen_info_n(s->cache, s->root, since_ns, &text, &e) &&
	    !platform_xen_info_parse(text, &now, NULL, &e))
		fresh = true;
	free(text);
	s->n_nodes = (size_t)t->n_nodes;
	s->nodes = xcalloc(s->n_nodes ? s->n_nodes : 1, sizeof(*s->nodes));
	for (i = 0; i < s->n_nodes; i++) {
		struct top_node *r = &s->nodes[i];
		const struct numa_node *nd = &t->nodes[i];
		int k = fresh ? topology_node_index(&now, nd->id) : -1;

		if (k >= 0)
			nd = &now.nodes[k];
		r->node = nd->id;
		r->mem_total = nd->mem_known ? (double)nd->mem_total : NAN;
		r->mem_used = nd->mem_known ? (double)(nd->mem_total - nd->mem_free) : NAN;
		r->local_rate = r->remote_rate = r->miss_rate = NAN;
		r->cpu_load = NAN;
	}
	topology_release(&now);
}

/* The domains' vCPU time on each Xen node over the interval, per pCPU of the node. */
static void xen_node_load(struct top_state *s)
{
	const struct topology *t = &s->plat.topo;
	size_t i, v;

	for (i = 0; i < s->n_nodes; i++) {
		int idx = topology_node_index(t, s->nodes[i].node);
		double run = 0;
		bool any = false;

		if (idx < 0 || !t->nodes[idx].cpus.n || !(s->interval_s > 0))
			continue;
		for (v = 0; v < s->n_vcpus; v++) {
			double x = s->attrib.ents[s->vcpus[v].ent].interval_run_s;

			if (s->vcpus[v].node != s->nodes[i].node || isnan(x))
				continue;
			run += x;
			any = true;
		}
		s->nodes[i].cpu_load = any ? run / (s->interval_s * (double)t->nodes[idx].cpus.n) :
				       s->n_vcpus ? 0 : NAN;
	}
}

/* The software figures: LOCAL's placement estimate, n/a with the reason elsewhere. */
static void factors(struct top_state *s, struct top_cell *f, struct qval locality)
{
	int i;

	for (i = 0; i < TOP_NFACTORS; i++) {
		f[i].q.v = NAN;
		f[i].q.q = VQ_UNAVAILABLE;
		f[i].q.why = sbuf_str(&s->factor_why[i]);
		f[i].cost_pct = NAN;
		f[i].cost_q = VQ_UNAVAILABLE;
		f[i].sev = SEV_NA;
		f[i].src = TOP_SRC_NONE;
	}
	f[FACTOR_LOCALITY].q = locality;
	if (!isnan(locality.v))
		f[FACTOR_LOCALITY].src = TOP_SRC_PLACEMENT;
}

#define RDT_NO_MBM "no valid MBM count on its L3 domain in the interval (it read 'Unavailable', " \
		   "or the counter was reset)"

/* The VMs' resctrl values summed per node (by topology index) over one sample. */
struct rdt_acc {
	double *v;                      /* 3 per node: llc bytes, mbm bytes, mbm_local bytes; NaN none */
	int n_nodes;
	bool any_vm;                    /* some VM had a value (summed over its domains) */
	struct sbuf why;                /* the first VM's reason, when none had values */
};

static void rdt_none(struct top_rdt *r, const char *why)
{
	r->llc_bytes = r->mbm_bps = r->mbm_local_bps = NAN;
	sbuf_set(&r->why, why);
}

/* Bytes over the interval as bytes/s; NaN on the first sample. */
static double per_s(const struct top_state *s, double bytes)
{
	return s->interval_s > 0 ? bytes / s->interval_s : NAN;
}

/* A VM's group: its values since the previous sample, and its share of the node sums. */
static void rdt_vm(struct top_state *s, const struct hv_vm *vm, struct top_vm *r, struct rdt_acc *acc)
{
	struct resctrl_values rv;

	if (s->xen_psr && vm->adapter == HVA_XEN) {
		/* Xen's PSR, per domain: occupancy now, bandwidth xl's 10 ms sample */
		r->rdt.llc_bytes = vm->psr_llc_bytes;
		r->rdt.mbm_bps = vm->psr_mbm_bps;
		r->rdt.mbm_local_bps = vm->psr_mbm_local_bps;
		sbuf_setf(&r->rdt.why, "%s",
			 isnan(vm->psr_llc_bytes) || isnan(vm->psr_mbm_bps) ?
			 (vm->psr_reason ? vm->psr_reason : "not read") : "");
		if (!isnan(vm->psr_llc_bytes) || !isnan(vm->psr_mbm_bps))
			acc->any_vm = true;
		else if (!acc->why.len)
			sbuf_setf(&acc->why, "domain '%s': %s", sbuf_str(&r->name),
				  sbuf_str(&r->rdt.why));
		if ((r->factor[FACTOR_LLC].src == TOP_SRC_NONE ||
		     r->factor[FACTOR_LLC].src == TOP_SRC_XEN_PSR) && !isnan(vm->psr_llc_bytes)) {
			r->factor[FACTOR_LLC].q.v = vm->psr_llc_bytes;
			r->factor[FACTOR_LLC].q.q = VQ_MEASURED;
			r->factor[FACTOR_LLC].q.why = "LLC occupancy (bytes) measured by Xen's PSR "
						      "(Intel CMT, xl psr-cmt-show), per domain";
			r->factor[FACTOR_LLC].src = TOP_SRC_XEN_PSR;
		}
		return;
	}
	if (!s->rdt_meter) {
		rdt_none(&r->rdt, s->rdt ? resctrl_vms_unavailable(s->rdt) :
			 "resctrl is not in use (Xen domains: --xen-psr)");
		return;
	}
	resctrl_meter_read(s->rdt_meter, vm, false, &rv);
	r->rdt.llc_bytes = rv.llc_occupancy;
	r->rdt.mbm_bps = per_s(s, rv.mbm_total);
	r->rdt.mbm_local_bps = per_s(s, rv.mbm_local);
	if (rv.why[0])
		sbuf_set(&r->rdt.why, rv.why);
	else if (!(s->interval_s > 0))
		sbuf_setf(&r->rdt.why, "memory traffic is a rate: it needs two samples");
	else if (isnan(r->rdt.mbm_bps) && resctrl_vms_event_missing(s->rdt, RCE_MBM_TOTAL))
		sbuf_setf(&r->rdt.why, "%s",
			 resctrl_vms_event_missing(s->rdt, RCE_MBM_TOTAL));
	else if (isnan(r->rdt.llc_bytes) && resctrl_vms_event_missing(s->rdt, RCE_LLC_OCCUPANCY))
		sbuf_setf(&r->rdt.why, "%s",
			 resctrl_vms_event_missing(s->rdt, RCE_LLC_OCCUPANCY));
	if (!isnan(rv.llc_occupancy) || !isnan(rv.mbm_total))
		acc->any_vm = true;
	else if (!acc->why.len)
		sbuf_setf(&acc->why, "VM '%s': %s", sbuf_str(&r->name),
			 r->rdt.why.len ? sbuf_str(&r->rdt.why) : "no values yet");
	resctrl_values_add_nodes(&rv, acc->v, acc->n_nodes);
	/* without a model that counts LLC, the LLC column is the group's occupancy (ours
	 * rather than a group named after the VM: that one may not hold its threads) */
	if ((r->factor[FACTOR_LLC].src == TOP_SRC_NONE || r->factor[FACTOR_LLC].src == TOP_SRC_RESCTRL) &&
	    !isnan(rv.llc_occupancy)) {
		r->factor[FACTOR_LLC].q.v = rv.llc_occupancy;
		r->factor[FACTOR_LLC].q.q = VQ_MEASURED;
		r->factor[FACTOR_LLC].q.why = "resctrl llc_occupancy (bytes) of the VM's monitoring group";
		r->factor[FACTOR_LLC].src = TOP_SRC_RESCTRL;
	}
	resctrl_values_release(&rv);
}

/* The node rows' sums of the VMs' groups on their L3 domain. */
static void rdt_nodes(struct top_state *s, const struct rdt_acc *acc)
{
	size_t i;

	for (i = 0; i < s->n_nodes; i++) {
		struct top_rdt *r = &s->nodes[i].rdt;
		int k = topology_node_index(&s->plat.topo, s->nodes[i].node);

		if (s->xen_psr) {
			/* xl prints per socket; a node is not a socket, and vmmprof does not map them */
			rdt_none(r, acc->any_vm ? "Xen PSR is per domain (xl psr-cmt-show prints per "
				 "socket, which is not a node): the domains' rows hold it" :
				 sbuf_str(&acc->why));
			continue;
		}
		if (!s->rdt_meter) {
			rdt_none(r, resctrl_vms_unavailable(s->rdt));
			continue;
		}
		if (k < 0 || k >= acc->n_nodes) {
			rdt_none(r, "node not in the topology");
			continue;
		}
		r->llc_bytes = acc->v[3 * k];
		r->mbm_bps = per_s(s, acc->v[3 * k + 1]);
		r->mbm_local_bps = per_s(s, acc->v[3 * k + 2]);
		sbuf_reset(&r->why);
		if (!s->n_vms)
			sbuf_setf(&r->why, "no VM is monitored");
		else if (!acc->any_vm)
			sbuf_set(&r->why, sbuf_str(&acc->why));
		else if (isnan(r->llc_bytes) && isnan(acc->v[3 * k + 1]))
			sbuf_setf(&r->why, "no L3 monitoring domain of this node alone "
				 "(its L3 spans nodes, or the cache id is unknown): the VMs' values hold it");
		else if (!(s->interval_s > 0))
			sbuf_setf(&r->why, "memory traffic is a rate: it needs two samples");
		else if (isnan(r->mbm_bps))
			sbuf_set(&r->why, RDT_NO_MBM);
	}
}

static void add_vm_row(struct top_state *s, const struct hv_vm *vm, int e, struct rdt_acc *acc)
{
	struct top_vm *r;
	const struct entity *ent = &s->attrib.ents[e];
	struct resctrl_group g;
	double best = -1;
	size_t i;
	int n;

	r = &s->vms[s->n_vms++]; /* room made by top_sample() */
	memset(r, 0, sizeof(*r));
	r->ent = e;
	sbuf_set(&r->name, vm->name ? vm->name : "?");
	r->hypervisor = hv_adapter_name(vm->adapter);
	r->id = vm->adapter == HVA_XEN ? vm->domid : vm->pid;
	r->n_vcpus = vm->n_vcpus;
	r->cpu_pct = isnan(ent->interval_run_s) || !(s->interval_s > 0) ? NAN :
		     100.0 * ent->interval_run_s / s->interval_s;
	r->home = -1;
	r->mem = vm->n_mem_nodes ? (double)hv_vm_mem_total(vm) : NAN;
	for (n = 0; n < 8; n++) {
		r->mem_node[n] = n < vm->n_mem_nodes ? (double)vm->mem_node[n] : NAN;
		if (n < vm->n_mem_nodes && (double)vm->mem_node[n] > best) {
			best = (double)vm->mem_node[n];
			r->home = n;
		}
	}
	factors(s, r->factor, ent->remote_frac);
	/* a resctrl monitoring group named after the VM gives its LLC occupancy */
	if (vm->name && !resctrl_group_read(s->root, vm->name, &g, NULL)) {
		double occ = 0;
		bool any = false;

		for (i = 0; i < g.n_mon; i++) {
			if (!isnan(g.mon[i].llc_occupancy)) {
				occ += g.mon[i].llc_occupancy;
				any = true;
			}
		}
		if (any) {
			r->factor[FACTOR_LLC].q.v = occ;
			r->factor[FACTOR_LLC].q.q = VQ_MEASURED;
			r->factor[FACTOR_LLC].q.why = "resctrl llc_occupancy (bytes)";
			r->factor[FACTOR_LLC].src = TOP_SRC_RESCTRL;
		}
		resctrl_group_release(&g);
	}
	if (s->rdt_on)
		rdt_vm(s, vm, r, acc);
}

static void add_vcpu_rows(struct top_state *s, const struct hv_vm *vm, size_t vm_row)
{
	size_t i;

	for (i = 0; i < vm->n_vcpus; i++) {
		const struct hv_vcpu *c = &vm->vcpus[i];
		int e = attrib_find_vcpu(&s->attrib, vm, c);
		struct top_vcpu *r;
		struct sbuf sb = SBUF_INIT;

		if (e < 0)
			continue;
		r = &s->vcpus[s->n_vcpus++]; /* room made by top_sample() */
		memset(r, 0, sizeof(*r));
		r->vm = vm_row;
		r->ent = e;
		r->index = c->index;
		r->tid = c->tid;
		r->cpu = c->cpu;
		r->node = c->node;
		if (c->affinity_all)
			sbuf_addstr(&sb, "all");
		else if (c->affinity.n)
			cpulist_format(&c->affinity, &sb);
		else
			sbuf_addstr(&sb, "-");
		sbuf_set(&r->affinity, sbuf_str(&sb));
		sbuf_release(&sb);
		r->cpu_pct = isnan(s->attrib.ents[e].interval_run_s) || !(s->interval_s > 0) ? NAN :
			     100.0 * s->attrib.ents[e].interval_run_s / s->interval_s;
		{
			const struct entity *en = &s->attrib.ents[e];

			snprintf(r->residency, sizeof(r->residency), "%s", !en->residency_exact ?
				 "sampled" : c->trace_pcpu_s ? "xentrace" : "context switches");
			for (size_t n = 0; n < 8; n++)
				r->node_run_s[n] = n < (size_t)s->attrib.n_nodes &&
						   isfinite(en->interval_run_s) ?
						   en->interval_node_run_s[n] : NAN;
		}
		factors(s, r->factor, s->attrib.ents[e].remote_frac);
		for (size_t n = 0; n < s->n_nodes; n++)
			if (s->nodes[n].node == c->node)
				s->nodes[n].n_vcpus++;
	}
}

/* Keep only the VMs named with --vm (none named: every VM). */
static void keep_named(const struct top_state *s, struct hv_vm_list *l)
{
	struct hv_vm_list drop;
	size_t i, j, n = 0;

	if (!s->n_vm_names)
		return;
	memset(&drop, 0, sizeof(drop));
	for (i = 0; i < l->n; i++) {
		for (j = 0; j < s->n_vm_names; j++)
			if (hv_vm_is_named(&l->vms[i], s->vm_names[j]))
				break;
		if (j < s->n_vm_names) {
			l->vms[n++] = l->vms[i];
			continue;
		}
		VP_GROW(drop.vms, drop.cap, drop.n + 1);
		drop.vms[drop.n++] = l->vms[i];
	}
	l->n = n;
	hv_vm_list_release(&drop);
}

int top_sample(struct top_state *s, struct vp_err *err)
{
	struct hv_vm_list l = { 0 };
	struct hv_ctx ctx = { s->root, &s->plat, NULL, s->xen_numa };
	char xres[400];
	struct rdt_acc acc = { NULL, 0, false, SBUF_INIT };
	struct node_stat *ns = NULL;
	struct cpustat cs = { 0 };
	size_t n_ns = 0, i;
	uint64_t now, t0;
	int ret;

	ctx.xen_tracer = s->xen_tracer;
	ctx.xen_psr_run = s->xen_psr;
	t0 = vp_now_ns();
	ret = hv_scan_vms_shared(&ctx, s->cache, &s->scan_seen, &l, err);
	if (ret)
		goto out;
	keep_named(s, &l);
	hv_xen_residency_note(&l, s->xen_tracer, xres, sizeof(xres));
	if (s->rdt_meter)
		resctrl_meter_update(s->rdt_meter, l.vms, l.n);
	acc.n_nodes = s->plat.topo.n_nodes;
	acc.v = xcalloc(3 * (size_t)acc.n_nodes + 1, sizeof(double));
	for (i = 0; i < 3 * (size_t)acc.n_nodes; i++)
		acc.v[i] = NAN;
	now = vp_now_ns();
	free_rows(s);
	s->interval_s = s->samples ? (double)(now - s->prev_ns) / 1e9 : NAN;
	attrib_update(&s->attrib, &l, now);
	s->t_ns = now;
	{
		const char *res = xres[0] ? xres : s->trace && schedtrace_lost(s->trace) ?
			"residency per node: context-switch records were lost, residency is approximate" :
			sbuf_str(&s->residency);
		struct sbuf nb = SBUF_INIT;

		sbuf_addf(&nb, "%s%s%s", l.notes, l.notes[0] ? "; " : "", res);
		if (s->xen_psr)
			sbuf_addstr(&nb, "; Xen PSR (--xen-psr): LLC occupancy and memory bandwidth "
				    "measured by Xen (Intel CMT/MBM, xl psr-cmt-show) per domain, not per "
				    "vCPU; the bandwidth is xl's 10 ms sample at each update, not the "
				    "interval's average");
		if (s->plat.topo.from_xen)
			sbuf_addstr(&nb, "; nodes are Xen's (xl info -n): their page rates are n/a "
				    "(dom0's numastat counts dom0's pages), load is the domains' vCPU "
				    "time on the node's pCPUs (xl vcpu-list)");
		sbuf_set(&s->notes, sbuf_str(&nb));
		sbuf_release(&nb);
	}
	if (node_stat_read_all(s->root, &ns, &n_ns, NULL))
		n_ns = 0;
	cpustat_read(s->root, &cs, NULL);
	if (s->plat.topo.from_xen)
		build_nodes_xen(s, t0);
	else
		build_nodes(s, ns, n_ns, &cs);
	{	/* the rows' room at once (it grew by one row per vCPU and sample) */
		size_t nv = 0;

		for (i = 0; i < l.n; i++)
			nv += l.vms[i].n_vcpus;
		s->vms = xcalloc(l.n + 1, sizeof(*s->vms));
		s->vcpus = xcalloc(nv + 1, sizeof(*s->vcpus));
	}
	for (i = 0; i < l.n; i++) {
		char *k = attrib_vm_key(&l.vms[i]);
		int e = attrib_find(&s->attrib, k);

		free(k);
		if (e < 0)
			continue;
		add_vm_row(s, &l.vms[i], e, &acc);
		add_vcpu_rows(s, &l.vms[i], s->n_vms - 1);
	}
	if (s->plat.topo.from_xen)
		xen_node_load(s);
	if (s->rdt_on)
		rdt_nodes(s, &acc);
	for (i = 0; i < s->attrib.n; i++) {
		const struct entity *e = &s->attrib.ents[i];
		struct top_ended *r;

		if (e->alive || e->ended_ns != now)
			continue;
		s->ended = xrealloc(s->ended, (s->n_ended + 1) * sizeof(*s->ended));
		r = &s->ended[s->n_ended++];
		memset(r, 0, sizeof(*r));
		snprintf(r->kind, sizeof(r->kind), "%s", ent_kind_name(e->kind));
		sbuf_setf(&r->name, "%s%s%s",
			 e->kind == ENT_VCPU && e->parent >= 0 ? s->attrib.ents[e->parent].name : "",
			 e->kind == ENT_VCPU ? " " : "", e->name);
		r->id = e->id;
		r->ended_ns = e->ended_ns;
	}
	top_count_sample(s);
	free(s->ns_prev);
	s->ns_prev = ns;
	s->n_ns_prev = n_ns;
	ns = NULL;
	cpustat_release(&s->cs_prev);
	s->cs_prev = cs;
	memset(&cs, 0, sizeof(cs));
	s->prev_ns = now;
	s->samples++;
out:
	free(acc.v);
	sbuf_release(&acc.why);
	free(ns);
	cpustat_release(&cs);
	hv_vm_list_release(&l);
	return ret;
}

/* Descending, NaN last. */
static int cmp_desc(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a < b) - (a > b);
}

static int cmp_vm(const void *pa, const void *pb, void *arg)
{
	const struct top_vm *a = pa, *b = pb;
	enum top_sort k = *(const enum top_sort *)arg;
	int c = 0;

	int f = sort_factor(k);

	if (f == FACTOR_LOCALITY)
		c = cmp_desc(a->factor[f].q.v, b->factor[f].q.v);
	else if (f >= 0)
		c = cmp_desc(sort_value(&a->factor[f]), sort_value(&b->factor[f]));
	else if (k == TOP_SORT_CPU)
		c = cmp_desc(a->cpu_pct, b->cpu_pct);
	else if (k == TOP_SORT_MEM)
		c = cmp_desc(a->mem, b->mem);
	return c ? c : strcmp(sbuf_str(&a->name), sbuf_str(&b->name));
}

/* vCPUs: by the key, then in their VM's order and by index. */
static int cmp_vcpu(const void *pa, const void *pb, void *arg)
{
	const struct top_vcpu *a = pa, *b = pb;
	enum top_sort k = *(const enum top_sort *)arg;
	int c = 0;

	int f = sort_factor(k);

	if (k == TOP_SORT_CPU)
		c = cmp_desc(a->cpu_pct, b->cpu_pct);
	else if (f == FACTOR_LOCALITY)
		c = cmp_desc(a->factor[f].q.v, b->factor[f].q.v);
	else if (f >= 0)
		c = cmp_desc(sort_value(&a->factor[f]), sort_value(&b->factor[f]));
	if (!c)
		c = (a->vm > b->vm) - (a->vm < b->vm);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

void top_sort(struct top_state *s, enum top_sort k)
{
	size_t i, j, *map;
	int *ents;

	if (!s->n_vms)
		return;
	/* remember each VM row's entity, sort, then point the vCPUs at the new rows */
	ents = xmalloc(s->n_vms * sizeof(*ents));
	for (i = 0; i < s->n_vms; i++)
		ents[i] = s->vms[i].ent;
	qsort_r(s->vms, s->n_vms, sizeof(*s->vms), cmp_vm, &k);
	map = xcalloc(s->n_vms, sizeof(*map));
	for (i = 0; i < s->n_vms; i++)
		for (j = 0; j < s->n_vms; j++)
			if (s->vms[j].ent == ents[i])
				map[i] = j;
	for (i = 0; i < s->n_vcpus; i++)
		s->vcpus[i].vm = map[s->vcpus[i].vm];
	if (s->n_vcpus)
		qsort_r(s->vcpus, s->n_vcpus, sizeof(*s->vcpus), cmp_vcpu, &k);
	free(map);
	free(ents);
}

void top_fmt(char *buf, size_t size, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, fmt, v);
}

/* A cell's severity marks: "!!" critical, "!" warning, "" otherwise or when not marked. */
static const char *sev_marks(const struct top_cell *c, bool sev_mark)
{
	return !sev_mark ? "" : c->sev == SEV_CRITICAL ? "!!" : c->sev == SEV_WARNING ? "!" : "";
}

void top_fmt_factor_short(char *buf, size_t size, int factor, const struct top_cell *c, bool sev_mark)
{
	const struct qval *q = &c->q;
	const char *sev = sev_marks(c, sev_mark);
	char cell[48];

	if (!isnan(q->v) && c->src == TOP_SRC_MODEL && isfinite(c->cost_pct))
		snprintf(buf, size, "%s%s", vp_factor_cell(cell, sizeof(cell), c->cost_pct,
			 c->cost_q, NAN, q->q), sev);
	else
		top_fmt_factor(buf, size, factor, c, sev_mark);
}

void top_fmt_factor(char *buf, size_t size, int factor, const struct top_cell *c, bool sev_mark)
{
	/* a one-letter mark keeps the label in every cell: e estimate, a apportioned, p proxy;
	 * a model's score is "sN" and its cost "N%" as diagnose and report print them
	 * (vp_factor_cell()) */
	const struct qval *q = &c->q;
	const char *mark = vp_quality_mark(q->q), *sev = sev_marks(c, sev_mark);
	char s[48], k[48];

	if (isnan(q->v))
		snprintf(buf, size, "n/a");
	else if (c->src == TOP_SRC_MODEL && isfinite(c->cost_pct))
		snprintf(buf, size, "%s/%s%s", vp_factor_cell(s, sizeof(s), NAN, q->q, q->v, q->q),
			 vp_factor_cell(k, sizeof(k), c->cost_pct, c->cost_q, NAN, q->q), sev);
	else if (c->src == TOP_SRC_MODEL)
		snprintf(buf, size, "%s%s", vp_factor_cell(s, sizeof(s), NAN, q->q, q->v, q->q), sev);
	else if (factor == FACTOR_LLC)
		snprintf(buf, size, "%.1fM%s", q->v / 1048576.0, mark);
	else
		snprintf(buf, size, "%.1f%%%s", 100.0 * q->v, mark);
}
