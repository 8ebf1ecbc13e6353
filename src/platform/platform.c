/* platform.c - the platform probe: runs each part over a root directory */
#include "platform/probe.h"

#include <errno.h>
#include <limits.h>
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

void plat_join(char *dst, size_t size, const char *const *items, size_t n)
{
	struct sbuf sb = SBUF_INIT;
	char tail[48];
	size_t i;

	for (i = 0; i < n; i++) {
		size_t need = sb.len + (sb.len ? 2 : 0) + strlen(items[i]);

		/* the last item needs no room for a tail after it */
		snprintf(tail, sizeof(tail), ", and %zu more", n - i - 1);
		if (need + (i + 1 < n ? strlen(tail) : 0) >= size)
			break;
		sbuf_addf(&sb, "%s%s", sb.len ? ", " : "", items[i]);
	}
	if (i < n) {
		snprintf(tail, sizeof(tail), "%sand %zu more", sb.len ? ", " : "", n - i);
		sbuf_addstr(&sb, tail);
	}
	plat_copy(dst, size, sbuf_str(&sb));
	sbuf_release(&sb);
}

void plat_reason(char *dst, size_t size, const char *root, const struct vp_err *err)
{
	const char *msg = err->msg, *hit;
	size_t rl;

	if (!root || !*root || !strcmp(root, "/")) {
		plat_copy(dst, size, msg);
		return;
	}
	rl = strlen(root);
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	hit = strstr(msg, root);
	if (hit && rl && !strncmp(hit, root, rl)) {
		char *tmp = xasprintf("%.*s%s", (int)(hit - msg), msg, hit + rl);

		plat_copy(dst, size, tmp);
		free(tmp);
		return;
	}
	plat_copy(dst, size, msg);
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
	memset(t, 0, sizeof(*t));
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
