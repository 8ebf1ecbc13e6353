/* platform.c - the platform probe: runs each part over a root directory */
#include "platform/probe.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

void plat_copy(char *dst, size_t size, const char *src)
{
	if (!size)
		return;
	utf8_copy(dst, size, src ? src : "");
}

void plat_set(struct sbuf *dst, const char *src)
{
	sbuf_reset(dst);
	sbuf_addutf8(dst, src ? src : "");
}

void plat_setf(struct sbuf *dst, const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	plat_set(dst, sbuf_str(&sb));
	sbuf_release(&sb);
}

void plat_join(struct sbuf *dst, const char *const *items, size_t n)
{
	size_t i;

	sbuf_reset(dst);
	for (i = 0; i < n; i++) {
		if (i)
			sbuf_addstr(dst, ", ");
		sbuf_addutf8(dst, items[i]);
	}
}

void plat_reason(struct sbuf *dst, const char *root, const struct vp_err *err)
{
	const char *msg = err->msg, *hit;
	size_t rl;

	if (!root || !*root || !strcmp(root, "/")) {
		plat_set(dst, msg);
		return;
	}
	rl = strlen(root);
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	hit = strstr(msg, root);
	if (hit && rl && !strncmp(hit, root, rl)) {
		char *tmp = xasprintf("%.*s%s", (int)(hit - msg), msg, hit + rl);

		plat_set(dst, tmp);
		free(tmp);
		return;
	}
	plat_set(dst, msg);
}

const char *plat_field(const char *text, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl)) {
			const char *q = p + kl;

			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == ':') {
				const char *e;

				q++;
				while (*q == ' ' || *q == '\t')
					q++;
				e = strchr(q, '\n');
				if (!e)
					e = q + strlen(q);
				while (e > q && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
					e--;
				if (len)
					*len = (size_t)(e - q);
				return q;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int platform_probe(struct platform *p, const char *root, struct vp_err *err)
{
	struct stat st;
	bool live;

	memset(p, 0, sizeof(*p));
	if (!root || !*root)
		root = "/";
	if (strlen(root) >= sizeof(p->root))
		return vp_err_set(err, VP_EINVAL, "root directory name too long: '%.64s...'", root);
	if (stat(root, &st))
		return vp_err_errno(err, errno, "cannot use root directory '%s'", root);
	if (!S_ISDIR(st.st_mode))
		return vp_err_set(err, -ENOTDIR, "cannot use root directory '%s': Not a directory", root);
	plat_copy(p->root, sizeof(p->root), root);
	live = !strcmp(root, "/");
	p->perm.paranoid = INT_MIN;
	probe_cpu(p, live);
	probe_topology(p, live);
	probe_hypervisor(p, live);  /* before pmus: a missing core PMU is explained by it */
	probe_xen_host(p, live);    /* a dom0: the machine's topology is Xen's */
	probe_pmus(p, live);
	probe_perm(p, live);
	return 0;
}

void topology_release(struct topology *t)
{
	int i;

	free(t->cpu_package);
	free(t->cpu_node);
	free(t->cpu_core);
	cpulist_release(&t->online);
	for (i = 0; i < t->n_nodes; i++)
		cpulist_release(&t->nodes[i].cpus);
	free(t->nodes);
	free(t->distance);
	for (i = 0; i < t->n_llc; i++)
		cpulist_release(&t->llc[i].cpus);
	free(t->llc);
	sbuf_release(&t->reason);
	sbuf_release(&t->node_note);
	sbuf_release(&t->distance_reason);
	sbuf_release(&t->llc_reason);
	sbuf_release(&t->hwloc_note);
	memset(t, 0, sizeof(*t));
}

/* The sbufs of one part, so release and copy name each field once. */
#define CPU_TEXT(X, c) X(c, reason) X(c, model_name) X(c, pfm_desc) X(c, pfm_source) X(c, pfm_active)
#define HV_TEXT(X, h) X(h, dmi_vendor) X(h, dmi_product) X(h, xen_pmu_reason) X(h, role_reason) \
	X(h, reason) X(h, signature_source) X(h, sys_properties) X(h, xen_cmdline) X(h, xen_info_reason)
#define PERM_TEXT(X, m) X(m, resctrl_reason) X(m, cgroup_root) X(m, reason) X(m, paranoid_reason) \
	X(m, cgroup_reason) X(m, resctrl_features)
#define PLAT_TEXT(X, p) X(p, core_pmu_reason) X(p, kernel_pmu_line) X(p, pmus_reason)
#define RELEASE_TEXT(s, f) sbuf_release(&(s)->f);
#define COPY_TEXT(s, f) sbuf_copy(&dst->s.f, &src->s.f);
#define COPY_TOP(s, f) sbuf_copy(&dst->f, &src->f);

void topology_copy(struct topology *dst, const struct topology *src)
{
	size_t ncpu = (size_t)src->max_cpu * sizeof(int);
	int i;

	*dst = *src;
	cpulist_copy(&dst->online, &src->online);
	dst->cpu_package = src->cpu_package ? xmemdup(src->cpu_package, ncpu) : NULL;
	dst->cpu_node = src->cpu_node ? xmemdup(src->cpu_node, ncpu) : NULL;
	dst->cpu_core = src->cpu_core ? xmemdup(src->cpu_core, ncpu) : NULL;
	dst->nodes = src->n_nodes ? xmemdup(src->nodes, (size_t)src->n_nodes * sizeof(*src->nodes)) : NULL;
	for (i = 0; i < src->n_nodes; i++)
		cpulist_copy(&dst->nodes[i].cpus, &src->nodes[i].cpus);
	dst->distance = src->distance ? xmemdup(src->distance, (size_t)src->n_nodes *
						(size_t)src->n_nodes * sizeof(int)) : NULL;
	dst->llc = src->n_llc ? xmemdup(src->llc, (size_t)src->n_llc * sizeof(*src->llc)) : NULL;
	for (i = 0; i < src->n_llc; i++)
		cpulist_copy(&dst->llc[i].cpus, &src->llc[i].cpus);
	sbuf_copy(&dst->reason, &src->reason);
	sbuf_copy(&dst->node_note, &src->node_note);
	sbuf_copy(&dst->distance_reason, &src->distance_reason);
	sbuf_copy(&dst->llc_reason, &src->llc_reason);
	sbuf_copy(&dst->hwloc_note, &src->hwloc_note);
}

void platform_copy(struct platform *dst, const struct platform *src)
{
	int i;

	*dst = *src;
	CPU_TEXT(COPY_TEXT, cpu)
	HV_TEXT(COPY_TEXT, hv)
	PERM_TEXT(COPY_TEXT, perm)
	PLAT_TEXT(COPY_TOP, )
	topology_copy(&dst->topo, &src->topo);
	topology_copy(&dst->dom0_topo, &src->dom0_topo);
	dst->pmus = src->n_pmus ? xmemdup(src->pmus, (size_t)src->n_pmus * sizeof(*src->pmus)) : NULL;
	for (i = 0; i < src->n_pmus; i++)
		cpulist_copy(&dst->pmus[i].cpumask, &src->pmus[i].cpumask);
	dst->families = src->n_families ?
		xmemdup(src->families, (size_t)src->n_families * sizeof(*src->families)) : NULL;
}

void platform_release(struct platform *p)
{
	int i;

	topology_release(&p->topo);
	topology_release(&p->dom0_topo);
	for (i = 0; i < p->n_pmus; i++)
		cpulist_release(&p->pmus[i].cpumask);
	free(p->pmus);
	free(p->families);
	CPU_TEXT(RELEASE_TEXT, &p->cpu)
	HV_TEXT(RELEASE_TEXT, &p->hv)
	PERM_TEXT(RELEASE_TEXT, &p->perm)
	PLAT_TEXT(RELEASE_TEXT, p)
	memset(p, 0, sizeof(*p));
}

const char *hv_kind_name(enum hv_kind k)
{
	switch (k) {
	case HV_NONE: return "none";
	case HV_KVM: return "KVM";
	case HV_XEN: return "Xen";
	case HV_HYPERV: return "Hyper-V";
	case HV_VMWARE: return "VMware";
	case HV_BHYVE: return "bhyve";
	case HV_TCG: return "QEMU TCG";
	case HV_OTHER: return "other";
	case HV_UNKNOWN: return "unknown";
	}
	return "unknown";
}

const char *plat_role_name(enum plat_role r)
{
	switch (r) {
	case ROLE_NATIVE: return "native";
	case ROLE_GUEST: return "guest";
	case ROLE_HOST: return "host";
	case ROLE_UNKNOWN: return "unknown";
	}
	return "unknown";
}

const char *pmu_class_name(enum pmu_class c)
{
	switch (c) {
	case PMU_CORE: return "core";
	case PMU_UNCORE: return "uncore";
	case PMU_SOFTWARE: return "software";
	case PMU_TRACEPOINT: return "tracepoint";
	case PMU_OTHER: return "other";
	}
	return "other";
}

const struct pmu_info *platform_find_pmu(const struct platform *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_pmus; i++)
		if (!strcmp(p->pmus[i].name, name))
			return &p->pmus[i];
	return NULL;
}

int topology_node_index(const struct topology *t, int node_id)
{
	int i;

	for (i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].id == node_id)
			return i;
	return -1;
}

const struct topology *platform_local_topo(const struct platform *p)
{
	return p->topo.from_xen ? &p->dom0_topo : &p->topo;
}

int topology_cpu_node(const struct topology *t, int cpu)
{
	if (!t->cpu_node || cpu < 0 || cpu >= t->max_cpu)
		return -1;
	return t->cpu_node[cpu];
}
