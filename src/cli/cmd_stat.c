/* cmd_stat.c - `vmmprof stat`: count events system-wide, per CPU, process, thread, cgroup or command, as perf stat does */
#include "cli/commands.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmu/counter.h"
#include "pmu/event.h"
#include "pmu/statfmt.h"
#include "util/alloc.h"
#include "util/cpulist.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/sbuf.h"
#include "util/timeutil.h"
#include "cli/stat_model.h"

/* perf stat's default events, in its order. */
static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", "branches", "branch-misses",
};

/* One -e spec as the user wrote it (after splitting lists and groups). */
struct spec {
	char *text;
	int group;                 /* {a,b} group id, -1 none */
	char *cgroup;              /* -G name, NULL none */
	bool is_default;           /* one of perf's defaults (a failure is not fatal) */
	int resolve_err;           /* event_resolve() failed: the code */
	char *resolve_msg;
};

struct stat_opts {
	struct spec *specs;
	size_t n_specs, cap_specs;
	int n_groups;
	size_t nr_cgroups;         /* perf's running count of -G names */
	char *cgroup_all;          /* -G given before any -e: applies to every event */
	bool all_cpus;
	struct cpulist cpus;
	pid_t *pids, *tids;
	size_t n_pids, n_tids, cap_pids, cap_tids;
	long interval_ms;
	char sep;                  /* -x: CSV separator, 0 for the table */
	bool json;
	bool big_num;
	const char *output;
	char **cmd;                /* the command after the options, NULL when none */
	const char *model;         /* -m: a model name or file (docs/models.md) */
	bool raw;                  /* --raw: counts of the model's events, not its metrics */
	char **model_paths;        /* --model-path DIRs */
	size_t n_model_paths;
	const char *calibration;   /* --calibration FILE */
};

/* One output row: a non-uncore event, or every instance of an uncore spec. */
struct row {
	const char *name;
	int event;                 /* session event index, -1 for a merged uncore spec */
	int spec_index;
	int spec;                  /* index into opts.specs */
	const char *cgroup;
	bool dropped;              /* not supported: no descriptor opened */
	const char *why;
	bool clock;                /* task-clock / cpu-clock: shown in msec */
	bool task_clock;
	double scale;
	const char *unit;
};

static const struct cmd *self(void);

static void add_spec(struct stat_opts *o, const char *text, int group, bool is_default)
{
	struct spec *sp;

	VP_GROW(o->specs, o->cap_specs, o->n_specs + 1);
	sp = &o->specs[o->n_specs++];
	memset(sp, 0, sizeof(*sp));
	sp->text = xstrdup(text);
	sp->group = group;
	sp->is_default = is_default;
}

/* -e LIST: perf's comma lists (commas inside pmu/.../ kept) and {a,b} groups. */
static int parse_events(struct stat_opts *o, const char *arg)
{
	struct vp_err err = { 0, "" };
	char **v = NULL;
	size_t n = 0, i;
	int ret;

	ret = event_split_list(arg, &v, &n, &err);
	if (ret)
		return cli_usage_error(self(), "%s", err.msg);
	for (i = 0; i < n && !ret; i++) {
		size_t len = strlen(v[i]);

		if (v[i][0] == '{') {
			char **inner = NULL, *body;
			size_t m = 0, j;

			if (v[i][len - 1] != '}') {
				ret = cli_usage_error(self(), "event group '%s': group modifiers "
						      "after '}' are not supported", v[i]);
				break;
			}
			body = xstrndup(v[i] + 1, len - 2);
			if (event_split_list(body, &inner, &m, &err)) {
				free(body);
				ret = cli_usage_error(self(), "%s", err.msg);
				break;
			}
			for (j = 0; j < m; j++)
				add_spec(o, inner[j], o->n_groups, false);
			o->n_groups++;
			vp_free_names(inner, m);
			free(body);
		} else {
			add_spec(o, v[i], -1, false);
		}
	}
	vp_free_names(v, n);
	return ret;
}

/*
 * -G NAMES as perf applies it: the k-th name (counting over every -G so
 * far) goes to the k-th event defined before it; an empty name skips an
 * event; a single name in all applies to every event defined before it.
 * A -G before any -e applies to every event (perf refuses that).
 */
static int parse_cgroups(struct stat_opts *o, const char *arg)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	const char *p = arg;

	if (!o->n_specs) {
		if (strchr(arg, ','))
			return cli_usage_error(self(), "-G '%s' before any -e: give the events first "
					       "(each cgroup applies to the event at its position)", arg);
		free(o->cgroup_all);
		o->cgroup_all = xstrdup(arg);
		return 0;
	}
	for (;;) {
		const char *c = strchr(p, ',');

		VP_GROW(names, cap, n + 1);
		names[n++] = c ? xstrndup(p, (size_t)(c - p)) : xstrdup(p);
		if (!c)
			break;
		p = c + 1;
	}
	for (i = 0; i < n; i++, o->nr_cgroups++) {
		if (o->nr_cgroups >= o->n_specs) {
			vp_free_names(names, n);
			return cli_usage_error(self(), "-G '%s': more cgroups than events before it "
					       "(each cgroup applies to the event at its position)", arg);
		}
		if (names[i][0]) {
			free(o->specs[o->nr_cgroups].cgroup);
			o->specs[o->nr_cgroups].cgroup = xstrdup(names[i]);
		}
	}
	if (o->nr_cgroups == 1 && n == 1 && names[0][0])
		for (i = 1; i < o->n_specs; i++)
			if (!o->specs[i].cgroup)
				o->specs[i].cgroup = xstrdup(names[0]);
	vp_free_names(names, n);
	return 0;
}

static int parse_ids(const char *arg, pid_t **v, size_t *n, size_t *cap, const char *what)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long id = strtol(p, &end, 10);

		if (end == p || id <= 0 || (*end && *end != ',')) {
			return cli_usage_error(self(), "invalid %s list '%s'", what, arg);
		}
		VP_GROW(*v, *cap, *n + 1);
		(*v)[(*n)++] = (pid_t)id;
		p = *end ? end + 1 : end;
	}
	if (!*n)
		return cli_usage_error(self(), "empty %s list", what);
	return 0;
}

enum { OPT_JSON = 1000, OPT_NO_BIG_NUM, OPT_RAW, OPT_MODEL_PATH, OPT_CALIB };

static int parse_args(struct stat_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-big-num", no_argument, NULL, OPT_NO_BIG_NUM },
		{ "model", required_argument, NULL, 'm' },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "model-path", required_argument, NULL, OPT_MODEL_PATH },
		{ "calibration", required_argument, NULL, OPT_CALIB },
		{ NULL, 0, NULL, 0 },
	};
	struct vp_err err = { 0, "" };
	int c, ret;

	o->big_num = true;
	cpulist_init(&o->cpus);
	while ((c = getopt_long(argc, argv, "+e:aC:p:t:G:I:x:o:m:", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'e':
			if ((ret = parse_events(o, optarg)))
				return ret;
			break;
		case 'a':
			o->all_cpus = true;
			break;
		case 'C':
			cpulist_release(&o->cpus);
			if (cpulist_parse(&o->cpus, optarg, &err))
				return cli_usage_error(self(), "-C: %s", err.msg);
			if (!o->cpus.n)
				return cli_usage_error(self(), "-C: empty CPU list");
			break;
		case 'p':
			if ((ret = parse_ids(optarg, &o->pids, &o->n_pids, &o->cap_pids, "process id")))
				return ret;
			break;
		case 't':
			if ((ret = parse_ids(optarg, &o->tids, &o->n_tids, &o->cap_tids, "thread id")))
				return ret;
			break;
		case 'G':
			if ((ret = parse_cgroups(o, optarg)))
				return ret;
			break;
		case 'I':
			o->interval_ms = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->interval_ms < 10)
				return cli_usage_error(self(), "-I '%s': the interval must be at least "
						       "10 ms", optarg);
			break;
		case 'x':
			if (strlen(optarg) != 1)
				return cli_usage_error(self(), "-x '%s': the separator must be one "
						       "character", optarg);
			o->sep = optarg[0];
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_NO_BIG_NUM:
			o->big_num = false;
			break;
		case 'm':
			o->model = optarg;
			break;
		case OPT_RAW:
			o->raw = true;
			break;
		case OPT_MODEL_PATH:
			o->model_paths = xrealloc(o->model_paths, (o->n_model_paths + 1) * sizeof(char *));
			o->model_paths[o->n_model_paths++] = optarg;
			break;
		case OPT_CALIB:
			o->calibration = optarg;
			break;
		default:
			return cli_usage_error(self(), "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (o->json && o->sep)
		return cli_usage_error(self(), "--json and -x exclude each other");
	if ((o->n_pids || o->n_tids) && (o->all_cpus || o->cpus.n))
		return cli_usage_error(self(), "-p/-t count threads: they cannot be combined "
				       "with -a or -C");
	if ((o->n_pids || o->n_tids) && (o->cgroup_all || o->nr_cgroups))
		return cli_usage_error(self(), "-G counts per CPU: it cannot be combined with -p/-t");
	if (!o->cmd && !o->all_cpus && !o->cpus.n && !o->n_pids && !o->n_tids &&
	    !o->cgroup_all && !o->nr_cgroups)
		return cli_usage_error(self(), "nothing to count: give a command, -a, -C, -p, -t or -G");
	return 0;
}

/* ---- formatting ---- */

static bool is_sw(const struct evdesc *ev, uint64_t config)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config == config;
}

/* Build the output rows from the session. */
static struct row *make_rows(const struct stat_opts *o, const struct cnt_session *s, size_t *n_out)
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
					r->why = e->why;
				continue;
			}
			r = &rows[n++];
			r->name = e->ev.uncore ? o->specs[i].text : e->ev.name;
			r->event = e->ev.uncore ? -1 : (int)j;
			r->spec_index = (int)i;
			r->spec = (int)i;
			r->cgroup = o->specs[i].cgroup;
			r->dropped = e->state == CNT_EV_DROPPED;
			r->why = e->why;
			r->task_clock = is_sw(&e->ev, PERF_COUNT_SW_TASK_CLOCK);
			r->clock = !e->ev.unit[0] && (r->task_clock || is_sw(&e->ev, PERF_COUNT_SW_CPU_CLOCK));
			r->scale = e->ev.scale;
			r->unit = r->clock ? "msec" : e->ev.unit;
		}
		if (!any) {       /* a default event this machine cannot even resolve */
			struct row *r = &rows[n++];

			r->name = o->specs[i].text;
			r->event = -1;
			r->spec_index = (int)i;
			r->spec = (int)i;
			r->cgroup = o->specs[i].cgroup;
			r->dropped = true;
			r->why = o->specs[i].resolve_msg;
			r->unit = "";
		}
	}
	*n_out = n;
	return rows;
}

static void row_value(const struct cnt_session *s, const struct cnt_snapshot *snap, bool total,
		      const struct row *r, struct cnt_value *v)
{
	struct cnt_filter f = CNT_FILTER_ANY;

	if (r->event >= 0)
		f.event = r->event;
	else
		f.spec_index = r->spec_index;
	cnt_sum(s, snap, total, &f, v);
}

/* The derived column perf prints after '#': CPUs utilized, or a rate per task-clock second. */
static bool row_metric(const struct cnt_session *s, const struct cnt_snapshot *snap, bool total,
		       const struct row *rows, size_t n, const struct row *r, double value,
		       double elapsed_ns, double *m, const char **unit)
{
	size_t i;

	if (isnan(value))
		return false;
	if (r->clock) {
		if (elapsed_ns <= 0)
			return false;
		*m = value / elapsed_ns;
		*unit = "CPUs utilized";
		return true;
	}
	if (r->unit && r->unit[0])
		return false;
	for (i = 0; i < n; i++) {
		struct cnt_value tc;

		if (!rows[i].task_clock || rows[i].dropped ||
		    !((!rows[i].cgroup && !r->cgroup) ||
		      (rows[i].cgroup && r->cgroup && !strcmp(rows[i].cgroup, r->cgroup))))
			continue;
		row_value(s, snap, total, &rows[i], &tc);
		if (!(tc.value > 0))
			return false;
		*m = value / (tc.value / 1e9);
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

/* Rows of one snapshot as perf's table or CSV. */
static void print_rows(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
		       const struct cnt_snapshot *snap, bool total, const struct row *rows, size_t n)
{
	double elapsed = (double)(total ? snap->t_ns - snap->start_ns : snap->t_ns - snap->prev_ns);
	bool any_cg = false;
	size_t i;

	for (i = 0; i < n; i++)
		any_cg |= rows[i].cgroup != NULL;
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		struct cnt_value v = { 0, 0, 0, NAN, NAN };
		struct stat_line l = { 0 };

		l.name = r->name;
		l.cgroup = r->cgroup;
		l.unit = r->unit;
		l.not_supported = r->dropped;
		l.value = NAN;
		l.pct = NAN;
		l.decimals = r->clock || (r->unit && r->unit[0]) ? 2 : 0;
		l.interval = o->interval_ms > 0;
		l.t_ns = snap->t_ns - snap->start_ns;
		if (!r->dropped) {
			row_value(s, snap, total, r, &v);
			l.value = r->clock ? v.value / 1e6 : v.value;
			l.pct = v.pct;
			l.running_ns = v.running;
			l.has_metric = row_metric(s, snap, total, rows, n, r, v.value, elapsed,
						  &l.metric, &l.metric_unit);
		}
		stat_format_line(out, &l, o->sep, o->big_num, any_cg);
	}
}

static void json_rows(struct jw *w, const struct cnt_session *s, const struct cnt_snapshot *snap,
		      bool total, const struct row *rows, size_t n)
{
	double elapsed = (double)(total ? snap->t_ns - snap->start_ns : snap->t_ns - snap->prev_ns);
	size_t i;

	jw_key(w, "events");
	jw_arr_begin(w);
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		struct cnt_value v = { 0, 0, 0, NAN, NAN };
		const char *munit = NULL;
		double m = 0;

		jw_obj_begin(w);
		jw_kstr(w, "event", r->name);
		jw_kstr(w, "cgroup", r->cgroup);
		if (!r->dropped)
			row_value(s, snap, total, r, &v);
		jw_kstr(w, "state", r->dropped ? "not supported" :
			isnan(v.value) ? "not counted" : "counted");
		jw_kdouble(w, "value", r->clock ? v.value / 1e6 : v.value);
		jw_kstr(w, "unit", r->unit ? r->unit : "");
		jw_kdouble(w, "count", v.value);
		jw_kuint(w, "raw", v.raw);
		jw_kuint(w, "enabled_ns", v.enabled);
		jw_kuint(w, "running_ns", v.running);
		jw_kdouble(w, "pct_running", v.pct);
		if (!r->dropped && row_metric(s, snap, total, rows, n, r, v.value, elapsed, &m, &munit)) {
			jw_kdouble(w, "metric", m);
			jw_kstr(w, "metric_unit", munit);
		} else {
			jw_key(w, "metric");
			jw_null(w);
			jw_kstr(w, "metric_unit", NULL);
		}
		if (r->dropped)
			jw_kstr(w, "why", r->why);
		jw_obj_end(w);
	}
	jw_arr_end(w);
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

/* ---- the run ---- */

struct child {
	pid_t pid;
	int go_fd;                 /* write a byte to let it exec */
	int err_fd;                /* its exec errno arrives here; EOF = exec happened */
	int status;
	struct rusage ru;
	bool done;
};

static int start_child(struct child *c, char **argv, const sigset_t *oldmask)
{
	int go[2], ep[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
		return cli_errorf("cannot create a pipe: %s", strerror(errno));
	c->pid = fork();
	if (c->pid < 0)
		return cli_errorf("cannot fork: %s", strerror(errno));
	if (c->pid == 0) {
		char b;
		int e;

		sigprocmask(SIG_SETMASK, oldmask, NULL);
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
}

/* Let the child exec; returns its exec errno or 0. */
static int release_child(struct child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, "x", 1) != 1)
		e = errno;
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? e : 0;
}

static void reap_child(struct child *c, bool block)
{
	if (c->pid <= 0 || c->done)
		return;
	if (wait4(c->pid, &c->status, block ? 0 : WNOHANG, &c->ru) == c->pid)
		c->done = true;
}

static void target_desc(struct sbuf *out, const struct stat_opts *o)
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
static void print_notes(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
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

static int flush_out(FILE *f, struct sbuf *sb)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, f) != sb->len)
		return -1;
	sbuf_reset(sb);
	return fflush(f) ? -1 : 0;
}

static void free_opts(struct stat_opts *o)
{
	size_t i;

	for (i = 0; i < o->n_specs; i++) {
		free(o->specs[i].text);
		free(o->specs[i].cgroup);
		free(o->specs[i].resolve_msg);
	}
	free(o->specs);
	free(o->cgroup_all);
	free(o->pids);
	free(o->tids);
	free(o->model_paths);
	cpulist_release(&o->cpus);
}

/*
 * The model's events join the specs (one it shares with a spec already
 * there, such as a default event, is counted once).  With -m the model is
 * required; the automatic one (no -e, no -m) only warns when it cannot run.
 */
static int add_model(struct stat_opts *o, struct stat_model *sm, struct pmu_db *db, bool *have)
{
	struct vp_err err = { 0, "" };
	struct swsource_scope sc = { 0 };
	const char **specs = NULL;
	int *map;
	size_t n, k, j;

	/* whose scheduler statistics the model's sources read (src/model/swsource.h) */
	if (o->n_pids || o->n_tids) {
		sc.kind = SWS_TASKS;
		sc.pids = o->pids;
		sc.n_pids = o->n_pids;
		sc.tids = o->tids;
		sc.n_tids = o->n_tids;
	} else if (o->cpus.n || o->cgroup_all || o->nr_cgroups) {
		sc.kind = SWS_PART;
	} else if (o->all_cpus) {
		sc.kind = SWS_MACHINE;
	} else {
		sc.kind = SWS_COMMAND;
	}
	*have = false;
	if (stat_model_open(sm, o->model, o->model_paths, o->n_model_paths, o->calibration, db, &sc,
			    &err)) {
		if (o->model)
			return cli_error(&err);
		cli_warn("no model: %s", err.msg);
		return 0;
	}
	n = stat_model_specs(sm, &specs);
	map = xcalloc(n + 1, sizeof(int));
	for (k = 0; k < n; k++) {
		for (j = 0; j < o->n_specs; j++)
			if (!strcmp(o->specs[j].text, specs[k]) && o->specs[j].group < 0)
				break;
		if (j == o->n_specs)
			add_spec(o, specs[k], -1, true);
		map[k] = (int)j;
	}
	stat_model_bind(sm, map);
	free(map);
	free(specs);
	*have = true;
	return 0;
}

/* Resolve every spec; a default event that does not resolve is shown as not supported. */
static int resolve_all(struct stat_opts *o, struct pmu_db *db, struct evdesc_list *list,
		       const char ***cgroups, int **groups)
{
	struct vp_err err = { 0, "" };
	size_t i, j, before;

	for (i = 0; i < o->n_specs; i++) {
		if (o->cgroup_all && !o->specs[i].cgroup)
			o->specs[i].cgroup = xstrdup(o->cgroup_all);
		before = list->n;
		vp_err_clear(&err);
		if (event_resolve(db, o->specs[i].text, (int)i, list, &err)) {
			if (!o->specs[i].is_default)
				return cli_error(&err);
			o->specs[i].resolve_err = err.code;
			o->specs[i].resolve_msg = xstrdup(err.msg);
		}
		*cgroups = xrealloc(*cgroups, (list->n + 1) * sizeof(**cgroups));
		*groups = xrealloc(*groups, (list->n + 1) * sizeof(**groups));
		for (j = before; j < list->n; j++) {
			(*cgroups)[j] = o->specs[i].cgroup;
			(*groups)[j] = o->specs[i].group;
		}
	}
	return 0;
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

static void print_interval(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			   const struct cnt_snapshot *snap, const struct row *rows, size_t n,
			   const bool *was_live, bool *header_done)
{
	size_t i;

	if (o->json) {
		struct jw w;

		json_begin(&w, out, "interval");
		jw_kdouble(&w, "time", (double)(snap->t_ns - snap->start_ns) / 1e9);
		jw_kdouble(&w, "interval", (double)(snap->t_ns - snap->prev_ns) / 1e9);
		json_rows(&w, s, snap, false, rows, n);
		json_ended_now(&w, s, was_live);
		jw_obj_end(&w);
		sbuf_addch(out, '\n');
		return;
	}
	if (!o->sep && !*header_done)
		sbuf_addstr(out, "#           time             counts unit events\n");
	*header_done = true;
	print_rows(out, o, s, snap, false, rows, n);
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

static void print_summary(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			  const struct cnt_snapshot *snap, const struct row *rows, size_t n,
			  const struct child *ch, bool child_target)
{
	double elapsed = (double)(snap->t_ns - snap->start_ns) / 1e9;
	struct sbuf tgt = SBUF_INIT;
	size_t i;

	target_desc(&tgt, o);
	if (o->json) {
		struct jw w;

		json_begin(&w, out, "summary");
		jw_kstr(&w, "target", sbuf_str(&tgt));
		jw_kdouble(&w, "elapsed", elapsed);
		if (ch->pid > 0 && ch->done) {
			jw_kdouble(&w, "user", (double)ch->ru.ru_utime.tv_sec + ch->ru.ru_utime.tv_usec / 1e6);
			jw_kdouble(&w, "sys", (double)ch->ru.ru_stime.tv_sec + ch->ru.ru_stime.tv_usec / 1e6);
		}
		json_rows(&w, s, snap, true, rows, n);
		jw_key(&w, "ended");
		jw_arr_begin(&w);
		for (i = 0; i < s->n_entities; i++)
			if (s->entities[i].state == CNT_ENT_ENDED)
				json_entity(&w, s, &s->entities[i]);
		jw_arr_end(&w);
		jw_key(&w, "offline");
		jw_arr_begin(&w);
		for (i = 0; i < s->n_entities; i++)
			if (s->entities[i].state == CNT_ENT_OFFLINE)
				json_entity(&w, s, &s->entities[i]);
		jw_arr_end(&w);
		jw_obj_end(&w);
		sbuf_addch(out, '\n');
	} else if (o->sep) {
		print_rows(out, o, s, snap, true, rows, n);
	} else {
		sbuf_addf(out, "\n Performance counter stats for %s:\n\n", sbuf_str(&tgt));
		print_rows(out, o, s, snap, true, rows, n);
		sbuf_addf(out, "\n %17.9f seconds time elapsed\n", elapsed);
		if (ch->pid > 0 && ch->done)
			sbuf_addf(out, "\n %17.9f seconds user\n %17.9f seconds sys\n",
				  (double)ch->ru.ru_utime.tv_sec + ch->ru.ru_utime.tv_usec / 1e6,
				  (double)ch->ru.ru_stime.tv_sec + ch->ru.ru_stime.tv_usec / 1e6);
		sbuf_addch(out, '\n');
		print_notes(out, o, s, rows, n, child_target, snap->t_ns);
	}
	sbuf_release(&tgt);
}

static bool all_threads_ended(const struct cnt_session *s)
{
	size_t i;

	for (i = 0; i < s->n_entities; i++)
		if (s->entities[i].kind == CNT_ENT_THREAD && s->entities[i].state == CNT_ENT_LIVE)
			return false;
	return true;
}

static int run_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct pmu_db *db = NULL;
	struct evdesc_list list;
	const char **cgroups = NULL;
	int *groups = NULL;
	struct cnt_request req = { 0 };
	struct cnt_session *s = NULL;
	struct cnt_snapshot snap;
	struct child ch = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct vp_err err = { 0, "" };
	struct row *rows = NULL;
	size_t n_rows = 0, i;
	sigset_t set, oldmask;
	struct sbuf out = SBUF_INIT;
	FILE *f = NULL;
	bool header_done = false, done = false, masked = false;
	bool thread_target, child_target;
	uint64_t next_ns = 0, poll_ns;
	bool *was_live = NULL;
	struct stat_model sm;
	bool have_model = false, model_only;
	struct sbuf tgt = SBUF_INIT;
	struct stat_model_out mo = { 0 };
	int rc = 0;

	memset(&sm, 0, sizeof(sm));
	evdesc_list_init(&list);
	cnt_snapshot_init(&snap);
	rc = parse_args(&o, argc, argv);
	if (rc)
		goto out;
	if (o.raw && !o.model) {
		rc = cli_usage_error(self(), "--raw goes with -m MODEL");
		goto out;
	}
	if (o.cgroup_all || o.nr_cgroups)
		o.all_cpus = true;     /* perf requires -a with -G; counting a cgroup is per CPU anyway */
	if (pmu_db_new(&db, "/", &err)) {
		rc = cli_error(&err);
		goto out;
	}
	/* no -e: perf's defaults, and the model chosen for this machine (no -m: shown after them) */
	if (!o.n_specs && !o.model) {
		for (i = 0; i < VP_ARRAY_SIZE(default_events); i++)
			add_spec(&o, default_events[i], -1, true);
		if ((rc = add_model(&o, &sm, db, &have_model)))
			goto out;
	} else if (o.model && (rc = add_model(&o, &sm, db, &have_model))) {
		goto out;
	}
	model_only = have_model && o.model && !o.raw;
	rc = resolve_all(&o, db, &list, &cgroups, &groups);
	if (rc)
		goto out;
	if (!list.n) {
		rc = cli_errorf("none of the events can be counted here");
		goto out;
	}

	thread_target = o.n_pids || o.n_tids;
	child_target = o.cmd && !thread_target && !o.all_cpus && !o.cpus.n;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	/* a shell starts background jobs with SIGINT ignored; perf still ends on it */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_BLOCK, &set, &oldmask);
	masked = true;
	if (o.cmd) {
		rc = start_child(&ch, o.cmd, &oldmask);
		if (rc)
			goto out;
	}

	req.events = list.v;
	req.n_events = list.n;
	req.cgroups = cgroups;
	req.groups = groups;
	req.target.system_wide = o.all_cpus;
	cpulist_copy(&req.target.cpus, &o.cpus);
	req.target.pids = child_target ? &ch.pid : o.pids;
	req.target.n_pids = child_target ? 1 : o.n_pids;
	req.target.tids = o.tids;
	req.target.n_tids = o.n_tids;
	req.target.inherit = true;
	req.target.enable_on_exec = child_target;
	req.root = "/";
	rc = cnt_session_new(&s, &req, &err);
	cpulist_release(&req.target.cpus);
	if (rc) {
		rc = cli_error(&err);
		goto out;
	}
	rows = make_rows(&o, s, &n_rows);
	if (have_model)
		stat_model_opened(&sm, s);
	was_live = xcalloc(s->n_entities + 1, sizeof(bool));

	if (o.output) {
		f = cli_open_output(o.output, &err);
		if (!f) {
			rc = cli_error(&err);
			goto out;
		}
	} else {
		f = stderr;  /* perf stat writes its counts to stderr; -o - for stdout */
	}

	if (!child_target && (rc = cnt_session_enable(s, &err))) {
		rc = cli_error(&err);
		goto out;
	}
	if (o.cmd) {
		int e;

		/*
		 * The run starts when the child is let go, as perf stat's clock
		 * does: the exec's EOF on err_fd may come after a short command
		 * has already ended (elapsed would then be shorter than its
		 * task-clock).
		 */
		if (child_target)
			cnt_session_mark_start(s);
		e = release_child(&ch);
		if (e) {
			reap_child(&ch, true);
			rc = cli_errorf("cannot run '%s': %s", o.cmd[0], strerror(e));
			if (rc)
				rc = 127;
			goto out;
		}
	}
	if (have_model)
		stat_model_start(&sm);
	target_desc(&tgt, &o);
	mo.sep = o.sep;
	mo.json = o.json;
	mo.target = sbuf_str(&tgt);

	/*
	 * The loop: wait for the interval, a signal or the child.  Signals are
	 * blocked and taken with sigtimedwait(), so no handler and no global
	 * flag is needed.  (The models' `-m MODEL` will evaluate its metrics on
	 * each snapshot here, between cnt_session_read() and the printing.)
	 */
	/*
	 * Without -I, reads only notice exited threads (-p/-t runs end when all
	 * have): often for a few threads, once a second for many, where each
	 * read costs a syscall per thread.
	 */
	if (o.interval_ms)
		poll_ns = (uint64_t)o.interval_ms * 1000000ull;
	else if (thread_target)
		poll_ns = s->n_entities < 100 ? 100000000ull : 1000000000ull;
	else
		poll_ns = 3600000000000ull;
	next_ns = s->start_ns + poll_ns;
	while (!done) {
		uint64_t now = vp_now_ns();
		struct timespec ts;
		siginfo_t si;
		int sig;

		if (now < next_ns) {
			ts.tv_sec = (time_t)((next_ns - now) / 1000000000ull);
			ts.tv_nsec = (long)((next_ns - now) % 1000000000ull);
			sig = sigtimedwait(&set, &si, &ts);
		} else {
			sig = -1;
			errno = EAGAIN;
		}
		if (sig == SIGCHLD) {
			reap_child(&ch, false);
			done = ch.done;
			if (!done)
				continue;
		} else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			if (ch.pid > 0 && !ch.done) {
				kill(ch.pid, sig);  /* end the command; its end ends the run */
				continue;
			}
			done = true;
		} else if (sig < 0 && errno == EINTR) {
			continue;
		} else if (sig < 0) {
			next_ns += poll_ns;
		}
		if (done && child_target)
			cnt_session_disable(s);
		for (i = 0; i < s->n_entities; i++)
			was_live[i] = s->entities[i].state == CNT_ENT_LIVE;
		cnt_session_read(s, &snap, &err);
		if (o.interval_ms) {
			/* the last, partial interval is printed as perf does */
			if (model_only)
				stat_model_print(&sm, s, &snap, false, &mo, &out);
			else
				print_interval(&out, &o, s, &snap, rows, n_rows, was_live, &header_done);
			if (flush_out(f, &out)) {
				rc = cli_errorf("write failure: %s", strerror(errno));
				goto out;
			}
		}
		if (thread_target && !o.cmd && all_threads_ended(s))
			done = true;
	}
	if (model_only)
		stat_model_print(&sm, s, &snap, true, &mo, &out);
	else if (!o.interval_ms || o.json)
		print_summary(&out, &o, s, &snap, rows, n_rows, &ch, child_target);
	else if (!o.sep)
		print_notes(&out, &o, s, rows, n_rows, child_target, snap.t_ns);
	if (have_model && !o.model && !o.json && !o.sep && !o.interval_ms)
		stat_model_print(&sm, s, &snap, true, &mo, &out); /* the automatic model, after the counts */
	if (flush_out(f, &out))
		rc = cli_errorf("write failure: %s", strerror(errno));
	if (!rc && ch.pid > 0 && ch.done)
		rc = WIFEXITED(ch.status) ? WEXITSTATUS(ch.status) :
		     WIFSIGNALED(ch.status) ? 128 + WTERMSIG(ch.status) : 1;
out:
	if (ch.go_fd >= 0)
		close(ch.go_fd);     /* the child reads EOF and exits without exec */
	if (ch.err_fd >= 0)
		close(ch.err_fd);
	reap_child(&ch, true);
	if (f && f != stderr) {
		int crc = cli_close_output(f, o.output);

		rc = rc ? rc : crc;
	}
	if (masked)
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	free(was_live);
	free(rows);
	if (have_model || o.model || sm.m)
		stat_model_close(&sm);
	sbuf_release(&tgt);
	sbuf_release(&out);
	cnt_snapshot_release(&snap);
	cnt_session_free(s);
	free(cgroups);
	free(groups);
	evdesc_list_release(&list);
	pmu_db_free(db);
	free_opts(&o);
	return rc;
}

const struct cmd cmd_stat = {
	.name = "stat",
	.fn = run_stat,
	.summary = "count events system-wide, per CPU, process, thread, cgroup or command",
	.synopsis = "stat [-e EVENTS]... [-m MODEL [--raw]] [-a] [-C CPUS] [-G CGROUPS] [-I MS] [-x SEP | --json] [-o FILE] [--] COMMAND [ARGS]\n"
		    "stat [-e EVENTS]... (-a | -C CPUS | -p PIDS | -t TIDS | -G CGROUPS) [-I MS] [-x SEP | --json] [-o FILE]",
	.description =
		"Counts events the way 'perf stat' does and prints them the same way: counts with\n"
		"thousands separators, the unit, a derived column after '#' (CPUs utilized, rate\n"
		"per second of task-clock), the share of time a multiplexed counter ran as\n"
		"'(62.50%)' with the count scaled up, and the time elapsed.  As with perf, the\n"
		"counts go to standard error unless -o names a file ('-o -' for standard output).\n"
		"\n"
		"Without -e, perf's default events are counted: task-clock, context-switches,\n"
		"cpu-migrations, page-faults, cycles, instructions, branches and branch-misses.\n"
		"Those this CPU or VM does not expose are shown as '<not supported>' with the\n"
		"reason, and what vmmprof uses instead.  An event that cannot be opened is dropped\n"
		"with its reason and the run goes on; it fails only when no event can be counted.\n"
		"\n"
		"Events are any spec 'vmmprof list' knows: generic names, libpfm4 names, sysfs\n"
		"PMU specs (commas inside pmu/.../ belong to the spec), raw codes and tracepoints;\n"
		"{a,b} opens events as one group.  -p counts every thread the process has, and\n"
		"the threads and children they create later; a thread that exits ends its series\n"
		"and the run goes on.  With -p or -t and no command the run ends when every\n"
		"thread has exited.  Ctrl-C ends a run and prints the totals.\n"
		"\n"
		"-G follows perf: the k-th cgroup named (over all -G options) applies to the k-th\n"
		"event defined before it, an empty name skips an event, and a single name applies\n"
		"to every event before it.  vmmprof also accepts -G before any -e (it then applies\n"
		"to every event) and implies -a, which perf requires.  Names are relative to the\n"
		"cgroup hierarchy that holds the perf_event controller (cgroup v2 at\n"
		"/sys/fs/cgroup or /sys/fs/cgroup/unified, or a v1 perf_event hierarchy): a libvirt\n"
		"vCPU is 'machine/qemu-1-NAME.libvirt-qemu/vcpu0'.  A cgroup removed during the\n"
		"run ends its series.\n"
		"\n"
		"With --json every interval is one JSON line and the run ends with a summary line;\n"
		"the schema is in docs/stat-json.md.\n"
		"\n"
		"-m MODEL counts what a profile model (docs/models.md, 'vmmprof model list') needs\n"
		"and prints its metrics and the five factor scores (locality, llc, sharing, imc,\n"
		"queue) with severity, cost and quality, per interval with -I, instead of the raw\n"
		"counts (--raw prints those).  Without -e and -m the model chosen for this machine\n"
		"is counted too and its metrics follow perf's default counts.  A value that cannot\n"
		"be measured here is n/a with the reason.",
	.options =
		"-e, --event EVENTS\tevents to count, comma-separated; repeatable\n"
		"-a, --all-cpus\tcount on every online CPU\n"
		"-C, --cpu CPUS\tcount on these CPUs (\"0-3,8\"); an offline one is reported\n"
		"-p, --pid PIDS\tcount these processes (all their threads)\n"
		"-t, --tid TIDS\tcount these threads\n"
		"-G, --cgroup CGROUPS\tcount only inside these cgroups (see above)\n"
		"-I, --interval-print MS\tprint the counts of every MS milliseconds (at least 10)\n"
		"-x, --field-separator SEP\tCSV as perf -x prints it: value,unit,event,run-ns,pct,metric,metric-unit\n"
		"--json\tJSON lines: one per interval and a summary (docs/stat-json.md)\n"
		"-o, --output FILE\twrite the counts to FILE ('-' for standard output)\n"
		"--no-big-num\tno thousands separators\n"
		"-m, --model MODEL\ta model name or file: print its metrics and factor scores\n"
		"--raw\twith -m: print the counts of the model's events instead\n"
		"--model-path DIR\tlook for models in DIR first (repeatable)\n"
		"--calibration FILE\tcalibration for cal.* values (default ~/.config/vmmprof/calibration.json)",
	.examples =
		"vmmprof stat -- make -j2\tperf's default counts for a build\n"
		"vmmprof stat -a -I 1000\tthe whole machine, every second (Ctrl-C ends it)\n"
		"vmmprof stat -e task-clock,sched:sched_switch -p 1234\ta process until it exits\n"
		"vmmprof stat -a -e task-clock -G machine/qemu-1-vm1.libvirt-qemu/vcpu0 sleep 5\tone vCPU of a libvirt VM\n"
		"vmmprof stat -x, -e page-faults -- ./app\tCSV for a script\n"
		"vmmprof stat -m skx -a -I 1000\tthe five factors of a Skylake-SP host, every second",
	.flags = CMD_STOP_AT_POSITIONAL,
};

static const struct cmd *self(void)
{
	return &cmd_stat;
}
