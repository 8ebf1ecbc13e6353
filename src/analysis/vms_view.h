/* vms_view.h - one scan of the host's VMs and its JSON, shared by `list vms` and the daemon */
#ifndef VP_VMS_VIEW_H
#define VP_VMS_VIEW_H

#include <stdbool.h>

#include "analysis/attrib.h"
#include "hv/hv.h"
#include "platform/platform.h"
#include "util/json.h"
#include "util/jsonread.h"
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
/* The same, with exact residency from xentrace when xen_trace is not NULL, Xen PSR when xen_psr (hv.h, opt-in). */
int vms_scan_traced(struct vms_view *v, const char *root, struct hv_xen_numa *xen_numa,
		    const struct hv_xen_trace *xen_trace, bool xen_psr, struct vp_err *err);
void vms_release(struct vms_view *v);

/* Attribution entity of a VM or vCPU, -1 when attribution has none. */
int vms_vm_entity(const struct vms_view *v, const struct hv_vm *vm);
int vms_vcpu_entity(const struct vms_view *v, const struct hv_vm *vm, const struct hv_vcpu *c);

/*
 * The `vmmprof list vms --json` document (pretty, ending in a newline) for
 * the VMs keep(ctx, vm) accepts (keep NULL: every VM).
 */
void vms_json(const struct vms_view *v, bool (*keep)(const void *ctx, const struct hv_vm *vm),
	      const void *ctx, struct sbuf *out);

/*
 * The placement estimate (remote-memory fraction) of VM number vm of a list,
 * or of its vCPU number vcpu (vcpu >= 0); false when there is none.
 */
typedef bool (*vms_remote_fn)(const void *ctx, size_t vm, long vcpu, struct qval *out);

/* vms_remote_fn over a scan: ctx is the struct vms_view (its attribution). */
bool vms_view_remote(const void *ctx, size_t vm, long vcpu, struct qval *out);

/*
 * The `vmmprof list vms` text for the VMs of l that keep(kctx, vm) accepts
 * (keep NULL: all); pattern is named when nothing matched.  The local
 * command passes its scan, the remote client the daemon's document read back
 * with vms_from_json(): the same text from one renderer.
 */
void vms_text(const struct hv_vm_list *l, vms_remote_fn remote, const void *rctx,
	      bool (*keep)(const void *ctx, const struct hv_vm *vm), const void *kctx, const char *pattern,
	      struct sbuf *out);

/*
 * Read a `list vms --json` document back into *l (caller-owned storage,
 * hv_vm_list_release(), also after an error): every field the text shows.
 * Returns 0, or VP_EFORMAT when doc has no "vms" array.
 */
int vms_from_json(const struct jv *doc, struct hv_vm_list *l, struct vp_err *err);
/* vms_remote_fn over such a document: ctx is the parsed document (its
 * "why" strings are used in place, so it outlives the rendering). */
bool vms_json_remote(const void *ctx, size_t vm, long vcpu, struct qval *out);

/*
 * Memory per node as `list vms` and `diagnose` print it: "node 0 64.0 MiB,
 * node 1 64.0 MiB (reason)", or "n/a (reason)" when n_nodes is 0.
 */
void vms_mem_node_text(const uint64_t *mem_node, int n_nodes, const char *reason,
		       struct sbuf *out);
/* "mem_node_bytes": {"0": bytes, ...} (null when n_nodes is 0), as in `list vms --json`. */
void vms_json_mem_node(struct jw *w, const uint64_t *mem_node, int n_nodes);
/* Such an object read back: a heap array (free()) of *n_nodes, NULL when absent or null. */
uint64_t *vms_mem_node_from_json(const struct jv *mem, int *n_nodes);

/*
 * Share of a vCPU's NUMA hinting faults on memory of nodes other than the
 * one it runs on (c->node), from c->fault_share (vms_scan() reads them from
 * the kernel's sched file).  NaN with *why (a string that lives as long as
 * c) when unknown; *why NULL otherwise.
 */
double vms_fault_remote(const struct hv_vcpu *c, const char **why);

/* A quality-labelled value as JSON {"value", "quality", "why"}. */
void vms_json_qval(struct jw *w, const char *key, struct qval q);

/*
 * A VM's I/O threads and virtual nodes as the "io_threads" and "vnuma" keys
 * of the object being written (list vms --json; a recording's rows.vm_topo),
 * and read back from an object, appended to *io / *vn (owned: hv_iothreads_free(),
 * hv_vnodes_free()).
 */
void vms_json_io_vnuma(struct jw *w, const struct hv_iothread *io, size_t n_io,
		       const struct hv_vnode *vn, size_t n_vn);
void vms_io_vnuma_from_json(const struct jv *o, struct hv_iothread **io, size_t *n_io,
			    struct hv_vnode **vn, size_t *n_vn);

#endif
