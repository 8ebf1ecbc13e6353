/* xen.c - Xen adapter: domains and their vCPUs from xl, seen from dom0 */
#include "hv/xen.h"
#include "util/alloc.h"
#include "util/sbuf.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

static struct hv_vm *find_domid(struct hv_vm_list *l, size_t first, int domid)
{
	size_t i;

	for (i = first; i < l->n; i++)
		if (l->vms[i].adapter == HVA_XEN && l->vms[i].domid == domid)
			return &l->vms[i];
	return NULL;
}

#ifdef HAVE_JANSSON
static void bitmap_to_list(json_t *arr, struct cpulist *cl)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_integer(v) && json_integer_value(v) >= 0 &&
		    json_integer_value(v) < CPULIST_MAX)
			cpulist_add(cl, (int)json_integer_value(v));
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static long long jint(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static void parse_domain(json_t *d, struct hv_vm_list *out)
{
	json_t *cfg = json_object_get(d, "config");
	json_t *ci = json_object_get(cfg, "c_info"), *bi = json_object_get(cfg, "b_info");
	json_t *vnuma = json_object_get(bi, "vnuma_nodes");
	struct hv_vm *vm = hv_vm_list_add(out, HVA_XEN);
	const char *s;
	long long n, i;

	vm->domid = (int)jint(d, "domid", -1);
	vm->dom0 = vm->domid == 0;
	s = jstr(ci, "name");
	vm->name = s ? xstrdup(s) : vm->dom0 ? xstrdup("Domain-0") : xasprintf("dom%d", vm->domid);
	vm->name_source = xstrdup(s ? "xl" : "domid");
	if ((s = jstr(ci, "uuid")))
		vm->uuid = xstrdup(s);
	if ((s = jstr(ci, "type")))
		vm->accel = xstrdup(s);
	n = jint(bi, "max_vcpus", 0);
	for (i = 0; i < n && i < 4096; i++)
		hv_vm_add_vcpu(vm)->index = (int)i;
	/* target is what the balloon aims at; max is the ceiling */
	n = jint(bi, "target_memkb", jint(bi, "max_memkb", 0));
	if (n > 0)
		vm->mem_size = (uint64_t)n * 1024;
	if (json_is_array(json_object_get(bi, "nodemap")))
		bitmap_to_list(json_object_get(bi, "nodemap"), &vm->node_affinity);
	if (json_is_array(vnuma) && json_array_size(vnuma)) {
		size_t k;
		json_t *vn;

		/* vNUMA: each virtual node's memory sits on its pnode */
		json_array_foreach(vnuma, k, vn) {
			long long pnode = jint(vn, "pnode", -1), kb = jint(vn, "memkb", -1);

			if (pnode < 0 || pnode >= 4096 || kb < 0)
				continue;
			if (pnode >= vm->n_mem_nodes) {
				vm->mem_node = xrealloc(vm->mem_node, (size_t)(pnode + 1) * sizeof(uint64_t));
				memset(vm->mem_node + vm->n_mem_nodes, 0,
				       (size_t)(pnode + 1 - vm->n_mem_nodes) * sizeof(uint64_t));
				vm->n_mem_nodes = (int)pnode + 1;
			}
			vm->mem_node[pnode] += (uint64_t)kb * 1024;
		}
		snprintf(vm->mem_reason, sizeof(vm->mem_reason),
			 "configured vNUMA memory per physical node (xl list -l vnuma_nodes)");
	} else {
		snprintf(vm->mem_reason, sizeof(vm->mem_reason),
			 "xl reports no memory per node without vNUMA ('xl debug-keys u' prints it "
			 "to the hypervisor log)");
	}
	snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "xl vcpu-list");
}

int xen_parse_list_l(const char *text, struct hv_vm_list *out, struct vp_err *err)
{
	json_error_t je;
	json_t *root, *d;
	size_t i;
	const char *p = text;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '(')
		return vp_err_set(err, VP_EUNSUPP,
				  "'xl list -l' printed SXP: set output_format=\"json\" in xl.conf");
	root = json_loads(text, 0, &je);
	if (!root)
		return vp_err_set(err, VP_EPARSE, "'xl list -l':%d:%d: %s", je.line, je.column,
				  je.text);
	if (!json_is_array(root)) {
		json_decref(root);
		return vp_err_set(err, VP_EPARSE, "'xl list -l': expected a JSON array");
	}
	json_array_foreach(root, i, d)
		if (json_is_object(d))
			parse_domain(d, out);
	json_decref(root);
	return 0;
}
#else
int xen_parse_list_l(const char *text, struct hv_vm_list *out, struct vp_err *err)
{
	(void)text;
	(void)out;
	return vp_err_set(err, VP_EDEP, "cannot read 'xl list -l': built without jansson");
}
#endif

/* "all", or a CPU list; xl prints "none" for an empty soft affinity. */
static int parse_affinity(const char *s, struct cpulist *cl, bool *all)
{
	*all = !strcmp(s, "all") || !strcmp(s, "any cpu");
	if (*all || !strcmp(s, "none"))
		return 0;
	return cpulist_parse(cl, s, NULL);
}

int xen_parse_vcpu_list(const char *text, struct hv_vm_list *l, size_t first,
			const int *pcpu_node, int n_pcpu, struct vp_err *err)
{
	const char *p = text;
	int lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len), *tok[64], *save = NULL, *t;
		int nt = 0, domid, vidx, cpu;
		struct hv_vm *vm;
		struct hv_vcpu *v = NULL;
		size_t k;

		lineno++;
		p += len + (nl ? 1 : 0);
		for (t = strtok_r(line, " \t", &save); t && nt < 64; t = strtok_r(NULL, " \t", &save))
			tok[nt++] = t;
		/* NAME... ID VCPU CPU STATE TIME HARD / SOFT (name may hold spaces) */
		if (nt < 9 || !strcmp(tok[0], "Name") || strcmp(tok[nt - 2], "/"))
			goto next;
		if (sscanf(tok[nt - 8], "%d", &domid) != 1 || sscanf(tok[nt - 7], "%d", &vidx) != 1) {
			int ret = vp_err_set(err, VP_EPARSE,
					     "'xl vcpu-list' line %d: domain id or vCPU is not a number",
					     lineno);

			free(line);
			return ret;
		}
		vm = find_domid(l, first, domid);
		if (!vm)
			goto next; /* created after 'xl list -l' ran */
		for (k = 0; k < vm->n_vcpus; k++)
			if (vm->vcpus[k].index == vidx)
				v = &vm->vcpus[k];
		if (!v) {
			v = hv_vm_add_vcpu(vm);
			v->index = vidx;
		}
		v->cpu = sscanf(tok[nt - 6], "%d", &cpu) == 1 ? cpu : -1;
		v->node = v->cpu >= 0 && pcpu_node && v->cpu < n_pcpu ? pcpu_node[v->cpu] : -1;
		snprintf(v->state, sizeof(v->state), "%s", tok[nt - 5]);
		v->cpu_time_s = strtod(tok[nt - 4], NULL);
		cpulist_release(&v->affinity);
		cpulist_release(&v->soft_affinity);
		parse_affinity(tok[nt - 3], &v->affinity, &v->affinity_all);
		parse_affinity(tok[nt - 1], &v->soft_affinity, &v->soft_all);
next:
		free(line);
	}
	return 0;
}

int xen_parse_info_topology(const char *text, int **pcpu_node, int *n, struct vp_err *err)
{
	const char *p = strstr(text, "cpu_topology");
	int cap = 0;

	*pcpu_node = NULL;
	*n = 0;
	if (!p)
		return vp_err_set(err, VP_ENOTFOUND, "'xl info -n' has no cpu_topology section");
	p = strchr(p, '\n');
	while (p && *++p) {
		int cpu, core, socket, node;

		if (!strncmp(p, "cpu:", 4))
			goto next; /* the column header */
		if (sscanf(p, " %d: %d %d %d", &cpu, &core, &socket, &node) != 4)
			break;
		if (cpu >= 0 && cpu < CPULIST_MAX) {
			if (cpu >= cap) {
				int old = cap;

				cap = cpu + 16;
				*pcpu_node = xrealloc(*pcpu_node, (size_t)cap * sizeof(int));
				while (old < cap)
					(*pcpu_node)[old++] = -1;
			}
			(*pcpu_node)[cpu] = node;
			if (cpu + 1 > *n)
				*n = cpu + 1;
		}
next:
		p = strchr(p, '\n');
	}
	return 0;
}

int hv_xen_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err)
{
	static const char *const list_argv[] = { "xl", "list", "-l", NULL };
	static const char *const vcpu_argv[] = { "xl", "vcpu-list", NULL };
	static const char *const info_argv[] = { "xl", "info", "-n", NULL };
	char *text = NULL;
	int *pcpu_node = NULL, n_pcpu = 0, ret;
	size_t first = out->n, i, j;
	struct vp_err e = { 0, "" };

	ret = hv_run(ctx, list_argv, &text, &e);
	if (ret) {
		/* no xl: not an error for the scan, but say it */
		snprintf(out->notes, sizeof(out->notes), "xen: %s", e.msg);
		return 0;
	}
	ret = xen_parse_list_l(text, out, err);
	free(text);
	if (ret)
		return ret;
	/* pCPU -> node from the hypervisor: dom0's own /sys shows its vCPUs */
	if (!hv_run(ctx, info_argv, &text, NULL)) {
		xen_parse_info_topology(text, &pcpu_node, &n_pcpu, NULL);
		free(text);
	}
	ret = hv_run(ctx, vcpu_argv, &text, err);
	if (!ret) {
		ret = xen_parse_vcpu_list(text, out, first, pcpu_node, n_pcpu, err);
		free(text);
	}
	if (!pcpu_node) /* fall back to the platform's view */
		for (i = first; i < out->n; i++)
			for (j = 0; j < out->vms[i].n_vcpus; j++)
				out->vms[i].vcpus[j].node = hv_cpu_node(ctx, out->vms[i].vcpus[j].cpu);
	free(pcpu_node);
	return ret;
}
