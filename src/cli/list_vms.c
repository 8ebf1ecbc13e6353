/* list_vms.c - `vmmprof list vms`: every VM the adapters find, with vCPU placement and memory per node */
#include "analysis/vms_view.h"
#include "cli/list.h"
#include "cli/cli.h"

#include <string.h>

/* The names 'top --vm' and 'diagnose --vm' take (dom0 is not a VM to choose). */
static void raw_names(const struct hv_vm_list *l, const struct list_opts *o, struct sbuf *out)
{
	size_t i, start = out->len;

	for (i = 0; i < l->n; i++)
		if (l->vms[i].name && !l->vms[i].dom0 && list_keep_vm(o, &l->vms[i]))
			list_raw_word(out, l->vms[i].name, strlen(l->vms[i].name));
	if (out->len > start)
		sbuf_addch(out, '\n');
}

int list_vms(const struct list_opts *o, struct sbuf *out)
{
	struct vms_view v;
	struct vp_err err = { 0, "" };
	struct hv_xen_numa xn = { 0, 0 };
	struct hv_xen_trace xt = { o->xentrace_s };
	int rc = 0;

	if (vms_scan_traced(&v, o->root, o->xen_numa_dump ? &xn : NULL, o->xentrace_s ? &xt : NULL,
			    o->xen_psr, &err))
		rc = cli_error(&err);
	else if (o->raw)
		raw_names(&v.vms, o, out);
	else if (o->json)
		vms_json(&v, list_keep_vm, o, out);
	else
		vms_text(&v.vms, vms_view_remote, &v, list_keep_vm, o, o->pattern, out);
	vms_release(&v);
	return rc;
}
