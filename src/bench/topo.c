/* topo.c - what the benchmark needs of the machine, taken from the platform probe */
#include "bench/bench.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "platform/platform.h"
#include "util/fs.h"

/* Size of the data/unified cache of level on cpu (sysfs under root), 0 unknown. */
static uint64_t cache_size(const char *root, int cpu, int level)
{
	char path[160], buf[64];
	int i, lv;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
		if (vp_read_int(root, path, &lv, NULL))
			break;
		if (lv != level)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
		if (vp_read_line(root, path, buf, sizeof(buf), NULL) || !strcmp(buf, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, i);
		if (vp_read_line(root, path, buf, sizeof(buf), NULL))
			return 0;
		return strtoull(buf, NULL, 10) * (strchr(buf, 'M') ? 1024 * 1024 : strchr(buf, 'K') ? 1024 : 1);
	}
	return 0;
}

static void read_thp(struct bench_topo *t, const char *root)
{
	char line[256], *a, *b;

	t->thp = false;
	snprintf(t->thp_mode, sizeof(t->thp_mode), "unavailable");
	if (vp_read_line(root, "/sys/kernel/mm/transparent_hugepage/enabled", line,
			 sizeof(line), NULL))
		return;
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b)
		return;
	snprintf(t->thp_mode, sizeof(t->thp_mode), "%.*s", (int)(b - a - 1), a + 1);
	t->thp = !strcmp(t->thp_mode, "always") || !strcmp(t->thp_mode, "madvise");
}

int bench_topo_from_platform(struct bench_topo *t, const struct platform *p,
			     const void *allowed_set, struct vp_err *err)
{
	const cpu_set_t *allowed = allowed_set;
	const struct topology *tp = &p->topo;
	size_t i;
	int j, n = 0;

	memset(t, 0, sizeof(*t));
	if (!tp->known || tp->online.n == 0)
		return vp_err_set(err, VP_EUNSUPP, "the topology of this machine is unknown: %s",
				  sbuf_str(&tp->reason));
	t->cpus = xcalloc(tp->online.n + 1, sizeof(int));
	t->cpu_node = xcalloc(tp->online.n + 1, sizeof(int));
	t->cpu_pkg = xcalloc(tp->online.n + 1, sizeof(int));
	t->cpu_llc = xcalloc(tp->online.n + 1, sizeof(int));
	for (i = 0; i < tp->online.n; i++) {
		int cpu = tp->online.ids[i], node = topology_cpu_node(tp, cpu);

		if (allowed && (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, allowed)))
			continue;
		t->cpus[n] = cpu;
		t->cpu_node[n] = node < 0 ? 0 : node;
		t->cpu_pkg[n] = cpu < tp->max_cpu && tp->cpu_package[cpu] >= 0 ? tp->cpu_package[cpu] : 0;
		for (j = 0; j < tp->n_llc; j++)
			if (cpulist_has(&tp->llc[j].cpus, cpu))
				t->cpu_llc[n] = j;
		n++;
	}
	t->n_cpus = n;
	if (n == 0) {
		bench_topo_release(t);
		return vp_err_set(err, VP_EUNSUPP, "no usable CPU in this process's affinity");
	}
	t->nodes = xcalloc((size_t)tp->n_nodes + 1, sizeof(int));
	for (j = 0; j < tp->n_nodes; j++)
		if (!tp->nodes[j].mem_known || tp->nodes[j].mem_total > 0)
			t->nodes[t->n_nodes++] = tp->nodes[j].id;
	if (t->n_nodes == 0)
		t->nodes[t->n_nodes++] = t->cpu_node[0];
	t->n_pkgs = tp->n_packages > 0 ? tp->n_packages : 1;
	t->n_llc = tp->n_llc > 0 ? tp->n_llc : 1;
	for (j = 0; j < tp->n_llc; j++)
		if (tp->llc[j].size > t->llc_bytes)
			t->llc_bytes = tp->llc[j].size;
	t->l1d_bytes = cache_size(p->root, t->cpus[0], 1);
	t->l2_bytes = cache_size(p->root, t->cpus[0], 2);
	read_thp(t, p->root);
	calib_machine_of(p, &t->machine);
	return 0;
}

int bench_topo_probe(struct bench_topo *t, struct vp_err *err)
{
	struct platform *p = xcalloc(1, sizeof(*p));
	cpu_set_t allowed;
	int ret;

	memset(t, 0, sizeof(*t));
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		ret = vp_err_errno(err, errno, "cannot read the CPU affinity");
		goto out;
	}
	if ((ret = platform_probe(p, "/", err)))
		goto out;
	ret = bench_topo_from_platform(t, p, &allowed, err);
#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	t->avx2 = __builtin_cpu_supports("avx2");
	t->avx512 = __builtin_cpu_supports("avx512f");
#endif
	platform_release(p);
out:
	free(p);
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
