/* fuzz_xen_dmesg.c - libFuzzer harness for the parser of Xen's 'u' dump in `xl dmesg` */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "hv/xen.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct xen_numa_dump d;
	struct hv_vm_list l = { 0 };
	struct hv_vm *vm;
	size_t i;

	if (xen_parse_numa_dump(s, 2, &d, NULL) == 0) {
		/* every domain the dump holds, with and without vNUMA values */
		for (i = 0; i < d.n && i < 8; i++) {
			vm = hv_vm_list_add(&l, HVA_XEN);
			vm->domid = d.doms[i].domid;
		}
		vm = hv_vm_list_add(&l, HVA_XEN);
		vm->domid = 7;
		xen_numa_apply(&d, &l, 0);
		for (i = 0; i < l.n; i++)
			if (l.vms[i].n_mem_nodes < 0 || (l.vms[i].n_mem_nodes && !l.vms[i].mem_node))
				abort();
	}
	xen_numa_dump_release(&d);
	hv_vm_list_release(&l);
	free(s);
	return 0;
}
