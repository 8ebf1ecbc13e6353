/* probe.h - the parts of the platform probe, shared by the files of src/platform only */
#ifndef VP_PLATFORM_PROBE_H
#define VP_PLATFORM_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "platform/platform.h"

/*
 * Each part fills its section of *p from p->root.  `live` is true when the
 * root is "/": only then may a part ask the running machine directly
 * (CPUID, libpfm4 detection, hwloc, /dev/kmsg, geteuid).  A part never
 * fails: what it cannot read becomes "unknown" with a reason.
 */
void probe_cpu(struct platform *p, bool live);
void probe_hypervisor(struct platform *p, bool live);
void probe_topology(struct platform *p, bool live);
void probe_pmus(struct platform *p, bool live);
void probe_perm(struct platform *p, bool live);
/* After probe_hypervisor and probe_topology: a Xen dom0's topology from xl. */
void probe_xen_host(struct platform *p, bool live);

/*
 * Copy src (NULL: "") into a fixed field dst (size bytes), always
 * terminated, for the fields whose text is bounded (a sysfs name, a CPUID
 * string, a kernel token): cut before the first character that does not
 * fit whole, and a byte of no UTF-8 character becomes U+FFFD (utf8_copy()).
 */
void plat_copy(char *dst, size_t size, const char *src);
/*
 * src (NULL: "") as the whole text of an sbuf field: what the probe reads
 * (sysfs, /proc, DMI, the kernel log, libpfm4, error messages with paths)
 * kept whole, a byte of no UTF-8 character as U+FFFD (sbuf_addutf8()), so
 * JSON and a terminal get valid text.
 */
void plat_set(struct sbuf *dst, const char *src);
void plat_setf(struct sbuf *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* items joined with ", " as the whole text of dst. */
void plat_join(struct sbuf *dst, const char *const *items, size_t n);

/*
 * A reason from a failed read: err's message with the root prefix removed,
 * so that reasons name "/proc/cpuinfo" whatever the root is.
 */
void plat_reason(struct sbuf *dst, const char *root, const struct vp_err *err);

/* Value of "key : value" lines (cpuinfo, status), or NULL; points into text. */
const char *plat_field(const char *text, const char *key, size_t *len);

#endif
