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
 * Parse `xl list -n` and set the node affinity of the domains in l (from
 * first) to its NODE Affinity column: a node list, or "all" for nodes 0 to
 * nr_nodes - 1 (left as it was when nr_nodes is unknown, <= 0).
 */
int xen_parse_list_n(const char *text, struct hv_vm_list *l, size_t first, int nr_nodes);

/*
 * Parse the cpu_topology section of `xl info -n` into a heap array
 * *pcpu_node (free() it) indexed by pCPU id; *n its length.
 */
int xen_parse_info_topology(const char *text, int **pcpu_node, int *n, struct vp_err *err);

/* One domain in Xen's 'u' dump ("Memory location of each domain"). */
struct xen_numa_dom {
	int domid;
	uint64_t total_pages;           /* the "(total: N)" of its line */
	uint64_t *pages;                /* pages per node id (4 KiB), n_nodes long; heap */
	int n_nodes;                    /* highest node id listed + 1 */
	int n_lines;                    /* "Node n:" lines read */
	bool complete;                  /* as many Node lines as the dump has nodes */
};

/* The newest dump in a `xl dmesg` text.  xen_numa_dump_release() frees it. */
struct xen_numa_dump {
	struct xen_numa_dom *doms;
	size_t n;
	int n_dumps;                    /* dumps in the text ("Memory location" headers) */
	bool cut;                       /* no header left: the console ring wrapped inside it */
};

/*
 * Parse the newest 'u' dump (`xl debug-keys u`) in `xl dmesg` output: the
 * lines after the last "Memory location of each domain:", with "Domain N
 * (total: T):" (Xen <= 4.17) or "dN (total: T):" (later) and "    Node n:
 * pages" lines; "(XEN) " and console timestamps are stripped, other lines
 * skipped.  want_nodes (0: unknown) is the host's node count (xl info
 * nr_nodes): a domain with fewer Node lines is not complete.  Without any
 * header, the domains after the cut are taken and out->cut is set.
 * VP_ENOTFOUND when the text holds no domain of a dump.
 */
int xen_parse_numa_dump(const char *text, int want_nodes, struct xen_numa_dump *out,
			struct vp_err *err);
void xen_numa_dump_release(struct xen_numa_dump *d);

/*
 * Set the memory per node of the Xen domains in l (from first) to their
 * complete dump entries, in bytes; a domain the dump lacks keeps its vNUMA
 * values, or gets the reason in mem_reason.
 */
void xen_numa_apply(const struct xen_numa_dump *d, struct hv_vm_list *l, size_t first);

/*
 * `xl info -n`'s text into *text (free() it): the copy a periodic caller's
 * cache c holds when it was read at or after since_ns (by this sample's
 * scan), else xl run now and its text kept in c for the scans (which read
 * it again only every slow_ns: top's node rows read it at each sample for
 * memfree).  c NULL or not caching (a fixture tree): xl run each time.
 */
int hv_xen_info_n(struct hv_cache *c, const char *root, uint64_t since_ns, char **text,
		  struct vp_err *err);

#endif
