/* diag_xen.h - placement advice for Xen domains, in Xen's idioms */
#ifndef VP_DIAG_XEN_H
#define VP_DIAG_XEN_H

#include "analysis/diagnose.h"

/*
 * Locality advice for the Xen domain in->vms[vmi] (diagnose() calls it in
 * place of the KVM rules): soft affinity towards the node that holds most
 * of its memory (`xl vcpu-pin DOM V - CPUS`; hard only with
 * params.xen_hard_pin), a cpupool for a domain that fits one node, and,
 * when its memory is spread or unknown, what Xen needs: memory is placed
 * when a domain is created, so moving it means a restart with `cpus=` or a
 * vNUMA layout.  Appends to r->a.
 */
void diag_advise_xen(const struct diag_input *in, struct diag_result *r, size_t vmi);

/* diagnose.c's advice constructor, shared with this file. */
struct diag_advice *diag_add_advice(struct diag_result *r, const char *rule, size_t vm);

#endif
