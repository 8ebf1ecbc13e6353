/* vms_view.h - one scan of the host's VMs and its JSON, shared by `list vms` and the daemon */
#ifndef VP_VMS_VIEW_H
#define VP_VMS_VIEW_H

#include <stdbool.h>

#include "analysis/attrib.h"
#include "hv/hv.h"
#include "platform/platform.h"
#include "util/json.h"
#include "util/sbuf.h"

/*
 * The VM list under root: platform probe, adapters, one attribution update.
 * Storage owned by the caller: vms_scan() then vms_release().
 */
struct vms_view {
	struct platform plat;
	struct hv_vm_list vms;
	struct attrib attrib;
	bool have_plat, have_attrib;
};

int vms_scan(struct vms_view *v, const char *root, struct vp_err *err);
/* The same, with Xen's page dump when xen_numa is not NULL (hv.h, opt-in). */
int vms_scan_xen(struct vms_view *v, const char *root, struct hv_xen_numa *xen_numa,
		 struct vp_err *err);
void vms_release(struct vms_view *v);

/* Attribution entity of a VM or vCPU, -1 when attribution has none. */
int vms_vm_entity(const struct vms_view *v, const struct hv_vm *vm);
int vms_vcpu_entity(const struct vms_view *v, const struct hv_vm *vm, const struct hv_vcpu *c);

/*
 * The `vmmprof list vms --json` document (pretty, ending in a newline) for
 * the VMs keep(ctx, name) accepts (keep NULL: every VM).
 */
void vms_json(const struct vms_view *v, bool (*keep)(const void *ctx, const char *name),
	      const void *ctx, struct sbuf *out);

/* A quality-labelled value as JSON {"value", "quality", "why"}. */
void vms_json_qval(struct jw *w, const char *key, struct qval q);

#endif
