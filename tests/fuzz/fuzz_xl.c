/* fuzz_xl.c - libFuzzer harness for the Xen adapter's readers of xl's output
 * (src/hv/xen.c): `xl list -l` (JSON), then `xl vcpu-list`, `xl list -n` and
 * `xl info -n` applied to the domains it gave, as the adapter runs them.
 * The input is split at NUL bytes into those four texts in that order; a
 * missing part is the text before it (so one JSON document also goes
 * through the line parsers). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hv/xen.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *part[4];
	struct hv_vm_list l = { 0 };
	struct vp_err err = { 0, "" };
	int *pcpu_node = NULL, n_pcpu = 0, nr_nodes = 0, k;
	size_t off = 0, len, i, j;

	for (k = 0; k < 4; k++) {
		if (off <= size) {
			len = strnlen((const char *)data + off, size - off);
			part[k] = xstrndup((const char *)data + off, len);
			off += len + 1;
		} else {
			part[k] = xstrdup(part[k - 1]);
		}
	}
	if (xen_parse_list_l(part[0], &l, &err)) {
		if (!err.msg[0] || l.n)
			abort(); /* a refusal says why and adds no domain */
		goto out;
	}
	if (xen_parse_info_topology(part[3], &pcpu_node, &n_pcpu, &err) == 0) {
		if (n_pcpu < 0 || (n_pcpu && !pcpu_node))
			abort();
		for (k = 0; k < n_pcpu; k++)
			if (pcpu_node[k] + 1 > nr_nodes && pcpu_node[k] < 4096)
				nr_nodes = pcpu_node[k] + 1;
	}
	(void)xen_parse_vcpu_list(part[1], &l, 0, pcpu_node, n_pcpu, &err);
	(void)xen_parse_list_n(part[2], &l, 0, nr_nodes);
	for (i = 0; i < l.n; i++) {
		const struct hv_vm *vm = &l.vms[i];

		if (!vm->name || vm->n_mem_nodes < 0 || (vm->n_mem_nodes && !vm->mem_node))
			abort();
		for (j = 0; j < vm->n_vcpus; j++)
			if (vm->vcpus[j].node < -1)
				abort(); /* a vCPU's node is an index or -1 (unknown) */
	}
out:
	hv_vm_list_release(&l);
	free(pcpu_node);
	for (k = 0; k < 4; k++)
		free(part[k]);
	return 0;
}
