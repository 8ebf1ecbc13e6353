/* stat_print.c - `vmmprof stat`'s output: its rows, perf stat's table and -x CSV, --json lines, -r's mean and spread */
#include "cli/stat.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "pmu/counter.h"
#include "pmu/event.h"
#include "pmu/statfmt.h"
#include "util/alloc.h"
#include "util/cpulist.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/sbuf.h"
#include "util/runstat.h"
#include "util/timeutil.h"

const char *const stat_aggr_flag[] = { "", "-A", "--per-core", "--per-socket", "--per-node",
					 "--per-die", "--per-cache" };

/* ---- formatting ---- */

static bool is_sw(const struct evdesc *ev, uint64_t config)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config == config;
}

/* Build the output rows from the session. */
struct row *stat_make_rows(const struct stat_opts *o, const struct cnt_session *s, size_t *n_out)
{
	struct row *rows = xcalloc(o->n_specs + s->n_events + 1, sizeof(*rows));
	size_t n = 0, i, j;

	for (i = 0; i < o->n_specs; i++) {
		bool any = false;

		for (j = 0; j < s->n_events; j++) {
			const struct cnt_event *e = &s->events[j];
			struct row *r = NULL;
			size_t k;

			if (e->ev.spec_index != (int)i)
				continue;
			any = true;
			if (e->ev.uncore)
				for (k = 0; k < n && !r; k++)
					if (rows[k].spec == (int)i && rows[k].event < 0)
						r = &rows[k];
			if (r) {
				r->dropped &= e->state == CNT_EV_DROPPED;
				if (!r->why && e->why)
					r->why = xstrdup(e->why);
				continue;
			}
			r = &rows[n++];
			r->name = xstrdup(e->ev.uncore ? o->specs[i].text : e->ev.name);
			r->event = e->ev.uncore ? -1 : (int)j;
			r->spec_index = (int)i;
			r->spec = (int)i;
			r->cgroup = o->specs[i].cgroup;
			r->dropped = e->state == CNT_EV_DROPPED;
			r->why = e->why ? xstrdup(e->why) : NULL;
			r->task_clock = is_sw(&e->ev, PERF_COUNT_SW_TASK_CLOCK);
			r->clock = !e->ev.unit[0] && (r->task_clock || is_sw(&e->ev, PERF_COUNT_SW_CPU_CLOCK));
			r->scale = e->ev.scale;
			r->unit = xstrdup(r->clock ? "msec" : e->ev.unit);
		}
		if (!any) {       /* a default event this machine cannot even resolve */
			struct row *r = &rows[n++];

			r->name = xstrdup(o->specs[i].text);
			r->event = -1;
			r->spec_index = (int)i;
			r->spec = (int)i;
			r->cgroup = o->specs[i].cgroup;
			r->dropped = true;
			r->why = o->specs[i].resolve_msg ? xstrdup(o->specs[i].resolve_msg) : NULL;
			r->unit = xstrdup("");
		}
	}
	*n_out = n;
	return rows;
}

void stat_free_rows(struct row *rows, size_t n)
{
	size_t i;

	for (i = 0; rows && i < n; i++) {
		free(rows[i].name);
		free(rows[i].why);
		free(rows[i].unit);
	}
	free(rows);
}

/* One row's sum over the run (total) or the interval, on the entities that where picks. */
static int row_value_n(const struct cnt_session *s, const struct cnt_snapshot *snap, bool total,
		       const struct row *r, const struct cnt_filter *where, struct cnt_value *v)
{
	struct cnt_filter f = *where;

	if (r->event >= 0)
		f.event = r->event;
	else
		f.spec_index = r->spec_index;
	return cnt_sum(s, snap, total, &f, v);
}

static void row_value(const struct cnt_session *s, const struct cnt_snapshot *snap, bool total,
		      const struct row *r, const struct cnt_filter *where, struct cnt_value *v)
{
	row_value_n(s, snap, total, r, where, v);
}

/*
 * The derived column perf prints after '#': CPUs utilized, or a rate per
 * task-clock second of the same cgroup.  vals[i] is row i's scaled count
 * (nanoseconds for clocks; NaN when not counted) over the same period and
 * entity as rows[k], so one function serves a run, an interval, a thread
 * and the means of -r.
 */
static bool row_metric(const struct row *rows, size_t n, size_t k, const double *vals,
		       double elapsed_ns, double *m, const char **unit)
{
	const struct row *r = &rows[k];
	double value = vals[k];
	size_t i;

	if (isnan(value) || r->dropped)
		return false;
	if (r->clock) {
		if (!(elapsed_ns > 0))
			return false;
		*m = value / elapsed_ns;
		*unit = "CPUs utilized";
		return true;
	}
	if (r->unit && r->unit[0])
		return false;
	for (i = 0; i < n; i++) {
		if (!rows[i].task_clock || rows[i].dropped ||
		    !((!rows[i].cgroup && !r->cgroup) ||
		      (rows[i].cgroup && r->cgroup && !strcmp(rows[i].cgroup, r->cgroup))))
			continue;
		if (!(vals[i] > 0))
			return false;
		*m = value / (vals[i] / 1e9);
		*unit = "/sec";
		if (*m >= 1e9) {
			*m /= 1e9;
			*unit = "G/sec";
		} else if (*m >= 1e6) {
			*m /= 1e6;
			*unit = "M/sec";
		} else if (*m >= 1e3) {
			*m /= 1e3;
			*unit = "K/sec";
		}
		return true;
	}
	return false;
}

static void time_prefix(struct sbuf *out, uint64_t ns, char sep)
{
	sbuf_addf(out, "%6llu.%09llu", (unsigned long long)(ns / 1000000000ull),
		  (unsigned long long)(ns % 1000000000ull));
	if (sep)
		sbuf_addch(out, sep);
}

/* Every row's value on the entities where picks into v[] and its scaled count into vals[]. */
static void row_values(const struct cnt_session *s, const struct cnt_snapshot *snap, bool total,
		       const struct row *rows, size_t n, const struct cnt_filter *where,
		       struct cnt_value *v, double *vals)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct cnt_value z = { 0, 0, 0, NAN, NAN };

		v[i] = z;
		if (!rows[i].dropped)
			row_value(s, snap, total, &rows[i], where, &v[i]);
		vals[i] = v[i].value;
	}
}

/* The --per-thread entities: the session's threads, in its order. */
static bool per_thread_entity(const struct stat_opts *o, const struct cnt_session *s, size_t e)
{
	return o->per_thread && s->entities[e].kind == CNT_ENT_THREAD;
}

static int cmp_int(int a, int b)
{
	return (a > b) - (a < b);
}

struct aggr_sort {
	const struct stat_opts *o;
	const struct cnt_session *s;
	int mode;
};

/* --per-cache: the id of the cache of a CPU, -1 when the topology does not place it. */
static int cache_of(const struct stat_opts *o, int cpu)
{
	return cpu >= 0 && cpu < o->n_cpu_cache ? o->cpu_cache[cpu] : -1;
}

/* perf's order of its aggregates: by node, socket, then die and core, then CPU. */
static int cmp_cpu_entity(const void *pa, const void *pb, void *ctx)
{
	const struct aggr_sort *as = ctx;
	const struct cnt_entity *a = &as->s->entities[*(const size_t *)pa];
	const struct cnt_entity *b = &as->s->entities[*(const size_t *)pb];
	int mode = as->mode, c = 0;

	if (mode == AGGR_NODE)
		c = cmp_int(a->node, b->node);
	if (!c && (mode == AGGR_SOCKET || mode == AGGR_CORE || mode == AGGR_DIE ||
		   mode == AGGR_CACHE))
		c = cmp_int(a->package, b->package);
	if (!c && (mode == AGGR_CORE || mode == AGGR_DIE || mode == AGGR_CACHE))
		c = cmp_int(a->die, b->die);
	if (!c && mode == AGGR_CORE)
		c = cmp_int(a->core, b->core);
	if (!c && mode == AGGR_CACHE)
		c = cmp_int(cache_of(as->o, a->cpu), cache_of(as->o, b->cpu));
	return c ? c : cmp_int(a->cpu, b->cpu);
}

/*
 * The groups of CPUs that -A, --per-core, --per-socket and --per-node print a
 * line for, in perf's order and with its labels; *out is freed by the caller.
 * A CPU whose node or core sysfs does not tell is a group of its own ("N?"),
 * never merged into another.
 */
static size_t aggr_groups(const struct stat_opts *o, const struct cnt_session *s,
			  struct aggr_group **out)
{
	size_t *cpus = xcalloc(s->n_entities + 1, sizeof(*cpus));
	struct aggr_group *g = xcalloc(s->n_entities + 1, sizeof(*g));
	size_t n_cpus = 0, n = 0, i;
	int mode = o->aggr;
	struct aggr_sort as = { o, s, mode };

	for (i = 0; i < s->n_entities; i++)
		if (s->entities[i].kind == CNT_ENT_CPU && s->entities[i].state != CNT_ENT_OFFLINE)
			cpus[n_cpus++] = i;
	qsort_r(cpus, n_cpus, sizeof(*cpus), cmp_cpu_entity, &as);
	for (i = 0; i < n_cpus; i++) {
		const struct cnt_entity *e = &s->entities[cpus[i]];
		struct cnt_filter f = CNT_FILTER_ANY;
		char id[40];
		int width;
		bool alone;                /* -A, or a key sysfs does not give: that CPU alone */

		switch (mode) {
		case AGGR_NODE:
			f.node = e->node;
			snprintf(id, sizeof(id), e->node >= 0 ? "N%d" : "N?", e->node);
			width = 6;
			alone = e->node < 0;
			break;
		case AGGR_SOCKET:
			f.package = e->package;
			snprintf(id, sizeof(id), e->package >= 0 ? "S%d" : "S?", e->package);
			width = 6;
			alone = e->package < 0;
			break;
		case AGGR_DIE:     /* perf's "S%d-D%d" in 12 columns */
			f.package = e->package;
			f.die = e->die;
			snprintf(id, sizeof(id), "S%d-D%d", e->package, e->die < 0 ? 0 : e->die);
			width = 12;
			alone = e->package < 0;
			break;
		case AGGR_CACHE:   /* perf's "S%d-D%d-L%d-ID%d" in 22 columns */
			f.package = e->package;
			f.die = e->die;
			snprintf(id, sizeof(id), "S%d-D%d-L%d-ID%d", e->package, e->die < 0 ? 0 : e->die,
				 o->cache_found, cache_of(o, e->cpu));
			width = 22;
			alone = e->package < 0 || cache_of(o, e->cpu) < 0;
			if (!alone && n && !strcmp(g[n - 1].id, id)) {
				g[n - 1].cpus++;
				continue;
			}
			break;
		case AGGR_CORE:
			f.package = e->package;
			f.die = e->die;
			f.core = e->core;
			snprintf(id, sizeof(id), "S%d-D%d-C%d", e->package, e->die < 0 ? 0 : e->die,
				 e->core);
			width = (int)(strchr(id, 'C') - id) + 1 + 8;
			alone = e->package < 0 || e->core < 0;
			break;
		default:
			snprintf(id, sizeof(id), "CPU%d", e->cpu);
			width = 10;
			alone = true;
			break;
		}
		if (alone) {
			f = (struct cnt_filter)CNT_FILTER_ANY;
			f.entity = (int)cpus[i];
		} else if (n && !strcmp(g[n - 1].id, id)) {
			g[n - 1].cpus++;
			continue;
		}
		snprintf(g[n].id, sizeof(g[n].id), "%s", id);
		g[n].cache = mode == AGGR_CACHE && !alone ? cache_of(o, e->cpu) : -1;
		g[n].width = width;
		g[n].cpus = mode == AGGR_NONE ? -1 : 1;
		g[n].f = f;
		n++;
	}
	free(cpus);
	*out = g;
	return n;
}

/*
 * --per-cache: every row's value over the CPUs of one cache (of g's package
 * and die), summed as cnt_sum() sums (raw, enabled and running added, then
 * scaled as one counter).
 */
static void cache_values(const struct stat_opts *o, const struct cnt_session *s,
			 const struct cnt_snapshot *snap, bool total, const struct row *rows,
			 size_t n, const struct aggr_group *g, struct cnt_value *v, double *vals)
{
	size_t i, e;

	for (i = 0; i < n; i++) {
		struct cnt_value sum = { 0, 0, 0, NAN, NAN };
		int got = 0;

		for (e = 0; !rows[i].dropped && e < s->n_entities; e++) {
			const struct cnt_entity *en = &s->entities[e];
			struct cnt_filter one = CNT_FILTER_ANY;
			struct cnt_value x;

			if (en->kind != CNT_ENT_CPU || en->state == CNT_ENT_OFFLINE ||
			    cache_of(o, en->cpu) != g->cache || en->package != g->f.package ||
			    (en->die < 0 ? 0 : en->die) != (g->f.die < 0 ? 0 : g->f.die))
				continue;
			one.entity = (int)e;
			if (!row_value_n(s, snap, total, &rows[i], &one, &x))
				continue;
			sum.raw += x.raw;
			sum.enabled += x.enabled;
			sum.running += x.running;
			got++;
		}
		if (got)
			cnt_value_scale(&sum, rows[i].scale > 0 && isfinite(rows[i].scale) ?
					rows[i].scale : 1.0);
		v[i] = sum;
		vals[i] = sum.value;
	}
}

/*
 * Every row's values: summed over the entities, with --per-thread one set
 * per entity (threads only are filled), or one set per group of CPUs
 * (-A, --per-core/socket/node), at [set * n + row].  Returns the number of
 * sets; free() *v and *vals (and *groups, NULL unless aggregated).
 */
static size_t entity_values(const struct stat_opts *o, const struct cnt_session *s,
			    const struct cnt_snapshot *snap, bool total, const struct row *rows,
			    size_t n, struct cnt_value **v, double **vals,
			    struct aggr_group **groups)
{
	size_t n_ent = o->per_thread ? s->n_entities : 1, e;
	struct cnt_filter all = CNT_FILTER_ANY;

	*groups = NULL;
	if (o->aggr)
		n_ent = aggr_groups(o, s, groups);
	*v = xcalloc(n * n_ent + 1, sizeof(**v));
	*vals = xcalloc(n * n_ent + 1, sizeof(double));
	for (e = 0; e < n_ent; e++) {
		struct cnt_filter one = CNT_FILTER_ANY;

		one.entity = (int)e;
		if (o->aggr && (*groups)[e].cache >= 0)
			cache_values(o, s, snap, total, rows, n, &(*groups)[e], *v + e * n,
				     *vals + e * n);
		else if (o->aggr)
			row_values(s, snap, total, rows, n, &(*groups)[e].f, *v + e * n,
				   *vals + e * n);
		else if (!o->per_thread || per_thread_entity(o, s, e))
			row_values(s, snap, total, rows, n, o->per_thread ? &one : &all,
				   *v + e * n, *vals + e * n);
	}
	return n_ent;
}

static void fill_line(struct stat_line *l, const struct stat_opts *o, const struct row *rows,
		      size_t n, size_t i, const struct cnt_value *v, const double *vals,
		      double elapsed)
{
	const struct row *r = &rows[i];

	memset(l, 0, sizeof(*l));
	l->name = r->name;
	l->cgroup = r->cgroup;
	l->unit = r->unit;
	l->not_supported = r->dropped;
	l->value = NAN;
	l->pct = NAN;
	l->decimals = r->clock || (r->unit && r->unit[0]) ? 2 : 0;
	l->interval = o->interval_ms > 0;
	if (!r->dropped) {
		l->value = r->clock ? v->value / 1e6 : v->value;
		l->pct = v->pct;
		l->running_ns = v->running;
		l->has_metric = row_metric(rows, n, i, vals, elapsed, &l->metric, &l->metric_unit);
	}
}

/*
 * Rows of one snapshot as perf's table or CSV; with --per-thread one line
 * per event and thread, event by event as perf orders them.
 */
static void print_rows(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
		       const struct cnt_snapshot *snap, bool total, const struct row *rows, size_t n,
		       char *const *comms)
{
	double elapsed = (double)(total ? snap->t_ns - snap->start_ns : snap->t_ns - snap->prev_ns);
	struct cnt_value *v;
	double *vals;
	struct aggr_group *g;
	size_t n_ent = entity_values(o, s, snap, total, rows, n, &v, &vals, &g);
	bool any_cg = false;
	size_t i, e, k;

	for (i = 0; i < n; i++)
		any_cg |= rows[i].cgroup != NULL;
	/* event by event; perf's --per-core/socket/node print aggregate by aggregate */
	for (k = 0; k < n * n_ent; k++) {
		bool by_aggr = o->aggr && o->aggr != AGGR_NONE;
		struct stat_line l;

		i = by_aggr ? k % n : k / n_ent;
		e = by_aggr ? k / n : k % n_ent;
		if (o->per_thread && !per_thread_entity(o, s, e))
			continue;
		fill_line(&l, o, rows, n, i, &v[e * n + i], vals + e * n, elapsed);
		l.t_ns = snap->t_ns - snap->start_ns;
		if (o->per_thread) {
			l.tid = (int)s->entities[e].tid;
			l.comm = comms ? comms[e] : NULL;
		}
		if (g) {
			l.aggr_id = g[e].id;
			l.aggr_width = g[e].width;
			l.aggr_cpus = g[e].cpus;
		}
		stat_format_line(out, &l, o->sep, o->big_num, any_cg);
	}
	free(v);
	free(vals);
	free(g);
}

static void json_event(struct jw *w, const struct row *rows, size_t n, size_t i,
		       const struct cnt_value *v, const double *vals, double elapsed)
{
	const struct row *r = &rows[i];
	const char *munit = NULL;
	double m = 0;

	jw_kstr(w, "event", r->name);
	jw_kstr(w, "cgroup", r->cgroup);
	jw_kstr(w, "state", r->dropped ? "not supported" :
		isnan(v->value) ? "not counted" : "counted");
	jw_kdouble(w, "value", r->clock ? v->value / 1e6 : v->value);
	jw_kstr(w, "unit", r->unit ? r->unit : "");
	jw_kdouble(w, "count", v->value);
	jw_kuint(w, "raw", v->raw);
	jw_kuint(w, "enabled_ns", v->enabled);
	jw_kuint(w, "running_ns", v->running);
	jw_kdouble(w, "pct_running", v->pct);
	if (row_metric(rows, n, i, vals, elapsed, &m, &munit)) {
		jw_kdouble(w, "metric", m);
		jw_kstr(w, "metric_unit", munit);
	} else {
		jw_key(w, "metric");
		jw_null(w);
		jw_kstr(w, "metric_unit", NULL);
	}
	if (r->dropped)
		jw_kstr(w, "why", r->why);
}

static void json_rows(struct jw *w, const struct stat_opts *o, const struct cnt_session *s,
		      const struct cnt_snapshot *snap, bool total, const struct row *rows, size_t n,
		      char *const *comms)
{
	double elapsed = (double)(total ? snap->t_ns - snap->start_ns : snap->t_ns - snap->prev_ns);
	struct cnt_value *v;
	double *vals;
	struct aggr_group *g;
	size_t n_ent = entity_values(o, s, snap, total, rows, n, &v, &vals, &g);
	size_t i, e;

	jw_key(w, "events");
	jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		for (e = 0; e < n_ent; e++) {
			if (o->per_thread && !per_thread_entity(o, s, e))
				continue;
			jw_obj_begin(w);
			json_event(w, rows, n, i, &v[e * n + i], vals + e * n, elapsed);
			if (o->per_thread) {
				struct sbuf t = SBUF_INIT;

				sbuf_addf(&t, "%s-%d", comms && comms[e] ? comms[e] : "",
					  (int)s->entities[e].tid);
				jw_kstr(w, "thread", sbuf_str(&t));
				jw_kint(w, "tid", s->entities[e].tid);
				jw_kint(w, "pid", s->entities[e].pid);
				sbuf_release(&t);
			}
			if (g) {   /* perf's -j: "node", "socket", "core" or "cpu" */
				static const char *const key[] = { "", "cpu", "core", "socket", "node",
								   "die", "cache" };

				jw_kstr(w, key[o->aggr], g[e].id);
				if (g[e].cpus >= 0)
					jw_kint(w, "cpus", g[e].cpus);
			}
			jw_obj_end(w);
		}
	}
	jw_arr_end(w);
	free(v);
	free(vals);
	free(g);
}

static void entity_desc(struct sbuf *out, const struct cnt_entity *e)
{
	switch (e->kind) {
	case CNT_ENT_CPU:
		sbuf_addf(out, "CPU %d", e->cpu);
		break;
	case CNT_ENT_THREAD:
		sbuf_addf(out, "thread %d (process %d)", (int)e->tid, (int)e->pid);
		break;
	case CNT_ENT_CGROUP:
		sbuf_addf(out, "cgroup '%s'", e->cgroup);
		break;
	}
}

static void json_entity(struct jw *w, const struct cnt_session *s, const struct cnt_entity *e)
{
	jw_obj_begin(w);
	jw_kstr(w, "kind", e->kind == CNT_ENT_CPU ? "cpu" : e->kind == CNT_ENT_THREAD ? "thread" : "cgroup");
	if (e->kind == CNT_ENT_CPU)
		jw_kint(w, "cpu", e->cpu);
	if (e->kind == CNT_ENT_THREAD) {
		jw_kint(w, "tid", e->tid);
		jw_kint(w, "pid", e->pid);
	}
	if (e->kind == CNT_ENT_CGROUP)
		jw_kstr(w, "cgroup", e->cgroup);
	if (e->state == CNT_ENT_ENDED)
		jw_kdouble(w, "time", (double)(e->ended_ns - (e->ended_ns > s->start_ns ? s->start_ns : e->ended_ns)) / 1e9);
	jw_obj_end(w);
}

void stat_target_desc(struct sbuf *out, const struct stat_opts *o)
{
	size_t i;

	if (o->n_pids) {
		sbuf_addstr(out, "process id '");
		for (i = 0; i < o->n_pids; i++)
			sbuf_addf(out, "%s%d", i ? "," : "", (int)o->pids[i]);
		sbuf_addch(out, '\'');
	} else if (o->n_tids) {
		sbuf_addstr(out, "thread id '");
		for (i = 0; i < o->n_tids; i++)
			sbuf_addf(out, "%s%d", i ? "," : "", (int)o->tids[i]);
		sbuf_addch(out, '\'');
	} else if (o->cpus.n) {
		sbuf_addstr(out, "'CPU(s) ");
		cpulist_format(&o->cpus, out);
		sbuf_addch(out, '\'');
	} else if (o->all_cpus || o->cgroup_all || o->nr_cgroups || !o->cmd) {
		sbuf_addstr(out, "'system wide'");
	} else {
		sbuf_addch(out, '\'');
		for (i = 0; o->cmd[i]; i++)
			sbuf_addf(out, "%s%s", i ? " " : "", o->cmd[i]);
		sbuf_addch(out, '\'');
	}
}

/* Notes under the table: what was not counted and why, what ended, what vmmprof does instead. */
void stat_print_notes(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			const struct row *rows, size_t n, bool child_target, uint64_t end_ns)
{
	bool hw_default_missing = false, header = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!rows[i].dropped)
			continue;
		if (!header)
			sbuf_addstr(out, " Not counted:\n");
		header = true;
		sbuf_addf(out, "   %s: %s\n", rows[i].name, rows[i].why ? rows[i].why : "not supported");
		hw_default_missing |= o->specs[rows[i].spec].is_default;
	}
	if (!s)
		return;     /* -n: nothing counted */
	if (hw_default_missing)
		sbuf_addstr(out, "   vmmprof instead: CPU time comes from task-clock, and the NUMA "
			    "factors that need cycles or\n   instructions use software sources "
			    "(sched tracepoints for vCPU residency, numastat and\n   numa_maps for "
			    "memory locality), each labelled with its source.\n");
	for (i = 0; i < s->n_entities; i++) {
		const struct cnt_entity *e = &s->entities[i];
		struct sbuf d = SBUF_INIT;

		/* the command's own end, or an end that ended the run, is no news */
		if (e->state == CNT_ENT_LIVE ||
		    (e->state == CNT_ENT_ENDED && (child_target || e->ended_ns >= end_ns)))
			continue;
		entity_desc(&d, e);
		if (e->state == CNT_ENT_OFFLINE)
			sbuf_addf(out, " Note: %s is offline: not counted\n", sbuf_str(&d));
		else
			sbuf_addf(out, " Note: %s ended after %.3f s: its counts stop there\n",
				  sbuf_str(&d), (double)(e->ended_ns - s->start_ns) / 1e9);
		sbuf_release(&d);
	}
}

int stat_flush_out(FILE *f, struct sbuf *sb)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, f) != sb->len)
		return -1;
	sbuf_reset(sb);
	return fflush(f) ? -1 : 0;
}

static void json_begin(struct jw *w, struct sbuf *out, const char *type)
{
	jw_init(w, out, false);
	jw_obj_begin(w);
	jw_kstr(w, "schema", "vmmprof-stat/1");
	jw_kstr(w, "type", type);
}

static void json_ended_now(struct jw *w, const struct cnt_session *s, const bool *was_live)
{
	size_t i;

	jw_key(w, "ended");
	jw_arr_begin(w);
	for (i = 0; i < s->n_entities; i++)
		if (was_live[i] && s->entities[i].state == CNT_ENT_ENDED)
			json_entity(w, s, &s->entities[i]);
	jw_arr_end(w);
}

/*
 * -n with -x: the elapsed time as perf prints its duration_time event, the
 * one figure a null run has (with -r the mean, its spread in pct).
 */
static void null_csv_line(struct sbuf *out, const struct stat_opts *o, double seconds,
			  double noise_pct)
{
	struct stat_line l;

	memset(&l, 0, sizeof(l));
	l.name = "duration_time";
	l.unit = "ns";
	l.value = seconds * 1e9;
	l.pct = 100;
	l.running_ns = (uint64_t)(seconds * 1e9);
	l.noise = !isnan(noise_pct);
	l.noise_pct = noise_pct;
	stat_format_line(out, &l, o->sep, false, false);
}

/*
 * -v: each counter's raw count, enabled and running nanoseconds as perf -v
 * prints them ("cycles: 4936 4000 4000" summed; with -vv first
 * "cycles: 3: 1234 1000 1000" per CPU or thread), over the run (total) or
 * the interval.
 */
static void verbose_counts(struct sbuf *out, const struct cnt_session *s,
			   const struct cnt_snapshot *snap, bool total, const struct row *rows,
			   size_t n, int level)
{
	struct cnt_filter all = CNT_FILTER_ANY;
	size_t i, e;

	for (i = 0; i < n; i++) {
		struct cnt_value v;

		if (rows[i].dropped)
			continue;
		for (e = 0; level > 1 && e < s->n_entities; e++) {
			const struct cnt_entity *en = &s->entities[e];
			struct cnt_filter one = CNT_FILTER_ANY;

			one.entity = (int)e;
			if (!row_value_n(s, snap, total, &rows[i], &one, &v))
				continue;
			if (en->kind == CNT_ENT_CPU)
				sbuf_addf(out, "%s: %d: ", rows[i].name, en->cpu);
			else if (en->kind == CNT_ENT_THREAD)
				sbuf_addf(out, "%s: %d: ", rows[i].name, (int)en->tid);
			else
				sbuf_addf(out, "%s: %s: ", rows[i].name, en->cgroup);
			sbuf_addf(out, "%llu %llu %llu\n", (unsigned long long)v.raw,
				  (unsigned long long)v.enabled, (unsigned long long)v.running);
		}
		row_value(s, snap, total, &rows[i], &all, &v);
		sbuf_addf(out, "%s: %llu %llu %llu\n", rows[i].name, (unsigned long long)v.raw,
			  (unsigned long long)v.enabled, (unsigned long long)v.running);
	}
}

/* -v's lines: before the table, or on stderr where -x or --json is read by a program. */
static void print_verbose(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			  const struct cnt_snapshot *snap, bool total, const struct row *rows,
			  size_t n)
{
	struct sbuf v = SBUF_INIT;

	if (!o->verbose || !s)
		return;
	verbose_counts(&v, s, snap, total, rows, n, o->verbose);
	if (o->sep || o->json)
		fputs(sbuf_str(&v), stderr);
	else
		sbuf_addstr(out, sbuf_str(&v));
	sbuf_release(&v);
}

void stat_print_interval(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			   const struct cnt_snapshot *snap, const struct row *rows, size_t n,
			   const bool *was_live, bool *header_done, char *const *comms)
{
	size_t i;

	if (o->json) {
		struct jw w;

		json_begin(&w, out, "interval");
		jw_kdouble(&w, "time", (double)(snap->t_ns - snap->start_ns) / 1e9);
		jw_kdouble(&w, "interval", (double)(snap->t_ns - snap->prev_ns) / 1e9);
		json_rows(&w, o, s, snap, false, rows, n, comms);
		json_ended_now(&w, s, was_live);
		jw_obj_end(&w);
		sbuf_addch(out, '\n');
		return;
	}
	if (!o->sep && !*header_done) {
		if (o->per_thread) /* perf's "#%15s %16s-%-7s" */
			sbuf_addstr(out, "#           time             comm-pid                  counts unit events\n");
		else if (o->aggr == AGGR_NODE)
			sbuf_addstr(out, "#           time node   cpus             counts unit events\n");
		else if (o->aggr == AGGR_SOCKET)
			sbuf_addstr(out, "#           time socket cpus             counts unit events\n");
		else if (o->aggr == AGGR_CORE)
			sbuf_addstr(out, "#           time core         cpus             counts unit events\n");
		else if (o->aggr == AGGR_DIE)
			sbuf_addstr(out, "#           time die          cpus             counts unit events\n");
		else if (o->aggr == AGGR_CACHE)
			sbuf_addstr(out, "#           time cache                  cpus             counts unit events\n");
		else if (o->aggr == AGGR_NONE)
			sbuf_addstr(out, "#           time CPU                    counts unit events\n");
		else
			sbuf_addstr(out, "#           time             counts unit events\n");
	}
	*header_done = true;
	print_verbose(out, o, s, snap, false, rows, n);
	print_rows(out, o, s, snap, false, rows, n, comms);
	for (i = 0; i < s->n_entities; i++) {
		struct sbuf d = SBUF_INIT;

		if (!(was_live[i] && s->entities[i].state == CNT_ENT_ENDED))
			continue;
		entity_desc(&d, &s->entities[i]);
		time_prefix(out, snap->t_ns - snap->start_ns, o->sep);
		sbuf_addf(out, " # %s ended: its counts stop here\n", sbuf_str(&d));
		sbuf_release(&d);
	}
}

static double ru_seconds(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

void stat_print_summary(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			  const struct cnt_snapshot *snap, const struct row *rows, size_t n,
			  const struct child *ch, bool child_target, char *const *comms)
{
	double elapsed = (double)(snap->t_ns - snap->start_ns) / 1e9;
	struct sbuf tgt = SBUF_INIT;
	size_t i;

	stat_target_desc(&tgt, o);
	print_verbose(out, o, s, snap, true, rows, n);
	if (o->json) {
		struct jw w;

		json_begin(&w, out, "summary");
		jw_kstr(&w, "target", sbuf_str(&tgt));
		jw_kdouble(&w, "elapsed", elapsed);
		if (ch->pid > 0 && ch->done) {
			jw_kdouble(&w, "user", ru_seconds(&ch->ru.ru_utime));
			jw_kdouble(&w, "sys", ru_seconds(&ch->ru.ru_stime));
		}
		json_rows(&w, o, s, snap, true, rows, n, comms);
		jw_key(&w, "ended");
		jw_arr_begin(&w);
		for (i = 0; s && i < s->n_entities; i++)
			if (s->entities[i].state == CNT_ENT_ENDED)
				json_entity(&w, s, &s->entities[i]);
		jw_arr_end(&w);
		jw_key(&w, "offline");
		jw_arr_begin(&w);
		for (i = 0; s && i < s->n_entities; i++)
			if (s->entities[i].state == CNT_ENT_OFFLINE)
				json_entity(&w, s, &s->entities[i]);
		jw_arr_end(&w);
		jw_obj_end(&w);
		sbuf_addch(out, '\n');
	} else if (o->sep) {
		print_rows(out, o, s, snap, true, rows, n, comms);
		if (o->null_run)
			null_csv_line(out, o, elapsed, NAN);
	} else {
		sbuf_addf(out, "\n Performance counter stats for %s:\n\n", sbuf_str(&tgt));
		print_rows(out, o, s, snap, true, rows, n, comms);
		/* perf's null run has no table, and one blank line less */
		sbuf_addf(out, "%s %17.9f seconds time elapsed\n", o->null_run ? "" : "\n", elapsed);
		if (ch->pid > 0 && ch->done)
			sbuf_addf(out, "\n %17.9f seconds user\n %17.9f seconds sys\n",
				  ru_seconds(&ch->ru.ru_utime), ru_seconds(&ch->ru.ru_stime));
		sbuf_addch(out, '\n');
		stat_print_notes(out, o, s, rows, n, child_target, snap->t_ns);
	}
	sbuf_release(&tgt);
}

void stat_repeat_init(struct repeat *rp, int asked, size_t n_rows)
{
	memset(rp, 0, sizeof(*rp));
	rp->asked = asked;
	rp->n_rows = n_rows;
	rp->rs = xcalloc(n_rows + 1, sizeof(*rp->rs));
	rp->runs = xcalloc(n_rows * (size_t)asked + 1, sizeof(double));
	rp->sum = xcalloc(n_rows + 1, sizeof(*rp->sum));
	rp->elapsed_runs = xcalloc((size_t)asked + 1, sizeof(double));
	rp->status = xcalloc((size_t)asked + 1, sizeof(int));
}

void stat_repeat_release(struct repeat *rp)
{
	free(rp->rs);
	free(rp->runs);
	free(rp->sum);
	free(rp->elapsed_runs);
	free(rp->status);
	memset(rp, 0, sizeof(*rp));
}

void stat_repeat_add(struct repeat *rp, const struct row *rows, const struct stat_run *r)
{
	struct cnt_filter all = CNT_FILTER_ANY;
	int k = rp->done++;
	size_t i;

	for (i = 0; i < rp->n_rows; i++) {
		struct cnt_value v = { 0, 0, 0, NAN, NAN };

		if (!rows[i].dropped)
			row_value(r->s, &r->snap, true, &rows[i], &all, &v);
		rp->runs[i * (size_t)rp->asked + (size_t)k] = v.value;
		if (!isnan(v.value))
			runstat_add(&rp->rs[i], v.value);
		rp->sum[i].raw += v.raw;
		rp->sum[i].enabled += v.enabled;
		rp->sum[i].running += v.running;
	}
	rp->elapsed_runs[k] = (double)(r->snap.t_ns - r->snap.start_ns) / 1e9;
	runstat_add(&rp->elapsed, rp->elapsed_runs[k]);
	rp->status[k] = r->ch.done && !r->timed_out ? stat_exit_code(r->ch.status) : 0;
}

/* The summary of -r: means with perf's "( +- x% )", the elapsed time's mean and spread. */
void stat_repeat_print(struct sbuf *out, const struct stat_opts *o, const struct repeat *rp,
			 const struct row *rows, const struct stat_run *last, bool child_target)
{
	size_t n = rp->n_rows, i;
	double *vals = xcalloc(n + 1, sizeof(double));
	double el = runstat_mean(&rp->elapsed), el_sd = runstat_stddev_mean(&rp->elapsed);
	struct sbuf tgt = SBUF_INIT;
	bool any_cg = false;
	int k;

	for (i = 0; i < n; i++) {
		vals[i] = runstat_mean(&rp->rs[i]);
		any_cg |= rows[i].cgroup != NULL;
	}
	stat_target_desc(&tgt, o);
	if (o->json) {
		struct jw w;

		json_begin(&w, out, "summary");
		jw_kstr(&w, "target", sbuf_str(&tgt));
		jw_kint(&w, "runs", rp->done);
		jw_kdouble(&w, "elapsed", el);
		jw_kdouble(&w, "elapsed_stddev", el_sd);
		jw_key(&w, "elapsed_runs");
		jw_arr_begin(&w);
		for (k = 0; k < rp->done; k++)
			jw_double(&w, rp->elapsed_runs[k]);
		jw_arr_end(&w);
		jw_key(&w, "exit_status");
		jw_arr_begin(&w);
		for (k = 0; k < rp->done; k++)
			jw_int(&w, rp->status[k]);
		jw_arr_end(&w);
		jw_key(&w, "events");
		jw_arr_begin(&w);
		for (i = 0; i < n; i++) {
			struct cnt_value v = rp->sum[i];
			double unit = rows[i].clock ? 1e6 : 1;
			double sd = runstat_stddev_mean(&rp->rs[i]);

			v.value = vals[i];
			v.pct = v.enabled ? 100.0 * (double)v.running / (double)v.enabled : NAN;
			jw_obj_begin(&w);
			json_event(&w, rows, n, i, &v, vals, el * 1e9);
			jw_kdouble(&w, "stddev", isnan(vals[i]) ? NAN : sd / unit);
			jw_kdouble(&w, "noise_pct", isnan(vals[i]) ? NAN : runstat_rel_pct(sd, vals[i]));
			jw_key(&w, "runs");
			jw_arr_begin(&w);
			for (k = 0; k < rp->done; k++)
				jw_double(&w, rp->runs[i * (size_t)rp->asked + (size_t)k] / unit);
			jw_arr_end(&w);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_obj_end(&w);
		sbuf_addch(out, '\n');
		goto out;
	}
	if (!o->sep)
		sbuf_addf(out, "\n Performance counter stats for %s (%d runs):\n\n", sbuf_str(&tgt),
			  rp->done);
	for (i = 0; i < n; i++) {
		struct cnt_value v = rp->sum[i];
		struct stat_line l;

		v.value = vals[i];
		v.pct = v.enabled ? 100.0 * (double)v.running / (double)v.enabled : NAN;
		v.running = rp->done ? v.running / (uint64_t)rp->done : 0;
		fill_line(&l, o, rows, n, i, &v, vals, el * 1e9);
		l.noise = true;
		l.noise_pct = runstat_rel_pct(runstat_stddev_mean(&rp->rs[i]), vals[i]);
		stat_format_line(out, &l, o->sep, o->big_num, any_cg);
	}
	if (o->sep) {
		if (o->null_run)
			null_csv_line(out, o, el, runstat_rel_pct(el_sd, el));
		goto out;
	}
	{
		int prec = runstat_precision(el_sd);
		double pct = runstat_rel_pct(el_sd, el);

		sbuf_addf(out, "%s %17.*f +- %.*f seconds time elapsed", o->null_run ? "" : "\n", prec,
			  el, prec, el_sd);
		if (pct != 0)
			sbuf_addf(out, "  ( +-%6.2f%% )", pct);
		sbuf_addstr(out, "\n\n");
	}
	stat_print_notes(out, o, last->s, rows, n, child_target, last->snap.t_ns);
	for (k = 0; k < rp->done; k++) {
		bool last_cut = rp->done < rp->asked && k == rp->done - 1;

		if (rp->status[k] && !last_cut)
			sbuf_addf(out, " Note: run %d of %d: the command exited with %d (counted; "
				  "the runs went on, as perf's do)\n", k + 1, rp->asked, rp->status[k]);
	}
	if (rp->done < rp->asked)
		sbuf_addf(out, " Note: interrupted during run %d of %d (its command exited with %d): "
			  "the counts are of %d runs, that one included\n", rp->done, rp->asked,
			  rp->status[rp->done - 1], rp->done);
out:
	sbuf_release(&tgt);
	free(vals);
}
