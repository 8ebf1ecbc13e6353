/* numastat.c - per-node numastat and meminfo, and the numa_* lines of /proc/vmstat */
#include "source/numastat.h"
#include "source/kv.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ns_names[NS_NFIELDS] = {
	"numa_hit", "numa_miss", "numa_foreign", "interleave_hit", "local_node", "other_node",
};

static const char *const nm_names[NM_NFIELDS] = {
	"MemTotal", "MemFree", "MemUsed", "FilePages", "AnonPages", "Shmem",
	"HugePages_Total", "HugePages_Free",
};

static const char *const vs_names[VS_NFIELDS] = {
	"numa_hit", "numa_miss", "numa_foreign", "numa_interleave", "numa_local", "numa_other",
	"numa_pte_updates", "numa_huge_pte_updates", "numa_hint_faults",
	"numa_hint_faults_local", "numa_pages_migrated", "pgmigrate_success", "pgmigrate_fail",
};

const char *node_numastat_field_name(enum node_numastat_field f) { return ns_names[f]; }
const char *node_meminfo_field_name(enum node_meminfo_field f) { return nm_names[f]; }
const char *vmstat_numa_field_name(enum vmstat_numa_field f) { return vs_names[f]; }

void node_numastat_parse(const char *text, struct node_stat *out)
{
	kv_parse(text, ns_names, NS_NFIELDS, out->ns, &out->ns_have);
}

void node_meminfo_parse(const char *text, struct node_stat *out)
{
	kv_parse(text, nm_names, NM_NFIELDS, out->mem, &out->mem_have);
}

void vmstat_numa_parse(const char *text, struct vmstat_numa *out)
{
	kv_parse(text, vs_names, VS_NFIELDS, out->v, &out->have);
}

int node_stat_read(const char *root, int node, struct node_stat *out, struct vp_err *err)
{
	char path[128], *text;
	int ret;

	memset(out, 0, sizeof(*out));
	out->node = node;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat", node);
	ret = vp_read_file(root, path, &text, NULL, err);
	if (ret)
		return ret;
	node_numastat_parse(text, out);
	free(text);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	/* meminfo is optional: a node without it still has numastat */
	if (!vp_read_file(root, path, &text, NULL, NULL)) {
		node_meminfo_parse(text, out);
		free(text);
	}
	return 0;
}

static int cmp_node(const void *a, const void *b)
{
	const struct node_stat *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

int node_stat_read_all(const char *root, struct node_stat **out, size_t *n,
		       struct vp_err *err)
{
	char **names = NULL;
	size_t nn = 0, i, cap = 0;
	struct node_stat *v = NULL;
	int ret, id;
	char c;

	*out = NULL;
	*n = 0;
	ret = vp_list_dir(root, "/sys/devices/system/node", &names, &nn, err);
	if (ret)
		return ret;
	for (i = 0; i < nn; i++) {
		if (sscanf(names[i], "node%d%c", &id, &c) != 1 || id < 0)
			continue;
		VP_GROW(v, cap, *n + 1);
		if (node_stat_read(root, id, &v[*n], NULL)) {
			memset(&v[*n], 0, sizeof(v[*n])); /* keep the node, counters unknown */
			v[*n].node = id;
		}
		(*n)++;
	}
	vp_free_names(names, nn);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_node);
	*out = v;
	return 0;
}

int vmstat_numa_read(const char *root, struct vmstat_numa *out, struct vp_err *err)
{
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = vp_read_file(root, "/proc/vmstat", &text, NULL, err);
	if (ret)
		return ret;
	vmstat_numa_parse(text, out);
	free(text);
	return 0;
}
