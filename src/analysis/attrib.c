/* attrib.c - attribution: the entity tree over a run, vCPU residency per node, placement estimates */
#include "analysis/attrib.h"
#include "source/schedtrace.h"
#include "util/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ent_kind_name(enum ent_kind k)
{
	static const char *const names[] = { "host", "node", "cpu", "vm", "vcpu", "process", "thread" };

	return (unsigned)k < VP_ARRAY_SIZE(names) ? names[k] : "unknown";
}

static struct qval unavailable(const char *why)
{
	struct qval q = { NAN, VQ_UNAVAILABLE, why };

	return q;
}

static int add_entity(struct attrib *a, enum ent_kind kind, const char *key, const char *name,
		      int id, int parent, uint64_t now)
{
	struct entity *e;

	VP_GROW(a->ents, a->cap, a->n + 1);
	e = &a->ents[a->n];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->key = xstrdup(key);
	e->name = xstrdup(name);
	e->id = id;
	e->parent = parent;
	e->alive = true;
	e->born_ns = now;
	e->tid = -1;
	e->cpu = -1;
	e->node = -1;
	e->cpu_time_s = NAN;
	e->interval_run_s = NAN;
	e->node_run_s = xcalloc((size_t)a->n_nodes, sizeof(double));
	e->interval_node_run_s = xcalloc((size_t)a->n_nodes, sizeof(double));
	e->remote_frac = unavailable("not computed yet");
	strmap_put(&a->by_key, key, a->n); /* a key seen again (a pid reused) is the newer one */
	return (int)a->n++;
}

/* Node ids grow when an adapter sees more nodes than the topology said (Xen dom0). */
static void grow_nodes(struct attrib *a, int n)
{
	size_t i;

	if (n <= a->n_nodes)
		return;
	for (i = 0; i < a->n; i++) {
		struct entity *e = &a->ents[i];

		e->node_run_s = xrealloc(e->node_run_s, (size_t)n * sizeof(double));
		e->interval_node_run_s = xrealloc(e->interval_node_run_s, (size_t)n * sizeof(double));
		memset(e->node_run_s + a->n_nodes, 0, (size_t)(n - a->n_nodes) * sizeof(double));
		memset(e->interval_node_run_s + a->n_nodes, 0,
		       (size_t)(n - a->n_nodes) * sizeof(double));
		if (e->mem_node) {
			e->mem_node = xrealloc(e->mem_node, (size_t)n * sizeof(uint64_t));
			memset(e->mem_node + a->n_nodes, 0, (size_t)(n - a->n_nodes) * sizeof(uint64_t));
		}
	}
	a->n_nodes = n;
}

void attrib_init(struct attrib *a, const struct topology *topo)
{
	char key[32], name[32];
	int i, host;

	memset(a, 0, sizeof(*a));
	a->node_topo = topo;
	a->n_nodes = 1;
	if (topo && topo->known && topo->n_nodes > 0)
		a->n_nodes = topo->nodes[topo->n_nodes - 1].id + 1;
	host = add_entity(a, ENT_HOST, "host", "host", 0, -1, 0);
	if (!topo || !topo->known || !topo->n_nodes) {
		add_entity(a, ENT_NODE, "node:0", "node 0", 0, host, 0);
		return;
	}
	for (i = 0; i < topo->n_nodes; i++) {
		const struct numa_node *nd = &topo->nodes[i];
		int ne;
		size_t c;

		snprintf(key, sizeof(key), "node:%d", nd->id);
		snprintf(name, sizeof(name), "node %d", nd->id);
		ne = add_entity(a, ENT_NODE, key, name, nd->id, host, 0);
		a->ents[ne].node = nd->id;
		for (c = 0; c < nd->cpus.n; c++) {
			int ce;

			snprintf(key, sizeof(key), "cpu:%d", nd->cpus.ids[c]);
			snprintf(name, sizeof(name), "cpu %d", nd->cpus.ids[c]);
			ce = add_entity(a, ENT_CPU, key, name, nd->cpus.ids[c], ne, 0);
			a->ents[ce].cpu = nd->cpus.ids[c];
			a->ents[ce].node = nd->id;
		}
	}
}

/* Undo this tree's watches on its tracer (it may go on serving other holders). */
static void unwatch_all(struct attrib *a)
{
	size_t i;

	for (i = 0; i < a->n_watched; i++) {
		if (a->exact)
			schedtrace_unwatch(a->exact, a->watched[i].tid);
		free(a->watched[i].base);
	}
	a->n_watched = 0;
	strmap_release(&a->by_tid);
}

void attrib_release(struct attrib *a)
{
	size_t i;

	unwatch_all(a);
	free(a->watched);
	for (i = 0; i < a->n; i++) {
		free(a->ents[i].key);
		free(a->ents[i].name);
		free(a->ents[i].node_run_s);
		free(a->ents[i].interval_node_run_s);
		free(a->ents[i].xt_base);
		free(a->ents[i].mem_node);
	}
	free(a->ents);
	strmap_release(&a->by_key);
	strmap_release(&a->by_tid);
	memset(a, 0, sizeof(*a));
}

/* The watch of thread tid, or NULL. */
static struct attrib_watch *find_watch(const struct attrib *a, int tid, size_t *at)
{
	char k[16];
	size_t i;

	snprintf(k, sizeof(k), "%d", tid);
	if (!strmap_get(&a->by_tid, k, &i) || i >= a->n_watched || a->watched[i].tid != tid)
		return NULL;
	if (at)
		*at = i;
	return &a->watched[i];
}

static void index_watch(struct attrib *a, size_t i)
{
	char k[16];

	snprintf(k, sizeof(k), "%d", a->watched[i].tid);
	strmap_put(&a->by_tid, k, i);
}

int attrib_find(const struct attrib *a, const char *key)
{
	size_t i;

	/* a hash of the keys: a daemon's tree keeps every entity that ever lived */
	if (!strmap_get(&a->by_key, key, &i) || i >= a->n || !a->ents[i].alive)
		return -1;
	return (int)i;
}

char *attrib_vm_key(const struct hv_vm *vm)
{
	if (vm->adapter == HVA_XEN)
		return xasprintf("vm:xen:%d", vm->domid);
	return xasprintf("vm:%s:%d:%s", hv_adapter_name(vm->adapter), vm->pid,
			 vm->name ? vm->name : "");
}

/*
 * The vCPU's key into buf (n bytes) when it fits, else into the heap (the
 * caller frees a result that is not buf): one format, no allocation for the
 * usual name, as it is looked up for every vCPU at every sample.
 */
static char *vcpu_key_in(const struct hv_vm *vm, const struct hv_vcpu *v, char *buf, size_t n)
{
	/* a vCPU is its thread under KVM; under Xen its index */
	const char *tv = v->tid > 0 ? "t" : "v";
	int id = v->tid > 0 ? v->tid : v->index;
	int len = vm->adapter == HVA_XEN ?
		  snprintf(buf, n, "vm:xen:%d:%s%d", vm->domid, tv, id) :
		  snprintf(buf, n, "vm:%s:%d:%s:%s%d", hv_adapter_name(vm->adapter), vm->pid,
			   vm->name ? vm->name : "", tv, id);

	if (len >= 0 && (size_t)len < n)
		return buf;
	return vm->adapter == HVA_XEN ? xasprintf("vm:xen:%d:%s%d", vm->domid, tv, id) :
	       xasprintf("vm:%s:%d:%s:%s%d", hv_adapter_name(vm->adapter), vm->pid,
			 vm->name ? vm->name : "", tv, id);
}

char *attrib_vcpu_key(const struct hv_vm *vm, const struct hv_vcpu *v)
{
	char buf[256], *k = vcpu_key_in(vm, v, buf, sizeof(buf));

	return k == buf ? xstrdup(buf) : k;
}

int attrib_find_vcpu(const struct attrib *a, const struct hv_vm *vm, const struct hv_vcpu *v)
{
	char buf[256], *k = vcpu_key_in(vm, v, buf, sizeof(buf));
	int e = attrib_find(a, k);

	if (k != buf)
		free(k);
	return e;
}

/* CPU time of a vCPU: schedstat's ns when read, else utime + stime (or xl's Time). */
static double run_time_of(const struct hv_vcpu *v)
{
	return v->have_run_ns ? (double)v->run_ns / 1e9 : v->cpu_time_s;
}

void attrib_use_schedtrace(struct attrib *a, struct schedtrace *st, const struct topology *topo)
{
	if (a->exact != st)
		unwatch_all(a);
	a->exact = st;
	a->topo = topo;
}

/*
 * Exact residency: the tracer's ns per CPU for this thread summed per node,
 * from the entity's first read on (the tracer counts from the thread's
 * first watch, perhaps another view's).  false when the tracer does not
 * watch the thread or a CPU has no known node.
 */
static bool exact_residency(struct attrib *a, struct entity *ent, int tid)
{
	const struct attrib_watch *w = NULL;
	const uint64_t *run;
	size_t nc, c;
	double *cum;
	int n;

	if (!a->exact || !a->topo || tid <= 0 || !schedtrace_run_ns(a->exact, tid, &run, &nc))
		return false;
	w = find_watch(a, tid, NULL);
	cum = xcalloc((size_t)a->n_nodes, sizeof(double));
	for (c = 0; c < nc; c++) {
		uint64_t r = run[c] - (w && c < w->n_base ? w->base[c] : 0);

		if (!r)
			continue;
		n = topology_cpu_node(a->topo, (int)c);
		if (n < 0 || n >= a->n_nodes) {
			free(cum);
			return false;
		}
		cum[n] += (double)r / 1e9;
	}
	for (n = 0; n < a->n_nodes; n++) {
		ent->interval_node_run_s[n] = cum[n] - ent->node_run_s[n];
		if (ent->interval_node_run_s[n] < 0)
			ent->interval_node_run_s[n] = 0;
		ent->node_run_s[n] = cum[n];
	}
	free(cum);
	return true;
}

/*
 * Exact residency of a Xen vCPU from Xen's scheduler trace (hv_xen_tracer):
 * the adapter gives its run time per pCPU since the trace began; the
 * entity counts from its first update (xt_base), per node of Xen's
 * topology.  false when there is no trace or a pCPU has no known node.
 */
static bool xen_residency(struct attrib *a, struct entity *ent, const struct hv_vcpu *v)
{
	double *cum;
	int c, n;

	if (!v->trace_pcpu_s || v->n_trace_pcpus <= 0 || !a->node_topo)
		return false;
	if (!ent->xt_base) {
		ent->xt_base = xcalloc((size_t)v->n_trace_pcpus, sizeof(double));
		memcpy(ent->xt_base, v->trace_pcpu_s, (size_t)v->n_trace_pcpus * sizeof(double));
		ent->n_xt_base = v->n_trace_pcpus;
	}
	cum = xcalloc((size_t)a->n_nodes, sizeof(double));
	for (c = 0; c < v->n_trace_pcpus; c++) {
		double r = v->trace_pcpu_s[c] - (c < ent->n_xt_base ? ent->xt_base[c] : 0);

		if (!(r > 0))
			continue;
		n = topology_cpu_node(a->node_topo, c);
		if (n < 0 || n >= a->n_nodes) {
			free(cum);
			return false;
		}
		cum[n] += r;
	}
	for (n = 0; n < a->n_nodes; n++) {
		ent->interval_node_run_s[n] = cum[n] - ent->node_run_s[n];
		if (ent->interval_node_run_s[n] < 0)
			ent->interval_node_run_s[n] = 0;
		ent->node_run_s[n] = cum[n];
	}
	free(cum);
	return true;
}

static void update_vcpu(struct attrib *a, int e, const struct hv_vcpu *v, bool fresh)
{
	struct entity *ent = &a->ents[e];
	double t = run_time_of(v), d = NAN;
	int n;

	ent->tid = v->tid;
	ent->cpu = v->cpu;
	ent->node = v->node;
	for (n = 0; n < a->n_nodes; n++)
		ent->interval_node_run_s[n] = 0;
	if (!fresh && isfinite(t) && isfinite(ent->cpu_time_s)) {
		d = t - ent->cpu_time_s;
		if (d < 0)
			d = 0; /* a counter that went backwards: a new thread behind the same id */
		ent->run_s += d;
	}
	ent->residency_exact = exact_residency(a, ent, v->tid) || xen_residency(a, ent, v);
	if (!ent->residency_exact && !fresh && isfinite(d) && v->node >= 0 && v->node < a->n_nodes) {
		/* the sampling fallback: charge the interval to where it runs now */
		ent->node_run_s[v->node] += d;
		ent->interval_node_run_s[v->node] = d;
	}
	ent->interval_run_s = d;
	ent->cpu_time_s = t;
}

static bool is_vm(const struct entity *e)
{
	return e->alive && (e->kind == ENT_VM || e->kind == ENT_PROCESS);
}

/* Each live VM's (process's) run times: the sums of its live vCPUs' (threads'), in one pass. */
static void sum_vms(struct attrib *a)
{
	bool *any_interval = xcalloc(a->n + 1, sizeof(bool));
	size_t i;
	int n;

	for (i = 0; i < a->n; i++) {
		struct entity *ve = &a->ents[i];

		if (!is_vm(ve))
			continue;
		ve->run_s = 0;
		ve->interval_run_s = 0;
		for (n = 0; n < a->n_nodes; n++)
			ve->node_run_s[n] = ve->interval_node_run_s[n] = 0;
	}
	for (i = 0; i < a->n; i++) {
		const struct entity *c = &a->ents[i];
		struct entity *ve;

		if (!c->alive || c->parent < 0 || (size_t)c->parent >= a->n ||
		    !is_vm(&a->ents[c->parent]))
			continue;
		ve = &a->ents[c->parent];
		ve->run_s += c->run_s;
		if (isfinite(c->interval_run_s)) {
			ve->interval_run_s += c->interval_run_s;
			any_interval[c->parent] = true;
		}
		for (n = 0; n < a->n_nodes; n++) {
			ve->node_run_s[n] += c->node_run_s[n];
			ve->interval_node_run_s[n] += c->interval_node_run_s[n];
		}
	}
	for (i = 0; i < a->n; i++)
		if (is_vm(&a->ents[i]) && !any_interval[i])
			a->ents[i].interval_run_s = NAN;
	free(any_interval);
}

/* Watch v's thread into w, with the times it has already when another holder watches it. */
static void add_watch(struct attrib *a, struct attrib_watch *w, const struct hv_vcpu *v,
		      uint64_t now_ns, bool *polled)
{
	const uint64_t *run;
	size_t nc;

	memset(w, 0, sizeof(*w));
	w->tid = v->tid;
	if (schedtrace_run_ns(a->exact, v->tid, &run, &nc)) {
		if (!*polled) {
			schedtrace_poll(a->exact, now_ns, NULL); /* its times up to now */
			*polled = true;
		}
		schedtrace_run_ns(a->exact, v->tid, &run, &nc);
		w->base = xmalloc(nc * sizeof(uint64_t));
		memcpy(w->base, run, nc * sizeof(uint64_t));
		w->n_base = nc;
	}
	schedtrace_watch(a->exact, v->tid, now_ns, v->state[0] == 'R' ? v->cpu : -1);
}

/*
 * Watch the scan's vCPU threads not watched yet (once each); unwatch those
 * gone.  A thread another holder watches already has times: they are read
 * up to now and kept as this tree's base.
 */
static void watch_scan(struct attrib *a, const struct hv_vm_list *vms, uint64_t now_ns)
{
	bool *still = xcalloc(a->n_watched + 1, sizeof(bool)), polled = false, gone = false;
	size_t i, j, k, n_old = a->n_watched;

	for (i = 0; i < vms->n; i++)
		for (j = 0; j < vms->vms[i].n_vcpus; j++) {
			const struct hv_vcpu *v = &vms->vms[i].vcpus[j];

			if (v->tid <= 0)
				continue;
			if (find_watch(a, v->tid, &k)) {
				if (k < n_old)
					still[k] = true;
				continue; /* k >= n_old: twice in one scan */
			}
			VP_GROW(a->watched, a->cap_watched, a->n_watched + 1);
			add_watch(a, &a->watched[a->n_watched++], v, now_ns, &polled);
			index_watch(a, a->n_watched - 1);
		}
	for (i = 0, k = 0; i < a->n_watched; i++) {
		if (i < n_old && !still[i]) {
			schedtrace_unwatch(a->exact, a->watched[i].tid);
			free(a->watched[i].base);
			gone = true;
			continue;
		}
		a->watched[k++] = a->watched[i];
	}
	a->n_watched = k;
	if (gone) { /* the watches moved: index them again */
		strmap_release(&a->by_tid);
		for (i = 0; i < a->n_watched; i++)
			index_watch(a, i);
	}
	free(still);
}

void attrib_watch(struct attrib *a, const struct hv_vm_list *vms, uint64_t now_ns)
{
	if (!a->exact)
		return;
	watch_scan(a, vms, now_ns);
	schedtrace_poll(a->exact, now_ns, NULL);
}

void attrib_update(struct attrib *a, const struct hv_vm_list *vms, uint64_t now_ns)
{
	bool *seen;
	size_t i, j;
	int max_node = a->n_nodes;

	for (i = 0; i < vms->n; i++) {
		if (vms->vms[i].n_mem_nodes > max_node)
			max_node = vms->vms[i].n_mem_nodes;
		for (j = 0; j < vms->vms[i].n_vcpus; j++)
			if (vms->vms[i].vcpus[j].node >= max_node)
				max_node = vms->vms[i].vcpus[j].node + 1;
	}
	grow_nodes(a, max_node);
	/* new threads are watched from now; the switches so far are charged */
	attrib_watch(a, vms, now_ns);
	seen = xcalloc(a->n + 1, sizeof(bool));
	for (i = 0; i < vms->n; i++) {
		const struct hv_vm *vm = &vms->vms[i];
		bool native = vm->adapter == HVA_NATIVE;
		char *key = attrib_vm_key(vm);
		int e = attrib_find(a, key), n;

		if (e < 0) {
			e = add_entity(a, native ? ENT_PROCESS : ENT_VM, key, vm->name ? vm->name : "?",
				       vm->adapter == HVA_XEN ? vm->domid : vm->pid, 0, now_ns);
			seen = xrealloc(seen, (a->n + 1) * sizeof(bool));
		}
		free(key);
		seen[e] = true;
		a->ents[e].adapter = vm->adapter;
		free(a->ents[e].mem_node);
		a->ents[e].mem_node = NULL;
		if (vm->n_mem_nodes > 0) {
			a->ents[e].mem_node = xcalloc((size_t)a->n_nodes, sizeof(uint64_t));
			for (n = 0; n < vm->n_mem_nodes && n < a->n_nodes; n++)
				a->ents[e].mem_node[n] = vm->mem_node[n];
		}
		for (j = 0; j < vm->n_vcpus; j++) {
			const struct hv_vcpu *v = &vm->vcpus[j];
			char vbuf[256], *vk = vcpu_key_in(vm, v, vbuf, sizeof(vbuf)), name[96];
			int ve = attrib_find(a, vk);
			bool fresh = ve < 0;

			if (fresh) {
				if (native)
					snprintf(name, sizeof(name), "%s", v->comm ? v->comm : "thread");
				else
					snprintf(name, sizeof(name), "vCPU %d", v->index);
				ve = add_entity(a, native ? ENT_THREAD : ENT_VCPU, vk, name,
						native ? v->tid : v->index, e, now_ns);
				seen = xrealloc(seen, (a->n + 1) * sizeof(bool));
			}
			if (vk != vbuf)
				free(vk);
			seen[ve] = true;
			a->ents[ve].adapter = vm->adapter;
			update_vcpu(a, ve, v, fresh);
		}
	}
	/* whatever was not seen has ended: its series stops here */
	for (i = 0; i < a->n; i++) {
		struct entity *e = &a->ents[i];

		if (e->kind < ENT_VM || !e->alive || seen[i])
			continue;
		e->alive = false;
		e->ended_ns = now_ns;
		e->interval_run_s = NAN;
	}
	free(seen);
	sum_vms(a);
	for (i = 0; i < a->n; i++) {
		struct entity *e = &a->ents[i];

		if (e->alive && e->kind >= ENT_VM)
			e->remote_frac = attrib_remote_estimate(a, (int)i);
	}
	a->prev_ns = a->t_ns;
	a->t_ns = now_ns;
	a->updates++;
}

/* Placement share on node from the current CPUs of e (a vCPU, or a VM's vCPUs). */
static double placement_share(const struct attrib *a, int e, int node)
{
	const struct entity *ent = &a->ents[e];
	int on = 0, known = 0;
	size_t i;

	if (ent->kind == ENT_VCPU || ent->kind == ENT_THREAD)
		return ent->node < 0 ? NAN : ent->node == node ? 1.0 : 0.0;
	for (i = 0; i < a->n; i++) {
		if (a->ents[i].parent != e || !a->ents[i].alive || a->ents[i].node < 0)
			continue;
		known++;
		on += a->ents[i].node == node;
	}
	return known ? (double)on / known : NAN;
}

double attrib_residency(const struct attrib *a, int e, int node)
{
	const struct entity *ent = &a->ents[e];
	double sum = 0;
	int n;

	if (node < 0 || node >= a->n_nodes)
		return NAN;
	for (n = 0; n < a->n_nodes; n++)
		sum += ent->node_run_s[n];
	if (sum > 0)
		return ent->node_run_s[node] / sum;
	return placement_share(a, e, node);
}

double attrib_mem_remote_share(const struct attrib *a, int vm, int node)
{
	const struct entity *ent = &a->ents[vm];
	double total = 0;
	int n;

	if (!ent->mem_node || node < 0 || node >= a->n_nodes)
		return NAN;
	for (n = 0; n < a->n_nodes; n++)
		total += (double)ent->mem_node[n];
	if (total <= 0)
		return NAN;
	return 1.0 - (double)ent->mem_node[node] / total;
}

struct qval attrib_remote_estimate(const struct attrib *a, int e)
{
	const struct entity *ent = &a->ents[e];
	int vm = ent->kind == ENT_VM || ent->kind == ENT_PROCESS ? e : ent->parent;
	struct qval q = { 0, VQ_ESTIMATE, "placement: run time per node x memory not on that node" };
	int n;

	if (vm < 0 || !a->ents[vm].mem_node)
		return unavailable("memory per node unknown");
	for (n = 0; n < a->n_nodes; n++) {
		double r = attrib_residency(a, e, n), m = attrib_mem_remote_share(a, vm, n);

		if (isnan(r))
			return unavailable("CPU placement unknown");
		if (isnan(m))
			return unavailable("no resident memory found");
		q.v += r * m;
	}
	return q;
}

struct qval attrib_apportion(const struct attrib *a, int vm, int node, double node_value)
{
	struct qval q = { NAN, VQ_APPORTIONED, "node value shared out by VM run time on the node" };
	bool interval = a->updates >= 2;
	double mine, all = 0;
	size_t i;

	if (isnan(node_value))
		return unavailable("node value unavailable");
	if (node < 0 || node >= a->n_nodes)
		return unavailable("no such node");
	for (i = 0; i < a->n; i++) {
		const struct entity *e = &a->ents[i];

		if (e->alive && (e->kind == ENT_VM || e->kind == ENT_PROCESS))
			all += interval ? e->interval_node_run_s[node] : e->node_run_s[node];
	}
	mine = interval ? a->ents[vm].interval_node_run_s[node] : a->ents[vm].node_run_s[node];
	if (all <= 0)
		return unavailable("no VM ran on the node in the interval");
	q.v = node_value * mine / all;
	return q;
}

int attrib_node_shares(const double *run, const double *act, const double *busy, size_t n_v,
		       size_t n_nodes, double *share)
{
	return attrib_node_shares_mem(run, act, NULL, busy, n_v, n_nodes, share);
}

/* Row v of mem, normalised, when it is usable (finite, not negative, some memory). */
static bool mem_row(const double *mem, size_t v, size_t n_nodes, double *sum)
{
	size_t n;

	*sum = 0;
	for (n = 0; mem && n < n_nodes; n++) {
		double x = mem[v * n_nodes + n];

		if (!isfinite(x) || x < 0)
			return false;
		*sum += x;
	}
	return mem && *sum > 0;
}

int attrib_node_shares_mem(const double *run, const double *act, const double *mem,
			   const double *busy, size_t n_v, size_t n_nodes, double *share)
{
	double *w = xcalloc(n_v * n_nodes + 1, sizeof(double));
	double *dist = xcalloc(n_v * n_nodes + 1, sizeof(double));
	double *tot = xcalloc(n_v + 1, sizeof(double));
	bool *known = xcalloc(n_v + 1, sizeof(bool));
	size_t v, n;
	int guessed = 0;

	/* dist[v][n]: the part of v's traffic that goes to node n */
	for (v = 0; v < n_v; v++) {
		double msum;
		bool by_mem = mem_row(mem, v, n_nodes, &msum);

		known[v] = true;
		for (n = 0; n < n_nodes; n++) {
			if (isfinite(run[v * n_nodes + n]))
				tot[v] += run[v * n_nodes + n];
			else
				known[v] = false;
		}
		for (n = 0; n < n_nodes; n++) {
			double r = run[v * n_nodes + n];

			if (by_mem)
				dist[v * n_nodes + n] = mem[v * n_nodes + n] / msum;
			else
				dist[v * n_nodes + n] = tot[v] > 0 && isfinite(r) ? r / tot[v] : 0;
		}
	}
	for (n = 0; n < n_nodes; n++) {
		double sum_run = 0, sum_w = 0, here = 0, part;
		bool by_act = act != NULL;

		for (v = 0; v < n_v; v++) {
			double r = run[v * n_nodes + n];

			if (isfinite(r))
				sum_run += r;
			/* the run time of the view's vCPUs whose traffic goes to n */
			if (!mem)
				here += isfinite(r) ? r : 0;
			else if (known[v])
				here += tot[v] * dist[v * n_nodes + n];
		}
		/* activity weights: each vCPU's own count, sent to nodes as its traffic goes */
		for (v = 0; by_act && v < n_v; v++) {
			double d = dist[v * n_nodes + n];

			if (d <= 0 || (mem && !known[v]))
				w[v * n_nodes + n] = 0;
			else if (!isfinite(act[v]) || act[v] < 0)
				by_act = false;
			else
				w[v * n_nodes + n] = act[v] * d;
			sum_w += w[v * n_nodes + n];
		}
		if (!by_act || sum_w <= 0) {
			sum_w = 0;
			for (v = 0; v < n_v; v++) {
				double r = run[v * n_nodes + n];

				w[v * n_nodes + n] = !mem ? (isfinite(r) ? r : 0)
						    : known[v] ? tot[v] * dist[v * n_nodes + n] : 0;
				sum_w += w[v * n_nodes + n];
			}
		}
		/* the rest of the node's busy time (other tasks) is taken to use the
		 * node's own memory: the view's part is its run time sent here over that */
		if (busy && isfinite(busy[n]) && busy[n] > 0) {
			double others = busy[n] > sum_run ? busy[n] - sum_run : 0;

			part = here + others > 0 ? here / (here + others) : 0;
		} else {
			part = 1;
			if (here > 0)
				guessed++;
		}
		for (v = 0; v < n_v; v++) {
			if (mem ? !known[v] : !isfinite(run[v * n_nodes + n]))
				share[v * n_nodes + n] = NAN;
			else
				share[v * n_nodes + n] = sum_w > 0 ? part * w[v * n_nodes + n] / sum_w : 0;
		}
	}
	free(w);
	free(dist);
	free(tot);
	free(known);
	return guessed;
}
