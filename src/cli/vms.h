/* vms.h - what `list vms` and `top` share: one scan of the host's VMs, and their rendering */
#ifndef VP_CLI_VMS_H
#define VP_CLI_VMS_H

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
void vms_release(struct vms_view *v);

struct list_opts;

/* `vmmprof list vms` output for the VMs whose name matches o->pattern. */
void vms_render_text(const struct vms_view *v, const struct list_opts *o, struct sbuf *out);
void vms_render_json(const struct vms_view *v, const struct list_opts *o, struct sbuf *out);

/* A quality-labelled value as JSON {"value", "quality", "why"}. */
void vms_json_qval(struct jw *w, const char *key, struct qval q);

#endif
