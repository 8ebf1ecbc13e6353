/* bench_report.c - tables and JSON for the benchmark, calibration and probe results */
#include "cli/bench_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/table.h"

const char *report_num(char *buf, double v, int prec)
{
	if (isnan(v) || isinf(v))
		return "n/a";
	snprintf(buf, 32, "%.*f", prec, v);
	return buf;
}

static const char *size_str(char *buf, double bytes)
{
	if (bytes >= 1024.0 * 1024 * 1024)
		snprintf(buf, 32, "%.4g GiB", bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024.0 * 1024)
		snprintf(buf, 32, "%.4g MiB", bytes / (1024.0 * 1024));
	else
		snprintf(buf, 32, "%.4g KiB", bytes / 1024);
	return buf;
}

void bench_report_progress(void *ctx, const char *scenario, double frac, const char *what)
{
	const bool *quiet = ctx;

	if (quiet && *quiet)
		return;
	if (isatty(2))
		fprintf(stderr, "\r\033[K[%s] %3.0f%% %s", scenario, frac * 100, what);
	else
		fprintf(stderr, "[%s] %3.0f%% %s\n", scenario, frac * 100, what);
}

void bench_report_progress_end(void *ctx)
{
	const bool *quiet = ctx;

	if (!(quiet && *quiet) && isatty(2))
		fprintf(stderr, "\r\033[K");
}

void bench_report_machine(const struct bench_topo *t, const struct bench_opts *o,
			  struct sbuf *out)
{
	char a[32], b[32], c[32];

	sbuf_addf(out, "machine: %s (%s %d/%d): %d CPU%s, %d NUMA node%s, %d package%s; "
		  "L1d %s, L2 %s, LLC %s x%d\n", t->machine.model_name, t->machine.vendor,
		  t->machine.family, t->machine.model, t->n_cpus, t->n_cpus == 1 ? "" : "s",
		  t->n_nodes, t->n_nodes == 1 ? "" : "s", t->n_pkgs, t->n_pkgs == 1 ? "" : "s",
		  size_str(a, (double)t->l1d_bytes), size_str(b, (double)t->l2_bytes),
		  size_str(c, (double)t->llc_bytes), t->n_llc);
	sbuf_addf(out, "settings: %.1f s per scenario%s, huge pages %s (THP mode '%s'), "
		  "kernels %s\n", o->time_s, o->quick ? " (quick)" : "",
		  o->huge ? "advised" : "off", t->thp_mode, bw_isa_name(bw_isa_pick(o->isa)));
}

void bench_report_machine_json(const struct bench_topo *t, const struct bench_opts *o,
			       struct jw *w)
{
	int i;

	jw_key(w, "machine");
	jw_obj_begin(w);
	jw_kstr(w, "vendor", t->machine.vendor);
	jw_kint(w, "family", t->machine.family);
	jw_kint(w, "model", t->machine.model);
	jw_kstr(w, "model_name", t->machine.model_name);
	jw_kint(w, "cpus", t->n_cpus);
	jw_kint(w, "packages", t->n_pkgs);
	jw_key(w, "nodes");
	jw_arr_begin(w);
	for (i = 0; i < t->n_nodes; i++)
		jw_int(w, t->nodes[i]);
	jw_arr_end(w);
	jw_kuint(w, "l1d_bytes", t->l1d_bytes);
	jw_kuint(w, "l2_bytes", t->l2_bytes);
	jw_kuint(w, "llc_bytes", t->llc_bytes);
	jw_kint(w, "llc_count", t->n_llc);
	jw_kstr(w, "thp_mode", t->thp_mode);
	jw_obj_end(w);
	jw_key(w, "settings");
	jw_obj_begin(w);
	jw_kdouble(w, "time_s", o->time_s);
	jw_kbool(w, "quick", o->quick);
	jw_kbool(w, "huge_pages", o->huge);
	jw_kstr(w, "isa", bw_isa_name(bw_isa_pick(o->isa)));
	jw_obj_end(w);
}

static void add_lines(struct sbuf *out, const char *label, const char *text)
{
	const char *p = text, *nl;

	if (!text || !*text)
		return;
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		sbuf_addf(out, "  %s %.*s\n", label, (int)(nl - p), p);
		label = "      ";
		p = *nl ? nl + 1 : nl;
	}
}

static void node_matrix(struct sbuf *out, const char *title, int n, const int *nodes,
			const double *m, int prec)
{
	const char *titles[65];
	char names[65][24], buf[32];
	struct table t;
	int i, j;

	snprintf(names[0], sizeof(names[0]), "cpu\\mem");
	titles[0] = names[0];
	for (j = 0; j < n && j < 64; j++) {
		snprintf(names[j + 1], sizeof(names[j + 1]), ">node %d", nodes[j]);
		titles[j + 1] = names[j + 1];
	}
	table_init(&t, (size_t)n + 1, titles);
	for (i = 0; i < n; i++) {
		table_row(&t);
		table_cell(&t, "node %d", nodes[i]);
		for (j = 0; j < n; j++)
			table_cell(&t, "%s", report_num(buf, m[i * n + j], prec));
	}
	sbuf_addf(out, "\n%s\n", title);
	table_render(&t, out, 2, true);
	table_release(&t);
}

static void json_ints(struct jw *w, const char *key, int n, const int *v)
{
	int i;

	jw_key(w, key);
	jw_arr_begin(w);
	for (i = 0; i < n; i++)
		jw_int(w, v[i]);
	jw_arr_end(w);
}

static void json_note(struct jw *w, const char *key, const char *note)
{
	if (note && *note)
		jw_kstr(w, key, note);
	else
		jw_key(w, key), jw_null(w);
}

/* --- latency --- */

/* Samples within this many per cent of their best: a machine quiet enough to repeat a figure. */

void report_latency(const struct lat_result *r, struct sbuf *out)
{
	static const char *const th[] = { ">working set", ">ns per load", "level" };
	struct table t;
	char a[32], b[32];
	int i, j;

	sbuf_addstr(out, "\nlatency: dependent loads over a random cyclic chain of 64-byte lines\n");
	table_init(&t, 3, th);
	for (i = 0; i < r->n_points; i++) {
		const char *lvl = "";

		for (j = 0; j < r->n_levels; j++)
			if (i >= r->level[j].first && i <= r->level[j].last)
				lvl = r->level_name[j];
		table_row(&t);
		table_cell(&t, "%s", size_str(a, r->pt[i].bytes));
		table_cell(&t, "%s", report_num(b, r->pt[i].ns, 2));
		table_cell(&t, "%s", lvl);
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	sbuf_addstr(out, "\nlevels found (plateaus of the curve):\n");
	for (j = 0; j < r->n_levels; j++)
		sbuf_addf(out, "  %-6s %8s ns   working sets %s .. %s\n", r->level_name[j],
			  report_num(a, r->level[j].lat, 2), size_str(b, r->level[j].from),
			  size_str((char[32]){ 0 }, r->level[j].to));
	sbuf_addf(out, "  DRAM latency: %s ns\n", report_num(a, r->dram_ns, 1));
	add_lines(out, "note:", r->dram_reason);
	if (r->matrix_note[0] || !isnan(r->matrix_ns[0])) {
		node_matrix(out, "idle latency, ns (CPU node x memory node):", r->n_nodes, r->nodes,
			    r->matrix_ns, 1);
		add_lines(out, "note:", r->matrix_note);
	}
	if (!isnan(r->sample_spread_pct)) {
		sbuf_addf(out, "\n  samples: each figure is the best of its samples; the DRAM figures' "
			  "samples sit a median %.1f %% above it\n", r->sample_spread_pct);
		if (r->sample_spread_pct > BENCH_QUIET_PCT)
			sbuf_addf(out, "  note: over %.0f %%: other work moved the samples in this run "
				  "(other tenants, a time-shared vCPU); another run will likely differ "
				  "by as much\n", (double)BENCH_QUIET_PCT);
	}
	sbuf_addstr(out, "\n");
	add_lines(out, "bound:", r->bound);
}

void report_latency_json(const struct lat_result *r, struct jw *w)
{
	int i;

	jw_obj_begin(w);
	jw_key(w, "points");
	jw_arr_begin(w);
	for (i = 0; i < r->n_points; i++) {
		jw_obj_begin(w);
		jw_kdouble(w, "bytes", r->pt[i].bytes);
		jw_kdouble(w, "ns", r->pt[i].ns);
		jw_kdouble(w, "median_ns", r->pt[i].median_ns);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "levels");
	jw_arr_begin(w);
	for (i = 0; i < r->n_levels; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "name", r->level_name[i]);
		jw_kdouble(w, "ns", r->level[i].lat);
		jw_kdouble(w, "from_bytes", r->level[i].from);
		jw_kdouble(w, "to_bytes", r->level[i].to);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_kdouble(w, "dram_ns", r->dram_ns);
	json_note(w, "dram_note", r->dram_reason);
	json_ints(w, "nodes", r->n_nodes, r->nodes);
	jw_kmatrix(w, "matrix_ns", r->matrix_ns, r->n_nodes, r->n_nodes);
	jw_kmatrix(w, "matrix_median_ns", r->matrix_median_ns, r->n_nodes, r->n_nodes);
	json_note(w, "matrix_note", r->matrix_note);
	jw_kdouble(w, "sample_spread_pct", r->sample_spread_pct);
	jw_kbool(w, "quiet", !isnan(r->sample_spread_pct) && r->sample_spread_pct <= BENCH_QUIET_PCT);
	jw_kstr(w, "bound", r->bound);
	jw_obj_end(w);
}

/* --- bandwidth --- */

/* The calibration's curve check on a bench run's loaded latencies: a fall is noise. */
static void loaded_noise(const struct bw_result *r, struct sbuf *out)
{
	struct calib c;
	struct calib_checks chk;
	int i;

	calib_init(&c);
	c.loaded = xcalloc((size_t)r->n_loaded + 1, sizeof(*c.loaded));
	for (i = 0; i < r->n_loaded; i++)
		c.loaded[i] = (struct calib_point){ r->loaded[i].threads, r->loaded[i].bw_gbs,
						    r->loaded[i].lat_ns };
	c.n_loaded = (size_t)r->n_loaded;
	if (calib_check(&c, &chk))
		sbuf_addf(out, "  note: noise: %s; latency does not drop as load grows, so other "
			  "work moved these figures and another run will differ\n", chk.v[0].why);
	calib_release(&c);
}

void report_bandwidth(const struct bw_result *r, struct sbuf *out)
{
	static const char *const th[] = { ">threads", ">read", ">write", ">write-nt", ">copy",
					  ">triad" };
	static const char *const lh[] = { ">streamers", ">pause ns/64KiB", ">their GB/s",
					  ">chaser ns" };
	struct table t;
	char a[32];
	int i, k;

	sbuf_addf(out, "\nbandwidth, GB/s (10^9 bytes/s; copy counts read+write, triad 2 reads + "
		  "1 write), %s kernels:\n", bw_isa_name(r->isa));
	table_init(&t, 6, th);
	for (i = 0; i < r->n_sweep; i++) {
		table_row(&t);
		table_cell(&t, "%d", r->sweep[i].threads);
		for (k = 0; k < BW_KERNEL_N; k++)
			table_cell(&t, "%s", report_num(a, r->sweep[i].gbs[k], 2));
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	node_matrix(out, "read bandwidth, GB/s (CPU node x memory node, all CPUs of the CPU node):",
		    r->n_nodes, r->nodes, r->matrix_gbs, 2);
	add_lines(out, "note:", r->matrix_note);
	sbuf_addf(out, "\nloaded latency (a chaser's latency while other CPUs stream reads; "
		  "idle %s ns%s):\n", report_num(a, r->idle_ns, 1),
		  r->idle_from_run ? ", the run's idle figure from the latency scenario" : "");
	table_init(&t, 4, lh);
	for (i = 0; i < r->n_loaded; i++) {
		table_row(&t);
		table_cell(&t, "%d", r->loaded[i].threads);
		table_cell(&t, "%s", r->loaded[i].threads ? report_num(a, r->loaded[i].delay_ns, 0) : "-");
		table_cell(&t, "%s", report_num(a, r->loaded[i].bw_gbs, 2));
		table_cell(&t, "%s", report_num(a, r->loaded[i].lat_ns, 1));
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	loaded_noise(r, out);
	sbuf_addstr(out, "\n");
	add_lines(out, "bound:", r->bound);
}

void report_bandwidth_json(const struct bw_result *r, struct jw *w)
{
	int i, k;

	jw_obj_begin(w);
	jw_kstr(w, "isa", bw_isa_name(r->isa));
	jw_kuint(w, "bytes_per_thread", r->bytes_per_thread);
	jw_key(w, "sweep");
	jw_arr_begin(w);
	for (i = 0; i < r->n_sweep; i++) {
		jw_obj_begin(w);
		jw_kint(w, "threads", r->sweep[i].threads);
		for (k = 0; k < BW_KERNEL_N; k++)
			jw_kdouble(w, bw_kernel_name(k), r->sweep[i].gbs[k]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	json_ints(w, "nodes", r->n_nodes, r->nodes);
	jw_kmatrix(w, "matrix_gbs", r->matrix_gbs, r->n_nodes, r->n_nodes);
	json_note(w, "matrix_note", r->matrix_note);
	jw_kdouble(w, "idle_ns", r->idle_ns);
	jw_kbool(w, "idle_from_run", r->idle_from_run);
	jw_key(w, "loaded");
	jw_arr_begin(w);
	for (i = 0; i < r->n_loaded; i++) {
		jw_obj_begin(w);
		jw_kint(w, "threads", r->loaded[i].threads);
		jw_kdouble(w, "delay_ns", r->loaded[i].delay_ns);
		jw_kdouble(w, "bw_gbs", r->loaded[i].bw_gbs);
		jw_kdouble(w, "lat_ns", r->loaded[i].lat_ns);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_kstr(w, "bound", r->bound);
	jw_obj_end(w);
}

/* --- llc --- */

void report_llc(const struct llc_result *r, struct sbuf *out)
{
	static const char *const th[] = { ">co-runners", ">victim ns", ">slowdown" };
	struct table t;
	char a[32];
	int i;

	sbuf_addf(out, "\nllc: a victim chasing %s alone, then with co-runners thrashing its LLC\n",
		  size_str(a, r->ws_bytes));
	table_init(&t, 3, th);
	for (i = 0; i < r->n_points; i++) {
		table_row(&t);
		table_cell(&t, "%d", r->corunners[i]);
		table_cell(&t, "%s", report_num(a, r->ns[i], 2));
		table_cell(&t, "%sx", report_num(a, r->slowdown[i], 2));
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	sbuf_addf(out, "  slowdown per co-runner: %s\n",
		  isnan(r->slowdown_per_corunner) ? "n/a" :
		  (snprintf(a, sizeof(a), "+%.1f %%", r->slowdown_per_corunner * 100), a));
	add_lines(out, "note:", r->note);
	sbuf_addstr(out, "\n");
	add_lines(out, "bound:", r->bound);
}

void report_llc_json(const struct llc_result *r, struct jw *w)
{
	int i;

	jw_obj_begin(w);
	jw_kdouble(w, "working_set_bytes", r->ws_bytes);
	jw_kdouble(w, "alone_ns", r->alone_ns);
	jw_key(w, "points");
	jw_arr_begin(w);
	for (i = 0; i < r->n_points; i++) {
		jw_obj_begin(w);
		jw_kint(w, "corunners", r->corunners[i]);
		jw_kdouble(w, "ns", r->ns[i]);
		jw_kdouble(w, "slowdown", r->slowdown[i]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_kdouble(w, "slowdown_per_corunner", r->slowdown_per_corunner);
	json_note(w, "note", r->note);
	jw_kstr(w, "bound", r->bound);
	jw_obj_end(w);
}

/* --- sharing --- */

void report_sharing(const struct sharing_result *r, bool c2c_only, struct sbuf *out)
{
	const char *titles[257];
	char names[257][16], a[32];
	struct table t;
	int i, j, n = r->n_cpus;

	sbuf_addstr(out, "\ncore-to-core latency, ns one way (cache-line ping-pong, round trip / 2):\n");
	if (n >= 2) {
		snprintf(names[0], sizeof(names[0]), "cpu");
		titles[0] = names[0];
		for (j = 0; j < n; j++) {
			snprintf(names[j + 1], sizeof(names[j + 1]), ">%d", r->cpus[j]);
			titles[j + 1] = names[j + 1];
		}
		table_init(&t, (size_t)n + 1, titles);
		for (i = 0; i < n; i++) {
			table_row(&t);
			table_cell(&t, "%d", r->cpus[i]);
			for (j = 0; j < n; j++)
				table_cell(&t, "%s", i == j ? "-" : report_num(a, r->c2c_ns[i * n + j], 1));
		}
		table_render(&t, out, 2, true);
		table_release(&t);
	}
	sbuf_addf(out, "  in one package: %s ns", report_num(a, r->c2c_in_pkg_ns, 1));
	sbuf_addf(out, "   across packages: %s ns\n", report_num(a, r->c2c_cross_pkg_ns, 1));
	add_lines(out, "note:", r->c2c_note);
	if (c2c_only)
		return;
	sbuf_addf(out, "\nsharing: %d threads, each a locked add per step, ns per add per thread:\n",
		  r->threads);
	sbuf_addf(out, "  padded (one line each)         %8s\n", report_num(a, r->padded_ns, 2));
	sbuf_addf(out, "  false sharing (one line, own   %8s   %sx padded\n",
		  report_num(a, r->false_ns, 2), report_num((char[32]){ 0 }, r->false_slowdown, 2));
	sbuf_addstr(out, "    counter each)\n");
	sbuf_addf(out, "  true sharing (one counter)     %8s   %sx padded\n",
		  report_num(a, r->true_ns, 2), report_num((char[32]){ 0 }, r->true_slowdown, 2));
	add_lines(out, "note:", r->note);
	sbuf_addstr(out, "\n");
	add_lines(out, "bound:", r->bound);
}

void report_sharing_json(const struct sharing_result *r, struct jw *w)
{
	jw_obj_begin(w);
	json_ints(w, "cpus", r->n_cpus, r->cpus);
	jw_kmatrix(w, "c2c_ns", r->c2c_ns, r->n_cpus, r->n_cpus);
	jw_kdouble(w, "c2c_in_package_ns", r->c2c_in_pkg_ns);
	jw_kdouble(w, "c2c_cross_package_ns", r->c2c_cross_pkg_ns);
	json_note(w, "c2c_note", r->c2c_note);
	jw_kint(w, "threads", r->threads);
	jw_kdouble(w, "padded_ns", r->padded_ns);
	jw_kdouble(w, "false_ns", r->false_ns);
	jw_kdouble(w, "true_ns", r->true_ns);
	jw_kdouble(w, "false_slowdown", r->false_slowdown);
	jw_kdouble(w, "true_slowdown", r->true_slowdown);
	jw_kdouble(w, "cpu_share", r->cpu_share);
	json_note(w, "note", r->note);
	jw_kstr(w, "bound", r->bound);
	jw_obj_end(w);
}

/* --- imc --- */

void report_imc(const struct imc_result *r, struct sbuf *out)
{
	static const char *const th[] = { ">threads", ">packed GB/s", ">per thread",
					  ">spread GB/s", ">per thread" };
	struct table t;
	char a[32];
	int i;

	sbuf_addstr(out, "\nimc: read bandwidth as threads on one node increase, against the same "
		    "threads spread over nodes\n");
	table_init(&t, 5, th);
	for (i = 0; i < r->n_points; i++) {
		table_row(&t);
		table_cell(&t, "%d", r->threads[i]);
		table_cell(&t, "%s", report_num(a, r->packed_gbs[i], 2));
		table_cell(&t, "%s", report_num(a, r->packed_gbs[i] / r->threads[i], 2));
		table_cell(&t, "%s", report_num(a, r->spread_gbs[i], 2));
		table_cell(&t, "%s", report_num(a, r->spread_gbs[i] / r->threads[i], 2));
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	if (r->knee_threads > 0)
		sbuf_addf(out, "  the controller saturates at %d threads (knee)\n", r->knee_threads);
	else
		sbuf_addstr(out, "  knee: n/a\n");
	add_lines(out, "note:", r->knee_note);
	add_lines(out, "note:", r->spread_note);
	sbuf_addstr(out, "\n");
	add_lines(out, "bound:", r->bound);
}

void report_imc_json(const struct imc_result *r, struct jw *w)
{
	int i;

	jw_obj_begin(w);
	jw_key(w, "points");
	jw_arr_begin(w);
	for (i = 0; i < r->n_points; i++) {
		jw_obj_begin(w);
		jw_kint(w, "threads", r->threads[i]);
		jw_kdouble(w, "packed_gbs", r->packed_gbs[i]);
		jw_kdouble(w, "spread_gbs", r->spread_gbs[i]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	if (r->knee_threads > 0)
		jw_kint(w, "knee_threads", r->knee_threads);
	else
		jw_key(w, "knee_threads"), jw_null(w);
	json_note(w, "knee_note", r->knee_note);
	json_note(w, "spread_note", r->spread_note);
	jw_kstr(w, "bound", r->bound);
	jw_obj_end(w);
}

/* --- queue --- */

void report_queue(const struct queue_result *r, struct sbuf *out)
{
	static const char *const th[] = { ">k chains", ">ns per step", ">misses/us" };
	struct table t;
	char a[32];
	int i;

	sbuf_addstr(out, "\nqueue: memory-level parallelism, k independent chains in DRAM on one CPU\n");
	table_init(&t, 3, th);
	for (i = 0; i < r->n_points; i++) {
		table_row(&t);
		table_cell(&t, "%d", r->k[i]);
		table_cell(&t, "%s", report_num(a, r->ns_per_step[i], 1));
		table_cell(&t, "%s", report_num(a, r->rate[i], 1));
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	if (r->knee_k > 0)
		sbuf_addf(out, "  knee at k = %d: about %d misses in flight per core\n", r->knee_k,
			  r->knee_k);
	else
		sbuf_addstr(out, "  knee: n/a\n");
	sbuf_addf(out, "  highest miss rate / rate at k = 1: %s\n", report_num(a, r->mlp, 1));
	add_lines(out, "note:", r->note);
	sbuf_addstr(out, "\n");
	add_lines(out, "bound:", r->bound);
	if (r->core_k > 0) {
		static const char *const ch[] = { ">cores", ">misses/us per core", ">ns per miss",
						  ">misses/us all", ">trackers full" };
		struct table ct;

		sbuf_addf(out, "\nqueue: shared trackers, %d chains on each of 1..n CPUs of package "
			  "%d at once\n", r->core_k, r->core_pkg);
		table_init(&ct, 5, ch);
		for (i = 0; i < r->n_core_points; i++) {
			table_row(&ct);
			table_cell(&ct, "%d", r->cores[i]);
			table_cell(&ct, "%s", report_num(a, r->core_rate[i], 1));
			table_cell(&ct, "%s", report_num(a, r->core_ns[i], 1));
			table_cell(&ct, "%s", report_num(a, r->total_rate[i], 1));
			if (isfinite(r->tracker_full[i]))
				table_cell(&ct, "%.1f%%", 100 * r->tracker_full[i]);
			else
				table_cell(&ct, "n/a");
		}
		table_render(&ct, out, 2, true);
		table_release(&ct);
		if (r->knee_cores > 0)
			sbuf_addf(out, "  knee at %d core%s: more cores no longer add misses in flight "
				  "(the shared trackers are full)\n", r->knee_cores,
				  r->knee_cores == 1 ? "" : "s");
		else
			sbuf_addstr(out, "  knee: n/a\n");
		add_lines(out, "note:", r->core_note);
		if (*r->tracker_note)
			add_lines(out, "trackers full:", r->tracker_note);
		sbuf_addstr(out, "\n");
		add_lines(out, "bound:", r->core_bound);
	}
}

void report_queue_json(const struct queue_result *r, struct jw *w)
{
	int i;

	jw_obj_begin(w);
	jw_key(w, "points");
	jw_arr_begin(w);
	for (i = 0; i < r->n_points; i++) {
		jw_obj_begin(w);
		jw_kint(w, "k", r->k[i]);
		jw_kdouble(w, "ns_per_step", r->ns_per_step[i]);
		jw_kdouble(w, "misses_per_us", r->rate[i]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	if (r->knee_k > 0)
		jw_kint(w, "knee_k", r->knee_k);
	else
		jw_key(w, "knee_k"), jw_null(w);
	jw_kdouble(w, "mlp", r->mlp);
	json_note(w, "note", r->note);
	jw_kstr(w, "bound", r->bound);
	if (r->core_k > 0) {
		jw_key(w, "cores");
		jw_obj_begin(w);
		jw_kint(w, "k", r->core_k);
		jw_kint(w, "package", r->core_pkg);
		jw_key(w, "points");
		jw_arr_begin(w);
		for (i = 0; i < r->n_core_points; i++) {
			jw_obj_begin(w);
			jw_kint(w, "cores", r->cores[i]);
			jw_kdouble(w, "misses_per_us_per_core", r->core_rate[i]);
			jw_kdouble(w, "ns_per_miss", r->core_ns[i]);
			jw_kdouble(w, "misses_per_us", r->total_rate[i]);
			jw_kdouble(w, "tracker_full", r->tracker_full[i]);
			jw_obj_end(w);
		}
		jw_arr_end(w);
		if (r->knee_cores > 0)
			jw_kint(w, "knee_cores", r->knee_cores);
		else
			jw_key(w, "knee_cores"), jw_null(w);
		json_note(w, "note", r->core_note);
		json_note(w, "tracker_note", r->tracker_note);
		jw_kstr(w, "bound", r->core_bound);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

/* --- probe --- */

void report_probe(const struct bench_topo *t, const struct probe_result *r, struct sbuf *out)
{
	const char *titles[66];
	char names[66][24], a[32];
	struct table tb;
	int i, m, n = r->c2c.n_cpus;

	report_sharing(&r->c2c, true, out);
	sbuf_addstr(out, "\nlayout: what the guest is told, and what the timings suggest\n");
	{
		static const char *const th[] = { ">vCPU", ">virtual node", ">virtual package",
						  ">inferred group" };

		table_init(&tb, 4, th);
		for (i = 0; i < n; i++) {
			int k, node = -1, pkg = -1;

			for (k = 0; k < t->n_cpus; k++)
				if (t->cpus[k] == r->c2c.cpus[i]) {
					node = t->cpu_node[k];
					pkg = t->cpu_pkg[k];
				}
			table_row(&tb);
			table_cell(&tb, "%d", r->c2c.cpus[i]);
			table_cell(&tb, "%d", node);
			table_cell(&tb, "%d", pkg);
			table_cell(&tb, "%c", 'A' + r->group_of[i] % 26);
		}
		table_render(&tb, out, 2, true);
		table_release(&tb);
	}
	add_lines(out, "evidence:", r->group_note);
	snprintf(names[0], sizeof(names[0]), ">vCPU");
	titles[0] = names[0];
	for (m = 0; m < r->n_nodes; m++) {
		snprintf(names[m + 1], sizeof(names[m + 1]), ">node %d memory, ns", r->nodes[m]);
		titles[m + 1] = names[m + 1];
	}
	sbuf_addstr(out, "\nmemory latency per vCPU (* = over 1.25x the fastest vCPU: likely remote):\n");
	table_init(&tb, (size_t)r->n_nodes + 1, titles);
	for (i = 0; i < n; i++) {
		table_row(&tb);
		table_cell(&tb, "%d", r->c2c.cpus[i]);
		for (m = 0; m < r->n_nodes; m++)
			table_cell(&tb, "%s%s", report_num(a, r->mem_ns[i * 64 + m], 1),
				   r->remote[i * 64 + m] ? " *" : "");
	}
	table_render(&tb, out, 2, true);
	table_release(&tb);
	add_lines(out, "evidence:", r->mem_note);
	if (r->noise[0])
		add_lines(out, "note:", r->noise);
}

void report_probe_json(const struct bench_topo *t, const struct probe_result *r, struct jw *w)
{
	int i, m, n = r->c2c.n_cpus;

	(void)t;
	jw_obj_begin(w);
	jw_key(w, "c2c");
	report_sharing_json(&r->c2c, w);
	jw_kint(w, "groups", r->n_groups);
	jw_kstr(w, "noise", r->noise[0] ? r->noise : NULL);
	json_ints(w, "group_of", n, r->group_of);
	jw_kdouble(w, "split_ns", r->split_ns);
	json_note(w, "group_evidence", r->group_note);
	json_ints(w, "memory_nodes", r->n_nodes, r->nodes);
	jw_key(w, "mem_ns");
	jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		jw_arr_begin(w);
		for (m = 0; m < r->n_nodes; m++)
			jw_double(w, r->mem_ns[i * 64 + m]);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "remote");
	jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		jw_arr_begin(w);
		for (m = 0; m < r->n_nodes; m++)
			jw_bool(w, r->remote[i * 64 + m]);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	json_note(w, "mem_evidence", r->mem_note);
	jw_obj_end(w);
}

void report_calib(const struct calib *c, struct sbuf *out)
{
	static const char *const th[] = { "value", ">measured", "quality", "unit / reason" };
	struct table t;
	char a[32];
	int k;

	table_init(&t, 4, th);
	for (k = 0; k < CAL_N; k++) {
		const char *name = calib_key_name((enum calib_key)k);
		const char *unit = strstr(name, "_ns") ? "ns" : strstr(name, "_gbs") ? "GB/s" :
				   "outstanding misses";

		table_row(&t);
		table_cell(&t, "cal.%s", name);
		table_cell(&t, "%s", report_num(a, c->val[k], 2));
		table_cell(&t, "%s", calib_quality_name(c->quality[k]));
		table_cell(&t, "%s", isnan(c->val[k]) ? c->reason[k] : unit);
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	node_matrix(out, "idle latency, ns (CPU node x memory node):", c->n_nodes, c->node_ids,
		    c->lat_ns, 1);
	node_matrix(out, "read bandwidth, GB/s:", c->n_nodes, c->node_ids, c->bw_gbs, 2);
}

void report_calib_checks(const struct calib *c, struct sbuf *out)
{
	struct calib_checks chk;
	size_t i;

	if (!calib_check(c, &chk)) {
		sbuf_addstr(out, "\n  checks: all passed (docs/calibration.md)\n");
		return;
	}
	sbuf_addf(out, "\n  checks: %zu failed%s; commands that read this calibration leave those "
		  "values out (n/a):\n", chk.n, c->forced ? " (written with --force)" : "");
	for (i = 0; i < chk.n && i < CALIB_VIOLATION_MAX; i++)
		sbuf_addf(out, "    %s\n", chk.v[i].why);
}
