/* topo.c - what the benchmark needs of the machine: CPUs, nodes, packages, caches (hwloc, libnuma) */
#include "bench/bench.h"

#include <errno.h>
#include <hwloc.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/fs.h"

/*
 * The platform module (src/platform) will own topology; until its probe
 * is on main the benchmark asks hwloc and libnuma directly, here only.
 */

static const char *pkg_info(hwloc_topology_t topo, const char *name)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
	const char *v = o ? hwloc_obj_get_info_by_name(o, name) : NULL;

	if (!v)
		v = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), name);
	return v;
}

static void read_thp(struct bench_topo *t)
{
	char line[256], *a, *b;

	t->thp = false;
	snprintf(t->thp_mode, sizeof(t->thp_mode), "unavailable");
	if (vp_read_line("/", "/sys/kernel/mm/transparent_hugepage/enabled", line,
			 sizeof(line), NULL))
		return;
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b)
		return;
	snprintf(t->thp_mode, sizeof(t->thp_mode), "%.*s", (int)(b - a - 1), a + 1);
	t->thp = !strcmp(t->thp_mode, "always") || !strcmp(t->thp_mode, "madvise");
}

int bench_topo_probe(struct bench_topo *t, struct vp_err *err)
{
	hwloc_topology_t topo;
	cpu_set_t allowed;
	int npu, i, n = 0, ret = 0, maxnode;
	const char *v;

	memset(t, 0, sizeof(*t));
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo))
		return vp_err_set(err, VP_EUNSUPP, "hwloc cannot load the topology of this machine");
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		ret = vp_err_errno(err, errno, "cannot read the CPU affinity");
		goto out;
	}
	npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	t->cpus = xcalloc((size_t)npu + 1, sizeof(int));
	t->cpu_node = xcalloc((size_t)npu + 1, sizeof(int));
	t->cpu_pkg = xcalloc((size_t)npu + 1, sizeof(int));
	t->cpu_llc = xcalloc((size_t)npu + 1, sizeof(int));
	for (i = 0; i < npu; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i), o, llc = NULL;
		int cpu = (int)pu->os_index, node;

		if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
			continue;
		node = numa_available() >= 0 ? numa_node_of_cpu(cpu) : 0;
		t->cpus[n] = cpu;
		t->cpu_node[n] = node < 0 ? 0 : node;
		o = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
		t->cpu_pkg[n] = o ? (int)o->logical_index : 0;
		for (o = pu->parent; o; o = o->parent) {
			if (!hwloc_obj_type_is_cache(o->type) || !o->attr ||
			    o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
				continue;
			if (o->attr->cache.depth == 1 && !t->l1d_bytes)
				t->l1d_bytes = o->attr->cache.size;
			if (o->attr->cache.depth == 2 && !t->l2_bytes)
				t->l2_bytes = o->attr->cache.size;
			llc = o;
		}
		if (llc) {
			t->cpu_llc[n] = (int)llc->logical_index;
			if (llc->attr->cache.size > t->llc_bytes)
				t->llc_bytes = llc->attr->cache.size;
			if ((int)llc->logical_index + 1 > t->n_llc)
				t->n_llc = (int)llc->logical_index + 1;
		}
		n++;
	}
	t->n_cpus = n;
	if (n == 0) {
		ret = vp_err_set(err, VP_EUNSUPP, "no usable CPU in this process's affinity");
		goto out;
	}
	t->n_pkgs = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	if (t->n_pkgs < 1)
		t->n_pkgs = 1;
	if (t->n_llc < 1)
		t->n_llc = 1;
	maxnode = numa_available() >= 0 ? numa_max_node() : 0;
	t->nodes = xcalloc((size_t)maxnode + 2, sizeof(int));
	for (i = 0; i <= maxnode; i++) {
		long long fr = 0;

		if (numa_available() >= 0 && numa_node_size64(i, &fr) <= 0)
			continue;
		t->nodes[t->n_nodes++] = i;
	}
	if (t->n_nodes == 0)
		t->nodes[t->n_nodes++] = 0;
	read_thp(t);
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	t->avx2 = __builtin_cpu_supports("avx2");
	t->avx512 = __builtin_cpu_supports("avx512f");
#endif
	v = pkg_info(topo, "CPUVendor");
	snprintf(t->machine.vendor, sizeof(t->machine.vendor), "%s", v ? v : "unknown");
	v = pkg_info(topo, "CPUModel");
	snprintf(t->machine.model_name, sizeof(t->machine.model_name), "%s", v ? v : "unknown");
	v = pkg_info(topo, "CPUFamilyNumber");
	t->machine.family = v ? atoi(v) : 0;
	v = pkg_info(topo, "CPUModelNumber");
	t->machine.model = v ? atoi(v) : 0;
	t->machine.n_cpus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	t->machine.n_nodes = t->n_nodes;
	t->machine.n_packages = t->n_pkgs;
	t->machine.llc_bytes = t->llc_bytes;
	t->machine.n_llc = t->n_llc;
out:
	hwloc_topology_destroy(topo);
	if (ret)
		bench_topo_release(t);
	return ret;
}

void bench_topo_release(struct bench_topo *t)
{
	free(t->cpus);
	free(t->cpu_node);
	free(t->cpu_pkg);
	free(t->cpu_llc);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

int bench_topo_node_cpus(const struct bench_topo *t, int node, int *out, int max)
{
	int i, n = 0;

	for (i = 0; i < t->n_cpus && n < max; i++)
		if (t->cpu_node[i] == node)
			out[n++] = i;
	return n;
}
