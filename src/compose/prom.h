/* prom.h - the daemon's live state as Prometheus text exposition format 0.0.4 */
#ifndef VP_PROM_H
#define VP_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "collect/collect.h"
#include "model/model.h"
#include "util/sbuf.h"

/*
 * A library module (it only appends text): the daemon fills a struct
 * prom_input under its lock and serves the result at GET /metrics with
 * Content-Type "text/plain; version=0.0.4; charset=utf-8".  The series and
 * their labels are listed in docs/prometheus.md.
 *
 * NaN is never written: a factor, metric or figure that cannot be measured
 * has no sample, and vmmprof_factor_quality{quality="unavailable"} 1 says so
 * for each factor, so a dashboard can tell "not measurable" from "zero".
 */

/* One session's latest frame. */
struct prom_view {
	const char *session;               /* session id, the "session" label */
	const struct model *model;         /* the frame's model (its metric names, factor labels) */
	const struct collect_frame *frame; /* NULL: no frame yet, the session writes nothing */
};

/* Host-wide figures of one NUMA node (what `top` reads). */
struct prom_node {
	int node;                          /* node id as the OS names it */
	double mem_total_bytes;            /* NaN unknown */
	double mem_used_bytes;             /* NaN unknown */
	double cpu_busy_ratio;             /* mean busy share of its CPUs, 0..1; NaN unknown */
};

/* The daemon's own figures. */
struct prom_self {
	double start_time_s;               /* Unix time the daemon started; NaN unknown */
	size_t sessions;                   /* sessions running */
	size_t clients;                    /* streaming clients connected (SSE) */
	size_t events_open;                /* merged counter set: distinct events open */
	size_t events_failed;              /* events asked for that could not be opened */
	size_t targets;                    /* threads (vCPUs) counted */
	uint64_t requests_total;           /* HTTP requests served since the start */
	double scrape_duration_s;          /* the previous /metrics render; NaN on the first */
};

struct prom_input {
	const char *host;                  /* the "host" label on every series; NULL or "" none */
	const char *version;               /* vmmprof version, for vmmprof_build_info */
	const struct prom_view *views;
	size_t n_views;
	const struct prom_node *nodes;
	size_t n_nodes;
	struct prom_self self;
};

/* Append the whole exposition (HELP and TYPE lines, then samples) to out. */
void prom_render(struct sbuf *out, const struct prom_input *in);

/* Append s escaped as a label value: backslash, double quote and newline. */
void prom_escape_label(struct sbuf *out, const char *s);

#endif
