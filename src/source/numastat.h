/* numastat.h - per-node numastat and meminfo, and the numa_* lines of /proc/vmstat */
#ifndef VP_NUMASTAT_H
#define VP_NUMASTAT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * All counters are the kernel's cumulative values as read; a field the file
 * did not hold has its bit clear in `have` (bit = index in the field table,
 * see numastat_field_name()), so "absent" is never confused with 0.
 */

enum node_numastat_field {
	NS_NUMA_HIT, NS_NUMA_MISS, NS_NUMA_FOREIGN, NS_INTERLEAVE_HIT,
	NS_LOCAL_NODE, NS_OTHER_NODE, NS_NFIELDS
};

enum node_meminfo_field {
	NM_MEM_TOTAL, NM_MEM_FREE, NM_MEM_USED, NM_FILE_PAGES, NM_ANON_PAGES,
	NM_SHMEM, NM_HUGE_TOTAL, NM_HUGE_FREE, NM_NFIELDS
};

enum vmstat_numa_field {
	VS_NUMA_HIT, VS_NUMA_MISS, VS_NUMA_FOREIGN, VS_NUMA_INTERLEAVE,
	VS_NUMA_LOCAL, VS_NUMA_OTHER, VS_NUMA_PTE_UPDATES, VS_NUMA_HUGE_PTE_UPDATES,
	VS_NUMA_HINT_FAULTS, VS_NUMA_HINT_FAULTS_LOCAL, VS_NUMA_PAGES_MIGRATED,
	VS_PGMIGRATE_SUCCESS, VS_PGMIGRATE_FAIL, VS_NFIELDS
};

/* One NUMA node as /sys/devices/system/node/nodeN/{numastat,meminfo} show it. */
struct node_stat {
	int node;
	uint64_t ns[NS_NFIELDS];   /* numastat: page counts (cumulative) */
	uint32_t ns_have;
	uint64_t mem[NM_NFIELDS];  /* meminfo: bytes, except HugePages_* (pages) */
	uint32_t mem_have;
};

struct vmstat_numa {
	uint64_t v[VS_NFIELDS];
	uint32_t have;
};

/* The file's spelling of a field ("numa_hit", "MemTotal", "pgmigrate_success"). */
const char *node_numastat_field_name(enum node_numastat_field f);
const char *node_meminfo_field_name(enum node_meminfo_field f);
const char *vmstat_numa_field_name(enum vmstat_numa_field f);

/*
 * Read every node under root/sys/devices/system/node.  *out is a heap array
 * sorted by node id (free() it); a node whose numastat or meminfo is missing
 * keeps the have-mask 0 for it.  Fails only when the node directory cannot
 * be listed.
 */
int node_stat_read_all(const char *root, struct node_stat **out, size_t *n,
		       struct vp_err *err);
/* Read one node. */
int node_stat_read(const char *root, int node, struct node_stat *out, struct vp_err *err);

/* Read root/proc/vmstat. */
int vmstat_numa_read(const char *root, struct vmstat_numa *out, struct vp_err *err);

/* Parse the text of the files (exposed for tests and the fuzzer). */
void node_numastat_parse(const char *text, struct node_stat *out);
void node_meminfo_parse(const char *text, struct node_stat *out);
void vmstat_numa_parse(const char *text, struct vmstat_numa *out);

#endif
