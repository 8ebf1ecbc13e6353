/* fuzz_numa_maps.c - libFuzzer harness for /proc/PID/numa_maps and its join with
 * /proc/PID/maps (src/source/numa_maps.c), as the KVM adapter reads a QEMU
 * process's guest RAM per node.  The input up to its first NUL byte is
 * numa_maps, the rest maps (the same text when there is no NUL). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "source/numa_maps.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	const char *maps = text;
	struct numa_maps nm;
	struct vp_err err = { 0, "" };
	uint64_t sum = 0;
	size_t i, nul = strlen(text);
	int node;

	if (nul < size) {
		free(text);
		text = xstrndup((const char *)data, nul);
		maps = xstrndup((const char *)data + nul + 1, size - nul - 1);
	}
	if (numa_maps_parse(text, &nm, &err)) {
		if (err.code != VP_EPARSE || strncmp(err.msg, "numa_maps line ", 15))
			abort(); /* a refusal is a parse error naming the line */
		if (nm.n || nm.maps)
			abort(); /* and leaves nothing behind */
		goto out;
	}
	numa_maps_join_ranges(&nm, maps);
	for (i = 0; i < nm.n; i++) {
		const struct numa_map *m = &nm.maps[i];

		if (m->n_nodes < 0 || m->n_nodes > nm.n_nodes || (m->n_nodes && !m->node_pages) ||
		    !memchr(m->perms, 0, sizeof(m->perms)))
			abort();
		/* what read_guest_ram() in src/hv/kvm.c takes: a mapping of positive length */
		if (numa_map_is_guest_ram(m, 32 << 20) && m->end - m->start < (32u << 20))
			abort();
		if (numa_map_is_guest_ram(m, 0) && m->end <= m->start)
			abort();
		for (node = -1; node <= m->n_nodes; node++)
			sum += numa_map_node_bytes(m, node);
	}
	(void)sum;
	numa_maps_release(&nm);
out:
	if (maps != text)
		free((char *)maps);
	free(text);
	return 0;
}
