/* statfmt.h - one counter row in perf stat's layouts (table and -x CSV), into a string buffer */
#ifndef VP_STATFMT_H
#define VP_STATFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/sbuf.h"

/* One row as perf stat shows it; the caller has scaled and summed it. */
struct stat_line {
	const char *name;          /* event name */
	const char *cgroup;        /* -G cgroup, NULL none */
	const char *unit;          /* "msec", a sysfs unit, or "" */
	bool not_supported;        /* "<not supported>": no descriptor opened */
	double value;              /* in unit; NaN prints "<not counted>" */
	int decimals;              /* 2 for units, 0 for plain counts */
	double pct;                /* 100 * running/enabled; shown as "(62.50%)" below 100; NaN none */
	uint64_t running_ns;       /* CSV field 4 */
	bool has_metric;
	double metric;             /* the value after '#' */
	const char *metric_unit;   /* "CPUs utilized", "K/sec" ... */
	bool interval;             /* prefix with the time since the start */
	uint64_t t_ns;             /* that time */
	bool noise;                /* -r: the runs' spread follows (CSV: always a field) */
	double noise_pct;          /* 100 * stddev of the mean / mean; the table omits 0 as perf does */
	const char *comm;          /* --per-thread: the thread's command name, NULL none */
	int tid;                   /* --per-thread: its id */
	const char *aggr_id;       /* -A, --per-core/socket/node: "CPU3", "S0-D0-C1", "N0"; NULL none */
	int aggr_width;            /* its column in the table */
	int aggr_cpus;             /* the CPUs summed, printed after it; -1 not printed (-A) */
};

/* v with decimals and, when big, thousands separators ("2,003.45"). */
void stat_fmt_num(struct sbuf *out, double v, int decimals, bool big);

/*
 * Append one row and its newline: perf's table
 * ("            123.45 msec task-clock   #    1.000 CPUs utilized  (62.50%)")
 * when sep is 0, else perf's -x CSV
 * ("value,unit,event[,cgroup],run-ns,pct,metric,metric-unit"; the cgroup
 * field only when with_cgroup, as perf adds it when cgroups are in use).
 * With noise (perf stat -r) the table adds "  ( +-  1.23% )" after the
 * metric and before the running share, and the CSV a "1.23%" field after
 * the event (and cgroup), as tools/perf/util/stat-display.c does.  With a
 * thread (--per-thread) the row starts with perf's "%16s-%-7d " comm-tid
 * column, in CSV "comm-tid,".
 */
void stat_format_line(struct sbuf *out, const struct stat_line *l, char sep, bool big_num,
		      bool with_cgroup);

#endif
