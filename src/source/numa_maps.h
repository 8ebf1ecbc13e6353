/* numa_maps.h - /proc/PID/numa_maps: resident pages per node for each mapping */
#ifndef VP_NUMA_MAPS_H
#define VP_NUMA_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct numa_map {
	uint64_t start;            /* first address */
	uint64_t end;              /* from /proc/PID/maps; 0 when unknown */
	char perms[5];             /* "rw-p" from /proc/PID/maps; "" when unknown */
	char policy[48];           /* "default", "bind:0-1", "interleave:0-1" */
	char *file;                /* decoded path, NULL for anonymous memory */
	bool heap, stack, huge;    /* the kernel's markers (huge: hugetlbfs) */
	uint64_t anon, dirty, mapped; /* pages */
	uint64_t page_size;        /* bytes (kernelpagesize_kB x 1024); 0 when not shown */
	uint64_t *node_pages;      /* indexed by node id, n_nodes long */
	int n_nodes;
};

/* Owned by the caller: numa_maps_read()/numa_maps_parse() ... numa_maps_release(). */
struct numa_maps {
	struct numa_map *maps;
	size_t n;
	size_t cap;
	int n_nodes;               /* highest node id seen + 1 */
};

/*
 * Read root/proc/PID/numa_maps and join root/proc/PID/maps for the end
 * address and permissions (a missing maps file leaves them unknown).
 */
int numa_maps_read(const char *root, int pid, struct numa_maps *out, struct vp_err *err);
void numa_maps_release(struct numa_maps *m);

/* Parse the text of numa_maps; errors name the line. */
int numa_maps_parse(const char *text, struct numa_maps *out, struct vp_err *err);
/* Fill end and perms from the text of /proc/PID/maps (matched by start). */
void numa_maps_join_ranges(struct numa_maps *m, const char *maps_text);

/* Resident bytes of one mapping on node (pages x page size, 4 KiB when not shown). */
uint64_t numa_map_node_bytes(const struct numa_map *m, int node);

/*
 * Does this mapping look like guest RAM of a QEMU process: writable, not
 * executable, at least min_bytes long (needs the maps join), anonymous or a
 * memory backend (memfd, hugetlbfs, /dev/shm, a file opened for RAM), and
 * not the heap or a stack.
 */
bool numa_map_is_guest_ram(const struct numa_map *m, uint64_t min_bytes);

#endif
