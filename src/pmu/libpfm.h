/* libpfm.h - libpfm4 glue: core event names to perf_event_attr, and its event tables */
#ifndef VP_LIBPFM_H
#define VP_LIBPFM_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/*
 * Initialize libpfm4 once per process (pfm_initialize() is idempotent).
 * libpfm4 itself reads LIBPFM_* variables at that moment (tests set
 * LIBPFM_ENCODE_INACTIVE=1 before it); this module reads none.
 */
int libpfm_init(struct vp_err *err);

/* What libpfm4 made of a name. */
struct libpfm_result {
	struct perf_event_attr attr;
	char pmu[64];      /* libpfm4 PMU name: "skx", "amd64_fam19h_zen3", "perf" */
	bool uncore;       /* an uncore table (attr.type then came from live sysfs) */
	char *fstr;        /* fully qualified name libpfm4 chose; free() it */
};

/*
 * Encode spec with pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT), the
 * user and kernel levels counted by default.  exclude_guest is left as
 * libpfm4 set it; the caller decides.  On failure the message names the
 * spec and, for an unknown umask or modifier, it and its column.
 */
int libpfm_encode(const char *spec, struct libpfm_result *res, struct vp_err *err);

/*
 * The name of the core PMU table libpfm4 detected here ("skx",
 * "amd64_fam19h_zen3") into buf; false when only the generic perf tables
 * are active (a VM without a vPMU, or a CPU libpfm4 does not know).
 */
bool libpfm_core_pmu(char *buf, size_t size);

/* Called once per event and once per umask (umask NULL for the event). */
typedef void (*libpfm_event_fn)(void *ctx, const char *pmu, const char *pmu_desc,
				const char *event, const char *umask, const char *desc);

/*
 * Walk the event tables of the PMUs libpfm4 detected on this machine.  The
 * generic "perf" and "perf_raw" tables are left out: `vmmprof list` shows
 * those names itself.
 */
void libpfm_foreach_event(libpfm_event_fn fn, void *ctx);

#endif
