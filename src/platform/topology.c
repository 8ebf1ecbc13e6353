/* topology.c - CPUs, packages, NUMA nodes, distances and LLC domains from sysfs */
#include "platform/probe.h"

#include <ctype.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

/*
 * sysfs, read through the root, is the source of truth: the same code then
 * runs on fixture trees.  hwloc is used live only, as a cross-check of what
 * sysfs said (hwloc can load a Linux fsroot too, but only through the
 * HWLOC_FSROOT environment variable, which a library must not set).
 */

#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"

/* "32768K" / "1M" / "512" (bytes) -> bytes; 0 when malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	}
	return *end ? 0 : v;
}

/* Online CPUs: /sys/devices/system/cpu/online, else the cpuN directories. */
static int read_online(struct platform *p, struct vp_err *err)
{
	struct topology *t = &p->topo;
	char *text = NULL;
	char **names = NULL;
	size_t n = 0, i;
	int ret;

	cpulist_init(&t->online);
	if (vp_read_file(p->root, CPU_DIR "/online", &text, NULL, err) == 0) {
		ret = cpulist_parse(&t->online, text, err);
		free(text);
		return ret;
	}
	ret = vp_list_dir(p->root, CPU_DIR, &names, &n, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		char *end;
		long id;

		if (strncmp(names[i], "cpu", 3) || !isdigit((unsigned char)names[i][3]))
			continue;
		id = strtol(names[i] + 3, &end, 10);
		if (!*end && id < CPULIST_MAX)
			cpulist_add(&t->online, (int)id);
	}
	vp_free_names(names, n);
	if (!t->online.n)
		return vp_err_set(err, VP_ENOTFOUND, "no '%s/online' and no cpuN directories",
				  CPU_DIR);
	return 0;
}

static void read_cpu_ids(struct platform *p)
{
	struct topology *t = &p->topo;
	size_t i;
	int cores = 0, *seen_pkg, n_pkg = 0, j;

	t->max_cpu = t->online.ids[t->online.n - 1] + 1;
	t->cpu_package = xmalloc((size_t)t->max_cpu * sizeof(int));
	t->cpu_core = xmalloc((size_t)t->max_cpu * sizeof(int));
	t->cpu_node = xmalloc((size_t)t->max_cpu * sizeof(int));
	for (j = 0; j < t->max_cpu; j++)
		t->cpu_package[j] = t->cpu_core[j] = t->cpu_node[j] = -1;
	seen_pkg = xcalloc(t->online.n, sizeof(int));
	for (i = 0; i < t->online.n; i++) {
		int cpu = t->online.ids[i], pkg = -1, core = -1;
		char path[128];
		size_t k;
		bool dup;

		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/physical_package_id", cpu);
		if (vp_read_int(p->root, path, &pkg, NULL))
			pkg = -1;
		snprintf(path, sizeof(path), CPU_DIR "/cpu%d/topology/core_id", cpu);
		if (vp_read_int(p->root, path, &core, NULL))
			core = -1;
		t->cpu_package[cpu] = pkg;
		t->cpu_core[cpu] = core;
		if (pkg < 0 || core < 0)
			t->n_cpus_no_ids++;
		dup = false;
		for (j = 0; j < n_pkg; j++)
			dup |= seen_pkg[j] == pkg;
		if (!dup && pkg >= 0)
			seen_pkg[n_pkg++] = pkg;
		/* a core is a distinct (package, core_id) pair */
		dup = false;
		for (k = 0; k < i; k++) {
			int o = t->online.ids[k];

			if (core >= 0 && t->cpu_package[o] == pkg && t->cpu_core[o] == core)
				dup = true;
		}
		if (!dup && core >= 0)
			cores++;
	}
	t->n_packages = n_pkg;
	t->n_cores = cores;
	t->smt_on = cores > 0 && !t->n_cpus_no_ids && t->n_cpus > cores;
	free(seen_pkg);
}

static void one_node(struct platform *p)
{
	struct topology *t = &p->topo;

	t->n_nodes = 1;
	t->nodes = xcalloc(1, sizeof(*t->nodes));
	t->nodes[0].id = 0;
	cpulist_copy(&t->nodes[0].cpus, &t->online);
	for (size_t i = 0; i < t->online.n; i++)
		t->cpu_node[t->online.ids[i]] = 0;
	if (t->mem_total_sys) {
		t->nodes[0].mem_total = t->mem_total_sys;
		t->nodes[0].mem_known = true;
	}
}

/* "Node 0 MemTotal:  4548824 kB" -> bytes. */
static bool meminfo_kb(const char *text, const char *key, uint64_t *out)
{
	const char *v = strstr(text, key);
	char *end;
	unsigned long long kb;

	if (!v)
		return false;
	v += strlen(key);
	kb = strtoull(v, &end, 10);
	if (end == v)
		return false;
	*out = (uint64_t)kb * 1024;
	return true;
}

static void read_nodes(struct platform *p)
{
	struct topology *t = &p->topo;
	struct vp_err err = { 0, "" };
	char **names = NULL;
	size_t n = 0, i;
	int k, idx;

	if (vp_list_dir(p->root, NODE_DIR, &names, &n, &err)) {
		one_node(p);
		t->numa_sysfs = false;
		plat_set(&t->node_note,
			  "no " NODE_DIR " (kernel without NUMA): one node holding every CPU");
		plat_set(&t->distance_reason,
			  "no " NODE_DIR "/node*/distance");
		return;
	}
	t->numa_sysfs = true;
	for (i = 0; i < n; i++) {
		struct numa_node *nd;
		char path[160], *text = NULL, *end;
		long id;

		if (strncmp(names[i], "node", 4) || !isdigit((unsigned char)names[i][4]))
			continue;
		id = strtol(names[i] + 4, &end, 10);
		if (*end || id >= CPULIST_MAX)
			continue;
		t->nodes = xrealloc(t->nodes, (size_t)(t->n_nodes + 1) * sizeof(*t->nodes));
		nd = &t->nodes[t->n_nodes++];
		memset(nd, 0, sizeof(*nd));
		nd->id = (int)id;
		cpulist_init(&nd->cpus);
		snprintf(path, sizeof(path), NODE_DIR "/node%ld/cpulist", id);
		if (vp_read_file(p->root, path, &text, NULL, &err) == 0) {
			if (cpulist_parse(&nd->cpus, text, &err))
				cpulist_init(&nd->cpus);
			free(text);
		}
		snprintf(path, sizeof(path), NODE_DIR "/node%ld/meminfo", id);
		if (vp_read_file(p->root, path, &text, NULL, &err) == 0) {
			nd->mem_known = meminfo_kb(text, "MemTotal:", &nd->mem_total);
			meminfo_kb(text, "MemFree:", &nd->mem_free);
			free(text);
		}
	}
	vp_free_names(names, n);
	if (!t->n_nodes) {
		one_node(p);
		plat_set(&t->node_note,
			  NODE_DIR " holds no node directories: one node holding every CPU");
		plat_set(&t->distance_reason, "no node directories");
		return;
	}
	/* vp_list_dir sorts by name: node10 before node2.  Order by id. */
	for (i = 1; i < (size_t)t->n_nodes; i++)
		for (k = (int)i; k > 0 && t->nodes[k - 1].id > t->nodes[k].id; k--) {
			struct numa_node tmp = t->nodes[k];

			t->nodes[k] = t->nodes[k - 1];
			t->nodes[k - 1] = tmp;
		}
	plat_set(&t->node_note, "from " NODE_DIR);
	for (idx = 0; idx < t->n_nodes; idx++)
		for (i = 0; i < t->nodes[idx].cpus.n; i++) {
			int c = t->nodes[idx].cpus.ids[i];

			if (c < t->max_cpu)
				t->cpu_node[c] = t->nodes[idx].id;
		}
	/* distance rows: one entry per online node, in id order */
	t->distance = xmalloc((size_t)t->n_nodes * (size_t)t->n_nodes * sizeof(int));
	for (idx = 0; idx < t->n_nodes; idx++) {
		char path[160], *text = NULL, *s, *end;
		int col = 0;

		snprintf(path, sizeof(path), NODE_DIR "/node%d/distance", t->nodes[idx].id);
		if (vp_read_file(p->root, path, &text, NULL, &err)) {
			plat_reason(&t->distance_reason, p->root, &err);
			goto bad;
		}
		for (s = text;; s = end) {
			long d;

			while (*s == ' ' || *s == '\t' || *s == '\n')
				s++;
			if (!*s)
				break;
			d = strtol(s, &end, 10);
			if (end == s || d <= 0 || d > 255 || col >= t->n_nodes) {
				plat_setf(&t->distance_reason,
					 "node%d/distance: %s", t->nodes[idx].id,
					 col >= t->n_nodes ? "more entries than nodes" :
					 "not a list of distances 1..255");
				free(text);
				goto bad;
			}
			t->distance[idx * t->n_nodes + col++] = (int)d;
		}
		free(text);
		if (col != t->n_nodes) {
			plat_setf(&t->distance_reason,
				 "node%d/distance has %d entries for %d nodes", t->nodes[idx].id, col,
				 t->n_nodes);
			goto bad;
		}
	}
	return;
bad:
	free(t->distance);
	t->distance = NULL;
}

static bool read_type(const char *root, const char *path, char *buf, size_t size)
{
	return vp_read_line(root, path, buf, size, NULL) == 0;
}

/* The highest-level data or unified cache of cpu: index, level, size, sharers. */
static void read_llc(struct platform *p)
{
	struct topology *t = &p->topo;
	size_t i;

	for (i = 0; i < t->online.n; i++) {
		int cpu = t->online.ids[i], best_level = 0, d;
		char dir[96], path[160], buf[256], type[32], best_list[256] = "";
		uint64_t best_size = 0;
		struct cpulist cl;
		int idx;

		snprintf(dir, sizeof(dir), CPU_DIR "/cpu%d/cache", cpu);
		for (idx = 0; idx < 16; idx++) {
			int level;

			snprintf(path, sizeof(path), "%s/index%d/level", dir, idx);
			if (vp_read_int(p->root, path, &level, NULL))
				continue;
			snprintf(path, sizeof(path), "%s/index%d/type", dir, idx);
			if (!read_type(p->root, path, type, sizeof(type)) || !strcmp(type, "Instruction"))
				continue;
			if (level <= best_level)
				continue;
			snprintf(path, sizeof(path), "%s/index%d/shared_cpu_list", dir, idx);
			if (vp_read_line(p->root, path, best_list, sizeof(best_list), NULL))
				continue;
			snprintf(path, sizeof(path), "%s/index%d/size", dir, idx);
			best_size = vp_read_line(p->root, path, buf, sizeof(buf), NULL) ? 0 : parse_size(buf);
			best_level = level;
		}
		if (!best_level)
			continue;
		cpulist_init(&cl);
		if (cpulist_parse(&cl, best_list, NULL)) {
			cpulist_release(&cl);
			continue;
		}
		for (d = 0; d < t->n_llc; d++)
			if (t->llc[d].level == best_level && cpulist_has(&t->llc[d].cpus, cpu))
				break;
		if (d < t->n_llc) {
			cpulist_release(&cl);
			continue;
		}
		t->llc = xrealloc(t->llc, (size_t)(t->n_llc + 1) * sizeof(*t->llc));
		t->llc[t->n_llc].id = t->n_llc;
		t->llc[t->n_llc].level = best_level;
		t->llc[t->n_llc].size = best_size;
		t->llc[t->n_llc].cpus = cl;
		t->n_llc++;
	}
	if (!t->n_llc)
		plat_set(&t->llc_reason,
			  "no readable " CPU_DIR "/cpu*/cache/index*/{level,type,shared_cpu_list}");
}

/* Live: compare hwloc's counts with what sysfs gave. */
static void hwloc_check(struct topology *t)
{
	hwloc_topology_t h;
	int nodes, pkgs, pus, cores;

	if (hwloc_topology_init(&h)) {
		plat_set(&t->hwloc_note, "hwloc: cannot initialize");
		return;
	}
	if (hwloc_topology_load(h)) {
		plat_set(&t->hwloc_note, "hwloc: cannot load the topology");
		hwloc_topology_destroy(h);
		return;
	}
	nodes = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
	pkgs = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE);
	pus = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	cores = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
	hwloc_topology_destroy(h);
	if (nodes == t->n_nodes && pkgs == t->n_packages && pus == t->n_cpus && cores == t->n_cores)
		plat_setf(&t->hwloc_note,
			 "hwloc agrees: %d package%s, %d core%s, %d PU%s, %d node%s", pkgs,
			 pkgs == 1 ? "" : "s", cores, cores == 1 ? "" : "s", pus, pus == 1 ? "" : "s",
			 nodes, nodes == 1 ? "" : "s");
	else
		plat_setf(&t->hwloc_note,
			 "hwloc differs: %d packages, %d cores, %d PUs, %d nodes (sysfs: %d, %d, %d, %d)",
			 pkgs, cores, pus, nodes, t->n_packages, t->n_cores, t->n_cpus, t->n_nodes);
}

void probe_topology(struct platform *p, bool live)
{
	struct topology *t = &p->topo;
	struct vp_err err = { 0, "" };
	char *text = NULL;

	if (vp_read_file(p->root, "/proc/meminfo", &text, NULL, &err) == 0) {
		meminfo_kb(text, "MemTotal:", &t->mem_total_sys);
		free(text);
	}
	if (read_online(p, &err)) {
		plat_reason(&t->reason, p->root, &err);
		cpulist_release(&t->online);
		return;
	}
	if (!t->online.n) {
		plat_set(&t->reason, "no online CPUs in " CPU_DIR "/online");
		return;
	}
	t->known = true;
	t->n_cpus = (int)t->online.n;
	read_cpu_ids(p);
	read_nodes(p);
	read_llc(p);
	if (live)
		hwloc_check(t);
}
