/* stat_model.c - `vmmprof stat -m MODEL`: choosing the model and printing metrics and factors */
#include "cli/stat_model.h"

#include "collect/collect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compose/diag_render.h"
#include "calib/file.h"
#include "cli/cli.h"
#include "collect/collect.h"
#include "source/schedtrace.h"
#include "source/task.h"
#include "util/alloc.h"
#include "util/json.h"
#include "util/table.h"
#include "util/timeutil.h"

static int load_calibration(struct stat_model *sm, const char *path, struct vp_err *err)
{
	struct sbuf note = SBUF_INIT;
	int rc = calib_file_open(sm->plat_ok ? &sm->plat : NULL, path, cli_dirs(), &sm->cal,
				 &sm->cal_ok, &note, err);

	/* cal_note says why there is none, and is empty when there is one */
	snprintf(sm->cal_note, sizeof(sm->cal_note), "%s", sm->cal_ok ? "" : sbuf_str(&note));
	sbuf_release(&note);
	return rc;
}

#define NODE_MIGR "sched.node_migrations"

/* Does the model read sched.node_migrations, for tasks or a command (what the tracer counts)? */
static bool wants_trace(const struct stat_model *sm)
{
	size_t i;

	if (sm->scope.kind != SWS_TASKS && sm->scope.kind != SWS_COMMAND)
		return false;
	for (i = 0; i < sm->m->n_inputs; i++)
		if (sm->m->inputs[i].kind == INPUT_SOURCE && !strcmp(sm->m->inputs[i].spec, NODE_MIGR))
			return true;
	return false;
}

/* Record every context switch of the online CPUs, with the CPUs' nodes (-p/-t, a command). */
static void open_trace(struct stat_model *sm)
{
	const struct topology *t = &sm->plat.topo;
	struct vp_err e = { 0, "" };

	if (!sm->plat_ok || !t->known) {
		snprintf(sm->trace_why, sizeof(sm->trace_why), "moves between nodes need the "
			 "machine's topology: %s", sm->plat_ok ? sbuf_str(&t->reason) :
			 "no platform probe");
		return;
	}
	if (schedtrace_open(&sm->trace, "/", t->online.ids, t->online.n, &e)) {
		snprintf(sm->trace_why, sizeof(sm->trace_why), "moves between nodes are counted "
			 "from context-switch records: %s", e.msg);
		return;
	}
	schedtrace_set_nodes(sm->trace, t->cpu_node, (size_t)t->max_cpu); /* max_cpu: the arrays' size */
}

/*
 * model_machine.live: sched.node_migrations from the tracer, polled now;
 * records the kernel dropped would undercount the moves: absent then.
 */
static int live_source(void *ctx, const char *name, double *val, struct vp_err *err)
{
	struct stat_model *sm = ctx;
	uint64_t lost;

	if (strcmp(name, NODE_MIGR) || !wants_trace(sm))
		return VP_ENOTFOUND;
	if (!sm->trace)
		return vp_err_set(err, VP_EUNSUPP, "%s", sm->trace_why);
	schedtrace_poll(sm->trace, vp_now_ns(), NULL);
	lost = schedtrace_lost(sm->trace);
	if (lost)
		return vp_err_set(err, VP_EUNSUPP, "the kernel dropped %llu context-switch records "
				  "(full ring buffer): moves between nodes would be undercounted",
				  (unsigned long long)lost);
	*val = (double)schedtrace_node_moves_total(sm->trace);
	return 0;
}

/* Watch tid of process pid (tid <= 0: the process's main thread) from where it last ran. */
static void watch_task(struct stat_model *sm, int pid, int tid, uint64_t now)
{
	struct task_stat ts;
	int id = tid > 0 ? tid : pid;

	schedtrace_watch(sm->trace, id, now, -1);
	if (!task_stat_read("/", pid, tid, &ts, NULL))
		schedtrace_last_cpu(sm->trace, id, ts.processor);
}

void stat_model_watch_command(struct stat_model *sm, pid_t pid)
{
	if (!sm->trace)
		return;
	schedtrace_watch_process(sm->trace, (int)pid);
	watch_task(sm, (int)pid, 0, vp_now_ns());
}

uint64_t stat_model_poll_ns(const struct stat_model *sm)
{
	return sm->trace ? 100000000ull : 0;
}

void stat_model_poll(struct stat_model *sm)
{
	if (sm->trace)
		schedtrace_poll(sm->trace, vp_now_ns(), NULL);
}

int stat_model_open(struct stat_model *sm, const char *name, char *const *paths, size_t n_paths,
		    const char *calib_path, struct pmu_db *db, const struct swsource_scope *scope,
		    struct vp_err *err)
{
	struct model_machine mm;
	struct diags d;
	struct vp_err perr = { 0, "" };
	int ret = 0;

	memset(sm, 0, sizeof(*sm));
	calib_init(&sm->cal);
	model_dirs_build(&sm->dirs, paths, n_paths, cli_dirs());
	model_registry_init(&sm->reg, (const char *const *)sm->dirs.v, sm->dirs.n);
	sm->plat_ok = platform_probe(&sm->plat, "/", &perr) == 0;
	diags_init(&d);
	if (name) {
		if ((ret = model_registry_open(&sm->reg, name, &sm->m, &d, err)))
			goto out;
		snprintf(sm->why, sizeof(sm->why), "named with -m");
	} else {
		const struct model_entry *e;

		if (!sm->plat_ok) {
			ret = vp_err_set(err, VP_EUNSUPP, "cannot choose a model: %s", perr.msg);
			goto out;
		}
		e = model_registry_choose(&sm->reg, &sm->plat, sm->why, sizeof(sm->why), err);
		if (!e) {
			ret = err ? err->code : VP_ENOTFOUND;
			goto out;
		}
		sm->automatic = true;
		if ((ret = model_registry_open(&sm->reg, e->path, &sm->m, &d, err)))
			goto out;
	}
	memset(&mm, 0, sizeof(mm));
	mm.db = db;
	mm.root = "/";
	mm.plat = sm->plat_ok ? &sm->plat : NULL;
	if (scope) {
		sm->scope = *scope;
		mm.scope = &sm->scope;
	}
	/* the model shown after perf's defaults records nothing more than those counters */
	if (wants_trace(sm) && name)
		open_trace(sm);
	else if (wants_trace(sm))
		snprintf(sm->trace_why, sizeof(sm->trace_why), "moves between nodes are counted from "
			 "context-switch records, which the automatic model does not make: name the "
			 "model with -m");
	mm.live = live_source;
	mm.live_ctx = sm;
	if (sm->plat_ok && sm->plat.cpu.pfm_pmu[0])
		snprintf(mm.pfm_table, sizeof(mm.pfm_table), "%s", sm->plat.cpu.pfm_pmu);
	sm->run_ok = true; /* released by stat_model_close() even when init fails */
	if ((ret = model_run_init(&sm->run, sm->m, &mm, NULL, err)))
		goto out;
	calib_release(&sm->cal);
	if ((ret = load_calibration(sm, calib_path, err)))
		goto out;
	sm->in = xcalloc(sm->m->n_inputs + 1, sizeof(double));
	sm->met = xcalloc(sm->m->n_metrics + 1, sizeof(double));
out:
	diags_release(&d);
	return ret;
}

void stat_model_close(struct stat_model *sm)
{
	schedtrace_free(sm->trace);
	if (sm->run_ok)
		model_run_release(&sm->run);
	model_free(sm->m);
	model_registry_release(&sm->reg);
	model_dirs_release(&sm->dirs);
	if (sm->plat_ok)
		platform_release(&sm->plat);
	calib_release(&sm->cal);
	free(sm->in);
	free(sm->met);
	free(sm->pick_metric);
	table_notes_release(&sm->notes);
	memset(sm, 0, sizeof(*sm));
}

size_t stat_model_specs(const struct stat_model *sm, const char ***specs)
{
	const struct model *m = sm->m;
	size_t i, n = 0;

	*specs = xcalloc(m->n_inputs + 1, sizeof(char *));
	for (i = 0; i < m->n_inputs; i++)
		if (model_run_event_spec(&sm->run, i) && sm->run.av.input_ok[i])
			(*specs)[n++] = model_run_event_spec(&sm->run, i);
	return n;
}

void stat_model_bind(struct stat_model *sm, const int *map)
{
	model_run_bind(&sm->run, map);
}

void stat_model_opened(struct stat_model *sm, const struct cnt_session *s)
{
	size_t i, j;

	for (i = 0; i < s->n_events; i++) {
		const struct cnt_event *ev = &s->events[i];
		bool all_dropped = true;

		if (ev->state != CNT_EV_DROPPED)
			continue;
		/* a spec may expand to several events (uncore instances): all must be gone */
		for (j = 0; j < s->n_events; j++)
			if (s->events[j].ev.spec_index == ev->ev.spec_index &&
			    s->events[j].state != CNT_EV_DROPPED)
				all_dropped = false;
		if (all_dropped)
			model_run_dropped(&sm->run, ev->ev.spec_index, ev->why);
	}
}

void stat_model_start(struct stat_model *sm)
{
	uint64_t now = vp_now_ns();
	size_t i, k;

	/* -p/-t: the tasks' threads now, and the threads their processes start later */
	for (i = 0; sm->trace && sm->scope.kind == SWS_TASKS && i < sm->scope.n_pids; i++) {
		int *tids = NULL;
		size_t n = 0;

		schedtrace_watch_process(sm->trace, (int)sm->scope.pids[i]);
		if (!task_list("/", (int)sm->scope.pids[i], &tids, &n, NULL))
			for (k = 0; k < n; k++)
				watch_task(sm, (int)sm->scope.pids[i], tids[k], now);
		free(tids);
	}
	for (i = 0; sm->trace && sm->scope.kind == SWS_TASKS && i < sm->scope.n_tids; i++)
		watch_task(sm, (int)sm->scope.tids[i], 0, now);
	model_run_start(&sm->run);
}

/*
 * The costs: the cost stage on the counted whole as one row (a frame of one
 * thread row).  No node rows here, so the IMC and queue costs, which need
 * the serving node's state, are n/a with that reason.
 */
static void costs(struct stat_model *sm, double duration)
{
	struct collect_frame f;
	struct collect_row r;
	int fi;

	memset(&f, 0, sizeof(f));
	memset(&r, 0, sizeof(r));
	r.kind = ENT_THREAD;
	r.pid = r.tid = r.cpu = r.node = -1;
	r.inputs = sm->in;
	f.duration = duration;
	f.cpu_mhz = NAN;
	f.rows = &r;
	f.n_rows = 1;
	frame_eval_row(sm->m, sm->plat_ok ? &sm->plat : NULL, sm->cal_ok ? &sm->cal : NULL,
		       NAN, &r, duration);
	frame_cost(sm->m, sm->cal_ok ? &sm->cal : NULL, &f, NULL);
	for (fi = 0; fi < FACTOR_N; fi++) {
		sm->fv[fi].cost_cycles = r.fv[fi].cost_cycles;
		sm->fv[fi].cost_pct = r.fv[fi].cost_pct;
		sm->cost_why[fi] = r.cost.why[fi];
	}
	sm->cost = r.cost;
	free(r.metrics);
}

static void evaluate(struct stat_model *sm, const struct cnt_session *s,
		     const struct cnt_snapshot *snap, bool total)
{
	uint64_t from = total ? snap->start_ns : snap->prev_ns;

	model_run_inputs(&sm->run, s, snap, total, -1, sm->in);
	model_env_fill(&sm->env, sm->plat_ok ? &sm->plat : NULL, sm->cal_ok ? &sm->cal : NULL,
		       (double)(snap->t_ns - from) / 1e9);
	sm->env.inputs = sm->in;
	sm->env.n_inputs = sm->m->n_inputs;
	model_eval(sm->m, &sm->env, sm->met, sm->fv);
	costs(sm, (double)(snap->t_ns - from) / 1e9);
}

/* Why a value is n/a, into sb (empty when it is a number). */
static void nan_reason(struct stat_model *sm, const struct expr *e, double v, struct sbuf *sb)
{
	sbuf_reset(sb);
	if (!isnan(v) || !e)
		return;
	model_nan_reason(sm->m, &sm->run.av, e, &sm->env, sb);
	if (sm->cal_note[0] && strstr(sbuf_str(sb), "calibration"))
		sbuf_addf(sb, "; %s", sm->cal_note);
}

static void fmt_value(struct sbuf *sb, double v)
{
	if (isnan(v))
		sbuf_addstr(sb, "n/a");
	else if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
		sbuf_addf(sb, "%.4g", v);
	else
		sbuf_addf(sb, "%.4f", v);
}

/* Whether -M left metric i (f: factor f, i ignored) to print. */
static bool picked(const struct stat_model *sm, size_t i)
{
	return !sm->pick_metric || sm->pick_metric[i];
}

static bool picked_factor(const struct stat_model *sm, int f)
{
	return !sm->pick_metric || sm->pick_factor[f];
}

int stat_model_pick(struct stat_model *sm, const char *list, struct vp_err *err)
{
	const struct model *m = sm->m;
	const char *p = list;
	int ret = 0;

	free(sm->pick_metric);
	sm->pick_metric = xcalloc(m->n_metrics + 1, sizeof(bool));
	memset(sm->pick_factor, 0, sizeof(sm->pick_factor));
	while (!ret) {
		size_t len = strcspn(p, ",");
		char *name = xstrndup(p, len);
		int i = model_find_metric(m, name), f;

		for (f = 0; i < 0 && f < FACTOR_N; f++)
			if (!strcmp(name, factor_name((enum factor_id)f)))
				break;
		if (i >= 0) {
			sm->pick_metric[i] = true;
		} else if (f < FACTOR_N) {
			sm->pick_factor[f] = true;
		} else {
			struct sbuf names = SBUF_INIT;
			size_t k;

			for (k = 0; k < m->n_metrics; k++)
				sbuf_addf(&names, "%s%s", k ? ", " : "", m->metrics[k].name);
			ret = vp_err_set(err, VP_EINVAL, "-M '%s': model '%s' has no metric or factor "
					 "'%s'; its metrics: %s; its factors: locality, llc, sharing, "
					 "imc, queue", list, m->name, name, sbuf_str(&names));
			sbuf_release(&names);
		}
		free(name);
		if (!p[len])
			break;
		p += len + 1;
	}
	return ret;
}

static void print_json(struct stat_model *sm, bool total, double t, struct sbuf *out)
{
	const struct model *m = sm->m;
	struct sbuf why = SBUF_INIT;
	struct jw w;
	size_t i;
	int f;

	jw_init(&w, out, false);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", "vmmprof-stat/1");
	jw_kstr(&w, "type", total ? "model-summary" : "model-interval");
	jw_kdouble(&w, "time", t);
	jw_kstr(&w, "model", m->name);
	jw_kstr(&w, "model_chosen_by", sm->why);
	jw_key(&w, "metrics");
	jw_arr_begin(&w);
	for (i = 0; i < m->n_metrics; i++) {
		if (!picked(sm, i))
			continue;
		jw_obj_begin(&w);
		jw_kstr(&w, "name", m->metrics[i].name);
		jw_kdouble(&w, "value", sm->met[i]);
		jw_kstr(&w, "unit", m->metrics[i].unit);
		nan_reason(sm, m->metrics[i].e, sm->met[i], &why);
		if (why.len)
			jw_kstr(&w, "reason", sbuf_str(&why));
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "factors");
	jw_arr_begin(&w);
	for (f = 0; f < FACTOR_N; f++) {
		const struct model_factor *fa = &m->factors[f];
		const char *uwhy = factor_unavailable(m, &sm->run.av, (enum factor_id)f);
		bool un = uwhy != NULL;

		if (!picked_factor(sm, f))
			continue;
		jw_obj_begin(&w);
		jw_kstr(&w, "factor", factor_name((enum factor_id)f));
		jw_kstr(&w, "quality", vp_quality_name(un ? VQ_UNAVAILABLE : fa->quality));
		jw_kdouble(&w, "score", sm->fv[f].score);
		jw_kstr(&w, "severity", un ? "unavailable" : severity_name(sm->fv[f].sev));
		jw_kdouble(&w, "cost_cycles", sm->fv[f].cost_cycles);
		jw_kdouble(&w, "cost_pct", sm->fv[f].cost_pct);
		if (!un && isnan(sm->fv[f].cost_pct) && sm->cost_why[f])
			jw_kstr(&w, "cost_why", sm->cost_why[f]);
		if (un)
			jw_kstr(&w, "reason", uwhy);
		else {
			nan_reason(sm, fa->score, sm->fv[f].score, &why);
			if (why.len)
				jw_kstr(&w, "reason", sbuf_str(&why));
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
	sbuf_release(&why);
}

static void print_csv(struct stat_model *sm, double t, char sep, bool with_time, struct sbuf *out)
{
	const struct model *m = sm->m;
	size_t i;
	int f;

	for (i = 0; i < m->n_metrics; i++) {
		if (!picked(sm, i))
			continue;
		if (with_time)
			sbuf_addf(out, "%.9f%c", t, sep);
		fmt_value(out, sm->met[i]);
		sbuf_addf(out, "%c%s%c%s\n", sep, m->metrics[i].unit ? m->metrics[i].unit : "", sep,
			  m->metrics[i].name);
	}
	for (f = 0; f < FACTOR_N; f++) {
		if (!picked_factor(sm, f))
			continue;
		if (with_time)
			sbuf_addf(out, "%.9f%c", t, sep);
		fmt_value(out, sm->fv[f].score);
		sbuf_addf(out, "%c%s%cfactor:%s\n", sep,
			  factor_unavailable(m, &sm->run.av, (enum factor_id)f) ? "unavailable" :
			  severity_name(sm->fv[f].sev), sep, factor_name((enum factor_id)f));
	}
}

/*
 * A NOTE cell: the whole text in the summary of a run without intervals; with
 * -I "[k]", its number among the notes of the run, printed once (issue 23:
 * -I repeated 200-300 characters of the same reasons every interval).
 */
static void note_cell(struct stat_model *sm, struct table *tb, bool total, const char *text)
{
	if ((total && !sm->notes.n) || !text[0]) {
		table_cell(tb, "%s", text);
		return;
	}
	table_cell(tb, "[%zu]", table_note(&sm->notes, text));
}

static void print_table(struct stat_model *sm, double t, bool total, const char *target,
			struct sbuf *out)
{
	static const char *const mt[] = { "METRIC", ">VALUE", "UNIT", "NOTE" };
	static const char *const ft[] = { "FACTOR", ">SCORE", "SEVERITY", ">COST %", "QUALITY", "NOTE" };
	const struct model *m = sm->m;
	struct sbuf why = SBUF_INIT, v = SBUF_INIT;
	struct table tb;
	size_t i;
	int f;

	if (total)
		sbuf_addf(out, "\n Model '%s' for %s (%s):\n\n", m->name, target,
			  sm->automatic ? sm->why : "named with -m");
	else
		sbuf_addf(out, "# %.9f model '%s'\n", t, m->name);
	table_init(&tb, 4, mt);
	for (i = 0; i < m->n_metrics; i++) {
		if (!picked(sm, i))
			continue;
		sbuf_reset(&v);
		fmt_value(&v, sm->met[i]);
		nan_reason(sm, m->metrics[i].e, sm->met[i], &why);
		table_row(&tb);
		table_cell(&tb, "%s", m->metrics[i].name);
		table_cell(&tb, "%s", sbuf_str(&v));
		table_cell(&tb, "%s", m->metrics[i].unit ? m->metrics[i].unit : "");
		note_cell(sm, &tb, total, sbuf_str(&why));
	}
	if (tb.nrows) {
		table_render(&tb, out, 3, true);
		sbuf_addch(out, '\n');
	}
	table_release(&tb);
	table_init(&tb, 6, ft);
	for (f = 0; f < FACTOR_N; f++) {
		const struct model_factor *fa = &m->factors[f];
		const char *uwhy = factor_unavailable(m, &sm->run.av, (enum factor_id)f);

		if (!picked_factor(sm, f))
			continue;
		table_row(&tb);
		table_cell(&tb, "%s", factor_name((enum factor_id)f));
		if (uwhy) {
			table_cell(&tb, "n/a");
			table_cell(&tb, "unavailable");
			table_cell(&tb, "n/a");
			table_cell(&tb, "-");
			note_cell(sm, &tb, total, uwhy);
			continue;
		}
		sbuf_reset(&v);
		fmt_value(&v, sm->fv[f].score);
		table_cell(&tb, "%s", sbuf_str(&v));
		table_cell(&tb, "%s", severity_name(sm->fv[f].sev));
		sbuf_reset(&v);
		if (isnan(sm->fv[f].cost_pct))
			sbuf_addstr(&v, "n/a");
		else
			sbuf_addf(&v, "%.1f", sm->fv[f].cost_pct);
		table_cell(&tb, "%s", sbuf_str(&v));
		table_cell(&tb, "%s", vp_quality_name(fa->quality));
		nan_reason(sm, fa->score, sm->fv[f].score, &why);
		if (!why.len && isnan(sm->fv[f].cost_pct) && sm->cost_why[f])
			sbuf_addf(&why, "cost n/a: %s", sm->cost_why[f]);
		if (why.len)
			note_cell(sm, &tb, total, sbuf_str(&why));
		else
			table_cell(&tb, "%s", total && fa->desc ? fa->desc : "");
	}
	if (tb.nrows)
		table_render(&tb, out, 3, true);
	table_release(&tb);
	/* the notes this interval brought, once */
	for (; sm->notes.printed < sm->notes.n; sm->notes.printed++)
		sbuf_addf(out, "   [%zu] %s\n", sm->notes.printed + 1, sm->notes.v[sm->notes.printed]);
	if (sm->cost.anchor != ANCHOR_NONE && isfinite(sm->cost.cycles) && sm->cost.cycles > 0) {
		sbuf_addf(out, "\n   memory stall %.1f%% of cycles (%s)", 100 * sm->cost.budget /
			  sm->cost.cycles, sm->cost.anchor == ANCHOR_MEASURED ? "measured" :
			  "estimated from counts x latency");
		if (isfinite(sm->cost.remainder))
			sbuf_addf(out, "; interaction of the factors %.1f%%",
				  100 * sm->cost.remainder / sm->cost.cycles);
		sbuf_addf(out, "%s%s\n", sm->cost.anchor_why ? ": " : "",
			  sm->cost.anchor_why ? sm->cost.anchor_why : "");
	}
	if (total && sm->cal_note[0])
		sbuf_addf(out, "\n   note: %s: costs in cycles are n/a\n", sm->cal_note);
	sbuf_release(&why);
	sbuf_release(&v);
}

/* --metric-only: a column's header (the metric's name, its unit in brackets). */
static void metric_only_head(const struct stat_model *sm, size_t i, int f, struct sbuf *sb)
{
	sbuf_reset(sb);
	if (f >= 0)
		sbuf_addstr(sb, factor_name((enum factor_id)f));
	else if (sm->m->metrics[i].unit)
		sbuf_addf(sb, "%s[%s]", sm->m->metrics[i].name, sm->m->metrics[i].unit);
	else
		sbuf_addstr(sb, sm->m->metrics[i].name);
}

/*
 * --metric-only as perf prints it: the metrics (and factor scores) in one
 * line under a line of their names, each right-aligned in its column; with
 * -I the names once and a line per interval after its time; with -x a line
 * of names and one of values, each followed by the separator.  An n/a
 * value carries the number of its reason, each reason printed once below.
 */
static void print_metric_only(struct stat_model *sm, double t, bool total,
			      struct stat_model_out *o, struct sbuf *out)
{
	const struct model *m = sm->m;
	struct sbuf head = SBUF_INIT, v = SBUF_INIT, why = SBUF_INIT, line = SBUF_INIT;
	size_t i, k, n = m->n_metrics + FACTOR_N;

	if (!o->sep && total)
		sbuf_addf(out, "\n Performance counter stats for %s (model '%s'):\n\n",
			  o->target ? o->target : "this run", m->name);
	if (!o->header_done || total) {
		if (o->sep && !total)
			sbuf_addf(out, "time%c", o->sep);
		else if (!o->sep)
			sbuf_addstr(out, total ? " " : "#           time ");
		for (k = 0; k < n; k++) {
			int f = k < m->n_metrics ? -1 : (int)(k - m->n_metrics);

			if (f < 0 ? !picked(sm, k) : !picked_factor(sm, f))
				continue;
			metric_only_head(sm, k, f, &head);
			if (o->sep)
				sbuf_addf(out, "%s%c", sbuf_str(&head), o->sep);
			else
				sbuf_addf(out, "%*s ", (int)(head.len > 10 ? head.len : 10), sbuf_str(&head));
		}
		sbuf_addch(out, '\n');
		o->header_done = !total;
	}
	if (o->sep && !total)
		sbuf_addf(out, "%.9f%c", t, o->sep);
	else if (!o->sep)
		sbuf_addf(out, total ? " " : "%16.9f ", t);
	for (k = 0; k < n; k++) {
		int f = k < m->n_metrics ? -1 : (int)(k - m->n_metrics);
		double val = f < 0 ? sm->met[k] : sm->fv[f].score;
		const char *uwhy = f < 0 ? NULL : factor_unavailable(m, &sm->run.av, (enum factor_id)f);

		if (f < 0 ? !picked(sm, k) : !picked_factor(sm, f))
			continue;
		sbuf_reset(&v);
		fmt_value(&v, val);
		sbuf_reset(&why);
		if (uwhy)
			sbuf_addstr(&why, uwhy);
		else
			nan_reason(sm, f < 0 ? m->metrics[k].e : m->factors[f].score, val, &why);
		if (why.len)
			sbuf_addf(&v, "[%zu]", table_note(&sm->notes, sbuf_str(&why)));
		metric_only_head(sm, k, f, &head);
		if (o->sep)
			sbuf_addf(&line, "%s%c", sbuf_str(&v), o->sep);
		else
			sbuf_addf(&line, "%*s ", (int)(head.len > 10 ? head.len : 10), sbuf_str(&v));
	}
	sbuf_addf(out, "%s\n", sbuf_str(&line));
	if (!o->sep && total)
		sbuf_addf(out, "\n %17.9f seconds time elapsed\n\n", o->elapsed);
	/* the reasons of n/a, each once (CSV: as '#' lines a reader skips) */
	for (i = sm->notes.printed; i < sm->notes.n; i++)
		sbuf_addf(out, "%s[%zu] %s\n", o->sep ? "# " : "   ", i + 1, sm->notes.v[i]);
	sm->notes.printed = sm->notes.n;
	sbuf_release(&head);
	sbuf_release(&v);
	sbuf_release(&why);
	sbuf_release(&line);
}

void stat_model_print(struct stat_model *sm, const struct cnt_session *s,
		      const struct cnt_snapshot *snap, bool total,
		      struct stat_model_out *o, struct sbuf *out)
{
	double t = (double)(snap->t_ns - snap->start_ns) / 1e9;

	evaluate(sm, s, snap, total);
	if (o->metric_only && !o->json)
		print_metric_only(sm, t, total, o, out);
	else if (o->json)
		print_json(sm, total, t, out);
	else if (o->sep)
		print_csv(sm, t, o->sep, !total, out);
	else
		print_table(sm, t, total, o->target ? o->target : "this run", out);
}
