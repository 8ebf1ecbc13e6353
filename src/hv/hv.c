/* hv.c - what the hypervisor adapters share: the VM list, the command runner, thread placement */
#include "hv/hv.h"
#include "hv/cache.h"
#include "source/task.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/run.h"
#include "util/sbuf.h"
#include "util/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *hv_adapter_name(enum hv_adapter_id a)
{
	switch (a) {
	case HVA_KVM: return "kvm";
	case HVA_XEN: return "xen";
	case HVA_GUEST: return "guest";
	case HVA_NATIVE: return "native";
	}
	return "unknown";
}

static void vcpu_release(struct hv_vcpu *v)
{
	cpulist_release(&v->affinity);
	cpulist_release(&v->soft_affinity);
	free(v->cgroup);
	free(v->comm);
	free(v->fault_share);
	free(v->fault_why);
	free(v->trace_pcpu_s);
}

void hv_vm_list_release(struct hv_vm_list *l)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		struct hv_vm *vm = &l->vms[i];

		for (j = 0; j < vm->n_vcpus; j++)
			vcpu_release(&vm->vcpus[j]);
		free(vm->vcpus);
		free(vm->name);
		free(vm->name_source);
		free(vm->uuid);
		free(vm->alias);
		free(vm->alias_source);
		free(vm->accel);
		free(vm->hypervisor);
		free(vm->cgroup);
		free(vm->cgroup_dir);
		free(vm->other_tids);
		free(vm->mem_node);
		free(vm->trace_reason);
		free(vm->psr_reason);
		hv_pcidevs_free(vm->pci, vm->n_pci);
		hv_iothreads_free(vm->io, vm->n_io);
		hv_vnodes_free(vm->vnodes, vm->n_vnodes);
		cpulist_release(&vm->node_affinity);
	}
	free(l->vms);
	memset(l, 0, sizeof(*l));
}

struct hv_vm *hv_vm_list_add(struct hv_vm_list *l, enum hv_adapter_id a)
{
	struct hv_vm *vm;

	VP_GROW(l->vms, l->cap, l->n + 1);
	vm = &l->vms[l->n++];
	memset(vm, 0, sizeof(*vm));
	vm->adapter = a;
	vm->pid = -1;
	vm->domid = -1;
	vm->vpmu = -1;
	vm->paused = -1;
	vm->psr_llc_bytes = vm->psr_mbm_bps = vm->psr_mbm_local_bps = NAN;
	cpulist_init(&vm->node_affinity);
	return vm;
}

struct hv_vcpu *hv_vm_add_vcpus(struct hv_vm *vm, size_t n)
{
	struct hv_vcpu *first;
	size_t i;

	/* one allocation for n: 'xl list -l' says how many at once (up to 4096 each,
	 * one at a time was quadratic; fuzz_xl timed out on it) */
	if (vm->n_vcpus + (n ? n : 1) > vm->cap_vcpus) {
		/* by half again, not one at a time: a scan adds its vCPUs one by one */
		size_t cap = vm->cap_vcpus + vm->cap_vcpus / 2;

		if (cap < vm->n_vcpus + (n ? n : 1))
			cap = vm->n_vcpus + (n ? n : 1);
		if (cap < 4)
			cap = 4;
		vm->vcpus = xrealloc(vm->vcpus, cap * sizeof(*vm->vcpus));
		vm->cap_vcpus = cap;
	}
	first = &vm->vcpus[vm->n_vcpus];
	for (i = 0; i < n; i++) {
		struct hv_vcpu *v = &first[i];

		memset(v, 0, sizeof(*v));
		v->index = -1;
		v->tid = -1;
		v->cpu = -1;
		v->node = -1;
		v->cpu_time_s = NAN;
		v->fault_pref_node = -1;
		cpulist_init(&v->affinity);
		cpulist_init(&v->soft_affinity);
	}
	vm->n_vcpus += n;
	return first;
}

struct hv_vcpu *hv_vm_add_vcpu(struct hv_vm *vm)
{
	return hv_vm_add_vcpus(vm, 1);
}

uint64_t hv_vm_mem_total(const struct hv_vm *vm)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < vm->n_mem_nodes; i++)
		t += vm->mem_node[i];
	return t;
}

const struct hv_vm *hv_vm_list_find(const struct hv_vm_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->vms[i].name && !strcmp(l->vms[i].name, name))
			return &l->vms[i];
	return NULL;
}

int hv_cpu_node(const struct hv_ctx *ctx, int cpu)
{
	return ctx->plat ? topology_cpu_node(&ctx->plat->topo, cpu) : -1;
}

void hv_read_thread(const struct hv_ctx *ctx, int pid, int tid, struct hv_vcpu *v)
{
	struct task_stat st;
	struct task_status status;
	struct task_schedstat ss;

	v->tid = tid;
	if (!task_stat_read(ctx->root, pid, tid, &st, NULL)) {
		free(v->comm);
		v->comm = xstrdup(st.comm);
		v->state[0] = st.state;
		v->state[1] = '\0';
		v->cpu = st.processor;
		v->node = hv_cpu_node(ctx, v->cpu);
		v->cpu_time_s = (double)(st.utime + st.stime) / (double)task_ticks_per_sec();
	}
	if (!task_status_read(ctx->root, pid, tid, &status, NULL)) {
		if (status.have_cpus)
			cpulist_copy(&v->affinity, &status.cpus_allowed);
		task_status_release(&status);
	}
	if (!task_schedstat_read(ctx->root, pid, tid, &ss, NULL)) {
		v->run_ns = ss.run_ns;
		v->wait_ns = ss.wait_ns;
		v->have_run_ns = true;
	}
}

int hv_run(const struct hv_ctx *ctx, const char *const *argv, char **out, struct vp_err *err)
{
	*out = NULL;
	if (ctx->exec && ctx->exec->run)
		return ctx->exec->run(ctx->exec->arg, ctx->root, argv, out, err);
	return vp_run(ctx->root, argv, out, err);
}

static bool is_xen_dom0(const struct hv_ctx *ctx)
{
	if (ctx->plat && ctx->plat->hv.xen_dom0)
		return true;
	/* without a platform probe: the captured outputs of a fixture say so */
	return ctx->root && strcmp(ctx->root, "/") &&
	       !vp_exists(ctx->root, "/.vmmprof-fixture/xl");
}

bool hv_vm_is_named(const struct hv_vm *vm, const char *name)
{
	return name && ((vm->name && !strcmp(vm->name, name)) ||
			(vm->alias && !strcmp(vm->alias, name)) ||
			(vm->uuid && !strcasecmp(vm->uuid, name)));
}

int hv_vms_check_names(const struct hv_ctx *ctx, const char *const *names, size_t n,
		       bool need_vcpus, struct vp_err *err)
{
	struct hv_vm_list l;
	struct sbuf there = SBUF_INIT;
	size_t i, j, seen = 0;
	int ret;

	memset(&l, 0, sizeof(l));
	if ((ret = hv_scan_vms(ctx, &l, err)))
		goto out;
	for (i = 0; i < n; i++) {
		for (j = 0; j < l.n; j++)
			if (!l.vms[j].dom0 && hv_vm_is_named(&l.vms[j], names[i]) &&
			    (!need_vcpus || l.vms[j].n_vcpus))
				break;
		if (j < l.n)
			continue;
		for (j = 0; j < l.n; j++)
			if (!l.vms[j].dom0)
				sbuf_addf(&there, "%s%s%s%s%s", seen++ ? ", " : "",
					  l.vms[j].name ? l.vms[j].name : "(unnamed)",
					  l.vms[j].alias ? " (" : "",
					  l.vms[j].alias ? l.vms[j].alias : "",
					  l.vms[j].alias ? ")" : "");
		ret = seen ? vp_err_set(err, -ENOENT, "no VM named '%s' here; VMs here: %s", names[i],
					sbuf_str(&there)) :
		      vp_err_set(err, -ENOENT, "no VM named '%s' here: no VM found", names[i]);
		break;
	}
out:
	sbuf_release(&there);
	hv_vm_list_release(&l);
	return ret;
}

int hv_scan_vms(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err)
{
	int ret;

	ret = hv_kvm_scan(ctx, out, err);
	if (ret)
		return ret;
	if (is_xen_dom0(ctx))
		ret = hv_xen_scan(ctx, out, err);
	return ret;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void *dup_mem(const void *p, size_t n)
{
	void *q;

	if (!p)
		return NULL;
	q = xmalloc(n ? n : 1);
	memcpy(q, p, n);
	return q;
}

struct hv_pcidev *hv_pcidevs_dup(const struct hv_pcidev *d, size_t n)
{
	struct hv_pcidev *c;
	size_t i;

	if (!d || !n)
		return NULL;
	c = xcalloc(n, sizeof(*c));
	for (i = 0; i < n; i++) {
		c[i].addr = dup_or_null(d[i].addr);
		c[i].kind = dup_or_null(d[i].kind);
		c[i].node = d[i].node;
	}
	return c;
}

void hv_pcidevs_free(struct hv_pcidev *d, size_t n)
{
	size_t i;

	for (i = 0; d && i < n; i++) {
		free(d[i].addr);
		free(d[i].kind);
	}
	free(d);
}

const char *hv_io_kind_name(enum hv_io_kind k)
{
	switch (k) {
	case HV_IO_MAIN: return "main loop";
	case HV_IO_IOTHREAD: return "IOThread";
	case HV_IO_VHOST: return "vhost";
	}
	return "?";
}

struct hv_iothread *hv_iothreads_dup(const struct hv_iothread *t, size_t n)
{
	struct hv_iothread *c;
	size_t i;

	if (!t || !n)
		return NULL;
	c = xcalloc(n, sizeof(*c));
	for (i = 0; i < n; i++) {
		c[i] = t[i];
		c[i].name = dup_or_null(t[i].name);
		cpulist_init(&c[i].affinity);
		cpulist_copy(&c[i].affinity, &t[i].affinity);
	}
	return c;
}

void hv_iothreads_free(struct hv_iothread *t, size_t n)
{
	size_t i;

	for (i = 0; t && i < n; i++) {
		free(t[i].name);
		cpulist_release(&t[i].affinity);
	}
	free(t);
}

struct hv_vnode *hv_vnodes_dup(const struct hv_vnode *v, size_t n)
{
	struct hv_vnode *c;
	size_t i;

	if (!v || !n)
		return NULL;
	c = xcalloc(n, sizeof(*c));
	for (i = 0; i < n; i++) {
		c[i] = v[i];
		c[i].memdev = dup_or_null(v[i].memdev);
		c[i].policy = dup_or_null(v[i].policy);
		c[i].mem_why = dup_or_null(v[i].mem_why);
		c[i].mem_node = dup_mem(v[i].mem_node, (size_t)(v[i].n_mem_nodes > 0 ?
						v[i].n_mem_nodes : 0) * sizeof(uint64_t));
		cpulist_init(&c[i].vcpus);
		cpulist_copy(&c[i].vcpus, &v[i].vcpus);
		cpulist_init(&c[i].host_nodes);
		cpulist_copy(&c[i].host_nodes, &v[i].host_nodes);
	}
	return c;
}

void hv_vnodes_free(struct hv_vnode *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].memdev);
		free(v[i].policy);
		free(v[i].mem_why);
		free(v[i].mem_node);
		cpulist_release(&v[i].vcpus);
		cpulist_release(&v[i].host_nodes);
	}
	free(v);
}

void hv_vm_list_copy(struct hv_vm_list *dst, const struct hv_vm_list *src)
{
	size_t i, j;

	memset(dst, 0, sizeof(*dst));
	memcpy(dst->notes, src->notes, sizeof(dst->notes));
	dst->vms = xcalloc(src->n + 1, sizeof(*dst->vms));
	dst->n = dst->cap = src->n;
	if (!src->n)
		dst->cap = 1;
	for (i = 0; i < src->n; i++) {
		const struct hv_vm *s = &src->vms[i];
		struct hv_vm *d = &dst->vms[i];

		*d = *s;
		d->name = dup_or_null(s->name);
		d->name_source = dup_or_null(s->name_source);
		d->uuid = dup_or_null(s->uuid);
		d->alias = dup_or_null(s->alias);
		d->alias_source = dup_or_null(s->alias_source);
		d->accel = dup_or_null(s->accel);
		d->cgroup = dup_or_null(s->cgroup);
		d->cgroup_dir = dup_or_null(s->cgroup_dir);
		d->hypervisor = dup_or_null(s->hypervisor);
		d->trace_reason = dup_or_null(s->trace_reason);
		d->psr_reason = dup_or_null(s->psr_reason);
		d->pci = hv_pcidevs_dup(s->pci, s->n_pci);
		d->io = hv_iothreads_dup(s->io, s->n_io);
		d->vnodes = hv_vnodes_dup(s->vnodes, s->n_vnodes);
		d->other_tids = dup_mem(s->other_tids, s->n_other * sizeof(int));
		d->mem_node = dup_mem(s->mem_node, (size_t)(s->n_mem_nodes > 0 ? s->n_mem_nodes : 0) *
						   sizeof(uint64_t));
		cpulist_copy(&d->node_affinity, &s->node_affinity);
		d->vcpus = s->n_vcpus ? xcalloc(s->n_vcpus, sizeof(*d->vcpus)) : NULL;
		d->cap_vcpus = s->n_vcpus;
		for (j = 0; j < s->n_vcpus; j++) {
			const struct hv_vcpu *sv = &s->vcpus[j];
			struct hv_vcpu *dv = &d->vcpus[j];

			*dv = *sv;
			cpulist_copy(&dv->affinity, &sv->affinity);
			cpulist_copy(&dv->soft_affinity, &sv->soft_affinity);
			dv->cgroup = dup_or_null(sv->cgroup);
			dv->comm = dup_or_null(sv->comm);
			dv->fault_share = dup_mem(sv->fault_share,
						  (size_t)(sv->n_fault_nodes > 0 ? sv->n_fault_nodes : 0) *
							  sizeof(double));
			dv->fault_why = dup_or_null(sv->fault_why);
			dv->trace_pcpu_s = dup_mem(sv->trace_pcpu_s,
						   (size_t)(sv->n_trace_pcpus > 0 ? sv->n_trace_pcpus : 0) *
							   sizeof(double));
		}
	}
}

struct hv_cache *hv_cache_new_opts(const struct hv_cache_opts *o)
{
	struct hv_cache *c = xcalloc(1, sizeof(*c));

	c->o = *o;
	return c;
}

struct hv_cache *hv_cache_new(const char *root)
{
	struct hv_cache_opts o;

	memset(&o, 0, sizeof(o));
	if (!vp_root_is_fixture(root)) {
		o.recheck_ns = 3000000000ull;
		o.slow_ns = 10000000000ull;
		o.mem_min_ns = 10000000000ull;
		o.mem_cost_x = 5000;
		o.state_ns = 2000000000ull;
		o.share_ns = 250000000ull;
		o.keep_fds = true;
		o.stat_ns = 5000000000ull;
		o.share_keep_ns = 10000000000ull;
	}
	return hv_cache_new_opts(&o);
}

void hv_cache_set_cpu_source(struct hv_cache *c, const struct hv_cpu_source *src)
{
	if (!c)
		return;
	if (src)
		c->cpu_src = *src;
	else
		memset(&c->cpu_src, 0, sizeof(c->cpu_src));
}

void hv_cache_free(struct hv_cache *c)
{
	if (!c)
		return;
	kvm_cache_release(c);
	xen_cache_release(c);
	hv_vm_list_release(&c->last);
	free(c->last_root);
	free(c);
}

/* The same scan: one root, platform and opt-in Xen sources. */
static bool ctx_same(const struct hv_ctx *a, const struct hv_ctx *b)
{
	return !strcmp(a->root, b->root ? b->root : "/") && a->plat == b->plat &&
	       a->exec == b->exec && a->xen_numa == b->xen_numa && a->xen_trace == b->xen_trace &&
	       a->xen_psr == b->xen_psr && a->xen_tracer == b->xen_tracer &&
	       a->xen_psr_run == b->xen_psr_run;
}

int hv_scan_vms_shared(const struct hv_ctx *ctx, struct hv_cache *c, uint64_t *seen,
		       struct hv_vm_list *out, struct vp_err *err)
{
	struct hv_ctx cx = *ctx;
	uint64_t now = vp_now_ns();
	int ret;

	if (!c)
		return hv_scan_vms(ctx, out, err);
	cx.cache = c;
	if (c->have_last && c->last_gen != *seen && now - c->last_ns < c->o.share_ns &&
	    ctx_same(&c->last_ctx, &cx)) {
		hv_vm_list_copy(out, &c->last);
		*seen = c->last_gen;
		c->keep_until_ns = now + c->o.share_keep_ns;
		return 0;
	}
	/* another consumer scanned moments ago and kept no copy: keep them from now on */
	if (c->last_by && c->last_by != seen && now - c->last_ns < c->o.share_ns)
		c->keep_until_ns = now + c->o.share_keep_ns;
	ret = hv_scan_vms(&cx, out, err);
	if (ret)
		return ret;
	hv_vm_list_release(&c->last);
	c->have_last = false;
	if (!c->first_ns)
		c->first_ns = now;
	/* a copy only when another consumer may take it: in the first seconds, and while
	 * others take (or miss) them */
	if (c->o.share_ns && (!c->o.share_keep_ns || now - c->first_ns < c->o.share_keep_ns ||
			      now < c->keep_until_ns)) {
		hv_vm_list_copy(&c->last, out);
		c->have_last = true;
	}
	c->last_by = seen;
	c->last_ns = vp_now_ns();
	c->last_ctx = cx;
	free(c->last_root);
	c->last_root = xstrdup(cx.root ? cx.root : "/");
	c->last_ctx.root = c->last_root;
	*seen = ++c->last_gen;
	return 0;
}
