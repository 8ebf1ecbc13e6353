/* bench_report.h - tables and JSON for the benchmark, calibration and probe results */
#ifndef VP_BENCH_REPORT_H
#define VP_BENCH_REPORT_H

#include <stdbool.h>

#include "bench/bench.h"
#include "util/json.h"
#include "util/sbuf.h"

/* Progress callback printing to stderr (ctx: pointer to a bool "quiet"). */
void bench_report_progress(void *ctx, const char *scenario, double frac, const char *what);
/* Finish a progress line on a terminal. */
void bench_report_progress_end(void *ctx);

/* "AMD EPYC (AuthenticAMD 25/1): 2 CPUs, 1 node, 1 package, L1d 32 KiB, ..." */
void bench_report_machine(const struct bench_topo *t, const struct bench_opts *o,
			  struct sbuf *out);
void bench_report_machine_json(const struct bench_topo *t, const struct bench_opts *o,
			       struct jw *w);

void report_latency(const struct lat_result *r, struct sbuf *out);
void report_latency_json(const struct lat_result *r, struct jw *w);
void report_bandwidth(const struct bw_result *r, struct sbuf *out);
void report_bandwidth_json(const struct bw_result *r, struct jw *w);
void report_llc(const struct llc_result *r, struct sbuf *out);
void report_llc_json(const struct llc_result *r, struct jw *w);
void report_sharing(const struct sharing_result *r, bool c2c_only, struct sbuf *out);
void report_sharing_json(const struct sharing_result *r, struct jw *w);
void report_imc(const struct imc_result *r, struct sbuf *out);
void report_imc_json(const struct imc_result *r, struct jw *w);
void report_queue(const struct queue_result *r, struct sbuf *out);
void report_queue_json(const struct queue_result *r, struct jw *w);
void report_probe(const struct bench_topo *t, const struct probe_result *r, struct sbuf *out);
void report_probe_json(const struct bench_topo *t, const struct probe_result *r, struct jw *w);
void report_calib(const struct calib *c, struct sbuf *out);
/* "checks: all passed", or each failed check (calib_check()) and "forced" when it was. */
void report_calib_checks(const struct calib *c, struct sbuf *out);

/* A number with prec decimals, or "n/a" for NaN; buf of at least 32 bytes. */
const char *report_num(char *buf, double v, int prec);

#endif
