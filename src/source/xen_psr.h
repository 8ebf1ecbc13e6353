/* xen_psr.h - Xen's per-domain cache and memory-bandwidth monitoring (Intel RDT through `xl psr-*`) */
#ifndef VP_XEN_PSR_H
#define VP_XEN_PSR_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/*
 * Xen monitors a domain's LLC occupancy and memory traffic with Intel's
 * CMT/MBM when it boots with psr=cmt on an RDT CPU, for the domains given
 * an RMID (`xl psr-cmt-attach DOM`, undone by `xl psr-cmt-detach DOM`).
 * `xl psr-cmt-show TYPE` prints, per attached domain and socket
 * (tools/xl/xl_psr.c, Xen 4.17):
 *
 *   Total RMID: 63
 *   Name                                        ID        Socket 0        Socket 1
 *   Total L3 Cache Size                               30720 KB        30720 KB
 *   web                                           1        14336 KB          512 KB
 *
 * cache-occupancy in KB; total-mem-bandwidth and local-mem-bandwidth in
 * KB/s, each a rate xl measures over two samples 10 ms apart (a short
 * sample at the moment of the call, not an average over an interval).
 */

struct xen_psr_hw {
	bool cmt;                       /* "Cache Monitoring Technology (CMT):" with Enabled 1 */
	unsigned total_rmid;
	bool occupancy, total_bw, local_bw; /* supported monitor types */
};

/* `xl psr-hwinfo` (its CMT part).  VP_ENOTFOUND when it has no CMT section. */
int xen_psr_hwinfo_parse(const char *text, struct xen_psr_hw *hw, struct vp_err *err);

struct xen_psr_dom {
	char name[128];
	int domid;
	double *v;                      /* per socket (n_sockets): bytes, or bytes/s; NaN when xl printed none */
};

struct xen_psr_table {
	int n_sockets;
	int *socket;                    /* the socket ids of the columns */
	double *l3_bytes;               /* cache-occupancy: each socket's L3 size; NULL otherwise */
	struct xen_psr_dom *doms;
	size_t n;
};

/*
 * One `xl psr-cmt-show TYPE` output into *t (caller-owned; release with
 * xen_psr_table_release()): values in bytes (KB x 1024) or bytes/s.
 * VP_EPARSE, with the line, when the header is missing or a row is not
 * NAME ID VALUE UNIT...
 */
int xen_psr_show_parse(const char *text, struct xen_psr_table *t, struct vp_err *err);
void xen_psr_table_release(struct xen_psr_table *t);

/* A domain's value summed over sockets; NaN when any socket has none or the domain is absent. */
double xen_psr_dom_total(const struct xen_psr_table *t, int domid);

#endif
