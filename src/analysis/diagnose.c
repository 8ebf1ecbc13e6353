/* diagnose.c - the bottleneck evaluation method and placement advice (docs/method.md) */
#include "analysis/diagnose.h"
#include "analysis/diag_xen.h"
#include "analysis/vms_view.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/cpulist.h"
#include "util/json.h"

void diag_params_default(struct diag_params *p)
{
	p->factor_pct = 10.0;   /* Intel top-down: a node of interest from 10 % */
	p->membound_pct = 20.0; /* top-down's memory-bound threshold */
	p->lar_min = 0.80;      /* Carrefour's migration threshold */
	p->bw_knee = 0.75;      /* loaded latency rises sharply past ~78-84 % of peak */
	p->imbalance = 0.35;    /* Carrefour's interleave threshold */
	p->queue_full = 0.10;
}

const char *diag_scope_name(enum diag_scope s)
{
	switch (s) {
	case DIAG_VCPU: return "vcpu";
	case DIAG_VM: return "vm";
	case DIAG_NODE: return "node";
	}
	return "?";
}

const char *diag_confidence_name(enum diag_confidence c)
{
	switch (c) {
	case CONF_LOW: return "low";
	case CONF_MEDIUM: return "medium";
	case CONF_HIGH: return "high";
	}
	return "?";
}

const char *diag_factor_name(enum factor_id f)
{
	return f == DIAG_FACTOR_CPU ? "cpu" : factor_name(f);
}

static bool finite_pos(double v)
{
	return isfinite(v) && v > 0;
}

static int node_index(const struct diag_input *in, int id)
{
	size_t i;

	for (i = 0; i < in->n_nodes; i++)
		if (in->nodes[i].id == id)
			return (int)i;
	return -1;
}

/* Node utilisation against its calibrated peak; NaN unknown. */
static double node_util(const struct diag_node *n)
{
	if (!isfinite(n->bw_gbs) || !finite_pos(n->peak_gbs))
		return NAN;
	return n->bw_gbs / n->peak_gbs;
}

static struct diag_bottleneck *add_bottleneck(struct diag_result *r)
{
	struct diag_bottleneck *b;

	VP_GROW(r->b, r->cap_b, r->n_b + 1);
	b = &r->b[r->n_b++];
	memset(b, 0, sizeof(*b));
	b->cost_pct = NAN;
	b->cost_cycles = NAN;
	b->ci_lo = b->ci_hi = NAN;
	return b;
}

static struct diag_advice *add_advice(struct diag_result *r, const char *rule, size_t vm)
{
	struct diag_advice *a;

	VP_GROW(r->a, r->cap_a, r->n_a + 1);
	a = &r->a[r->n_a++];
	memset(a, 0, sizeof(*a));
	a->rule = rule;
	a->vm = vm;
	a->vcpu = -1;
	a->to_node = -1;
	a->to_cpu = -1;
	a->vnode = -1;
	a->gain_pct = NAN;
	return a;
}

void diag_node_init(struct diag_node *n, int id, const char *cpus, int n_cpus)
{
	int f;

	memset(n, 0, sizeof(*n));
	n->id = id;
	n->cpus = cpus;
	n->n_cpus = n_cpus;
	n->bw_gbs = n->peak_gbs = n->queue_full_frac = NAN;
	n->bw_quality = VQ_UNAVAILABLE;
	n->rdt_llc_bytes = n->rdt_mbm_gbs = n->rdt_mbm_local_gbs = NAN;
	n->mem_free_bytes = NAN;
	for (f = 0; f < FACTOR_N; f++) {
		n->cost_pct[f] = n->cost_left_out_share[f] = NAN;
		n->cost_left_out[f] = 0;
	}
}

struct diag_advice *diag_add_advice(struct diag_result *r, const char *rule, size_t vm)
{
	return add_advice(r, rule, vm);
}

static enum diag_confidence confidence(enum vp_quality q, bool cycles_proxy, bool have_cost)
{
	if (!have_cost || q == VQ_PROXY)
		return CONF_LOW;
	if (q == VQ_APPORTIONED || cycles_proxy)
		return CONF_MEDIUM;
	return CONF_HIGH;
}

/*
 * Per vCPU: the cost stage's costs as % of cycles.  They already fit the
 * memory-stall budget (src/model/cost.h): nothing is scaled here.
 */
static void eval_vcpus(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	size_t i;
	int f;

	for (i = 0; i < in->n_vcpus; i++) {
		const struct diag_vcpu *v = &in->vcpus[i];
		double *pct = &r->vcpu_pct[i * FACTOR_N], total = 0;
		bool any = false;

		for (f = 0; f < FACTOR_N; f++) {
			double c = v->f[f].cost_cycles;

			pct[f] = NAN;
			if (!isfinite(c) || !finite_pos(v->cycles))
				continue;
			pct[f] = 100.0 * (c > 0 ? c : 0) / v->cycles;
			total += pct[f];
			any = true;
		}
		if (isfinite(v->mem_stall_cycles) && finite_pos(v->cycles))
			r->vcpu_membound[i] = 100.0 * v->mem_stall_cycles / v->cycles >= p->membound_pct;
		else
			r->vcpu_membound[i] = any && total >= p->membound_pct;

		for (f = 0; f < FACTOR_N; f++) {
			const struct diag_factor_in *fi = &v->f[f];
			struct diag_bottleneck *b;
			bool by_cost = isfinite(pct[f]) && pct[f] >= p->factor_pct && r->vcpu_membound[i];
			bool by_score = !isfinite(pct[f]) && fi->sev >= SEV_WARNING &&
					fi->quality != VQ_UNAVAILABLE;

			if (!by_cost && !by_score)
				continue;
			b = add_bottleneck(r);
			b->scope = DIAG_VCPU;
			b->entity = i;
			b->factor = (enum factor_id)f;
			b->cost_pct = pct[f];
			b->cost_cycles = isfinite(fi->cost_cycles) ? fi->cost_cycles : NAN;
			b->sev = fi->sev;
			b->quality = fi->quality;
			b->confidence = confidence(fi->quality, v->cycles_proxy, by_cost);
			b->evidence = xstrdup(fi->evidence ? fi->evidence : "");
		}
	}
}

/* Per VM: the cycle-weighted sum of its vCPUs. */
static void eval_vms(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	size_t i, j;
	int f;

	for (i = 0; i < in->n_vms; i++) {
		struct diag_vm_summary *s = &r->vm[i];
		double cost[FACTOR_N] = { 0 }, cyc[FACTOR_N] = { 0 }, out_cyc[FACTOR_N] = { 0 };
		double stall = 0, total = 0, rem = 0;
		bool have[FACTOR_N] = { false }, stall_known = true, any = false, rem_known = false;

		for (f = 0; f < FACTOR_N; f++)
			s->quality[f] = VQ_UNAVAILABLE;
		for (j = 0; j < in->n_vcpus; j++) {
			const struct diag_vcpu *v = &in->vcpus[j];

			if (v->vm != i)
				continue;
			/* the weakest label among the vCPUs that have the factor at all */
			for (f = 0; f < FACTOR_N; f++) {
				enum vp_quality q = v->f[f].quality;

				if (q == VQ_UNAVAILABLE ||
				    (!isfinite(v->f[f].score) && !isfinite(v->f[f].cost_cycles)))
					continue;
				if (s->quality[f] == VQ_UNAVAILABLE || q > s->quality[f])
					s->quality[f] = q;
			}
			if (!finite_pos(v->cycles))
				continue;
			any = true;
			s->cycles += v->cycles;
			s->cycles_proxy |= v->cycles_proxy;
			if (isfinite(v->mem_stall_cycles))
				stall += v->mem_stall_cycles;
			else
				stall_known = false;
			if (isfinite(v->remainder_cycles)) {
				rem += v->remainder_cycles;
				rem_known = true;
			}
			for (f = 0; f < FACTOR_N; f++) {
				double pc = r->vcpu_pct[j * FACTOR_N + f];

				if (!isfinite(pc)) {
					s->cost_left_out[f]++;
					out_cyc[f] += v->cycles;
					continue;
				}
				cost[f] += pc / 100.0 * v->cycles;
				cyc[f] += v->cycles;
				have[f] = true;
			}
		}
		if (!any)
			s->cycles = NAN;
		/*
		 * A share of the costed vCPUs' own cycles, as frame_node_cost() does
		 * for nodes: dividing by every vCPU's cycles would count a vCPU whose
		 * cost is unknown as one that has none.  The left-out vCPUs are said.
		 */
		for (f = 0; f < FACTOR_N; f++) {
			s->cost_pct[f] = have[f] && cyc[f] > 0 ? 100.0 * cost[f] / cyc[f] : NAN;
			s->cost_left_out_share[f] = have[f] && s->cost_left_out[f] > 0 ?
				out_cyc[f] / s->cycles : NAN;
			if (!have[f])
				s->cost_left_out[f] = 0;
			if (isfinite(s->cost_pct[f]))
				total += s->cost_pct[f];
		}
		s->stall_pct = any && stall_known ? 100.0 * stall / s->cycles : NAN;
		s->remainder_pct = any && rem_known ? 100.0 * rem / s->cycles : NAN;
		s->memory_bound_known = true;
		if (any && stall_known)
			s->memory_bound = 100.0 * stall / s->cycles >= p->membound_pct;
		else
			s->memory_bound = total >= p->membound_pct;
		/* neither a stall budget nor any factor's cost: unknown, not "no" */
		if (!(any && stall_known)) {
			bool some = false;

			for (f = 0; f < FACTOR_N; f++)
				some |= isfinite(s->cost_pct[f]);
			s->memory_bound_known = some;
		}

		for (f = 0; f < FACTOR_N; f++) {
			struct diag_bottleneck *b;

			if (!isfinite(s->cost_pct[f]) || s->cost_pct[f] < p->factor_pct ||
			    !s->memory_bound)
				continue;
			b = add_bottleneck(r);
			b->scope = DIAG_VM;
			b->entity = i;
			b->factor = (enum factor_id)f;
			b->cost_pct = s->cost_pct[f];
			b->cost_cycles = cost[f];
			b->sev = s->cost_pct[f] >= 2 * p->factor_pct ? SEV_CRITICAL : SEV_WARNING;
			b->quality = s->quality[f];
			b->confidence = confidence(s->quality[f], false, true);
			if (s->cost_left_out[f] > 0)
				b->evidence = xasprintf("%.1f%% of the %.3g cycles of the VM's vCPUs that "
					"have the cost; %d vCPU%s without it (%.0f%% of the VM's "
					"cycles) left out", s->cost_pct[f], cyc[f],
					s->cost_left_out[f], s->cost_left_out[f] == 1 ? "" : "s",
					100 * s->cost_left_out_share[f]);
			else
				b->evidence = xasprintf("%.1f%% of the VM's %.3g cycles, summed over its "
					"vCPUs", s->cost_pct[f], s->cycles);
		}
	}
}

/* Per node: bandwidth against the calibrated peak, imbalance, queues. */
static void eval_nodes(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	double sum = 0, sq = 0;
	size_t i, n = 0;

	for (i = 0; i < in->n_nodes; i++) {
		const struct diag_node *nd = &in->nodes[i];
		double u = node_util(nd);
		struct sbuf note = SBUF_INIT;
		struct diag_bottleneck *b;

		if (isfinite(nd->bw_gbs)) {
			sum += nd->bw_gbs;
			sq += nd->bw_gbs * nd->bw_gbs;
			n++;
			sbuf_addf(&note, "%.2f GB/s", nd->bw_gbs);
			if (isfinite(u))
				sbuf_addf(&note, ", %.0f%% of its %.1f GB/s peak", 100 * u, nd->peak_gbs);
			else
				sbuf_addstr(&note, " (no calibrated peak: run 'vmmprof calibrate')");
			if (nd->bw_quality == VQ_APPORTIONED)
				sbuf_addstr(&note, " (apportioned: its package's count shared "
					    "evenly by the package's nodes)");
		} else {
			sbuf_addstr(&note, "bandwidth n/a (no IMC counters or resctrl MBM here)");
		}
		if (isfinite(nd->queue_full_frac))
			sbuf_addf(&note, "; request queues full %.1f%% of cycles",
				  100 * nd->queue_full_frac);
		r->node_notes[i] = sbuf_detach(&note);

		if ((isfinite(u) && u >= p->bw_knee) ||
		    (isfinite(nd->cost_pct[FACTOR_IMC]) && nd->cost_pct[FACTOR_IMC] >= p->factor_pct)) {
			struct sbuf ev = SBUF_INIT;

			b = add_bottleneck(r);
			b->scope = DIAG_NODE;
			b->entity = i;
			b->factor = FACTOR_IMC;
			/* what its threads lose to the controller's queueing ranks it */
			b->cost_pct = nd->cost_pct[FACTOR_IMC];
			b->sev = (isfinite(u) && u >= 0.9) ||
				 (isfinite(b->cost_pct) && b->cost_pct >= 2 * p->factor_pct) ?
				 SEV_CRITICAL : SEV_WARNING;
			b->quality = nd->bw_quality;
			b->confidence = confidence(nd->bw_quality, false, true);
			sbuf_addf(&ev, "node %d", nd->id);
			if (isfinite(u))
				sbuf_addf(&ev, " at %.0f%% of peak bandwidth (%.2f of %.2f GB/s)%s", 100 * u,
					  nd->bw_gbs, nd->peak_gbs, u >= p->bw_knee ?
					  ", past the knee where loaded latency rises" : "");
			if (isfinite(b->cost_pct))
				sbuf_addf(&ev, "%s the memory controller's queueing costs its threads "
					  "%.1f%% of their cycles", isfinite(u) ? ";" : ":", b->cost_pct);
			b->evidence = sbuf_detach(&ev);
		}
		if ((isfinite(nd->queue_full_frac) && nd->queue_full_frac >= p->queue_full) ||
		    (isfinite(nd->cost_pct[FACTOR_QUEUE]) &&
		     nd->cost_pct[FACTOR_QUEUE] >= p->factor_pct)) {
			b = add_bottleneck(r);
			b->scope = DIAG_NODE;
			b->entity = i;
			b->factor = FACTOR_QUEUE;
			b->cost_pct = nd->cost_pct[FACTOR_QUEUE];
			b->sev = (isfinite(nd->queue_full_frac) && nd->queue_full_frac >= 2 * p->queue_full) ||
				 (isfinite(b->cost_pct) && b->cost_pct >= 2 * p->factor_pct) ?
				 SEV_CRITICAL : SEV_WARNING;
			b->quality = nd->bw_quality == VQ_APPORTIONED ? VQ_APPORTIONED : VQ_MEASURED;
			b->confidence = confidence(b->quality, false, true);
			if (isfinite(nd->queue_full_frac))
				b->evidence = xasprintf("node %d: shared request trackers full %.1f%% of the time", nd->id,
					 100 * nd->queue_full_frac);
			else
				b->evidence = xasprintf("node %d: full shared request trackers cost its threads %.1f%% "
					 "of their cycles", nd->id, b->cost_pct);
		}
	}
	r->imbalance = NAN;
	if (n >= 2 && sum > 0) {
		double mu = sum / (double)n;
		double var = sq / (double)n - mu * mu;

		r->imbalance = sqrt(var > 0 ? var : 0) / mu;
	}
}

static int cmp_bottleneck(const void *pa, const void *pb)
{
	const struct diag_bottleneck *a = pa, *b = pb;
	bool fa = isfinite(a->cost_pct), fb = isfinite(b->cost_pct);

	if (fa != fb)
		return fa ? -1 : 1;
	if (fa && a->cost_pct != b->cost_pct)
		return a->cost_pct > b->cost_pct ? -1 : 1;
	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->scope != b->scope)
		return a->scope < b->scope ? -1 : 1;
	if (a->entity != b->entity)
		return a->entity < b->entity ? -1 : 1;
	return (int)a->factor - (int)b->factor;
}

/* ---- advice ---- */

/* The node holding most of a VM's memory; -1 unknown.  *frac gets its share. */
static int home_node(const struct diag_input *in, const struct diag_vm *vm, double *frac)
{
	size_t i;
	int best = -1;
	double bf = -1;

	*frac = NAN;
	if (!vm->mem_frac)
		return -1;
	for (i = 0; i < in->n_nodes; i++)
		if (isfinite(vm->mem_frac[i]) && vm->mem_frac[i] > bf) {
			bf = vm->mem_frac[i];
			best = (int)i;
		}
	if (best >= 0)
		*frac = bf;
	return best;
}

/* The single node all of a VM's vCPUs ran on (index), -1 when several or unknown. */
static int vcpus_node(const struct diag_input *in, size_t vm, int *n_nodes_used)
{
	size_t i;
	int node = -1, used = 0;
	bool seen[64] = { false };

	for (i = 0; i < in->n_vcpus; i++) {
		int ni;

		if (in->vcpus[i].vm != vm)
			continue;
		ni = node_index(in, in->vcpus[i].node);
		if (ni < 0)
			continue;
		if (ni < 64 && !seen[ni]) {
			seen[ni] = true;
			used++;
		}
		node = ni;
	}
	if (n_nodes_used)
		*n_nodes_used = used;
	return used == 1 ? node : -1;
}

/*
 * libvirt: --config only on a persistent domain (a transient one has no
 * persistent configuration: virsh refuses the flag), --live on a running
 * one.  Unknown (a recording, no /etc/libvirt/qemu): --live, and the
 * advice's restart note says when to add --config.
 */
static const char *virsh_flags(const struct diag_vm *vm)
{
	return vm->persist == DP_PERSISTENT ? "--live --config" : "--live";
}

static void cmd_pin(const struct diag_vm *vm, int vcpu, int tid, const char *cpus, struct sbuf *sb)
{
	char *q = shell_word(vm->name, vm->adapter == HVA_XEN);

	if (vm->adapter == HVA_XEN) /* soft affinity: '-' keeps the hard one (diag_xen.c) */
		sbuf_addf(sb, "xl vcpu-pin %s %d - %s\n", q, vcpu, cpus);
	else if (vm->adapter == HVA_KVM && vm->libvirt)
		sbuf_addf(sb, "virsh vcpupin %s %d %s %s\n", q, vcpu, cpus, virsh_flags(vm));
	else /* a plain QEMU vCPU, or a native thread, is a host thread */
		sbuf_addf(sb, "taskset -pc %s %d\n", cpus, tid);
	free(q);
}

/*
 * The CPUs to pin to on node index ni: its CPU list less those isolcpus=
 * reserves (the scheduler does not balance onto them: a thread pinned to a
 * set holding them can stay on one of them); the whole list when none is
 * reserved or the host's CPUs are unknown.  tmp holds a new list.
 */
static const char *pin_set(const struct diag_input *in, int ni, struct sbuf *tmp)
{
	struct cpulist cl;
	size_t i, n;
	bool any = false;

	for (i = 0; i < in->n_cpus; i++)
		any |= in->cpus[i].node == ni && in->cpus[i].isolated;
	if (!any)
		return in->nodes[ni].cpus;
	cpulist_init(&cl);
	for (i = 0; i < in->n_cpus; i++)
		if (in->cpus[i].node == ni && !in->cpus[i].isolated)
			cpulist_add(&cl, in->cpus[i].id);
	n = cl.n;
	sbuf_reset(tmp);
	if (n)
		cpulist_format(&cl, tmp);
	cpulist_release(&cl);
	/* every CPU reserved: the node's list, and the placement pass flags it */
	return n ? sbuf_str(tmp) : in->nodes[ni].cpus;
}

/*
 * A whole VM moved to cpus: every vCPU in view, then what runs beside them
 * and must follow them to the node (libvirt: the emulator threads with
 * emulatorpin, each IOThread its status lists with iothreadpin; plain QEMU:
 * its main loop, the thread whose id is the pid: taskset without -a leaves
 * the vCPUs' own pins alone).  Xen and native processes: the vCPUs only.
 */
static void cmd_pin_vm(const struct diag_input *in, size_t vmi, const char *cpus, struct sbuf *sb)
{
	const struct diag_vm *vm = &in->vms[vmi];
	size_t i;
	int k;

	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].vm == vmi)
			cmd_pin(vm, in->vcpus[i].index, in->vcpus[i].tid, cpus, sb);
	if (vm->adapter != HVA_KVM)
		return;
	if (vm->libvirt) {
		char *q = shell_word(vm->name, false);

		sbuf_addf(sb, "virsh emulatorpin %s %s %s\n", q, cpus, virsh_flags(vm));
		for (k = 0; k < vm->n_iothreads && k < DIAG_MAX_IOTHREADS; k++)
			sbuf_addf(sb, "virsh iothreadpin %s %d %s %s\n", q,
				  vm->iothread_ids[k], cpus, virsh_flags(vm));
		free(q);
	} else if (vm->pid > 0) {
		sbuf_addf(sb, "taskset -pc %s %d\n", cpus, vm->pid);
	}
	/* vhost workers (libvirt has no pin of its own for them) and plain QEMU's IOThreads */
	for (i = 0; i < vm->n_io; i++)
		if (vm->io[i].kind == HV_IO_VHOST ||
		    (!vm->libvirt && vm->io[i].kind == HV_IO_IOTHREAD))
			sbuf_addf(sb, "taskset -pc %s %d\n", cpus, vm->io[i].tid);
}

/*
 * Move a VM's memory from node index `from` (-1: from everywhere) to `to`.
 * libvirt changes a running domain's nodeset only in restrictive mode
 * (libvirt >= 8.0; strict, the default, refuses it): otherwise the new
 * nodeset goes to the configuration for the next start, and migratepages
 * moves the pages now.
 */
static void cmd_migrate(const struct diag_input *in, const struct diag_vm *vm, int from, int to,
			struct sbuf *sb)
{
	int t = in->nodes[to].id;

	if (vm->adapter == HVA_KVM && vm->libvirt) {
		char *q = shell_word(vm->name, false);

		if (vm->numa_mode == DN_RESTRICTIVE)
			sbuf_addf(sb, "virsh numatune %s --nodeset %d %s\n", q, t,
				  virsh_flags(vm));
		else if (vm->persist != DP_TRANSIENT)
			sbuf_addf(sb, "virsh numatune %s --nodeset %d --config   # applies at its next "
				      "start: a running domain's nodeset changes only in restrictive "
				      "mode\n", q, t);
		free(q);
	}
	if (from >= 0)
		sbuf_addf(sb, "migratepages %d %d %d\n", vm->pid, in->nodes[from].id, t);
	else
		sbuf_addf(sb, "migratepages %d all %d\n", vm->pid, t);
}

/*
 * What an advice's commands need besides the hypervisor's own tools (the
 * Debian package of each: a->needs) and whether the change survives a
 * restart of the VM (a->restart).
 */
static void finish_commands(struct diag_advice *a, const struct diag_vm *vm)
{
	struct sbuf sb = SBUF_INIT;
	const char *c = a->command ? a->command : "";
	bool mp = strstr(c, "migratepages ") != NULL, ts = strstr(c, "taskset ") != NULL;
	bool nc = strstr(c, "numactl ") != NULL, cfg = strstr(c, "--config") != NULL;
	bool virsh = strstr(c, "virsh ") != NULL, xl = strstr(c, "xl vcpu-pin ") != NULL;

	if (mp || (nc && !mp))
		sbuf_addstr(&sb, mp ? "migratepages (Debian package numactl)" :
				      "numactl (Debian package numactl)");
	if (ts)
		sbuf_addf(&sb, "%staskset (Debian package util-linux)", sb.len ? ", " : "");
	free(a->needs);
	a->needs = sb.len ? sbuf_detach(&sb) : NULL;
	sbuf_release(&sb);
	free(a->restart);
	if (!virsh && !xl && !ts && !mp && !strstr(c, "xl create ") && !strstr(c, "xl cpupool-") &&
	    c[0] == '#')
		a->restart = xstrdup("yes, once made: the comment says what to change in the VM's "
				     "configuration, by hand; it takes effect at its next start");
	else if (!virsh && !xl && !ts && !mp && !strstr(c, "xl create ") && !strstr(c, "xl cpupool-"))
		a->restart = xstrdup("nothing to apply");
	else if (strstr(c, "xl create "))
		a->restart = xasprintf("yes: the change is in %s's configuration file, and takes "
				       "effect when the domain is created from it",
				       vm ? vm->name : "the domain's");
	else if (strstr(c, "xl cpupool-migrate "))
		a->restart = xasprintf("no: the pools last until Xen reboots and %s returns to "
				       "its configured pool when it is created again; keep it with "
				       "pool= in its configuration file", vm ? vm->name : "the domain");
	else if (xl)
		a->restart = xasprintf("no: xl vcpu-pin lasts until %s is destroyed; keep it with "
				       "cpus= in its configuration file", vm ? vm->name : "the domain");
	else if (virsh && vm && vm->persist == DP_TRANSIENT)
		a->restart = xasprintf("no: %s is transient (no persistent configuration): put the "
				       "placement in the XML it is created from%s", vm->name,
				       mp ? "; migratepages moves the pages that exist now" : "");
	else if (virsh && cfg)
		a->restart = xasprintf("yes: written to %s's configuration (--config)%s",
				       vm ? vm->name : "the domain's",
				       mp ? "; migratepages moves the pages that exist now" : "");
	else if (virsh)
		a->restart = xasprintf("only with --config, on a persistent domain: add it if "
				       "'virsh dominfo %s' says 'Persistent: yes' (unknown here)",
				       vm ? vm->name : "DOM");
	else
		a->restart = xstrdup("no: taskset and migratepages act on the running threads and "
				     "pages; a restart places them anew (put the placement in the "
				     "command that starts it: numactl, taskset -c)");
}

/*
 * What on the host would undo an advice behind its back (a->warning):
 * numad re-places whole processes (CPUs and memory) on its own; automatic
 * NUMA balancing (kernel.numa_balancing) moves unpinned threads to other
 * nodes and pages after the threads that touch them, so memory moved to a
 * node stays there only while the vCPUs are pinned to it or the memory is
 * bound (a vCPU pin alone is respected: the kernel moves a task only within
 * its allowed CPUs).  Xen's placement is Xen's: neither applies.
 */
static void host_warning(const struct diag_input *in, struct diag_advice *a,
			 const struct diag_vm *vm)
{
	struct sbuf sb = SBUF_INIT;
	const char *c = a->command ? a->command : "";
	bool pin = strstr(c, "vcpupin ") || strstr(c, "taskset ");
	bool acts = pin || strstr(c, "numatune ") || strstr(c, "migratepages ");
	bool mem = strstr(c, "migratepages ") != NULL;
	bool pins_all = false;
	size_t i, n = 0, pinned = 0;

	if (!vm || vm->adapter == HVA_XEN || !acts)
		return;
	/* the advice pins every vCPU of the VM too (spread, colocate) */
	for (i = 0; i < in->n_vcpus; i++)
		if (&in->vms[in->vcpus[i].vm] == vm) {
			char t[32];

			n++;
			snprintf(t, sizeof(t), " %d\n", in->vcpus[i].tid);
			pinned += vm->libvirt ? 0 : strstr(c, t) != NULL;
		}
	pins_all = pin && (vm->libvirt ? a->vcpu < 0 : n && pinned == n);
	if (in->numad_pid > 0 && vm->pid > 0)
		sbuf_addf(&sb, "numad (pid %d) runs: it re-places processes' CPUs and memory on "
			  "its own and can undo this; exclude %s from it ('numad -x %d') or stop it "
			  "('systemctl stop numad')", in->numad_pid, vm->name, vm->pid);
	if (in->numa_balancing && mem && !pins_all)
		sbuf_addf(&sb, "%skernel.numa_balancing is on: it moves unpinned threads to other "
			  "nodes and pages after the threads that touch them, so memory moved here "
			  "stays only while %s's %s are pinned to the node or its memory is bound "
			  "(virsh numatune, numactl --membind); or turn it off for the whole host "
			  "('sysctl -w kernel.numa_balancing=0': there is no switch per VM)",
			  sb.len ? "; " : "", vm->name,
			  vm->adapter == HVA_NATIVE ? "threads" : "vCPUs");
	free(a->warning);
	a->warning = sb.len ? sbuf_detach(&sb) : NULL;
	sbuf_release(&sb);
}

static void pct_text(char *buf, size_t size, double pct)
{
	if (isfinite(pct))
		snprintf(buf, size, "%.1f%%", pct);
	else
		snprintf(buf, size, "an unknown share");
}

/* A KVM guest with virtual NUMA nodes (two or more): its locality is per virtual node. */
static bool vnuma_vm(const struct diag_vm *vm)
{
	return vm->adapter == HVA_KVM && vm->vnodes && vm->n_vnodes >= 2;
}

/* The virtual node of a vNUMA guest that holds its vCPU index; NULL none. */
static const struct hv_vnode *vcpu_vnode(const struct diag_vm *vm, int index)
{
	size_t k;

	if (!vnuma_vm(vm))
		return NULL;
	for (k = 0; k < vm->n_vnodes; k++)
		if (cpulist_has(&vm->vnodes[k].vcpus, index))
			return &vm->vnodes[k];
	return NULL;
}

/* Whether a virtual node's backend is bound to host node index ni alone (policy bind). */
static bool vnode_bound_to(const struct diag_input *in, const struct hv_vnode *vn, int ni)
{
	return vn->policy && !strcmp(vn->policy, "bind") && vn->host_nodes.n == 1 &&
	       node_index(in, vn->host_nodes.ids[0]) == ni;
}

/*
 * Where a virtual node's memory is: the node index holding most of its
 * backend's resident pages (numa_maps), *frac their share; else the one
 * node its backend is bound to (policy bind), *frac 1; -1 unknown.
 * share (in->n_nodes entries, may be NULL) gets its share per node index,
 * NaN where numa_maps did not single the backend out.
 */
static int vnode_home(const struct diag_input *in, const struct hv_vnode *vn, double *frac,
		      double *share)
{
	double tot = 0, best = -1;
	int i, home = -1;
	size_t k;

	*frac = NAN;
	for (k = 0; share && k < in->n_nodes; k++)
		share[k] = NAN;
	for (i = 0; vn->mem_node && i < vn->n_mem_nodes; i++)
		tot += (double)vn->mem_node[i];
	if (tot > 0) {
		for (k = 0; share && k < in->n_nodes; k++)
			share[k] = 0;
		for (i = 0; i < vn->n_mem_nodes; i++) {
			int ni = node_index(in, i);
			double sh = (double)vn->mem_node[i] / tot;

			if (ni < 0)
				continue;
			if (share)
				share[ni] = sh;
			if (sh > best) {
				best = sh;
				home = ni;
			}
		}
		*frac = home >= 0 ? best : NAN;
		return home;
	}
	if (vn->policy && !strcmp(vn->policy, "bind") && vn->host_nodes.n == 1 &&
	    (home = node_index(in, vn->host_nodes.ids[0])) >= 0) {
		*frac = 1;
		return home;
	}
	return -1;
}

/*
 * Whether vCPU i has a locality finding of its own: a cost over the
 * threshold (and memory-bound), or, without a cost (a proxy model, counters
 * off on a fixture tree), its score's severity; and a local access ratio
 * not known to be at or over the threshold.
 */
static bool vcpu_remote(const struct diag_input *in, const struct diag_result *r, size_t i,
			bool *by_cost)
{
	const struct diag_vcpu *v = &in->vcpus[i];
	double pc = r->vcpu_pct[i * FACTOR_N + FACTOR_LOCALITY];
	bool c = isfinite(pc) && pc >= in->params.factor_pct && r->vcpu_membound[i];
	bool sc = !isfinite(pc) && v->f[FACTOR_LOCALITY].sev >= SEV_WARNING &&
		  v->f[FACTOR_LOCALITY].quality != VQ_UNAVAILABLE && isfinite(v->remote_frac);

	if (by_cost)
		*by_cost = c;
	if (!c && !sc)
		return false;
	return !(isfinite(v->remote_frac) && 1.0 - v->remote_frac >= in->params.lar_min);
}

/*
 * pin-vcpu-to-memory: vCPU i to node index home, which holds hfrac of the
 * memory it reads (its VM's; in a vNUMA guest, its virtual node vn's).
 */
static void pin_to_memory(const struct diag_input *in, struct diag_result *r, size_t i, int home,
			  double hfrac, const struct hv_vnode *vn)
{
	const struct diag_vcpu *v = &in->vcpus[i];
	const struct diag_vm *vm = &in->vms[v->vm];
	double pc = r->vcpu_pct[i * FACTOR_N + FACTOR_LOCALITY];
	double u = node_util(&in->nodes[home]);
	int cur = node_index(in, v->node);
	struct diag_advice *a;
	struct sbuf sb = SBUF_INIT, tmp = SBUF_INIT;
	char pct[32], lar[64] = "n/a", whose[160];
	bool by_cost;

	vcpu_remote(in, r, i, &by_cost);
	if (vn)
		snprintf(whose, sizeof(whose), "its virtual node %d's memory (%s)", vn->id,
			 vn->memdev ? vn->memdev : "no backend");
	else
		snprintf(whose, sizeof(whose), "its memory");
	a = add_advice(r, "pin-vcpu-to-memory", v->vm);
	a->vcpu = v->index;
	a->to_node = home;
	a->gain_pct = pc;
	a->action = xasprintf("pin %s vCPU %d to node %d (CPUs %s), where %.0f%% of %s is",
			      vm->name, v->index, in->nodes[home].id, in->nodes[home].cpus,
			      100 * hfrac, whose);
	if (isfinite(v->remote_frac))
		snprintf(lar, sizeof(lar), "%.0f%% < %.0f%%", 100 * (1 - v->remote_frac),
			 100 * in->params.lar_min);
	if (by_cost)
		sbuf_addf(&sb, "locality costs %.1f%% of its cycles (%s); local access ratio %s; "
			  "it ran on node %d", pc, vp_quality_name(v->f[FACTOR_LOCALITY].quality),
			  lar, cur >= 0 ? in->nodes[cur].id : -1);
	else
		sbuf_addf(&sb, "remote-access share %.0f%% (%s, %s; the model gives no cost); "
			  "local access ratio %s; it ran on node %d", 100 * v->remote_frac,
			  vp_quality_name(v->f[FACTOR_LOCALITY].quality),
			  severity_name(v->f[FACTOR_LOCALITY].sev), lar,
			  cur >= 0 ? in->nodes[cur].id : -1);
	if (vn) {
		sbuf_addf(&sb, "; the guest has %zu virtual nodes and vCPU %d is in node %d, whose "
			  "memory (%s) is ", vm->n_vnodes, v->index, vn->id,
			  vn->memdev ? vn->memdev : "no backend");
		if (vn->mem_node)
			sbuf_addf(&sb, "%.0f%% on node %d (numa_maps)", 100 * hfrac,
				  in->nodes[home].id);
		else
			sbuf_addf(&sb, "bound to node %d (policy bind)", in->nodes[home].id);
	}
	a->evidence = sbuf_detach(&sb);
	pct_text(pct, sizeof(pct), pc);
	if (by_cost)
		sbuf_addf(&sb, "up to %s of this vCPU's cycles back", pct);
	else
		sbuf_addf(&sb, "its remote-access share falls from %.0f%% to about %.0f%% (by where "
			  "%s is); what that gives in cycles needs counters", 100 * v->remote_frac,
			  100 * (1 - hfrac), whose);
	if (vn)
		sbuf_addf(&sb, "; not migratepages: it moves every backend's pages of the process "
			  "(all %zu virtual nodes'), not node %d's alone -- to move this node's "
			  "memory instead, bind its backend at the next start (%s)", vm->n_vnodes,
			  vn->id, vm->libvirt ? "<numatune><memnode cellid=... nodeset=.../>" :
			  "host-nodes=,policy=bind");
	/*
	 * Past the knee on the memory's node this is no conflict: a vCPU
	 * move takes no memory there.  The pages it reads are served by
	 * node home's controllers before and after (remote reads cross
	 * the link to the same controllers), so their load and the IMC
	 * cost there stay as they are; the move saves the link's latency.
	 */
	if (isfinite(u) && u >= in->params.bw_knee)
		sbuf_addf(&sb, "; node %d's memory controllers carry %.0f%% of their calibrated "
			  "peak either way (this moves no memory: its pages are read from the same "
			  "controllers), so the IMC cost there stays", in->nodes[home].id, 100 * u);
	a->effect = sbuf_detach(&sb);
	cmd_pin(vm, v->index, v->tid, pin_set(in, home, &tmp), &sb);
	sbuf_release(&tmp);
	a->command = sbuf_detach(&sb);
}

/*
 * Locality in a guest with virtual NUMA nodes: per virtual node.  The
 * guest's kernel puts a task's memory on the virtual node of the vCPU it
 * runs on, so a vCPU's memory is its node's backend: each vCPU that ran
 * away from the host node holding most of its virtual node's memory is
 * pinned there.  Never migratepages: it moves every backend's pages of the
 * process, against the other nodes' placement (vnuma-fidelity binds each
 * backend for the next start).  A virtual node whose memory cannot be
 * placed (numa_maps cannot single its backend out, and it is not bound) is
 * left to vnuma-fidelity.
 */
static void advise_locality_vnuma(const struct diag_input *in, struct diag_result *r, size_t vmi)
{
	const struct diag_vm *vm = &in->vms[vmi];
	double *share = xcalloc(in->n_nodes ? in->n_nodes : 1, sizeof(double));
	size_t i;

	for (i = 0; i < in->n_vcpus; i++) {
		const struct diag_vcpu *v = &in->vcpus[i];
		const struct hv_vnode *vn = v->vm == vmi ? vcpu_vnode(vm, v->index) : NULL;
		int cur = node_index(in, v->node), home;
		double hfrac;

		if (!vn || !vcpu_remote(in, r, i, NULL))
			continue;
		home = vnode_home(in, vn, &hfrac, share);
		if (home < 0 || cur == home)
			continue;
		/* a node that holds no more of its memory than where it runs gains nothing */
		if (cur >= 0 && isfinite(share[cur]) && share[cur] >= hfrac)
			continue;
		pin_to_memory(in, r, i, home, hfrac, vn);
	}
	free(share);
}

static double vcpu_busy(const struct diag_input *in, const struct diag_vcpu *v);
static double bytes_to_move(const struct diag_input *in, const struct diag_vm *vm, int to);
static void cmd_pin_vm(const struct diag_input *in, size_t vmi, const char *cpus, struct sbuf *sb);

/*
 * Page migration rate when the host is not calibrated: move_pages of 4 KiB
 * pages between the two nodes of a 2-socket AMD EPYC (Zen 3), one thread,
 * vanilla Linux 7.1-rc1: 3.31 +- 0.18 GB/s (2 MiB pages: 11.02) -- S. Garg,
 * linux-kernel, 2026-05-08, "Re: [PATCH 0/7] Accelerate page migration with
 * batch copying and hardware offload" (docs/method.md).  4 KiB: the lower
 * figure, for guest RAM that is not THP.
 */
#define MIGRATE_LIT_GBS 3.31
/* A memory move must pay for itself within this much of the VM's run (docs/method.md). */
#define MIGRATE_HORIZON_S 60.0

/* The VM's busy vCPUs over the run (their run time / duration, summed); NaN unknown. */
static double vm_busy(const struct diag_input *in, size_t vmi)
{
	double b = 0;
	size_t i, n = 0;

	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].vm == vmi) {
			double x = vcpu_busy(in, &in->vcpus[i]);

			if (!isfinite(x))
				return NAN;
			b += x;
			n++;
		}
	return n ? b : NAN;
}

/*
 * The break-even of moving VM vmi's memory to node index to: the bytes that
 * move (bytes_to_move()) over the migration rate (calibrated, else the
 * literature's, labelled) is what it costs, in seconds of one CPU (the
 * migratepages thread copies them); it saves the locality cost's share of
 * the VM's busy vCPUs, in CPU-seconds per second.  Paid back after cost /
 * saving seconds.  Writes the sentence to sb; returns that payback, NaN
 * when a figure is unknown.
 */
static double move_break_even(const struct diag_input *in, size_t vmi, int to, double pct,
			      struct sbuf *sb)
{
	double b = bytes_to_move(in, &in->vms[vmi], to), busy = vm_busy(in, vmi);
	bool cal = finite_pos(in->migrate_gbs);
	double rate = cal ? in->migrate_gbs : MIGRATE_LIT_GBS, t, save;

	if (!isfinite(b) || b <= 0) {
		sbuf_addstr(sb, "how much memory moves is not known, nor how long it takes");
		return NAN;
	}
	t = b / (rate * 1e9);
	sbuf_addf(sb, "moving %.2f GiB takes ~%.2g s with one CPU busy (at %.2f GB/s, %s)",
		  b / 1073741824.0, t, rate, cal ? "calibrated: cal.migrate_gbs" :
		  "an estimate: move_pages of 4 KiB pages on a 2-socket server, from the literature "
		  "(docs/method.md); vmmprof calibrate measures it on a host with two nodes");
	if (!finite_pos(pct) || !finite_pos(busy)) {
		sbuf_addstr(sb, "; what it saves per second needs the locality cost and the vCPUs' "
			    "run time, not both known here: the break-even is not known");
		return NAN;
	}
	save = pct / 100 * busy;
	sbuf_addf(sb, "; saves ~%.2g CPU-s per s (%.1f%% of its %.2f busy vCPUs); paid back after "
		  "~%.2g s", save, pct, busy, t / save);
	return t / save;
}

/*
 * Locality: move memory to the vCPUs when they all run on one node, else
 * pin each remote-bound vCPU to its memory's node (Carrefour's rules); a
 * guest with virtual nodes per virtual node (advise_locality_vnuma()).
 */
static void advise_locality(const struct diag_input *in, struct diag_result *r, size_t vmi)
{
	const struct diag_params *p = &in->params;
	const struct diag_vm *vm = &in->vms[vmi];
	double hfrac, vm_pct = r->vm[vmi].cost_pct[FACTOR_LOCALITY];
	int home = home_node(in, vm, &hfrac), run = vcpus_node(in, vmi, NULL);
	char pct[32];
	size_t i;

	/*
	 * A proxy model gives a score (the remote-access fraction) but no
	 * cost: the rule then fires on the score's severity and a local access
	 * ratio under the threshold, and the gain is unknown.
	 */
	bool vm_by_cost = isfinite(vm_pct) && vm_pct >= p->factor_pct;
	bool vm_by_score = !isfinite(vm_pct) && vm->scored &&
			   vm->sev[FACTOR_LOCALITY] >= SEV_WARNING &&
			   isfinite(vm->score[FACTOR_LOCALITY]) &&
			   1.0 - vm->score[FACTOR_LOCALITY] < p->lar_min;

	if (vnuma_vm(vm)) {
		advise_locality_vnuma(in, r, vmi);
		return;
	}
	if (home < 0)
		return;
	if (run >= 0 && run != home && vm->adapter != HVA_XEN && vm->pid > 0 &&
	    (vm_by_cost || vm_by_score)) {
		struct diag_advice *a = add_advice(r, "migrate-memory", vmi);
		struct sbuf sb = SBUF_INIT, be = SBUF_INIT;
		double payback;

		a->to_node = run;
		a->gain_pct = vm_pct;
		a->action = xasprintf("move %s's memory from node %d to node %d, where all its %s run",
			 vm->name, in->nodes[home].id, in->nodes[run].id,
			 vm->adapter == HVA_NATIVE ? "threads" : "vCPUs");
		if (vm_by_cost)
			a->evidence = xasprintf("%.0f%% of its memory is on node %d; every vCPU ran on node %d; "
				 "locality costs %.1f%% of its cycles (%s)",
				 100 * hfrac, in->nodes[home].id, in->nodes[run].id, vm_pct,
				 vp_quality_name(r->vm[vmi].quality[FACTOR_LOCALITY]));
		else
			a->evidence = xasprintf("%.0f%% of its memory is on node %d; every thread ran on node %d; "
				 "remote-access share %.0f%% (%s, %s; the model gives no cost)",
				 100 * hfrac, in->nodes[home].id, in->nodes[run].id,
				 100 * vm->score[FACTOR_LOCALITY],
				 vp_quality_name(r->vm[vmi].quality[FACTOR_LOCALITY]),
				 severity_name(vm->sev[FACTOR_LOCALITY]));
		pct_text(pct, sizeof(pct), vm_pct);
		payback = move_break_even(in, vmi, run, vm_pct, &be);
		if (isfinite(payback) && payback > MIGRATE_HORIZON_S) {
			/* the memory does not pay back in time: its vCPUs go to it instead */
			struct sbuf tmp = SBUF_INIT;
			const char *cpus = pin_set(in, home, &tmp);

			a->rule = "pin-vcpu-to-memory";
			a->to_node = home;
			free(a->action);
			a->action = xasprintf("pin every vCPU of %s to node %d (CPUs %s), where %.0f%% of "
					      "its memory is", vm->name, in->nodes[home].id, cpus,
					      100 * hfrac);
			a->effect = xasprintf("its remote accesses become local: up to %s of its cycles "
				 "back; its memory stays: %s, past the %.0f s horizon, so the vCPUs move "
				 "instead", pct, sbuf_str(&be), MIGRATE_HORIZON_S);
			cmd_pin_vm(in, vmi, cpus, &sb);
			sbuf_release(&tmp);
		} else {
			a->effect = xasprintf("its remote accesses become local: up to %s of its cycles "
				 "back, one move instead of re-pinning every vCPU; %s%s", pct,
				 sbuf_str(&be), isfinite(payback) ? ", within the horizon" : "");
			cmd_migrate(in, vm, home, run, &sb);
		}
		sbuf_release(&be);
		a->command = sbuf_detach(&sb);
		return;
	}
	for (i = 0; i < in->n_vcpus; i++) {
		const struct diag_vcpu *v = &in->vcpus[i];
		int cur = node_index(in, v->node);

		if (v->vm != vmi || cur == home || !vcpu_remote(in, r, i, NULL))
			continue;
		/* a node that holds no more of its memory than where it runs gains nothing */
		if (cur >= 0 && isfinite(vm->mem_frac[cur]) && vm->mem_frac[cur] >= hfrac)
			continue;
		pin_to_memory(in, r, i, home, hfrac, NULL);
	}
}

/* Sharing: put a VM whose vCPUs bounce lines across nodes on one node. */
static void advise_sharing(const struct diag_input *in, struct diag_result *r, size_t vmi)
{
	const struct diag_vm *vm = &in->vms[vmi];
	double pc = r->vm[vmi].cost_pct[FACTOR_SHARING], hfrac;
	int used = 0, home, target;
	size_t i, nv = 0;
	struct diag_advice *a;
	struct sbuf sb = SBUF_INIT;
	char pct[32];

	if (!isfinite(pc) || pc < in->params.factor_pct)
		return;
	vcpus_node(in, vmi, &used);
	if (used < 2)
		return;
	home = home_node(in, vm, &hfrac);
	target = home >= 0 ? home : node_index(in, in->vcpus[0].node);
	if (target < 0)
		return;
	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].vm == vmi)
			nv++;
	a = add_advice(r, "colocate", vmi);
	a->to_node = target;
	a->gain_pct = pc;
	a->action = xasprintf("run all %zu vCPUs of %s on node %d (CPUs %s)", nv,
		 vm->name, in->nodes[target].id, in->nodes[target].cpus);
	a->evidence = xasprintf("sharing costs %.1f%% of its cycles (%s) and its vCPUs ran on %d nodes: "
		 "cache lines cross sockets at 2-3x the in-socket latency",
		 pc, vp_quality_name(r->vm[vmi].quality[FACTOR_SHARING]), used);
	pct_text(pct, sizeof(pct), pc);
	a->effect = xasprintf("cross-socket transfers become in-socket ones: part of %s of its cycles back", pct);
	{
		struct sbuf tmp = SBUF_INIT;

		cmd_pin_vm(in, vmi, pin_set(in, target, &tmp), &sb);
		sbuf_release(&tmp);
	}
	a->command = sbuf_detach(&sb);
	if ((int)nv > in->nodes[target].n_cpus) {
		a->conflict = true;
		a->conflict_note = xasprintf("node %d has %d CPUs for %zu vCPUs: they would share CPUs",
			 in->nodes[target].id, in->nodes[target].n_cpus, nv);
	}
}

/* The node index where most of a VM's vCPUs ran; -1 unknown. */
static int main_node(const struct diag_input *in, size_t vmi)
{
	int count[64] = { 0 }, best = -1;
	size_t i;

	for (i = 0; i < in->n_vcpus; i++) {
		int ni = in->vcpus[i].vm == vmi ? node_index(in, in->vcpus[i].node) : -1;

		if (ni >= 0 && ni < 64 && ++count[ni] > (best >= 0 ? count[best] : 0))
			best = ni;
	}
	return best;
}

/*
 * LLC and IMC contention: two or more heavy VMs on one node while another
 * node hosts none: move the lighter one, vCPUs and memory together
 * (Blagodurov et al.: contention, not remote latency, is the main cost).
 */
static void advise_spread(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	size_t i, nn = in->n_nodes < 64 ? in->n_nodes : 64;
	int heavy_on[64] = { 0 };

	for (i = 0; i < in->n_vms; i++) {
		double c = fmax(r->vm[i].cost_pct[FACTOR_LLC], r->vm[i].cost_pct[FACTOR_IMC]);
		int mn = main_node(in, i);

		if (isfinite(c) && c >= p->factor_pct && r->vm[i].memory_bound && mn >= 0 && mn < 64)
			heavy_on[mn]++;
	}
	for (i = 0; i < nn; i++) {
		size_t j, victim = (size_t)-1;
		double vc = INFINITY;
		int k, target = -1;

		if (heavy_on[i] < 2)
			continue;
		for (k = 0; k < (int)nn; k++)
			if (heavy_on[k] == 0 && (target < 0 || in->nodes[k].n_cpus > in->nodes[target].n_cpus))
				target = k;
		if (target < 0)
			continue;
		for (j = 0; j < in->n_vms; j++) {
			double c = fmax(r->vm[j].cost_pct[FACTOR_LLC], r->vm[j].cost_pct[FACTOR_IMC]);

			if (main_node(in, j) == (int)i && isfinite(c) && c >= p->factor_pct && c < vc) {
				vc = c;
				victim = j;
			}
		}
		if (victim != (size_t)-1) {
			const struct diag_vm *vm = &in->vms[victim];
			struct diag_advice *a = add_advice(r, "spread", victim);
			struct sbuf sb = SBUF_INIT;

			a->to_node = target;
			a->gain_pct = vc;
			a->action = xasprintf("move %s (vCPUs and memory) from node %d to node %d",
				 vm->name, in->nodes[i].id, in->nodes[target].id);
			a->evidence = xasprintf("%d VMs with LLC or IMC contention share node %d (this one %.1f%% of its cycles, "
				 "the least of them); node %d hosts none",
				 heavy_on[i], in->nodes[i].id, vc, in->nodes[target].id);
			a->effect = xasprintf("both VMs get a cache and memory controller of their own; "
				 "up to %.1f%% of this VM's cycles back, and relief for the others", vc);
			{
				struct sbuf tmp = SBUF_INIT;

				cmd_pin_vm(in, victim, pin_set(in, target, &tmp), &sb);
				sbuf_release(&tmp);
			}
			if (vm->adapter != HVA_XEN && vm->pid > 0)
				cmd_migrate(in, vm, (int)i, target, &sb);
			else if (vm->adapter == HVA_XEN)
				sbuf_addf(&sb, "# Xen places memory at domain creation: recreate %s "
					       "with cpus=\"%s\" to move its memory too\n",
					  vm->name, in->nodes[target].cpus);
			a->command = sbuf_detach(&sb);
			heavy_on[i]--;
			heavy_on[target]++;
		}
	}
}

/* Interleave when node bandwidth is imbalanced or local loaded latency
 * already exceeds remote idle latency (Carrefour). */
static void advise_interleave(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	bool imb = isfinite(r->imbalance) && r->imbalance > p->imbalance;
	bool lat = isfinite(in->lat_local_loaded_ns) && isfinite(in->lat_remote_idle_ns) &&
		   in->lat_local_loaded_ns > in->lat_remote_idle_ns;
	size_t i, hot = 0;
	struct sbuf all = SBUF_INIT;

	if ((!imb && !lat) || in->n_nodes < 2)
		return;
	for (i = 0; i < in->n_nodes; i++) {
		if (isfinite(in->nodes[i].bw_gbs) &&
		    (!isfinite(in->nodes[hot].bw_gbs) || in->nodes[i].bw_gbs > in->nodes[hot].bw_gbs))
			hot = i;
		sbuf_addf(&all, "%s%d", i ? "," : "", in->nodes[i].id);
	}
	for (i = 0; i < in->n_vms; i++) {
		const struct diag_vm *vm = &in->vms[i];
		double imc = r->vm[i].cost_pct[FACTOR_IMC];
		struct diag_advice *a;

		if (!vm->mem_frac || !isfinite(vm->mem_frac[hot]) || vm->mem_frac[hot] < 0.5)
			continue;
		if (!(isfinite(imc) && imc >= p->factor_pct) && !lat)
			continue;
		a = add_advice(r, "interleave", i);
		a->gain_pct = imc;
		a->action = xasprintf("interleave %s's memory over nodes %s",
			 vm->name, sbuf_str(&all));
		if (imb)
			a->evidence = xasprintf("node bandwidth imbalance %.0f%% (sigma/mu) > %.0f%%; %.0f%% of its memory is on the hottest node %d",
				 100 * r->imbalance, 100 * p->imbalance, 100 * vm->mem_frac[hot],
				 in->nodes[hot].id);
		else
			a->evidence = xasprintf("local loaded latency %.0f ns exceeds remote idle latency %.0f ns",
				 in->lat_local_loaded_ns, in->lat_remote_idle_ns);
		a->effect = xasprintf("the load spreads over every memory controller; remote accesses rise, queueing falls");
		switch (vm->adapter) {
		case HVA_KVM:
			if (vm->libvirt && vm->persist == DP_TRANSIENT)
				a->command = xasprintf("# %s is transient: recreate it with <numatune><memory "
					 "mode='interleave' nodeset='%s'/></numatune> in its XML\n",
					 vm->name, sbuf_str(&all));
			else if (vm->libvirt) {
				char *q = shell_word(vm->name, false);

				a->command = xasprintf("virsh numatune %s --mode interleave --nodeset %s --config\n"
					 "# the mode takes effect when %s next starts\n",
					 q, sbuf_str(&all), vm->name);
				free(q);
			}
			else
				a->command = xasprintf("# restart the VM under: numactl --interleave=%s qemu-system-...\n",
					 sbuf_str(&all));
			break;
		case HVA_XEN:
			a->command = xasprintf("# Xen places memory at domain creation: give %s a vNUMA layout or "
				 "cpus spanning nodes %s and recreate it\n", vm->name, sbuf_str(&all));
			break;
		default:
			a->command = xasprintf("# restart the process under: numactl --interleave=%s COMMAND\n",
				 sbuf_str(&all));
		}
	}
	sbuf_release(&all);
}

/* Queues saturated: move the most memory-intensive vCPU off the node, or
 * say that placement cannot help when every node is saturated. */
static void advise_queue(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	size_t i, n_sat = 0, n_known = 0;
	int calm = -1;

	for (i = 0; i < in->n_nodes; i++) {
		double q = in->nodes[i].queue_full_frac;

		if (!isfinite(q))
			continue;
		n_known++;
		if (q >= p->queue_full)
			n_sat++;
		else if (calm < 0 || q < in->nodes[calm].queue_full_frac)
			calm = (int)i;
	}
	if (!n_sat)
		return;
	for (i = 0; i < in->n_nodes; i++) {
		const struct diag_node *nd = &in->nodes[i];
		size_t v, heavy = (size_t)-1;
		struct diag_advice *a;

		if (!isfinite(nd->queue_full_frac) || nd->queue_full_frac < p->queue_full)
			continue;
		for (v = 0; v < in->n_vcpus; v++)
			if (node_index(in, in->vcpus[v].node) == (int)i &&
			    isfinite(in->vcpus[v].mem_intensity) &&
			    (heavy == (size_t)-1 ||
			     in->vcpus[v].mem_intensity > in->vcpus[heavy].mem_intensity))
				heavy = v;
		if (calm < 0) {
			a = add_advice(r, "cap-per-socket", (size_t)-1);
			a->action = xasprintf("run fewer memory-intensive vCPUs per socket: the queues are full on every node");
			a->evidence = xasprintf("request queues full on %zu of %zu nodes with counters", n_sat, n_known);
			a->effect = xasprintf("more locality will not help here; only less concurrent memory traffic per socket will");
			a->command = xasprintf("# no placement change helps: move a memory-heavy VM to another host, or give it fewer vCPUs\n");
			return;
		}
		if (heavy == (size_t)-1)
			continue;
		{
			const struct diag_vcpu *hv = &in->vcpus[heavy];
			const struct diag_vm *vm = &in->vms[hv->vm];
			struct sbuf sb = SBUF_INIT;

			a = add_advice(r, "cap-per-socket", hv->vm);
			a->vcpu = hv->index;
			a->to_node = calm;
			a->gain_pct = r->vcpu_pct[heavy * FACTOR_N + FACTOR_QUEUE];
			a->action = xasprintf("move %s vCPU %d, the most memory-intensive on node %d, to node %d",
				 vm->name, hv->index, nd->id, in->nodes[calm].id);
			a->evidence = xasprintf("node %d's request queues are full %.1f%% of cycles; node %d's %.1f%%",
				 nd->id, 100 * nd->queue_full_frac, in->nodes[calm].id,
				 100 * in->nodes[calm].queue_full_frac);
			a->effect = xasprintf("fewer outstanding misses compete for node %d's trackers", nd->id);
			{
				struct sbuf tmp = SBUF_INIT;

				cmd_pin(vm, hv->index, hv->tid, pin_set(in, calm, &tmp), &sb);
				sbuf_release(&tmp);
			}
			a->command = sbuf_detach(&sb);
		}
	}
}

/* A thread's apportioned steal (diag_vcpu.steal_ns), 0 none or unknown. */
static double vcpu_steal(const struct diag_vcpu *v)
{
	return isfinite(v->steal_ns) && v->steal_ns > 0 ? v->steal_ns : 0;
}

/*
 * CPU contention per vCPU: the time it was runnable but waited for a CPU,
 * in % of its run + wait time (schedstat).  Not a share of cycles: the two
 * are compared in one ranking, and the evidence says so.
 */
/* Whether v's run and wait are a mean over a window longer than the interval. */
static bool avg_window(const struct diag_input *in, const struct diag_vcpu *v)
{
	return v->wait_window_s > 0 && isfinite(in->duration_s) &&
	       v->wait_window_s > 1.25 * in->duration_s;
}

static void eval_cpu(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	size_t i, j;

	for (i = 0; i < in->n_vcpus; i++) {
		const struct diag_vcpu *v = &in->vcpus[i];
		double st = vcpu_steal(v), pc, t = v->run_ns + v->wait_ns + st;
		struct diag_bottleneck *b;
		int same = 0;

		r->vcpu_wait_pct[i] = NAN;
		if (!isfinite(v->run_ns) || !isfinite(v->wait_ns) || !(t > 0) || v->wait_ns < 0)
			continue;
		pc = r->vcpu_wait_pct[i] = 100.0 * (v->wait_ns + st) / t;
		if (pc < p->factor_pct)
			continue;
		for (j = 0; j < in->n_vcpus; j++)
			same += v->cpu >= 0 && in->vcpus[j].cpu == v->cpu;
		b = add_bottleneck(r);
		b->scope = DIAG_VCPU;
		b->entity = i;
		b->factor = DIAG_FACTOR_CPU;
		b->cost_pct = pc;
		b->sev = pc >= 2 * p->factor_pct ? SEV_CRITICAL : SEV_WARNING;
		b->quality = st > 0 ? VQ_APPORTIONED : VQ_MEASURED;
		b->confidence = st > 0 ? CONF_MEDIUM : CONF_HIGH;
		if (st > 0)
			b->evidence = xasprintf("waited %.0f ms for a CPU of the guest (schedstat) and "
						"about %.0f ms more while the hypervisor ran other work on "
						"its CPU %d (that CPU's steal time, /proc/stat, apportioned "
						"by its run time), while it ran %.0f ms: %.1f%% of its run "
						"+ wait time, comparable to, not the same as, a factor's %% "
						"of cycles; the stolen part waits on the host, where "
						"vmmprof diagnose sees it", v->wait_ns / 1e6, st / 1e6,
						v->cpu, v->run_ns / 1e6, pc);
		else if (v->wait_steal) /* inside a guest: the host's run-queue wait, seen as steal */
			b->evidence = xasprintf("the hypervisor ran other work for %.0f ms while this "
						"vCPU wanted to run, and it ran %.0f ms (steal time, "
						"/proc/stat): %.1f%% of its run + wait time, comparable "
						"to, not the same as, a factor's %% of cycles; nothing "
						"inside the guest changes it: its vCPU threads wait on "
						"the host (vmmprof diagnose there)",
						v->wait_ns / 1e6, v->run_ns / 1e6, pc);
		else if (avg_window(in, v))
			/* schedstat read every few s: the interval's share of that window's */
			b->evidence = xasprintf("waited %.0f ms for a CPU while it ran %.0f ms "
						"(schedstat, a mean over the last %.1f s: read every "
						"few seconds, not at each interval): %.1f%% of its "
						"run + wait time, comparable to, not the same as, a "
						"factor's %% of cycles%s", v->wait_ns / 1e6,
						v->run_ns / 1e6, v->wait_window_s, pc,
						same > 1 ? "; it shares its CPU with other vCPUs in "
						"view" : "");
		else
			b->evidence = xasprintf("waited %.0f ms for a CPU while it ran %.0f ms "
						"(schedstat): %.1f%% of its run + wait time, "
						"comparable to, not the same as, a factor's %% of "
						"cycles%s", v->wait_ns / 1e6, v->run_ns / 1e6, pc,
						same > 1 ? "; it shares its CPU with other vCPUs in "
						"view" : "");
	}
}

/* Node index holding CPU cpu, -1 none.  cl[i]: each node's CPU set. */
static int cpu_node(const struct cpulist *cl, size_t n, int cpu)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cpulist_has(&cl[i], cpu))
			return (int)i;
	return -1;
}

/* The host CPU with id cpu, NULL unknown. */
static const struct diag_cpu *host_cpu(const struct diag_input *in, int cpu)
{
	size_t i;

	for (i = 0; i < in->n_cpus; i++)
		if (in->cpus[i].id == cpu)
			return &in->cpus[i];
	return NULL;
}

/* Busy share of cpu's SMT siblings (the highest), 1 when one runs a vCPU in view; 0 none. */
static double sibling_load(const struct diag_input *in, const struct diag_cpu *hc,
			   const struct cpulist *used)
{
	double load = 0;
	size_t i;

	if (!hc || hc->core < 0)
		return 0;
	for (i = 0; i < in->n_cpus; i++) {
		const struct diag_cpu *o = &in->cpus[i];

		if (o == hc || o->core != hc->core)
			continue;
		if (cpulist_has(used, o->id))
			load = 1;
		else if (isfinite(o->busy) && o->busy > load)
			load = o->busy;
	}
	return load;
}

/*
 * The wait share a busy thread would have on host CPU hc: the CPU's demand D
 * over the interval, what ran there plus what its run queue waited (in
 * CPUs), shared fairly with the newcomer: D / (D + 1) (an idle CPU: 0; one
 * always-runnable thread: 1/2, two threads on one CPU).  Without the queue,
 * the busy share alone (a lower bound); NaN unknown.
 */
static double wait_after(const struct diag_cpu *hc)
{
	double d;

	if (!hc || !isfinite(hc->busy))
		return NAN;
	d = hc->busy + (isfinite(hc->queued) ? hc->queued : 0);
	return d / (d + 1);
}

/*
 * The CPU of a node's CPU list a waiting vCPU last seen on CPU from should
 * move to, -1 none.  Not one a vCPU in view ran on (or was given), not one
 * isolcpus= reserves, and, where the host's CPUs are known, one on which it
 * would wait less than it does (wait_after(), from everything that ran
 * there: other VMs, host, emulator and I/O threads).  Of those, the least
 * predicted wait, then one whose SMT siblings are idle (a core of its own),
 * then one in the same LLC domain as `from`, then the lowest id.  *n_isol
 * and *n_busy count the CPUs left out for either reason.
 */
static int pick_cpu(const struct diag_input *in, const struct cpulist *node_cpus, int from,
		    double wait_frac, const struct cpulist *used, double *after_out, int *n_isol,
		    int *n_busy)
{
	const struct diag_cpu *src = host_cpu(in, from);
	double best_score = INFINITY;
	int best = -1;
	size_t m;

	for (m = 0; m < node_cpus->n; m++) {
		int id = node_cpus->ids[m];
		const struct diag_cpu *hc = host_cpu(in, id);
		double w = wait_after(hc), score;

		if (cpulist_has(used, id))
			continue;
		if (hc && hc->isolated) {
			(*n_isol)++;
			continue;
		}
		if (isfinite(w) && w >= wait_frac) {
			(*n_busy)++;
			continue;
		}
		/* ordering only: predicted wait first, then a busy sibling, then another LLC */
		score = (isfinite(w) ? w : 0) + 0.5 * sibling_load(in, hc, used) +
			(src && hc && src->llc >= 0 && hc->llc != src->llc ? 0.01 : 0);
		if (score < best_score) {
			best_score = score;
			best = id;
			*after_out = w;
		}
	}
	return best;
}

/*
 * A node's demand for CPUs over the interval: what ran on its CPUs (busy
 * shares) plus what its waiting vCPUs in view waited, in CPUs; NaN unknown.
 */
static double node_demand(const struct diag_input *in, int ni, int *n_usable)
{
	double d = 0;
	size_t i;
	bool known = in->n_cpus > 0 && finite_pos(in->duration_s);

	*n_usable = 0;
	for (i = 0; i < in->n_cpus; i++) {
		if (in->cpus[i].node != ni)
			continue;
		if (!in->cpus[i].isolated)
			(*n_usable)++;
		if (isfinite(in->cpus[i].busy))
			d += in->cpus[i].busy;
		else
			known = false;
	}
	for (i = 0; known && i < in->n_vcpus; i++)
		if (node_index(in, in->vcpus[i].node) == ni && isfinite(in->vcpus[i].wait_ns) &&
		    !in->vcpus[i].wait_steal)
			d += in->vcpus[i].wait_ns / 1e9 / in->duration_s;
	return known ? d : NAN;
}

/*
 * Stacked vCPUs: two or more vCPUs that wait for a CPU (CPU contention at
 * the threshold) were last seen on the same CPU.  One keeps it; each other
 * one is pinned to a CPU of the node that holds its VM's memory (else the
 * same node) that pick_cpu() finds free on the whole host.  When none is
 * left, the node is overcommitted, and the advice says so with the node's
 * demand instead of moving the wait elsewhere.
 */
static void advise_cpu(const struct diag_input *in, struct diag_result *r)
{
	const struct diag_params *p = &in->params;
	struct cpulist *cl = xcalloc(in->n_nodes ? in->n_nodes : 1, sizeof(*cl));
	struct cpulist used;
	bool *done = xcalloc(in->n_vcpus ? in->n_vcpus : 1, sizeof(bool));
	/* the run-queue wait alone: a move inside this host takes no steal away */
	double *rq = xcalloc(in->n_vcpus ? in->n_vcpus : 1, sizeof(double));
	size_t i, j, k;

	for (i = 0; i < in->n_vcpus; i++) {
		const struct diag_vcpu *v = &in->vcpus[i];
		double st = vcpu_steal(v);

		rq[i] = st > 0 && isfinite(r->vcpu_wait_pct[i]) ?
			100.0 * v->wait_ns / (v->run_ns + v->wait_ns + st) : r->vcpu_wait_pct[i];
	}
	cpulist_init(&used);
	for (i = 0; i < in->n_nodes; i++) {
		cpulist_init(&cl[i]);
		if (in->nodes[i].cpus)
			cpulist_parse(&cl[i], in->nodes[i].cpus, NULL);
	}
	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].cpu >= 0)
			cpulist_add(&used, in->vcpus[i].cpu);
	for (i = 0; i < in->n_vcpus; i++) {
		int c = in->vcpus[i].cpu, n_stack = 0, cn;
		bool kept = false;

		/* steal is the host's queue: no CPU inside the guest takes it away */
		if (done[i] || c < 0 || in->vcpus[i].wait_steal ||
		    !(rq[i] >= p->factor_pct))
			continue;
		for (j = i; j < in->n_vcpus; j++)
			if (in->vcpus[j].cpu == c && rq[j] >= p->factor_pct)
				n_stack++;
		if (n_stack < 2)
			continue;
		cn = cpu_node(cl, in->n_nodes, c);
		for (j = i; j < in->n_vcpus; j++) {
			const struct diag_vcpu *v = &in->vcpus[j];
			const struct diag_vm *vm = &in->vms[v->vm];
			struct diag_advice *a;
			struct sbuf sb = SBUF_INIT;
			double hfrac, after = NAN;
			int home = home_node(in, vm, &hfrac), target = -1, tn = -1, order[2];
			int n_isol = 0, n_busy = 0;
			const char *what = vm->adapter == HVA_NATIVE ? "thread" : "vCPU";

			if (v->cpu != c || !(rq[j] >= p->factor_pct))
				continue;
			done[j] = true;
			if (!kept) { /* the first one stays */
				kept = true;
				continue;
			}
			order[0] = home >= 0 ? home : cn;
			order[1] = cn;
			for (k = 0; k < 2 && target < 0; k++) {
				if (order[k] < 0 || (k == 1 && order[1] == order[0]))
					continue;
				target = pick_cpu(in, &cl[order[k]], c,
						  rq[j] / 100.0, &used, &after, &n_isol,
						  &n_busy);
				if (target >= 0)
					tn = order[k];
			}
			if (target < 0) {
				struct sbuf ev = SBUF_INIT;
				int usable = 0;
				double dem = cn >= 0 ? node_demand(in, cn, &usable) : NAN;

				a = add_advice(r, "cpu-overcommit", v->vm);
				a->vcpu = v->index;
				a->gain_pct = NAN;
				a->action = xasprintf("%s %s %d waits on CPU %d, and no CPU of node %d is free "
						      "to take it: the node is overcommitted",
						      vm->name, what, v->index, c, cn >= 0 ? in->nodes[cn].id : -1);
				sbuf_addf(&ev, "it waited %.1f%% of its run + wait time; %d vCPUs waiting "
					  "for CPU %d; every other CPU of node %d", rq[j],
					  n_stack, c, cn >= 0 ? in->nodes[cn].id : -1);
				if (n_busy || n_isol) {
					sbuf_addstr(&ev, " runs a vCPU in view");
					if (n_busy)
						sbuf_addf(&ev, " or is so busy with other work that it "
							  "would wait there as long (%d)", n_busy);
					if (n_isol)
						sbuf_addf(&ev, " or is reserved by isolcpus= (%d)", n_isol);
				} else {
					sbuf_addstr(&ev, " already runs a vCPU in view");
				}
				if (isfinite(dem))
					sbuf_addf(&ev, "; the node ran and queued %.2f CPUs' worth of work on "
						  "%d usable CPUs over the interval", dem, usable);
				a->evidence = sbuf_detach(&ev);
				a->effect = xstrdup("no CPU here is free to take it: fewer busy vCPUs on "
						    "this node, or a VM moved to another node or host");
				a->command = xstrdup("# no placement change on this host frees a CPU\n");
				continue;
			}
			cpulist_add(&used, target);
			a = add_advice(r, "unstack-vcpus", v->vm);
			a->vcpu = v->index;
			a->to_node = tn;
			a->to_cpu = target;
			/* what it gains: its wait now less what it would wait there */
			a->gain_pct = rq[j] - (isfinite(after) ? 100 * after : 0);
			a->action = xasprintf("move %s %s %d from CPU %d, which %d waiting vCPUs share, "
					      "to CPU %d (node %d%s)", vm->name, what, v->index, c, n_stack, target,
					      in->nodes[tn].id,
					      tn == home ? ", where most of its memory is" : "");
			{
				const struct diag_cpu *hc = host_cpu(in, target);
				struct sbuf ev = SBUF_INIT;

				sbuf_addf(&ev, "it waited %.0f ms for a CPU while it ran %.0f ms: %.1f%% of "
					  "its run + wait time (schedstat); no vCPU in view ran on CPU %d",
					  v->wait_ns / 1e6, v->run_ns / 1e6, rq[j], target);
				if (hc && isfinite(hc->busy))
					sbuf_addf(&ev, ", busy %.0f%% of the interval with other work%s",
						  100 * hc->busy, isfinite(hc->queued) ?
						  "" : " (its queue unknown)");
				if (hc && isfinite(hc->queued) && hc->queued > 0.005)
					sbuf_addf(&ev, " and %.2f CPUs' worth queued", hc->queued);
				if (in->n_cpus && !(hc && isfinite(hc->busy)))
					sbuf_addstr(&ev, " (its other load is unknown)");
				a->evidence = sbuf_detach(&ev);
				if (isfinite(after))
					a->effect = xasprintf("its wait for a CPU falls from %.1f%% to %s "
							      "%.1f%% of its run + wait time (a fair share of "
							      "CPU %d beside what ran there%s; time, not a share "
							      "of cycles), and the vCPUs left on CPU %d wait less",
							      rq[j], isfinite(hc->queued) ?
							      "about" : "at least about", 100 * after, target,
							      isfinite(hc->queued) ? "" : ", whose queue is "
							      "unknown here", c);
				else
					a->effect = xasprintf("its wait for a CPU falls towards zero when CPU %d "
							      "is idle (up to %.1f%% of its run + wait time back, "
							      "not a share of cycles), and the vCPUs left on CPU "
							      "%d wait less", target, rq[j], c);
			}
			{
				char cpu[16];

				snprintf(cpu, sizeof(cpu), "%d", target);
				cmd_pin(vm, v->index, v->tid, cpu, &sb);
			}
			a->command = sbuf_detach(&sb);
		}
	}
	for (i = 0; i < in->n_nodes; i++)
		cpulist_release(&cl[i]);
	free(cl);
	cpulist_release(&used);
	free(done);
	free(rq);
}

/* The share of the interval vCPU v ran (schedstat run time); NaN unknown. */
static double vcpu_busy(const struct diag_input *in, const struct diag_vcpu *v)
{
	if (!finite_pos(in->duration_s) || !isfinite(v->run_ns) || v->run_ns < 0)
		return NAN;
	return v->run_ns / 1e9 / in->duration_s;
}

#define SMT_BUSY 0.5   /* a hardware thread busy at least half the run has a tenant */
#define SMT_IDLE 0.1   /* a core whose threads all ran less than this is free */

/*
 * A free core of node index ni for a vCPU leaving CPU from: a CPU whose
 * own and SMT siblings' busy shares over the run are all below SMT_IDLE,
 * none of them running or given to a vCPU in view (used) nor reserved by
 * isolcpus=; one in from's LLC domain first, then the lowest id.  -1 none.
 */
static int free_core_cpu(const struct diag_input *in, int ni, const struct diag_cpu *from,
			 const struct cpulist *used)
{
	int best = -1;
	bool best_llc = false;
	size_t i, k;

	for (i = 0; i < in->n_cpus; i++) {
		const struct diag_cpu *c = &in->cpus[i];
		bool ok = c->node == ni && c->core >= 0;

		for (k = 0; ok && k < in->n_cpus; k++) {
			const struct diag_cpu *o = &in->cpus[k];

			if (o->core != c->core)
				continue;
			ok = !o->isolated && !cpulist_has(used, o->id) && isfinite(o->busy) &&
			     o->busy < SMT_IDLE;
		}
		if (!ok)
			continue;
		if (best < 0 || (c->llc == from->llc && c->llc >= 0 && !best_llc)) {
			best = c->id;
			best_llc = c->llc == from->llc && c->llc >= 0;
		}
	}
	return best;
}

/*
 * Busy vCPUs on SMT siblings: a vCPU that ran at least half the run
 * (SMT_BUSY) on one hardware thread of a core while the core's other
 * thread ran, as busy, a vCPU of another VM in view or other work not in
 * view (a host hog; two vCPUs of one VM on one core are the guest's own
 * SMT topology, left alone).  They wait for no CPU, so CPU contention does
 * not see them, yet they share the core's pipeline, L1 and L2; how much
 * that costs needs counters, so the finding has no cost (ranked after the
 * costed ones, low confidence) and the advice no gain.  The vCPU later in
 * view of a pair (or the vCPU beside a hog) is pinned to a CPU of the same
 * node on a core that is free (free_core_cpu()), not one another advice
 * gives a vCPU; nothing when no core is free.  Needs the host's CPUs with
 * their cores and busy shares (a live diagnosis); not for Xen, whose
 * dom0 sees its own CPUs, not the machine's.
 */
static void advise_smt(const struct diag_input *in, struct diag_result *r)
{
	struct cpulist used;
	bool *done = xcalloc(in->n_vcpus ? in->n_vcpus : 1, sizeof(bool));
	size_t i, j, k;

	if (!in->n_cpus || !finite_pos(in->duration_s))
		goto out_free;
	cpulist_init(&used);
	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].cpu >= 0)
			cpulist_add(&used, in->vcpus[i].cpu);
	for (i = 0; i < r->n_a; i++) {
		if (r->a[i].to_cpu >= 0)
			cpulist_add(&used, r->a[i].to_cpu);
		/* a vCPU another CPU advice moves already */
		for (j = 0; r->a[i].vcpu >= 0 && j < in->n_vcpus; j++)
			if (in->vcpus[j].vm == r->a[i].vm && in->vcpus[j].index == r->a[i].vcpu &&
			    (!strcmp(r->a[i].rule, "unstack-vcpus") ||
			     !strcmp(r->a[i].rule, "cpu-overcommit")))
				done[j] = true;
	}
	for (i = 0; i < in->n_vcpus; i++) {
		const struct diag_vcpu *v = &in->vcpus[i], *mv;
		const struct diag_cpu *hc = host_cpu(in, v->cpu), *sib = NULL;
		const struct diag_vm *vm = &in->vms[v->vm], *mvm;
		double bv = vcpu_busy(in, v), bo = NAN;
		size_t partner = (size_t)-1, moved;
		struct diag_bottleneck *b;
		struct diag_advice *a;
		struct sbuf sb = SBUF_INIT;
		char cpu[16];
		int target;

		if (done[i] || !hc || hc->core < 0 || hc->node < 0 || !(bv >= SMT_BUSY) ||
		    vm->adapter == HVA_XEN || vm->adapter == HVA_GUEST)
			continue;
		for (k = 0; k < in->n_cpus && !sib; k++) {
			const struct diag_cpu *o = &in->cpus[k];
			bool in_view = false;

			if (o == hc || o->core != hc->core)
				continue;
			for (j = 0; j < in->n_vcpus; j++) {
				if (j == i || in->vcpus[j].cpu != o->id)
					continue;
				in_view = true;
				if (!done[j] && in->vcpus[j].vm != v->vm &&
				    vcpu_busy(in, &in->vcpus[j]) >= SMT_BUSY) {
					partner = j;
					sib = o;
					bo = vcpu_busy(in, &in->vcpus[j]);
					break;
				}
			}
			if (!sib && !in_view && isfinite(o->busy) && o->busy >= SMT_BUSY) {
				sib = o;
				bo = o->busy;
			}
		}
		if (!sib)
			continue;
		done[i] = true;
		if (partner != (size_t)-1)
			done[partner] = true;
		moved = partner != (size_t)-1 ? partner : i;
		mv = &in->vcpus[moved];
		mvm = &in->vms[mv->vm];
		for (j = 0; j < 2; j++) {
			size_t e = j ? partner : i;

			if (e == (size_t)-1)
				continue;
			b = add_bottleneck(r);
			b->scope = DIAG_VCPU;
			b->entity = e;
			b->factor = DIAG_FACTOR_CPU;
			b->sev = SEV_WARNING;
			b->quality = VQ_MEASURED;
			b->confidence = CONF_LOW;
			b->evidence = xasprintf("ran %.0f%% of the run on CPU %d while its SMT sibling "
						"CPU %d ran %s %.0f%%: one core's pipeline, L1 and L2 for "
						"both; no cost without counters of the core",
						100 * vcpu_busy(in, &in->vcpus[e]), in->vcpus[e].cpu,
						e == i ? sib->id : hc->id,
						partner == (size_t)-1 ? "other work (not in view)" :
						"a vCPU of another VM",
						100 * (e == i ? bo : bv));
		}
		target = free_core_cpu(in, hc->node, hc, &used);
		if (target < 0)
			continue;
		cpulist_add(&used, target);
		a = add_advice(r, "separate-smt", mv->vm);
		a->vcpu = mv->index;
		a->to_node = hc->node;
		a->to_cpu = target;
		a->action = xasprintf("move %s %s %d from CPU %d, an SMT sibling of busy CPU %d, to "
				      "CPU %d (node %d), a core of its own", mvm->name,
				      mvm->adapter == HVA_NATIVE ? "thread" : "vCPU", mv->index, mv->cpu,
				      moved == i ? sib->id : hc->id, target, in->nodes[hc->node].id);
		a->evidence = partner == (size_t)-1 ?
			xasprintf("%s vCPU %d ran %.0f%% of the run on CPU %d and other work not in "
				  "view %.0f%% on its SMT sibling CPU %d; every thread of CPU %d's "
				  "core ran less than %.0f%%", vm->name, v->index, 100 * bv, v->cpu,
				  100 * bo, sib->id, target, 100 * SMT_IDLE) :
			xasprintf("%s vCPU %d ran %.0f%% of the run on CPU %d and %s vCPU %d %.0f%% "
				  "on its SMT sibling CPU %d; every thread of CPU %d's core ran less "
				  "than %.0f%%", vm->name, v->index, 100 * bv, v->cpu, mvm->name,
				  mv->index, 100 * bo, sib->id, target, 100 * SMT_IDLE);
		a->effect = xstrdup("each keeps a core to itself instead of sharing one core's "
				    "pipeline, L1 and L2; how much that gives needs the core's counters "
				    "(gain n/a)");
		snprintf(cpu, sizeof(cpu), "%d", target);
		cmd_pin(mvm, mv->index, mv->tid, cpu, &sb);
		a->command = sbuf_detach(&sb);
	}
	cpulist_release(&used);
out_free:
	free(done);
}

/*
 * I/O locality: a VM with a PCI device passed through (VFIO) whose vCPUs ran
 * on another node than the device's.  The device's DMA to guest memory and
 * its interrupts then cross the link between the nodes on every transfer
 * (its sysfs numa_node is the node of the root port it hangs off).  No
 * counter here sees that traffic, so the advice has no gain (n/a) and ranks
 * after every costed one; one that already moves the VM elsewhere makes it a
 * conflict, said with both nodes.  Commands: every vCPU pinned to the
 * device's node, and the memory moved there when most of it is elsewhere.
 */
static void advise_io(const struct diag_input *in, struct diag_result *r)
{
	size_t vmi, d, i;

	for (vmi = 0; vmi < in->n_vms; vmi++) {
		const struct diag_vm *vm = &in->vms[vmi];
		const struct hv_pcidev *dev = NULL;
		struct diag_advice *a;
		struct sbuf sb = SBUF_INIT, tmp = SBUF_INIT;
		size_t nv = 0, away = 0, k;
		int to = -1, run, home;
		double hfrac;

		if (vm->adapter != HVA_KVM)
			continue;
		for (d = 0; d < vm->n_pci && !dev; d++)
			if (vm->pci[d].node >= 0 && (to = node_index(in, vm->pci[d].node)) >= 0)
				dev = &vm->pci[d];
		if (!dev)
			continue;
		for (i = 0; i < in->n_vcpus; i++) {
			int ni;

			if (in->vcpus[i].vm != vmi || (ni = node_index(in, in->vcpus[i].node)) < 0)
				continue;
			nv++;
			away += ni != to;
		}
		/* every vCPU seen ran on the device's node (or none was seen): nothing to say */
		if (!away)
			continue;
		/* advice with a measured gain that moves every such vCPU there already: say so */
		{
			size_t left = 0;

			for (i = 0; i < in->n_vcpus; i++) {
				bool moved = false;

				if (in->vcpus[i].vm != vmi ||
				    node_index(in, in->vcpus[i].node) == to ||
				    node_index(in, in->vcpus[i].node) < 0)
					continue;
				for (k = 0; k < r->n_a && !moved; k++)
					moved = r->a[k].vm == vmi && r->a[k].to_node == to &&
						!r->a[k].conflict && (r->a[k].vcpu < 0 ||
						r->a[k].vcpu == in->vcpus[i].index);
				left += !moved;
			}
			if (!left) {
				for (k = 0; k < r->n_a; k++) {
					char *e;

					if (r->a[k].vm != vmi || r->a[k].to_node != to)
						continue;
					e = xasprintf("%s; it also runs %s next to its passthrough %s %s "
						      "(node %d): the device's DMA and interrupts stay "
						      "on one node", r->a[k].effect ? r->a[k].effect : "",
						      vm->name, dev->kind, dev->addr, in->nodes[to].id);
					free(r->a[k].effect);
					r->a[k].effect = e;
				}
				continue;
			}
		}
		run = main_node(in, vmi);
		home = home_node(in, vm, &hfrac);
		a = add_advice(r, "io-locality", vmi);
		a->to_node = to;
		a->action = xasprintf("run %s on node %d (CPUs %s), where its passthrough %s %s is",
				      vm->name, in->nodes[to].id, in->nodes[to].cpus, dev->kind,
				      dev->addr);
		sbuf_addf(&tmp, "its %s %s is on node %d (sysfs numa_node); %zu of its %zu vCPUs "
			  "ran on other nodes", dev->kind, dev->addr, in->nodes[to].id, away, nv);
		if (run >= 0 && run != to)
			sbuf_addf(&tmp, ", most on node %d", in->nodes[run].id);
		if (home >= 0 && isfinite(hfrac))
			sbuf_addf(&tmp, "; %.0f%% of its memory is on node %d", 100 * hfrac,
				  in->nodes[home].id);
		sbuf_addstr(&tmp, ": the device's DMA to guest memory and its interrupts cross the "
			    "link between the nodes");
		a->evidence = sbuf_detach(&tmp);
		a->effect = xstrdup("the device's transfers and interrupts stay on one node; what that "
				    "gives needs I/O counters, which no factor here has (gain n/a)");
		cmd_pin_vm(in, vmi, pin_set(in, to, &tmp), &sb);
		sbuf_release(&tmp);
		if (home >= 0 && home != to && vm->pid > 0)
			cmd_migrate(in, vm, home, to, &sb);
		a->command = sbuf_detach(&sb);
		/* an advice with a measured gain already moves this VM to another node */
		for (k = 0; k + 1 < r->n_a; k++) {
			const struct diag_advice *o = &r->a[k];

			if (o->vm != vmi || o->to_node < 0 || o->to_node == to || o->conflict)
				continue;
			a->conflict = true;
			{
				char who[64] = "";

				if (o->vcpu >= 0)
					snprintf(who, sizeof(who), " vCPU %d", o->vcpu);
				a->conflict_note = xasprintf("the %s advice moves %s%s to node %d; the "
					 "device is on node %d: both cannot hold -- weigh the device's "
					 "traffic against what that advice gives", o->rule, vm->name,
					 who, in->nodes[o->to_node].id, in->nodes[to].id);
			}
			break;
		}
	}
}

/* Rules that pin every vCPU of their VM (and its I/O threads: cmd_pin_vm()). */
static bool whole_vm_rule(const char *rule)
{
	return !strcmp(rule, "colocate") || !strcmp(rule, "spread") || !strcmp(rule, "io-locality");
}

/* Whether advice a pins every vCPU of its VM and its I/O threads (cmd_pin_vm()). */
static bool pins_whole_vm(const struct diag_advice *a)
{
	return whole_vm_rule(a->rule) || (!strcmp(a->rule, "pin-vcpu-to-memory") && a->vcpu < 0);
}

/* Whether advice a pins vCPU index of VM vmi (to a->to_node). */
static bool advice_moves_vcpu(const struct diag_input *in, const struct diag_advice *a, size_t vmi,
			      int index)
{
	const struct hv_vnode *vn = NULL;
	size_t k;

	if (a->vm != vmi || a->to_node < 0)
		return false;
	if (pins_whole_vm(a))
		return true;
	if (!strcmp(a->rule, "pin-vcpu-to-memory") || !strcmp(a->rule, "cap-per-socket") ||
	    !strcmp(a->rule, "unstack-vcpus") || !strcmp(a->rule, "separate-smt"))
		return a->vcpu == index;
	if (strcmp(a->rule, "vnuma-fidelity") || a->vm >= in->n_vms)
		return false;
	for (k = 0; k < in->vms[vmi].n_vnodes; k++)
		if (in->vms[vmi].vnodes[k].id == a->vnode)
			vn = &in->vms[vmi].vnodes[k];
	return vn && cpulist_has(&vn->vcpus, index);
}

/*
 * The node index vCPU i is on once the advice so far (r->a[0..n), those not
 * in conflict) is applied: the last one that pins it, else where it ran.
 * *by gets that advice's index, -1 none.
 */
static int planned_node(const struct diag_input *in, const struct diag_result *r, size_t n, size_t i,
			long *by)
{
	const struct diag_vcpu *v = &in->vcpus[i];
	int node = node_index(in, v->node);
	size_t k;

	*by = -1;
	for (k = 0; k < n; k++)
		if (!r->a[k].conflict && advice_moves_vcpu(in, &r->a[k], v->vm, v->index)) {
			node = r->a[k].to_node;
			*by = (long)k;
		}
	return node;
}

/* Whether every CPU of cl is on node index ni (a thread confined there); false when cl is empty. */
static bool within_node(const struct diag_input *in, const struct cpulist *cl, int ni)
{
	size_t i;

	if (!cl->n || !in->n_cpus)
		return false;
	for (i = 0; i < cl->n; i++) {
		const struct diag_cpu *c = host_cpu(in, cl->ids[i]);

		if (!c || c->node != ni)
			return false;
	}
	return true;
}

/*
 * I/O threads: a KVM VM's main loop, IOThreads and vhost workers that ran on
 * another node than its vCPUs (all on one node), or than its memory when the
 * vCPUs are spread.  Each then reads and writes the guest's virtqueues and
 * buffers across the link, and its notifications (irqfd, ioeventfd) wake
 * vCPUs on the other node.  No counter here sees that traffic: gain n/a,
 * ranked with io-locality after every costed advice.  Commands: libvirt's
 * emulatorpin (the main loop; vhost workers sit in the emulator's cgroup,
 * whose cpuset it sets) and iothreadpin, taskset for a vhost worker and for
 * plain QEMU's threads.  Advice that already moves the whole VM pins them
 * with it (cmd_pin_vm()), and says so.
 */
static void advise_iothreads(const struct diag_input *in, struct diag_result *r)
{
	size_t vmi, t, k;

	for (vmi = 0; vmi < in->n_vms; vmi++) {
		const struct diag_vm *vm = &in->vms[vmi];
		struct sbuf ev = SBUF_INIT, sb = SBUF_INIT, tmp = SBUF_INIT;
		struct diag_advice *a;
		int run = vcpus_node(in, vmi, NULL), home, to;
		double hfrac;
		size_t away = 0;
		bool covered = false, emu = false;
		const char *cpus;
		char *q;

		if (vm->adapter != HVA_KVM || !vm->n_io)
			continue;
		home = home_node(in, vm, &hfrac);
		to = run >= 0 ? run : home;
		if (to < 0)
			continue;
		for (t = 0; t < vm->n_io; t++) {
			const struct hv_iothread *io = &vm->io[t];
			int ni = node_index(in, io->node);

			if (ni < 0 || ni == to || within_node(in, &io->affinity, to))
				continue;
			sbuf_addf(&ev, "%s%s", away ? ", " : "its ", hv_io_kind_name(io->kind));
			if (io->id >= 0)
				sbuf_addf(&ev, " %d", io->id);
			sbuf_addf(&ev, " (tid %d) ran on CPU %d (node %d)", io->tid, io->cpu,
				  in->nodes[ni].id);
			away++;
		}
		if (!away) {
			sbuf_release(&ev);
			continue;
		}
		/* a whole-VM move ranked above pins them with the vCPUs */
		for (k = 0; k < r->n_a; k++) {
			struct diag_advice *o = &r->a[k];
			char *e;

			if (o->vm != vmi || o->vcpu >= 0 || o->to_node < 0 || o->conflict ||
			    !o->command || !*o->command)
				continue;
			if (!pins_whole_vm(o))
				continue;
			e = xasprintf("%s; its commands also pin its I/O threads to node %d (%s)",
				      o->effect ? o->effect : "", in->nodes[o->to_node].id,
				      sbuf_str(&ev));
			free(o->effect);
			o->effect = e;
			covered = true;
		}
		if (covered) {
			sbuf_release(&ev);
			continue;
		}
		if (run >= 0)
			sbuf_addf(&ev, "; every vCPU ran on node %d", in->nodes[run].id);
		else
			sbuf_addstr(&ev, "; its vCPUs ran on several nodes (or where is not known)");
		if (home >= 0 && isfinite(hfrac))
			sbuf_addf(&ev, "; %.0f%% of its memory is on node %d", 100 * hfrac,
				  in->nodes[home].id);
		for (t = 0; t < vm->n_pci; t++)
			if (vm->pci[t].node >= 0)
				sbuf_addf(&ev, "; its passthrough %s %s is on node %d", vm->pci[t].kind,
					  vm->pci[t].addr, vm->pci[t].node);
		a = add_advice(r, "pin-io-threads", vmi);
		a->to_node = to;
		cpus = pin_set(in, to, &tmp);
		a->action = xasprintf("run %s's I/O threads on node %d (CPUs %s), %s", vm->name,
				      in->nodes[to].id, cpus, run >= 0 ? "with its vCPUs" :
				      "where its memory is");
		a->evidence = sbuf_detach(&ev);
		a->effect = xstrdup("the threads that move its I/O read and write the guest's "
				    "virtqueues and buffers on the node of its vCPUs and memory, and "
				    "their notifications wake vCPUs without crossing the link; what "
				    "that gives needs I/O counters, which no factor here has (gain n/a)");
		q = shell_word(vm->name, false);
		for (t = 0; t < vm->n_io; t++) {
			const struct hv_iothread *io = &vm->io[t];
			int ni = node_index(in, io->node);

			if (ni < 0 || ni == to || within_node(in, &io->affinity, to))
				continue;
			if (vm->libvirt && (io->kind == HV_IO_MAIN || io->kind == HV_IO_VHOST) &&
			    !emu) {
				sbuf_addf(&sb, "virsh emulatorpin %s %s %s\n", q, cpus, virsh_flags(vm));
				emu = true;
			}
			if (vm->libvirt && io->kind == HV_IO_IOTHREAD && io->id >= 0)
				sbuf_addf(&sb, "virsh iothreadpin %s %d %s %s\n", q, io->id, cpus,
					  virsh_flags(vm));
			else if (!vm->libvirt || io->kind != HV_IO_MAIN)
				sbuf_addf(&sb, "taskset -pc %s %d\n", cpus, io->tid);
		}
		free(q);
		sbuf_release(&tmp);
		a->command = sbuf_detach(&sb);
		/* the advice ranked above moves this VM's vCPUs so that none is left on node to */
		{
			long by = -1, moved_by = -1;
			bool stays = false;

			for (t = 0; t < in->n_vcpus; t++)
				if (in->vcpus[t].vm == vmi) {
					stays |= planned_node(in, r, r->n_a - 1, t, &by) == to;
					if (by >= 0)
						moved_by = by;
				}
			if (!stays && moved_by >= 0) {
				const struct diag_advice *o = &r->a[moved_by];

				a->conflict = true;
				a->conflict_note = xasprintf("the %s advice moves %s's vCPUs to node %d: pin "
					 "its I/O threads there with them instead", o->rule, vm->name,
					 in->nodes[o->to_node].id);
			}
		}
	}
}

/* A memory backend id fit for a command line comment: letters, digits, '.', '_', '-'. */
static const char *plain_id(const char *id)
{
	const char *p;

	for (p = id; p && *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return "ID";
	return id && *id ? id : "ID";
}

/*
 * vNUMA fidelity: a KVM guest with virtual NUMA nodes decides where its
 * memory and threads go by them, so each must be one host node: its memory
 * backend's pages (numa_maps, or the backend's host-nodes= and policy when
 * numa_maps cannot single it out) on one node, and its vCPUs running there.
 * A virtual node spread over host nodes, or its vCPUs elsewhere, makes the
 * guest kernel's local memory remote.  It fires for a virtual node whose
 * memory is on several host nodes (each at least 10 % of it), whose vCPUs
 * ran on another host node than its memory or on several, or whose memory
 * cannot be placed (not bound, and numa_maps cannot single its backend out)
 * while one of its vCPUs has a locality finding: the locality rule
 * (advise_locality_vnuma()) cannot place that vCPU, and binding the backend
 * where its vCPUs run is the fix.  Target: the node holding most of its
 * memory (the locality rule's: one plan), else the node most of its vCPUs
 * ran on.  Commands: its vCPUs pinned there, less those the advice ranked
 * above already pins there (pin-vcpu-to-memory), and the backend bound
 * there at the next start (libvirt <memnode>, QEMU host-nodes=,policy=bind)
 * unless it is already; migratepages cannot move one backend's pages.
 * Nothing left to do: no advice.
 */
static void advise_vnuma(const struct diag_input *in, struct diag_result *r)
{
	size_t vmi, k, i;

	for (vmi = 0; vmi < in->n_vms; vmi++) {
		const struct diag_vm *vm = &in->vms[vmi];

		if (!vnuma_vm(vm))
			continue;
		for (k = 0; k < vm->n_vnodes; k++) {
			const struct hv_vnode *vn = &vm->vnodes[k];
			struct sbuf ev = SBUF_INIT, sb = SBUF_INIT, tmp = SBUF_INIT, skip = SBUF_INIT;
			int mem_nodes = 0, mem_one = -1, mem_most = -1, cpu_most = -1, to, nn;
			int cnt[64] = { 0 }, vn_used = 0;
			double tot = 0, best = -1;
			bool mem_bad, cpu_bad = false, known_mem = false, unplaced = false;
			size_t n_before = r->n_a;
			struct diag_advice *a;
			const char *cpus;
			char *q;

			nn = in->n_nodes < 64 ? (int)in->n_nodes : 64;
			/* where its memory is */
			if (vn->mem_node && vn->n_mem_nodes > 0) {
				for (i = 0; i < (size_t)vn->n_mem_nodes; i++)
					tot += (double)vn->mem_node[i];
				for (i = 0; tot > 0 && i < (size_t)vn->n_mem_nodes; i++) {
					int ni = node_index(in, (int)i);
					double sh = (double)vn->mem_node[i] / tot;

					if (ni < 0 || sh < 0.10)
						continue;
					if (!mem_nodes)
						sbuf_addf(&ev, "virtual node %d's memory (%s) is on host node",
							  vn->id, plain_id(vn->memdev));
					sbuf_addf(&ev, "%s %d (%.0f%%)", mem_nodes ? "," : "", (int)i,
						  100 * sh);
					mem_nodes++;
					mem_one = ni;
					if (sh > best) {
						best = sh;
						mem_most = ni;
					}
				}
				known_mem = tot > 0;
			}
			if (!known_mem && vn->host_nodes.n && vn->policy && strcmp(vn->policy, "default")) {
				sbuf_addf(&ev, "virtual node %d's memory (%s) is bound to host node%s ",
					  vn->id, plain_id(vn->memdev), vn->host_nodes.n > 1 ? "s" : "");
				cpulist_format(&vn->host_nodes, &ev);
				sbuf_addf(&ev, " (policy %s; numa_maps: %s)", vn->policy,
					  vn->mem_why ? vn->mem_why : "not read");
				for (i = 0; i < vn->host_nodes.n; i++)
					if ((mem_one = node_index(in, vn->host_nodes.ids[i])) >= 0)
						mem_nodes++;
				mem_most = node_index(in, vn->host_nodes.ids[0]);
				known_mem = mem_nodes > 0;
			}
			mem_bad = known_mem && mem_nodes > 1;
			/* where its vCPUs ran, and whether one is remote from memory nobody can place */
			for (i = 0; i < in->n_vcpus; i++) {
				const struct diag_vcpu *v = &in->vcpus[i];
				int ni = node_index(in, v->node);

				if (v->vm != vmi || !cpulist_has(&vn->vcpus, v->index))
					continue;
				unplaced |= !known_mem && vcpu_remote(in, r, i, NULL);
				if (ni < 0 || ni >= nn)
					continue;
				if (!cnt[ni]++)
					vn_used++;
				if (cpu_most < 0 || cnt[ni] > cnt[cpu_most])
					cpu_most = ni;
				if (known_mem && mem_nodes == 1 && ni != mem_one)
					cpu_bad = true;
			}
			if (vn_used > 1)
				cpu_bad = true;
			to = known_mem ? mem_most : cpu_most;
			if ((!mem_bad && !cpu_bad && !unplaced) || to < 0) {
				sbuf_release(&ev);
				continue;
			}
			if (!known_mem)
				sbuf_addf(&ev, "virtual node %d's memory (%s) is not bound to a host "
					  "node (policy %s; numa_maps: %s)", vn->id, plain_id(vn->memdev),
					  vn->policy ? vn->policy : "default",
					  vn->mem_why ? vn->mem_why : "not read");
			sbuf_addf(&ev, "; its vCPU%s ", vn->vcpus.n > 1 ? "s" : "");
			cpulist_format(&vn->vcpus, &ev);
			sbuf_addstr(&ev, " ran on host node");
			{
				int used = 0, seen = 0;

				for (i = 0; i < (size_t)nn; i++)
					seen += cnt[i];
				for (i = 0; i < (size_t)nn; i++)
					if (cnt[i])
						sbuf_addf(&ev, "%s %d (%d of %d)", used++ ? "," : "",
							  in->nodes[i].id, cnt[i], seen);
				if (!used)
					sbuf_addstr(&ev, " n/a (none in view)");
			}
			if (mem_bad || cpu_bad)
				sbuf_addstr(&ev, ": the guest kernel takes that node's memory for local "
					    "to those vCPUs, and it is not");
			for (i = 0; unplaced && i < in->n_vcpus; i++) /* what fired it */
				if (in->vcpus[i].vm == vmi &&
				    cpulist_has(&vn->vcpus, in->vcpus[i].index) &&
				    vcpu_remote(in, r, i, NULL))
					sbuf_addf(&ev, "; vCPU %d has a locality finding (remote-access "
						  "share %.0f%% of the VM's memory, %s) that the locality "
						  "rule cannot place: where this node's memory is, is not known",
						  in->vcpus[i].index, 100 * in->vcpus[i].remote_frac,
						  vp_quality_name(in->vcpus[i].f[FACTOR_LOCALITY].quality));
			cpus = pin_set(in, to, &tmp);
			for (i = 0; i < in->n_vcpus; i++) {
				long by;

				if (in->vcpus[i].vm != vmi || !cpulist_has(&vn->vcpus, in->vcpus[i].index))
					continue;
				if (planned_node(in, r, n_before, i, &by) == to && by >= 0)
					sbuf_addf(&skip, "%svCPU %d by the %s advice", skip.len ? ", " : "",
						  in->vcpus[i].index, r->a[by].rule);
				else
					cmd_pin(vm, in->vcpus[i].index, in->vcpus[i].tid, cpus, &sb);
			}
			q = shell_word(vm->name, false);
			if (vnode_bound_to(in, vn, to))
				;       /* bound there already: the binding stands */
			else if (vm->libvirt)
				sbuf_addf(&sb, "# virsh edit %s: in <numatune>, <memnode cellid='%d' "
					  "mode='strict' nodeset='%d'/> (applies at its next start)\n", q,
					  vn->id, in->nodes[to].id);
			else if (vn->memdev)
				sbuf_addf(&sb, "# at its next start, on -object memory-backend-*,id=%s: "
					  "host-nodes=%d,policy=bind\n", plain_id(vn->memdev),
					  in->nodes[to].id);
			free(q);
			if (!sb.len) { /* pinned there by the advice above, bound there already */
				sbuf_release(&ev);
				sbuf_release(&skip);
				sbuf_release(&tmp);
				continue;
			}
			a = add_advice(r, "vnuma-fidelity", vmi);
			a->to_node = to;
			a->vnode = vn->id;
			a->action = xasprintf("back %s's virtual node %d with host node %d alone (CPUs "
					      "%s): its vCPUs and its memory there", vm->name, vn->id,
					      in->nodes[to].id, cpus);
			sbuf_release(&tmp);
			a->evidence = sbuf_detach(&ev);
			a->effect = xasprintf("what the guest places on its node %d is local to the vCPUs "
				 "it runs there, as its kernel assumes; the pages there now stay until "
				 "the backend is bound and the VM restarts (migratepages moves a whole "
				 "process's pages, every backend's, not one backend's); what it gives "
				 "needs the guest's own counts (gain n/a)%s%s", vn->id,
				 skip.len ? "; already pinned there: " : "", sbuf_str(&skip));
			sbuf_release(&skip);
			a->command = sbuf_detach(&sb);
			/* an advice ranked above pins one of these vCPUs to another node */
			for (i = 0; i < in->n_vcpus; i++) {
				long by;
				int pn;

				if (in->vcpus[i].vm != vmi || !cpulist_has(&vn->vcpus, in->vcpus[i].index))
					continue;
				pn = planned_node(in, r, n_before, i, &by);
				if (by < 0 || pn == to || !strcmp(r->a[by].rule, "vnuma-fidelity"))
					continue;
				a->conflict = true;
				a->conflict_note = xasprintf("the %s advice moves %s%s to node %d; its "
					 "virtual node %d belongs on node %d: that advice ignores the "
					 "guest's NUMA view -- prefer this one", r->a[by].rule, vm->name,
					 r->a[by].vcpu >= 0 ? " vCPU" : "", in->nodes[pn].id, vn->id,
					 in->nodes[to].id);
				break;
			}
		}
	}
}

/*
 * A VM name with a control character (QEMU's -name takes any bytes) is never
 * written into commands: a newline in it would end a comment line and start
 * a command of its own for a shell or --apply.  Quoting cannot help there, so
 * such advice has no command, and says why.
 */
static void name_in_commands(struct diag_advice *a, const struct diag_vm *vm)
{
	const unsigned char *p;
	bool ctl = false;

	if (!vm || !vm->name || !a->command || !strstr(a->command, vm->name))
		return;
	for (p = (const unsigned char *)vm->name; *p && !ctl; p++)
		ctl = *p < 0x20 || *p == 0x7f;
	if (!ctl)
		return;
	free(a->command);
	a->command = xstrdup("# no command: the VM's name holds control characters, which could "
			     "end a line of it; rename the VM and diagnose again\n");
}

static bool no_gain_rule(const char *rule)
{
	return !strcmp(rule, "io-locality") || !strcmp(rule, "pin-io-threads") ||
	       !strcmp(rule, "vnuma-fidelity");
}

static int cmp_advice(const void *pa, const void *pb)
{
	const struct diag_advice *a = pa, *b = pb;
	double ga = isfinite(a->gain_pct) ? a->gain_pct : -1;
	double gb = isfinite(b->gain_pct) ? b->gain_pct : -1;

	if (ga != gb)
		return ga > gb ? -1 : 1;
	/* I/O locality, I/O threads and vNUMA have no gain any counter here can give: after
	 * the others */
	if (no_gain_rule(a->rule) != no_gain_rule(b->rule))
		return no_gain_rule(a->rule) ? 1 : -1;
	if (a->vm != b->vm)
		return a->vm < b->vm ? -1 : 1;
	return a->vcpu - b->vcpu;
}

/* Whether the host's CPUs and their load over the run are known (a live diagnosis). */
static bool host_load_known(const struct diag_input *in)
{
	size_t i;

	if (!in->n_cpus)
		return false;
	for (i = 0; i < in->n_cpus; i++)
		if (!isfinite(in->cpus[i].busy))
			return false;
	return true;
}

/*
 * A vCPU's demand for a CPU over the run, in CPUs: (run + wait) / duration
 * (what it would run given a CPU of its own), at most 1; 1 when unknown
 * (it may be busy all the time).
 */
static double vcpu_demand(const struct diag_input *in, const struct diag_vcpu *v)
{
	double d;

	if (!finite_pos(in->duration_s) || !isfinite(v->run_ns) || !isfinite(v->wait_ns))
		return 1;
	d = (v->run_ns + v->wait_ns) / 1e9 / in->duration_s;
	return d < 0 ? 0 : d > 1 ? 1 : d;
}

/* Bytes of VM vmi's memory on nodes other than node index to; NaN unknown. */
static double bytes_to_move(const struct diag_input *in, const struct diag_vm *vm, int to)
{
	double b = 0;
	int id;

	if (!vm->mem_node || vm->n_mem_nodes <= 0)
		return NAN;
	for (id = 0; id < vm->n_mem_nodes; id++)
		if (id != in->nodes[to].id)
			b += (double)vm->mem_node[id];
	return b;
}

/* VM vm's DRAM traffic in GB/s, its vCPUs' sum; NaN when none is known. */
static double vm_gbs(const struct diag_input *in, size_t vm)
{
	double g = 0;
	bool any = false;
	size_t i;

	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].vm == vm && finite_pos(in->vcpus[i].mem_gbs)) {
			g += in->vcpus[i].mem_gbs;
			any = true;
		}
	return any ? g : NAN;
}

/* An I/O thread's demand for a CPU over the run (diag_vm.io_busy), 0 when unknown. */
static double io_demand(const struct diag_vm *vm, size_t t)
{
	double b = vm->io_busy ? vm->io_busy[t] : NAN;

	return isfinite(b) && b > 0 ? fmin(b, 1) : 0;
}

/*
 * Whether advice a pins I/O thread t of its VM to node index to: pin-io-threads
 * and the whole-VM pins (cmd_pin_vm()) take every one that ran elsewhere and
 * is not already confined there.
 */
static bool io_moves(const struct diag_input *in, const struct diag_advice *a, size_t t, int to)
{
	const struct diag_vm *vm = &in->vms[a->vm];
	const struct hv_iothread *io = &vm->io[t];
	int ni = node_index(in, io->node);

	if (strcmp(a->rule, "pin-io-threads") && !pins_whole_vm(a))
		return false;
	if (pins_whole_vm(a) && vm->libvirt && io->kind == HV_IO_IOTHREAD && io->id < 0)
		return false; /* libvirt's iothreadpin needs its number */
	return ni >= 0 && ni != to && !within_node(in, &io->affinity, to);
}

/* The CPUs' worth of I/O threads advice a moves to node index to. */
static double io_moved(const struct diag_input *in, const struct diag_advice *a, int to)
{
	const struct diag_vm *vm = a->vm < in->n_vms ? &in->vms[a->vm] : NULL;
	double d = 0;
	size_t t;

	for (t = 0; vm && t < vm->n_io; t++)
		if (io_moves(in, a, t, to))
			d += io_demand(vm, t);
	return d;
}

/*
 * The placement pass over the whole host: walk the advice in rank order and
 * keep one plan that fits.  Each node's capacity is its CPUs less those
 * isolcpus= reserves; its load is what ran there over the run (the busy
 * shares of all its CPUs: every VM, the host, emulator and I/O threads,
 * not only the vCPUs in view), or, where that is unknown (a recording, a
 * fixture tree), one CPU per vCPU in view last seen there.  An advice that
 * moves vCPUs to another node adds each one's demand there and takes it
 * from where it ran; one that moves memory with migratepages needs the
 * bytes it moves free on the target node (node meminfo), and takes them,
 * and headroom on the target node's memory controllers: its measured
 * bandwidth plus the VM's traffic to the memory that moves (its vCPUs'
 * GB/s in proportion to the share of its memory not there yet) must stay
 * under the knee of its calibrated peak (bw_knee), and the traffic moves
 * with it from the nodes it leaves.
 * What no longer fits is kept, flagged with the reason, and not counted:
 * no two advices are told to take the same CPUs or memory, and the advice
 * not flagged never overcommits a node.
 */
static void resolve_conflicts(const struct diag_input *in, struct diag_result *r)
{
	size_t nn = in->n_nodes, i, v;
	double *load = xcalloc(nn ? nn : 1, sizeof(double));
	double *cap = xcalloc(nn ? nn : 1, sizeof(double));
	double *freeb = xcalloc(nn ? nn : 1, sizeof(double));
	double *bw = xcalloc(nn ? nn : 1, sizeof(double));
	int *where = xcalloc(in->n_vcpus ? in->n_vcpus : 1, sizeof(int));
	long *pinned_by = xcalloc(in->n_vcpus ? in->n_vcpus : 1, sizeof(long));
	bool host = host_load_known(in);

	for (v = 0; v < in->n_vcpus; v++) { /* where each vCPU is as the plan goes */
		where[v] = node_index(in, in->vcpus[v].node);
		pinned_by[v] = -1;
	}

	for (i = 0; i < nn; i++) {
		cap[i] = in->nodes[i].n_cpus;
		freeb[i] = in->nodes[i].mem_free_bytes;
		bw[i] = in->nodes[i].bw_gbs;
	}
	for (i = 0; i < in->n_cpus; i++) {
		int ni = in->cpus[i].node;

		if (ni < 0 || (size_t)ni >= nn)
			continue;
		if (host)
			load[ni] += in->cpus[i].busy;
		if (in->cpus[i].isolated)
			cap[ni] -= 1;
	}
	if (!host) {
		for (v = 0; v < in->n_vcpus; v++) {
			int ni = node_index(in, in->vcpus[v].node);

			if (ni >= 0)
				load[ni] += 1;
		}
	}
	for (i = 0; i < r->n_a; i++) {
		struct diag_advice *a = &r->a[i];
		int to = a->to_node;
		double moved = 0, mem = NAN, gbs = NAN, lim;
		const struct diag_advice *clash = NULL;
		bool mp = a->command && strstr(a->command, "migratepages ");
		const struct diag_vm *vm = a->vm < in->n_vms ? &in->vms[a->vm] : NULL;

		if (to < 0 || (size_t)to >= nn || a->conflict)
			continue;
		for (v = 0; v < in->n_vcpus && !clash; v++) {
			const struct diag_vcpu *x = &in->vcpus[v];

			if (!advice_moves_vcpu(in, a, x->vm, x->index) || where[v] == to)
				continue;
			/* a vCPU the advice ranked above pins elsewhere: one plan, not two */
			if (pinned_by[v] >= 0)
				clash = &r->a[pinned_by[v]];
			moved += host ? vcpu_demand(in, x) : 1;
		}
		if (clash) {
			a->conflict = true;
			a->conflict_note = xasprintf("the %s advice ranked above pins %s's vCPU%s to node "
				 "%d: one plan cannot have both", clash->rule, vm ? vm->name : "the VM",
				 clash->vcpu >= 0 ? "" : "s", in->nodes[clash->to_node].id);
			continue;
		}
		moved += io_moved(in, a, to);
		if (mp && vm) {
			mem = bytes_to_move(in, vm, to);
			/* its traffic to the pages that move: they are not on `to` yet */
			if (vm->mem_frac && isfinite(vm->mem_frac[to]))
				gbs = vm_gbs(in, a->vm) * (1 - vm->mem_frac[to]);
		}
		lim = in->params.bw_knee * in->nodes[to].peak_gbs;
		if (moved > 0 && load[to] + moved > cap[to] + 1e-9) {
			a->conflict = true;
			if (host)
				a->conflict_note = xasprintf("node %d would run %.2f CPUs' worth of work on "
					 "%.0f usable CPUs after the advice ranked above (it ran %.2f over "
					 "the run, every VM and the host's own threads counted): apply this "
					 "one only if CPUs there are freed", in->nodes[to].id,
					 load[to] + moved, cap[to], load[to]);
			else
				a->conflict_note = xasprintf("node %d would run %.0f vCPUs on %.0f CPUs%s after "
					 "the advice ranked above: apply this one only if CPUs there are free",
					 in->nodes[to].id, load[to] + moved, cap[to],
					 cap[to] < in->nodes[to].n_cpus ? " (the others reserved by isolcpus=)" : "");
			continue;
		}
		if (isfinite(mem) && isfinite(freeb[to]) && mem > freeb[to]) {
			a->conflict = true;
			a->conflict_note = xasprintf("node %d has %.2f GiB free%s and this moves %.2f GiB "
				 "of %s's memory there: migratepages would leave the rest where it is "
				 "or push the node into reclaim", in->nodes[to].id, freeb[to] / 1073741824.0,
				 freeb[to] < in->nodes[to].mem_free_bytes ? " after the advice ranked above" : "",
				 mem / 1073741824.0, vm->name);
			continue;
		}
		if (finite_pos(gbs) && isfinite(bw[to]) && finite_pos(lim) && bw[to] + gbs > lim) {
			a->conflict = true;
			a->conflict_note = xasprintf("node %d's memory controllers would carry %.1f GB/s, "
				 "%.0f%% of their calibrated %.1f GB/s and past the %.0f%% knee where "
				 "loaded latency rises: they carried %.1f GB/s%s and %s's traffic to the "
				 "memory this moves is %.1f GB/s; apply it only with traffic taken off "
				 "node %d", in->nodes[to].id, bw[to] + gbs,
				 100 * (bw[to] + gbs) / in->nodes[to].peak_gbs, in->nodes[to].peak_gbs,
				 100 * in->params.bw_knee, bw[to],
				 bw[to] != in->nodes[to].bw_gbs ? " after the advice ranked above" : "",
				 vm->name, gbs, in->nodes[to].id);
			continue;
		}
		if (finite_pos(gbs)) {
			size_t k;

			if (isfinite(bw[to]))
				bw[to] += gbs;
			for (k = 0; k < nn; k++) /* it leaves the nodes that held the pages */
				if ((int)k != to && isfinite(bw[k]) && isfinite(vm->mem_frac[k]))
					bw[k] -= vm_gbs(in, a->vm) * vm->mem_frac[k];
		}
		load[to] += moved;
		for (v = 0; v < in->n_vcpus; v++) {
			const struct diag_vcpu *x = &in->vcpus[v];

			if (!advice_moves_vcpu(in, a, x->vm, x->index) || where[v] == to)
				continue;
			if (where[v] >= 0)
				load[where[v]] -= host ? vcpu_demand(in, x) : 1;
			where[v] = to;
			pinned_by[v] = (long)i;
		}
		if (host && vm) /* the I/O threads it moves leave their nodes */
			for (v = 0; v < vm->n_io; v++) {
				int from = node_index(in, vm->io[v].node);

				if (from >= 0 && io_moves(in, a, v, to))
					load[from] -= io_demand(vm, v);
			}
		if (isfinite(mem) && isfinite(freeb[to]))
			freeb[to] -= mem;
	}
	free(where);
	free(pinned_by);
	free(load);
	free(cap);
	free(freeb);
	free(bw);
}

int diagnose(const struct diag_input *in, struct diag_result *out, struct vp_err *err)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].vm >= in->n_vms)
			return vp_err_set(err, VP_EINVAL, "vCPU %zu names VM %zu of %zu", i,
					  in->vcpus[i].vm, in->n_vms);
	out->n_vms = in->n_vms;
	out->n_vcpus = in->n_vcpus;
	out->n_nodes = in->n_nodes;
	out->vm = xcalloc(in->n_vms, sizeof(*out->vm));
	out->vcpu_pct = xcalloc(in->n_vcpus * FACTOR_N, sizeof(double));
	out->vcpu_membound = xcalloc(in->n_vcpus, sizeof(bool));
	out->vcpu_wait_pct = xcalloc(in->n_vcpus ? in->n_vcpus : 1, sizeof(double));
	out->node_notes = xcalloc(in->n_nodes, sizeof(char *));

	eval_vcpus(in, out);
	eval_vms(in, out);
	eval_nodes(in, out);
	eval_cpu(in, out);
	if (out->n_b)
		qsort(out->b, out->n_b, sizeof(*out->b), cmp_bottleneck);

	for (i = 0; i < in->n_vms; i++) {
		if (in->vms[i].adapter == HVA_XEN)
			diag_advise_xen(in, out, i); /* Xen's idioms: diag_xen.c */
		else
			advise_locality(in, out, i);
		advise_sharing(in, out, i);
	}
	advise_spread(in, out);
	advise_interleave(in, out);
	advise_queue(in, out);
	advise_cpu(in, out);
	{
		size_t nb = out->n_b;

		advise_smt(in, out);
		advise_io(in, out);
		advise_iothreads(in, out);
		advise_vnuma(in, out);
		if (out->n_b > nb) /* its findings rank after the costed ones */
			qsort(out->b, out->n_b, sizeof(*out->b), cmp_bottleneck);
	}
	for (i = 0; i < out->n_a; i++) {
		struct diag_advice *a = &out->a[i];

		/* every text is there for the renderers, "" when a rule had nothing to say */
		if (!a->action)
			a->action = xstrdup("");
		if (!a->evidence)
			a->evidence = xstrdup("");
		if (!a->effect)
			a->effect = xstrdup("");
		if (!a->command)
			a->command = xstrdup("");
		name_in_commands(a, a->vm < in->n_vms ? &in->vms[a->vm] : NULL);
		finish_commands(a, a->vm < in->n_vms ? &in->vms[a->vm] : NULL);
		host_warning(in, a, a->vm < in->n_vms ? &in->vms[a->vm] : NULL);
	}
	if (out->n_a)
		qsort(out->a, out->n_a, sizeof(*out->a), cmp_advice);
	resolve_conflicts(in, out);
	return 0;
}

void diag_advice_release(struct diag_advice *a)
{
	free(a->action);
	free(a->evidence);
	free(a->effect);
	free(a->command);
	free(a->conflict_note);
	free(a->restart);
	free(a->needs);
	free(a->warning);
	a->action = a->evidence = a->effect = a->command = a->conflict_note = NULL;
	a->restart = a->needs = a->warning = NULL;
}

void diag_result_release(struct diag_result *r)
{
	size_t i;

	for (i = 0; i < r->n_nodes; i++)
		free(r->node_notes ? r->node_notes[i] : NULL);
	free(r->node_notes);
	for (i = 0; i < r->n_b; i++)
		free(r->b[i].evidence);
	for (i = 0; i < r->n_a; i++)
		diag_advice_release(&r->a[i]);
	free(r->b);
	free(r->a);
	free(r->vm);
	free(r->vcpu_pct);
	free(r->vcpu_membound);
	free(r->vcpu_wait_pct);
	memset(r, 0, sizeof(*r));
}

static void json_entity(const struct diag_input *in, enum diag_scope s, size_t e, struct jw *w)
{
	jw_kstr(w, "scope", diag_scope_name(s));
	switch (s) {
	case DIAG_VCPU:
		jw_kstr(w, "vm", in->vms[in->vcpus[e].vm].name);
		jw_kint(w, "vcpu", in->vcpus[e].index);
		break;
	case DIAG_VM:
		jw_kstr(w, "vm", in->vms[e].name);
		break;
	case DIAG_NODE:
		jw_kint(w, "node", in->nodes[e].id);
		break;
	}
}

void diag_result_json(const struct diag_input *in, const struct diag_result *r,
		      struct sbuf *out, bool pretty)
{
	struct jw w;

	jw_init(&w, out, pretty);
	diag_result_write(in, r, &w);
	if (pretty)
		sbuf_addch(out, '\n');
}

void diag_result_write(const struct diag_input *in, const struct diag_result *r, struct jw *wp)
{
	struct jw w = *wp;
	size_t i, k;
	int f;

	jw_obj_begin(&w);
	jw_key(&w, "bottlenecks");
	jw_arr_begin(&w);
	for (i = 0; i < r->n_b; i++) {
		const struct diag_bottleneck *b = &r->b[i];

		jw_obj_begin(&w);
		jw_kint(&w, "rank", (int64_t)i + 1);
		json_entity(in, b->scope, b->entity, &w);
		jw_kstr(&w, "factor", diag_factor_name(b->factor));
		jw_kdouble(&w, "cost_pct", b->cost_pct);
		/* what cost_pct is a share of: CPU contention is time, not cycles */
		jw_kstr(&w, "cost_of", b->factor == DIAG_FACTOR_CPU ? "run_wait_time" : "cycles");
		jw_kdouble(&w, "cost_cycles", b->cost_cycles);
		jw_kstr(&w, "severity", severity_name(b->sev));
		jw_kstr(&w, "quality", vp_quality_name(b->quality));
		jw_kstr(&w, "confidence", diag_confidence_name(b->confidence));
		jw_kstr(&w, "evidence", b->evidence);
		/* its 95 % interval over the run's samples, null when not known */
		jw_key(&w, "cost_interval");
		if (isfinite(b->ci_lo) && isfinite(b->ci_hi)) {
			jw_obj_begin(&w);
			jw_kdouble(&w, "lo", b->ci_lo);
			jw_kdouble(&w, "hi", b->ci_hi);
			jw_kbool(&w, "holds_zero", b->ci_holds_zero);
			jw_obj_end(&w);
		} else {
			jw_null(&w);
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "vms");
	jw_arr_begin(&w);
	for (i = 0; i < r->n_vms; i++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "vm", in->vms[i].name);
		jw_kstr(&w, "kind", in->vms[i].adapter == HVA_NATIVE ? "process" : "vm");
		jw_key(&w, "vcpus");
		jw_arr_begin(&w);
		for (k = 0; k < in->n_vcpus; k++)
			if (in->vcpus[k].vm == i)
				jw_int(&w, in->vcpus[k].index);
		jw_arr_end(&w);
		jw_kdouble(&w, "cycles", r->vm[i].cycles);
		jw_kbool(&w, "cycles_estimated", r->vm[i].cycles_proxy);
		if (r->vm[i].memory_bound_known)
			jw_kbool(&w, "memory_bound", r->vm[i].memory_bound);
		else
			jw_key(&w, "memory_bound"), jw_null(&w);
		jw_kdouble(&w, "memory_stall_pct", r->vm[i].stall_pct);
		jw_kdouble(&w, "interaction_pct", r->vm[i].remainder_pct);
		vms_json_mem_node(&w, in->vms[i].mem_node, in->vms[i].n_mem_nodes);
		jw_kstr(&w, "mem_reason", in->vms[i].mem_reason);
		jw_key(&w, "factors");
		jw_obj_begin(&w);
		for (f = 0; f < FACTOR_N; f++) {
			jw_key(&w, factor_name((enum factor_id)f));
			jw_obj_begin(&w);
			jw_kdouble(&w, "cost_pct", r->vm[i].cost_pct[f]);
			/* vCPUs with cycles but without the cost: cost_pct is over the others */
			jw_kint(&w, "cost_left_out", r->vm[i].cost_left_out[f]);
			jw_kdouble(&w, "cost_left_out_share", r->vm[i].cost_left_out_share[f]);
			jw_kdouble(&w, "score", in->vms[i].scored ? in->vms[i].score[f] : NAN);
			jw_kstr(&w, "severity", severity_name(in->vms[i].scored ? in->vms[i].sev[f]
										    : SEV_NA));
			jw_kstr(&w, "quality", vp_quality_name(r->vm[i].quality[f]));
			jw_obj_end(&w);
		}
		jw_obj_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "nodes");
	jw_arr_begin(&w);
	for (i = 0; i < r->n_nodes; i++) {
		jw_obj_begin(&w);
		jw_kint(&w, "node", in->nodes[i].id);
		jw_kstr(&w, "cpus", in->nodes[i].cpus);
		jw_kdouble(&w, "bw_gbs", in->nodes[i].bw_gbs);
		jw_kdouble(&w, "peak_gbs", in->nodes[i].peak_gbs);
		jw_kdouble(&w, "queue_full_frac", in->nodes[i].queue_full_frac);
		jw_kstr(&w, "quality", vp_quality_name(in->nodes[i].bw_quality));
		jw_key(&w, "cost_pct");
		jw_obj_begin(&w);
		for (f = 0; f < FACTOR_N; f++)
			jw_kdouble(&w, factor_name((enum factor_id)f), in->nodes[i].cost_pct[f]);
		jw_obj_end(&w);
		/* threads that ran there without the cost, and their share of its cycles */
		jw_key(&w, "cost_left_out");
		jw_obj_begin(&w);
		for (f = 0; f < FACTOR_N; f++)
			jw_kint(&w, factor_name((enum factor_id)f), in->nodes[i].cost_left_out[f]);
		jw_obj_end(&w);
		jw_key(&w, "cost_left_out_share");
		jw_obj_begin(&w);
		for (f = 0; f < FACTOR_N; f++)
			jw_kdouble(&w, factor_name((enum factor_id)f),
				   in->nodes[i].cost_left_out_share[f]);
		jw_obj_end(&w);
		jw_kstr(&w, "note", r->node_notes[i]);
		jw_key(&w, "resctrl");
		if (in->nodes[i].rdt) {
			jw_obj_begin(&w);
			jw_kdouble(&w, "llc_occupancy_bytes", in->nodes[i].rdt_llc_bytes);
			jw_kdouble(&w, "mbm_total_gbs", in->nodes[i].rdt_mbm_gbs);
			jw_kdouble(&w, "mbm_local_gbs", in->nodes[i].rdt_mbm_local_gbs);
			jw_kstr(&w, "why", in->nodes[i].rdt_why && in->nodes[i].rdt_why[0] ?
					   in->nodes[i].rdt_why : NULL);
			jw_obj_end(&w);
		} else {
			jw_null(&w);
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_kdouble(&w, "imbalance", r->imbalance);
	jw_key(&w, "advice");
	jw_arr_begin(&w);
	for (i = 0; i < r->n_a; i++) {
		const struct diag_advice *a = &r->a[i];

		jw_obj_begin(&w);
		jw_kint(&w, "rank", (int64_t)i + 1);
		jw_kstr(&w, "rule", a->rule);
		jw_kstr(&w, "vm", a->vm < in->n_vms ? in->vms[a->vm].name : NULL);
		if (a->vcpu >= 0)
			jw_kint(&w, "vcpu", a->vcpu);
		else
			jw_kstr(&w, "vcpu", NULL);
		if (a->to_node >= 0)
			jw_kint(&w, "to_node", in->nodes[a->to_node].id);
		jw_kdouble(&w, "gain_pct", a->gain_pct);
		jw_kstr(&w, "action", a->action);
		jw_kstr(&w, "evidence", a->evidence);
		jw_kstr(&w, "effect", a->effect);
		jw_kstr(&w, "command", a->command);
		jw_kstr(&w, "survives_restart", a->restart);
		jw_kstr(&w, "needs", a->needs);
		jw_kstr(&w, "warning", a->warning);
		jw_kbool(&w, "conflict", a->conflict);
		if (a->conflict)
			jw_kstr(&w, "conflict_note", a->conflict_note);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	*wp = w;
}
