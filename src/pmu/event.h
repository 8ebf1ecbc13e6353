/* event.h - event specs (every form a perf or likwid user writes) resolved to perf_event_attr */
#ifndef VP_EVENT_H
#define VP_EVENT_H

#include <limits.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/cpulist.h"
#include "util/err.h"

/*
 * The PMUs of one machine as seen through a root directory: the kernel's
 * sysfs descriptions (type, cpumask, format/, events/ with .scale/.unit),
 * tracepoint ids from tracefs, and libpfm4 for core event names.
 * Opaque; pmu_db_new() / pmu_db_free().
 */
struct pmu_db;

/* Returns 0 and *db (free with pmu_db_free()), or a negative code. */
int pmu_db_new(struct pmu_db **db, const char *root, struct vp_err *err);
void pmu_db_free(struct pmu_db *db);

enum ev_source {
	EV_GENERIC,     /* perf's generic names: cycles, task-clock, cache-misses */
	EV_LIBPFM,      /* a libpfm4 event name */
	EV_SYSFS,       /* pmu/alias/ or pmu/field=value,.../ from sysfs */
	EV_RAW,         /* rNNNN */
	EV_TRACEPOINT,  /* subsys:name */
};

/* One resolved counter to open: an event on one PMU instance. */
struct evdesc {
	char *spec;                 /* the spec as written (each instance holds its own copy) */
	char *name;                 /* display name: spec, or "uncore_imc_0/cas_count_read/" per instance */
	char pmu[NAME_MAX + 1];     /* PMU name: "cpu", "software", "tracepoint", "uncore_imc_0", ...
	                             * (a sysfs directory entry, or one of ours: it fits whole) */
	enum ev_source source;
	struct perf_event_attr attr;
	double scale;               /* multiply counts by this (sysfs .scale); 1.0 otherwise */
	char unit[32];              /* sysfs .unit ("MiB", "Joules"), "" otherwise */
	bool uncore;                /* per-socket PMU: open with pid -1 on each CPU of cpus */
	struct cpulist cpus;        /* the PMU's cpumask; empty means any CPU */
	int spec_index;             /* which spec of the request this came from (instances share it) */
	char *fstr;                 /* libpfm4's fully qualified name (EV_LIBPFM), NULL otherwise */
	bool per_pkg;               /* sysfs alias marked .per-pkg: one count per package */
};

/* A growable list of resolved events; caller-owned. */
struct evdesc_list {
	struct evdesc *v;
	size_t n;
	size_t cap;
};

void evdesc_list_init(struct evdesc_list *l);
void evdesc_list_release(struct evdesc_list *l);
/* Append a zeroed entry (scale 1.0, empty cpus) and return it. */
struct evdesc *evdesc_list_push(struct evdesc_list *l);

/*
 * Deep-copy src into dst (caller-owned storage): its own spec, name, fstr
 * and cpus.  Free with evdesc_release().  A plain struct copy would share
 * those pointers with src.
 */
void evdesc_copy(struct evdesc *dst, const struct evdesc *src);
void evdesc_release(struct evdesc *e);

/* "generic", "libpfm", "sysfs", "raw", "tracepoint". */
const char *ev_source_name(enum ev_source s);

/*
 * Resolve one spec and append what it names to out: one evdesc, or one per
 * PMU instance when a spec names an uncore family ("uncore_imc/.../" opens
 * on uncore_imc_0..N).  spec_index is stored in each appended entry.
 * Errors name the spec and the column of the offending part
 * ("event 'cpu/evnt=1/': unknown format field 'evnt' at column 5").
 */
int event_resolve(struct pmu_db *db, const char *spec, int spec_index,
		  struct evdesc_list *out, struct vp_err *err);

/*
 * Split an -e argument ("cycles,uncore_imc/event=0x4,umask=0x3/,sched:*")
 * at the commas that separate specs (not those inside /.../ or {...}).
 * *specs is a heap array of heap strings: free with vp_free_names().
 * An empty spec (",," or a trailing comma) is an error naming its column.
 */
int event_split_list(const char *list, char ***specs, size_t *n, struct vp_err *err);

/* Inspecting the database (for `vmmprof list`); see pmu/sysfs_pmu.h. */
struct pmu_desc;
const char *pmu_db_root(const struct pmu_db *db);          /* "/" or the fixture root */
size_t pmu_db_count(const struct pmu_db *db);
const struct pmu_desc *pmu_db_pmu(const struct pmu_db *db, size_t i); /* by family, then instance number */
const struct pmu_desc *pmu_db_find(const struct pmu_db *db, const char *name);
/* The tracefs directory below root ("/sys/kernel/tracing"), NULL when none was found. */
const char *pmu_db_tracefs(const struct pmu_db *db);
/* Why sysfs PMUs, tracefs or libpfm4 are unavailable ("" when they are all usable). */
const char *pmu_db_sysfs_error(const struct pmu_db *db);
const char *pmu_db_tracefs_error(const struct pmu_db *db);
const char *pmu_db_libpfm_error(const struct pmu_db *db);

#endif
