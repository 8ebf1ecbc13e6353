/* cmd_compare.c - `vmmprof compare BEFORE AFTER`: what changed between two recordings, VM by VM */
#include "cli/commands.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/apply.h"
#include "analysis/compare.h"
#include "cli/pipeline.h"
#include "record/record.h"
#include "util/alloc.h"
#include "util/check.h"
#include "util/json.h"
#include "util/table.h"

#define RESAMPLES 2000
#define SEED 1

/* The per-interval measures of a VM, in output order. */
enum measure { M_CPI, M_REMOTE, M_STALL, M_CPU, M_COST0, M_N = M_COST0 + FACTOR_N };

static const char *measure_name(int k)
{
	static const char *const names[M_COST0] = { "cpi", "remote_share", "memory_stall_pct",
						     "cpu_cost_pct" };
	static char cost[FACTOR_N][24];

	/* the costs are measures M_COST0.. M_N - 1: k - M_COST0 indexes cost[] and a factor */
	VP_BUG_ON(k < 0 || k >= M_N);
	if (k < M_COST0)
		return names[k];
	snprintf(cost[k - M_COST0], sizeof(cost[0]), "%s_cost_pct",
		 factor_name((enum factor_id)(k - M_COST0)));
	return cost[k - M_COST0];
}

struct series {
	double *v;
	size_t n, cap;
};

struct vm_series {
	char *name;
	struct series m[M_N];
	char remote_src[32];        /* "measured" (the model's remote_frac) or "estimate" */
	const char *why[M_N];       /* why a measure had no value (static text), NULL */
};

struct run {
	const char *path;
	struct recording rec;
	struct pipeline p;
	struct model_avail av;
	bool have_rec, have_p, have_av;
	struct vm_series *vms;
	size_t n_vms;
	size_t frames;
	double seconds;
	struct collect_frame total; /* the whole run: din's names point into it */
	bool have_total;
	struct diag_input din;      /* the diagnosis of the whole run (BEFORE's advice) */
	struct diag_result res;
	bool have_diag;
};

static void push(struct series *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof(double));
	}
	s->v[s->n++] = v;
}

static struct vm_series *vm_of(struct run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_vms; i++)
		if (!strcmp(r->vms[i].name, name))
			return &r->vms[i];
	r->vms = xrealloc(r->vms, (r->n_vms + 1) * sizeof(*r->vms));
	memset(&r->vms[r->n_vms], 0, sizeof(r->vms[0]));
	r->vms[r->n_vms].name = xstrdup(name);
	return &r->vms[r->n_vms++];
}

/* The model input reading source spec (sched.run_ns, ...), -1 none. */
static int source_input(const struct model *m, const char *spec)
{
	size_t i;

	for (i = 0; i < m->n_inputs; i++)
		if (m->inputs[i].kind == INPUT_SOURCE && !strcmp(m->inputs[i].spec, spec))
			return (int)i;
	return -1;
}

/* One interval's values of each VM row of fr. */
static void take_frame(struct run *r, const struct collect_frame *fr)
{
	const struct model *m = r->p.model;
	int cpi = model_find_metric(m, "cpi"), rem = model_find_metric(m, "remote_frac");
	int est = model_find_metric(m, "remote_est");
	int run_in = source_input(m, "sched.run_ns"), wait_in = source_input(m, "sched.wait_ns");
	size_t i;
	int f;

	for (i = 0; i < fr->n_rows; i++) {
		const struct collect_row *row = &fr->rows[i];
		struct vm_series *v;
		double rv;

		if ((row->kind != ENT_VM && row->kind != ENT_PROCESS) || !row->name)
			continue;
		v = vm_of(r, row->name);
		push(&v->m[M_CPI], cpi >= 0 && row->metrics ? row->metrics[cpi] : NAN);
		if (cpi < 0)
			v->why[M_CPI] = "the model has no cycles-per-instruction metric (no core PMU)";
		else if (!row->metrics || isnan(row->metrics[cpi]))
			v->why[M_CPI] = "cycles or instructions were not counted";
		/* remote share: counted, else the model's best estimate, else placement */
		rv = rem >= 0 && row->metrics ? row->metrics[rem] : NAN;
		if (isfinite(rv)) {
			snprintf(v->remote_src, sizeof(v->remote_src), "measured");
		} else {
			rv = est >= 0 && row->metrics ? row->metrics[est] : NAN;
			if (!isfinite(rv))
				rv = row->remote.v;
			if (isfinite(rv))
				snprintf(v->remote_src, sizeof(v->remote_src), "estimate");
		}
		push(&v->m[M_REMOTE], rv);
		if (!isfinite(rv))
			v->why[M_REMOTE] = "no remote count and no placement estimate";
		push(&v->m[M_STALL], row->cycles > 0 ? 100 * row->mem_stall / row->cycles : NAN);
		if (!(row->cycles > 0))
			v->why[M_STALL] = "no cycle count";
		else if (isnan(row->mem_stall))
			v->why[M_STALL] = "the model counts no memory stall here";
		/* CPU contention as diagnose costs it: the model's schedstat sources
		 * (a VM row holds its vCPUs' sums), else the collector's own reads */
		if (run_in >= 0 && wait_in >= 0 && row->inputs)
			rv = cmp_wait_pct(row->inputs[run_in], row->inputs[wait_in]);
		else
			rv = cmp_wait_pct(row->sched_run_ns, row->sched_wait_ns);
		push(&v->m[M_CPU], rv);
		if (!isfinite(rv))
			v->why[M_CPU] = run_in >= 0 && wait_in >= 0 ?
					"no run or run-queue wait time (schedstat) known" :
					"the recording keeps no run-queue wait: its model reads no "
					"sched.* sources (the software model does)";
		for (f = 0; f < FACTOR_N; f++) {
			push(&v->m[M_COST0 + f], row->fv[f].cost_pct);
			if (isnan(row->fv[f].cost_pct))
				v->why[M_COST0 + f] = row->cost.why[f] ? row->cost.why[f] :
						      "no cost known";
		}
	}
}

static int open_run(struct run *r, const char *path, const struct pipe_opts *o,
		    const struct host_span *host)
{
	struct rec_total *acc;
	struct collect_frame fr;
	struct vp_err err;
	int more;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->have_rec = true;
	if (rec_open(path, &r->rec, &err))
		return cli_error(&err);
	r->have_p = true;
	if (cli_pipeline_model(&r->p, o, r->rec.model_name))
		return 1;
	if (rec_bind_model(&r->rec, r->p.model, &r->av, &err))
		return cli_error(&err);
	r->have_av = true;
	acc = rec_total_new(&r->rec, r->p.model);
	while ((more = rec_next_frame(&r->rec, &fr, &err)) > 0) {
		take_frame(r, &fr);
		r->frames++;
		r->seconds += fr.duration;
		rec_total_add(acc, &fr);
		collect_frame_release(&fr);
	}
	rec_total_finish(acc, &r->total);
	r->have_total = true;
	if (more < 0)
		return cli_error(&err);
	if (host && host->have_cs)
		frame_host_cpus(&r->total, &host->cs[0], &host->cs[1],
				host->have_dl ? &host->dl[0] : NULL,
				host->have_dl ? &host->dl[1] : NULL, host->secs);
	frame_diag_input(r->p.model, r->av.factor_ok, &r->rec.plat.topo,
			 r->rec.have_cal ? &r->rec.cal : NULL, &r->total, &r->din);
	if (!diagnose(&r->din, &r->res, &err))
		r->have_diag = true;
	return 0;
}

static void close_run(struct run *r)
{
	size_t i;
	int k;

	for (i = 0; i < r->n_vms; i++) {
		for (k = 0; k < M_N; k++)
			free(r->vms[i].m[k].v);
		free(r->vms[i].name);
	}
	free(r->vms);
	if (r->have_diag)
		diag_result_release(&r->res);
	collect_diag_release(&r->din);
	if (r->have_total)
		collect_frame_release(&r->total);
	if (r->have_av)
		model_avail_release(r->p.model, &r->av);
	if (r->have_p)
		pipeline_close(&r->p);
	if (r->have_rec)
		rec_release(&r->rec);
}

static const struct vm_series *find_vm(const struct run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_vms; i++)
		if (!strcmp(r->vms[i].name, name))
			return &r->vms[i];
	return NULL;
}

/* "the gain the diagnosis predicted": BEFORE's advice for this VM, strongest first. */
static const struct diag_advice *predicted(const struct run *b, const char *vm)
{
	const struct diag_advice *best = NULL;
	size_t i;

	for (i = 0; b->have_diag && i < b->res.n_a; i++) {
		const struct diag_advice *a = &b->res.a[i];

		if (a->vm >= b->din.n_vms || strcmp(b->din.vms[a->vm].name, vm) || a->conflict)
			continue;
		if (!best || (isfinite(a->gain_pct) && (!isfinite(best->gain_pct) ||
							 a->gain_pct > best->gain_pct)))
			best = a;
	}
	return best;
}

static void num(char *buf, size_t n, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, n, fmt, v);
	else
		snprintf(buf, n, "n/a");
}

/* The realised gain in time for the same work: the fall of cycles per instruction. */
static void gain_text(const struct cmp_stat *c, struct sbuf *out)
{
	if (!isfinite(c->change) || !(c->before > 0)) {
		sbuf_addstr(out, "the gain in time cannot be measured from these recordings: the model "
				 "counts no cycles per instruction here (no core PMU), so no change in "
				 "speed is claimed; the placement and cost changes above are what was "
				 "seen");
		return;
	}
	sbuf_addf(out, "cycles per instruction %+.1f%%", 100 * c->change / c->before);
	if (isfinite(c->lo))
		sbuf_addf(out, " (95%% interval %+.1f%% .. %+.1f%%)%s", 100 * c->lo / c->before,
			  100 * c->hi / c->before, c->moved ? "" : ": not distinguishable from no change");
	else
		sbuf_addstr(out, " (too few intervals for an interval)");
}

/* A new row of t: the measure's name, the two means, the change and its interval. */
static void stat_cells(struct table *t, const char *name, const struct cmp_stat *c)
{
	char s1[32], s2[32], s3[32], s4[64];

	num(s1, sizeof(s1), c->before, "%.4g");
	num(s2, sizeof(s2), c->after, "%.4g");
	num(s3, sizeof(s3), c->change, "%+.4g");
	if (isfinite(c->lo))
		snprintf(s4, sizeof(s4), "%+.3g .. %+.3g", c->lo, c->hi);
	else
		snprintf(s4, sizeof(s4), "n/a");
	table_row(t);
	table_cell(t, "%s", name);
	table_cell(t, "%s", s1);
	table_cell(t, "%s", s2);
	table_cell(t, "%s", s3);
	table_cell(t, "%s", s4);
}

/*
 * What AFTER (the advice applied) did against BASE (the same VMs left to the
 * kernel's own NUMA balancing, or to nothing special): every measure is
 * better lower, so AFTER is better where the change from BASE fell.
 */
static const char *vs_baseline(const struct cmp_stat *c)
{
	if (!isfinite(c->change))
		return "n/a";
	if (!isfinite(c->lo))
		return "too few intervals";
	return c->moved < 0 ? "advice better" : c->moved > 0 ? "baseline better" :
	       "not distinguishable";
}

static void baseline_text(const struct vm_series *vz, const struct vm_series *va,
			  struct sbuf *out)
{
	static const char *const cols[] = { "MEASURE", ">BASELINE", ">AFTER", ">CHANGE",
					    ">95% INTERVAL", "" };
	struct table t;
	int k;

	if (!vz) {
		sbuf_addstr(out, "  against the baseline: the VM is not in the baseline recording\n");
		return;
	}
	sbuf_addstr(out, "  against the baseline (the same VM without the advice):\n");
	table_init(&t, 6, cols);
	for (k = 0; k < M_N; k++) {
		struct cmp_stat c;

		cmp_stat_compute(vz->m[k].v, vz->m[k].n, va->m[k].v, va->m[k].n, RESAMPLES, SEED,
				 &c);
		if (!isfinite(c.change))
			continue;
		stat_cells(&t, measure_name(k), &c);
		table_cell(&t, "%s", vs_baseline(&c));
	}
	table_render(&t, out, 4, true);
	table_release(&t);
}

static void text_out(const struct run *b, const struct run *a, const struct run *z,
		     struct sbuf *out)
{
	static const char *const cols[] = { "MEASURE", ">BEFORE", ">AFTER", ">CHANGE",
					    ">95% INTERVAL", "" };
	size_t i;
	int k;

	sbuf_addf(out, "before: %s (model %s, %zu intervals, %.1f s)\n", b->path, b->p.model->name,
		  b->frames, b->seconds);
	sbuf_addf(out, "after:  %s (model %s, %zu intervals, %.1f s)\n", a->path, a->p.model->name,
		  a->frames, a->seconds);
	if (z)
		sbuf_addf(out, "baseline: %s (model %s, %zu intervals, %.1f s)\n", z->path,
			  z->p.model->name, z->frames, z->seconds);
	for (i = 0; i < b->n_vms; i++) {
		const struct vm_series *vb = &b->vms[i], *va = find_vm(a, vb->name);
		const struct diag_advice *adv = predicted(b, vb->name);
		struct cmp_stat cpi;
		struct table t;

		if (!va) {
			sbuf_addf(out, "\nVM %s: only in BEFORE (not in %s)\n", vb->name, a->path);
			continue;
		}
		sbuf_addf(out, "\nVM %s (matched by name)\n", vb->name);
		table_init(&t, 6, cols);
		for (k = 0; k < M_N; k++) {
			struct cmp_stat c;

			cmp_stat_compute(vb->m[k].v, vb->m[k].n, va->m[k].v, va->m[k].n, RESAMPLES,
					 SEED, &c);
			if (k == M_CPI)
				cpi = c;
			stat_cells(&t, measure_name(k), &c);
			if (!isfinite(c.change))
				table_cell(&t, "%s", vb->why[k] ? vb->why[k] : va->why[k] ? va->why[k] :
					   "no value on one side");
			else
				table_cell(&t, "%s%s%s", k == M_REMOTE ? vb->remote_src : "",
					   k == M_REMOTE && c.moved ? ", " : "",
					   isfinite(c.lo) && c.moved ? (c.moved > 0 ? "rose" : "fell") :
					   "");
		}
		table_render(&t, out, 2, true);
		table_release(&t);
		sbuf_addstr(out, "  predicted (BEFORE's diagnosis): ");
		if (adv && isfinite(adv->gain_pct))
			sbuf_addf(out, "%s, at most %.1f%% of its %s [%s]\n", adv->action,
				  adv->gain_pct, apply_rule_factor(adv->rule) == DIAG_FACTOR_CPU ?
				  "run + wait time (cpu_cost_pct)" : "cycles", adv->rule);
		else if (adv)
			sbuf_addf(out, "%s, gain n/a: the diagnosis had no cost to predict it "
				       "from [%s]\n", adv->action, adv->rule);
		else
			sbuf_addstr(out, "no advice for this VM\n");
		sbuf_addstr(out, "  realised: ");
		gain_text(&cpi, out);
		sbuf_addch(out, '\n');
		if (z)
			baseline_text(find_vm(z, vb->name), va, out);
	}
	for (i = 0; i < a->n_vms; i++)
		if (!find_vm(b, a->vms[i].name))
			sbuf_addf(out, "\nVM %s: only in AFTER (not in %s)\n", a->vms[i].name, b->path);
	sbuf_addstr(out, "\nintervals: means of per-interval values; 95% interval of the change by a "
			 "bootstrap over each run's intervals (docs/verification.md)\n");
}

static void json_out(const struct run *b, const struct run *a, const struct run *z,
		     struct sbuf *out)
{
	struct jw w;
	size_t i;
	int k;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_kstr(&w, "before", b->path);
	jw_kstr(&w, "after", a->path);
	jw_kstr(&w, "baseline", z ? z->path : NULL);
	jw_kuint(&w, "before_intervals", b->frames);
	jw_kuint(&w, "after_intervals", a->frames);
	if (z)
		jw_kuint(&w, "baseline_intervals", z->frames);
	jw_key(&w, "vms");
	jw_arr_begin(&w);
	for (i = 0; i < b->n_vms; i++) {
		const struct vm_series *vb = &b->vms[i], *va = find_vm(a, vb->name);
		const struct vm_series *vz = z ? find_vm(z, vb->name) : NULL;
		const struct diag_advice *adv = predicted(b, vb->name);
		struct cmp_stat cpi;
		struct sbuf g = SBUF_INIT;

		jw_obj_begin(&w);
		jw_kstr(&w, "vm", vb->name);
		jw_kstr(&w, "matched_by", va ? "name" : NULL);
		if (z)
			jw_kbool(&w, "in_baseline", vz != NULL);
		jw_key(&w, "measures");
		jw_obj_begin(&w);
		memset(&cpi, 0, sizeof(cpi));
		cpi.change = NAN;
		for (k = 0; va && k < M_N; k++) {
			struct cmp_stat c;

			cmp_stat_compute(vb->m[k].v, vb->m[k].n, va->m[k].v, va->m[k].n, RESAMPLES,
					 SEED, &c);
			if (k == M_CPI)
				cpi = c;
			jw_key(&w, measure_name(k));
			jw_obj_begin(&w);
			jw_kdouble(&w, "before", c.before);
			jw_kdouble(&w, "after", c.after);
			jw_kdouble(&w, "change", c.change);
			jw_kdouble(&w, "lo", c.lo);
			jw_kdouble(&w, "hi", c.hi);
			jw_kuint(&w, "n_before", c.n_before);
			jw_kuint(&w, "n_after", c.n_after);
			if (!isfinite(c.change))
				jw_kstr(&w, "why", vb->why[k] ? vb->why[k] : va->why[k] ? va->why[k] :
					"no value on one side");
			if (vz) {
				struct cmp_stat cz;

				cmp_stat_compute(vz->m[k].v, vz->m[k].n, va->m[k].v, va->m[k].n,
						 RESAMPLES, SEED, &cz);
				jw_key(&w, "vs_baseline");
				jw_obj_begin(&w);
				jw_kdouble(&w, "baseline", cz.before);
				jw_kdouble(&w, "change", cz.change);
				jw_kdouble(&w, "lo", cz.lo);
				jw_kdouble(&w, "hi", cz.hi);
				jw_kstr(&w, "verdict", vs_baseline(&cz));
				jw_obj_end(&w);
			}
			jw_obj_end(&w);
		}
		jw_obj_end(&w);
		jw_kstr(&w, "remote_share_quality", vb->remote_src[0] ? vb->remote_src : NULL);
		jw_key(&w, "predicted");
		if (adv) {
			jw_obj_begin(&w);
			jw_kstr(&w, "rule", adv->rule);
			jw_kstr(&w, "action", adv->action);
			jw_kdouble(&w, "gain_pct", adv->gain_pct);
			jw_kstr(&w, "gain_of", apply_rule_factor(adv->rule) == DIAG_FACTOR_CPU ?
				"run_wait_time" : "cycles");
			jw_obj_end(&w);
		} else {
			jw_null(&w);
		}
		if (va)
			gain_text(&cpi, &g);
		jw_kdouble(&w, "realised_cpi_change_pct", va && cpi.before > 0 ?
			   100 * cpi.change / cpi.before : NAN);
		jw_kstr(&w, "realised", va ? sbuf_str(&g) : "not in AFTER");
		sbuf_release(&g);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "only_after");
	jw_arr_begin(&w);
	for (i = 0; i < a->n_vms; i++)
		if (!find_vm(b, a->vms[i].name))
			jw_str(&w, a->vms[i].name);
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

static int run_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "model-path", required_argument, NULL, PO_MODEL_PATH },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts o = { .root = "/" };
	const char *baseline = NULL;
	bool json = false;
	int opt, rc = 0, r;

	while ((opt = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		if ((r = pipe_opt(&cmd_compare, &o, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		if (opt == 'j') {
			json = true;
			continue;
		}
		if (opt == 'B') {
			baseline = optarg;
			continue;
		}
		rc = cli_bad_option(&cmd_compare, argv, "j");
		goto out;
	}
	if (optind + 2 != argc) {
		rc = cli_usage_error(&cmd_compare, "two recordings are needed: BEFORE AFTER");
		goto out;
	}
	rc = compare_recordings(argv[optind], argv[optind + 1], baseline, &o, json, NULL);
out:
	pipe_opts_release(&o);
	return rc;
}

int compare_recordings(const char *before, const char *after, const char *baseline,
		       const struct pipe_opts *o, bool json, const struct host_span *host)
{
	struct run b, a, z;
	struct sbuf out = SBUF_INIT;
	bool have_a = false, have_z = false;
	int rc;

	if ((rc = open_run(&b, before, o, host)))
		goto out;
	have_a = true;
	if ((rc = open_run(&a, after, o, NULL)))
		goto out;
	if (baseline) {
		have_z = true;
		if ((rc = open_run(&z, baseline, o, NULL)))
			goto out;
	}
	if (json)
		json_out(&b, &a, baseline ? &z : NULL, &out);
	else
		text_out(&b, &a, baseline ? &z : NULL, &out);
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
out:
	sbuf_release(&out);
	if (have_z)
		close_run(&z);
	if (have_a)
		close_run(&a);
	close_run(&b);
	return rc;
}

const struct cmd cmd_compare = {
	.name = "compare",
	.args = "@files|@files",
	.fn = run_compare,
	.summary = "what changed between two recordings: costs, placement, speed, against the advice",
	.synopsis = "compare [--json] [--baseline BASE] BEFORE AFTER",
	.description =
		"Reads two recordings made by 'vmmprof record' (before and after a change, such as\n"
		"the advice of 'vmmprof diagnose') and, for every VM in both (matched by name),\n"
		"compares the mean over their intervals of its cycles per instruction, remote\n"
		"share, memory stall, CPU contention (time waiting for a CPU, % of run + wait\n"
		"time) and each factor's cost, with a 95 % interval of each\n"
		"change from a bootstrap over each run's intervals.  Beside them: the advice the\n"
		"diagnosis of BEFORE gave for the VM and the gain it predicted, and the gain that\n"
		"was realised, as the fall of cycles per instruction; where the model counts no\n"
		"instructions (no core PMU) it says the gain cannot be measured and claims none.\n"
		"VMs in only one of the two are listed.  With --baseline BASE, a recording of the\n"
		"same VMs without the advice (under the kernel's own NUMA balancing: diagnose\n"
		"--apply --balancing-baseline), AFTER is compared with BASE too, measure by measure: advice\n"
		"better, baseline better, or not distinguishable.  See docs/verification.md.",
	.options =
		"-j, --json\tthe comparison as JSON\n"
		"--baseline BASE\talso compare AFTER with BASE, the VMs without the advice\n"
		"--model-path DIR\talso look for the recorded models in DIR",
	.examples =
		"vmmprof compare before.vmmdb after.vmmdb\tdid the advice help?",
};
