/* sysfs_pmu.h - the kernel's PMU descriptions: type, cpumask, format/ bit fields, events/ aliases */
#ifndef VP_SYSFS_PMU_H
#define VP_SYSFS_PMU_H

#include <limits.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cpulist.h"
#include "util/err.h"

#define PMU_FIELD_RANGES 8

/*
 * One format/ file: a name and where its bits go, e.g. "config:8-15,32-55".
 * The value's low bits fill the first range, the next bits the second, and
 * so on (the kernel's and perf's rule).
 */
struct pmu_field {
	char name[NAME_MAX + 1];    /* a format/ entry: at most NAME_MAX bytes, held whole */
	int word;                  /* 0 config, 1 config1, 2 config2 */
	int nranges;
	struct { uint8_t lo, hi; } r[PMU_FIELD_RANGES];
	int bits;                  /* total width */
};

/* One events/ file: an alias such as cas_count_read = "event=0x04,umask=0x03". */
struct pmu_alias {
	char *name;
	char *terms;               /* the file's text, trailing white space removed */
	double scale;              /* events/NAME.scale, 1.0 when absent */
	char unit[32];             /* events/NAME.unit, "" when absent */
	bool per_pkg;              /* events/NAME.per-pkg holds 1 */
	bool snapshot;             /* events/NAME.snapshot holds 1 */
};

/* One directory under /sys/bus/event_source/devices. */
struct pmu_desc {
	char name[NAME_MAX + 1];   /* "uncore_imc_0": a directory entry, at most NAME_MAX bytes */
	char family[NAME_MAX + 1]; /* "uncore_imc" when name is family_N, else name */
	int instance;              /* N of family_N, -1 when the name has no such suffix */
	int type;                  /* /type, -1 when unreadable */
	bool has_cpumask;          /* /cpumask exists: a per-socket (uncore-like) PMU */
	struct cpulist cpus;       /* /cpumask, or /cpus of a hybrid core PMU */
	struct pmu_field *fields;
	size_t nfields;
	struct pmu_alias *aliases; /* sorted by name */
	size_t naliases;
	char error[256];           /* why part of it could not be read, "" when all was */
};

/*
 * Parse a format/ file's text ("config:0-7", "config1:0-63", "config:21",
 * "config:8-15,32-55") into *f (name left as is).  Errors name the text.
 */
int pmu_field_parse(struct pmu_field *f, const char *text, struct vp_err *err);

/* Write the field's text form ("config:8-15,32-55") to buf. */
void pmu_field_format(const struct pmu_field *f, char *buf, size_t size);

/*
 * Store value into the field's bits of attr (config, config1 or config2),
 * replacing what was there.  Returns 0, or VP_ERANGE when value has bits
 * beyond the field's width (nothing is written then).
 */
int pmu_field_set(const struct pmu_field *f, uint64_t value, struct perf_event_attr *attr);

/* The value the field holds in attr (the inverse of pmu_field_set()). */
uint64_t pmu_field_get(const struct pmu_field *f, const struct perf_event_attr *attr);

/*
 * Read the PMU directory <root>/sys/bus/event_source/devices/<name> into *p
 * (caller-owned storage; release with pmu_desc_release()).  Never fails as a
 * whole: a missing format/ or events/ directory leaves them empty, and a
 * file that cannot be parsed (a format syntax from a newer kernel) is left
 * out and named in p->error, so one odd PMU does not hide the others.
 */
void pmu_desc_load(struct pmu_desc *p, const char *root, const char *name);
void pmu_desc_release(struct pmu_desc *p);

const struct pmu_field *pmu_desc_field(const struct pmu_desc *p, const char *name, size_t len);
const struct pmu_alias *pmu_desc_alias(const struct pmu_desc *p, const char *name, size_t len);

/*
 * Split "uncore_imc_12" into family "uncore_imc" and instance 12; a name
 * without a "_<digits>" suffix is its own family with instance -1.
 */
void pmu_name_split(const char *name, char *family, size_t size, int *instance);

#endif
