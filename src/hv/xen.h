/* xen.h - the Xen adapter's parsers of xl output, exposed for tests */
#ifndef VP_HV_XEN_H
#define VP_HV_XEN_H

#include "hv/hv.h"

/*
 * Parse `xl list -l` (JSON: an array of {"domid", "config": {"c_info",
 * "b_info"}}) into out: one hv_vm per domain with name, uuid, type,
 * max_vcpus empty vCPUs, memory and node affinity (b_info.nodemap).
 */
int xen_parse_list_l(const char *json, struct hv_vm_list *out, struct vp_err *err);

/*
 * Parse `xl vcpu-list` and fill the vCPUs of the domains already in l (by
 * domain id): current pCPU (-1 when "-"), state, Time(s), hard and soft
 * affinity.  pcpu_node maps a pCPU to its node (n_pcpu long; may be NULL).
 */
int xen_parse_vcpu_list(const char *text, struct hv_vm_list *l, size_t first,
			const int *pcpu_node, int n_pcpu, struct vp_err *err);

/*
 * Parse the cpu_topology section of `xl info -n` into a heap array
 * *pcpu_node (free() it) indexed by pCPU id; *n its length.
 */
int xen_parse_info_topology(const char *text, int **pcpu_node, int *n, struct vp_err *err);

#endif
