/* diag_xen.c - placement advice for Xen domains: soft affinity, cpupools, and what needs a restart */
#include "analysis/diag_xen.h"
#include "util/alloc.h"
#include "util/sbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A domain's memory is "on one node" from this share on: pinning can then make it local. */
#define XEN_HOME_SHARE 0.6

static int idx_of(const struct diag_input *in, int id)
{
	size_t i;

	for (i = 0; i < in->n_nodes; i++)
		if (in->nodes[i].id == id)
			return (int)i;
	return -1;
}

/* Node index holding most of the domain's memory, -1 unknown; *frac its share. */
static int mem_home(const struct diag_input *in, const struct diag_vm *vm, double *frac)
{
	size_t i;
	int best = -1;

	*frac = NAN;
	for (i = 0; vm->mem_frac && i < in->n_nodes; i++)
		if (isfinite(vm->mem_frac[i]) && (best < 0 || vm->mem_frac[i] > *frac)) {
			best = (int)i;
			*frac = vm->mem_frac[i];
		}
	return best;
}

/* A vCPU whose locality the model flags: severity, or a cost over the threshold. */
static bool flagged(const struct diag_input *in, const struct diag_result *r, size_t v)
{
	double pc = r->vcpu_pct[v * FACTOR_N + FACTOR_LOCALITY];

	return in->vcpus[v].f[FACTOR_LOCALITY].sev >= SEV_WARNING ||
	       (isfinite(pc) && pc >= in->params.factor_pct);
}

static void evidence_of(const struct diag_input *in, const struct diag_result *r, size_t v,
			struct sbuf *sb)
{
	const struct diag_vcpu *c = &in->vcpus[v];
	double pc = r->vcpu_pct[v * FACTOR_N + FACTOR_LOCALITY];

	sbuf_addf(sb, "vCPU %d ran on node %d", c->index, c->node);
	if (isfinite(c->remote_frac))
		sbuf_addf(sb, ", %.0f%% of its accesses remote (%s)", 100 * c->remote_frac,
			  vp_quality_name(c->f[FACTOR_LOCALITY].quality));
	if (isfinite(pc))
		sbuf_addf(sb, ", locality costs %.1f%% of its cycles", pc);
}

/* The node index where most of the domain's vCPUs ran; -1 none known. */
static int vcpu_node(const struct diag_input *in, size_t vmi)
{
	int count[64] = { 0 }, best = -1;
	size_t i;

	for (i = 0; i < in->n_vcpus; i++) {
		int ni = in->vcpus[i].vm == vmi ? idx_of(in, in->vcpus[i].node) : -1;

		if (ni >= 0 && ni < 64 && ++count[ni] > (best >= 0 ? count[best] : 0))
			best = ni;
	}
	return best;
}

void diag_advise_xen(const struct diag_input *in, struct diag_result *r, size_t vmi)
{
	const struct diag_vm *vm = &in->vms[vmi];
	struct diag_advice *a;
	struct sbuf ev = SBUF_INIT, cmd = SBUF_INIT;
	size_t v, nv = 0, nflag = 0, first = (size_t)-1;
	double hfrac, gain = NAN;
	int home, target;
	char *qn;                     /* its name as one word of a command */

	if (vm->adapter != HVA_XEN || vm->domid == 0) /* dom0 is the host's, not advised */
		return;
	qn = shell_word(vm->name, true);
	for (v = 0; v < in->n_vcpus; v++) {
		double pc = r->vcpu_pct[v * FACTOR_N + FACTOR_LOCALITY];

		if (in->vcpus[v].vm != vmi)
			continue;
		nv++;
		if (!flagged(in, r, v))
			continue;
		if (first == (size_t)-1)
			first = v;
		nflag++;
		if (isfinite(pc) && !(pc <= gain))
			gain = pc;
	}
	if (!nflag || in->n_nodes < 2)
		goto out;
	home = mem_home(in, vm, &hfrac);

	if (home >= 0 && hfrac >= XEN_HOME_SHARE) {
		/* memory mostly on one node: steer the flagged vCPUs there, softly */
		const struct diag_node *h = &in->nodes[home];

		for (v = 0; v < in->n_vcpus; v++) {
			const struct diag_vcpu *c = &in->vcpus[v];

			if (c->vm != vmi || !flagged(in, r, v) || c->node == h->id)
				continue;
			a = diag_add_advice(r, in->params.xen_hard_pin ? "xen-hard-pin" : "xen-soft-affinity",
					    vmi);
			a->vcpu = c->index;
			a->to_node = home;
			a->gain_pct = r->vcpu_pct[v * FACTOR_N + FACTOR_LOCALITY];
			a->action = xasprintf("%s %s vCPU %d towards node %d (pCPUs %s), where %.0f%% of its memory is",
				 in->params.xen_hard_pin ? "pin" : "let Xen prefer", vm->name, c->index,
				 h->id, h->cpus, 100 * hfrac);
			sbuf_reset(&ev);
			evidence_of(in, r, v, &ev);
			a->evidence = xasprintf("%s; %s's memory: %.0f%% on node %d (%s)",
				 sbuf_str(&ev), vm->name, 100 * hfrac, h->id,
				 vm->mem_reason ? vm->mem_reason : "memory per node");
			a->effect = xasprintf(in->params.xen_hard_pin ?
				 "the vCPU runs only on node %d: its accesses become local, and it waits "
				 "when those pCPUs are busy" :
				 "credit2 runs the vCPU on node %d when a pCPU there is free, elsewhere "
				 "rather than waiting: most of its accesses become local", h->id);
			if (in->params.xen_hard_pin)
				a->command = xasprintf("xl vcpu-pin %s %d %s\n", qn,
					 c->index, h->cpus);
			else
				a->command = xasprintf("xl vcpu-pin %s %d - %s\n"
					 "# '-' keeps the hard affinity; soft affinity only steers the scheduler\n",
					 qn, c->index, h->cpus);
		}
		/* the whole domain fits the node: a pool of its own keeps the others off it */
		if ((int)nv <= h->n_cpus) {
			a = diag_add_advice(r, "xen-cpupool", vmi);
			a->to_node = home;
			a->action = xasprintf("give node %d to %s alone: one cpupool per node", h->id, vm->name);
			a->evidence = xasprintf("its %zu vCPUs fit node %d's %d pCPUs, which hold %.0f%% of its memory",
				 nv, h->id, h->n_cpus, 100 * hfrac);
			a->effect = xasprintf("no other domain's vCPU shares node %d's pCPUs or its cache; only if "
				 "the host can spare the node", h->id);
			a->command = xasprintf("xl cpupool-numa-split\n"
				 "xl cpupool-migrate %s Pool-node%d\n"
				 "# cpupool-numa-split makes one pool per node (xl cpupool-list names them); "
				 "it needs every pCPU still in Pool-0\n", qn, h->id);
		}
		goto out;
	}

	/* memory spread or unknown: vCPU moves cannot make it local; Xen places memory at creation */
	target = home >= 0 ? vcpu_node(in, vmi) : -1;
	if (home >= 0 && target < 0)
		target = home;
	sbuf_reset(&ev);
	evidence_of(in, r, first, &ev);
	if (nflag > 1)
		sbuf_addf(&ev, " (%zu of its vCPUs flagged)", nflag);
	if (home < 0) {
		a = diag_add_advice(r, "xen-memory-unknown", vmi);
		a->gain_pct = gain;
		a->action = xasprintf("find where %s's memory is before moving its vCPUs", vm->name);
		a->evidence = xasprintf("%s; memory per node unknown: %s",
			 sbuf_str(&ev), vm->mem_reason ? vm->mem_reason : "not read");
		a->effect = xasprintf("with Xen's pages per node the estimate says which node to steer it to");
		a->command = xasprintf("vmmprof diagnose --xen-numa-dump\n"
			 "# runs 'xl debug-keys u' once: Xen prints each domain's pages per node to its console ring\n");
		goto out;
	}
	a = diag_add_advice(r, "xen-recreate", vmi);
	a->to_node = target;
	a->gain_pct = gain;
	a->action = xasprintf("recreate %s with its vCPUs and memory on node %d: Xen places a domain's memory "
		 "only when it is created", vm->name, in->nodes[target].id);
	a->evidence = xasprintf("%s; its memory is spread: at most %.0f%% on one node (%s), so no vCPU placement "
		 "makes it local", sbuf_str(&ev), 100 * hfrac,
		 vm->mem_reason ? vm->mem_reason : "memory per node");
	a->effect = xasprintf("after the restart its memory is allocated on node %d, where its vCPUs run: "
		 "accesses become local", in->nodes[target].id);
	sbuf_addf(&cmd, "# in %s's xl config file (the one it was created from); the change "
		  "needs a restart:\n", vm->name);
	if ((int)nv <= in->nodes[target].n_cpus) {
		sbuf_addf(&cmd, "cpus = \"%s\"\n", in->nodes[target].cpus);
	} else {
		/* it does not fit one node: a vNUMA layout, one virtual node per host node */
		uint64_t total = 0;
		size_t k, n = in->n_nodes, done = 0;
		int m;

		for (m = 0; m < vm->n_mem_nodes; m++)
			total += vm->mem_node[m];
		free(a->action);
		free(a->effect);
		a->action = xasprintf("recreate %s with a vNUMA layout over the host's nodes: Xen places a "
			 "domain's memory only when it is created, and %zu vCPUs do not fit one node",
			 vm->name, nv);
		a->effect = xasprintf("each virtual node's memory sits on its host node, and the guest's own NUMA "
			 "policy keeps its threads near their memory");
		sbuf_addstr(&cmd, "vnuma = [ ");
		for (k = 0; k < n; k++) {
			size_t share = (nv - done) / (n - k), j;

			sbuf_addf(&cmd, "%s[ \"pnode=%d\", \"size=%llu\", \"vcpus=%zu-%zu\", "
				  "\"vdistances=", k ? ",\n          " : "", in->nodes[k].id,
				  (unsigned long long)(total / n >> 20), done, done + share - 1);
			for (j = 0; j < n; j++)
				sbuf_addf(&cmd, "%s%d", j ? "," : "", j == k ? 10 : 20);
			sbuf_addstr(&cmd, "\" ]");
			done += share;
		}
		sbuf_addstr(&cmd, " ]\n# vdistances: use Xen's (vmmprof info, xl info -n)\n");
	}
	sbuf_addf(&cmd, "xl shutdown -w %s\nxl create CONFIG_FILE\n", qn);
	a->command = xasprintf("%s", sbuf_str(&cmd));
out:
	free(qn);
	sbuf_release(&ev);
	sbuf_release(&cmd);
}
