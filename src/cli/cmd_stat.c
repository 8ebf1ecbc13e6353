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
#include "util/runstat.h"
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
	long interval_count;     /* --interval-count: stop after this many intervals; 0 none */
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
	long repeat;               /* -r N: run the command N times (1: once) */
	bool per_thread;           /* --per-thread: one row per thread and event */
	int aggr;                  /* AGGR_*: -A, --per-core, --per-socket, --per-node, --per-die, --per-cache */
	int cache_level;           /* --per-cache=LEVEL: 1, 2, 3...; 0 the last level */
	long timeout_ms;           /* --timeout: stop after this many ms; 0 none */
	long delay_ms;             /* -D: count from this many ms after the start; 0 none */
	bool transaction;          /* -T: perf's transactional-memory events */
	int verbose;               /* -v: each counter's raw, enabled and running ns */
	bool null_run;             /* -n: open no counter, time the run */
	bool append;               /* --append: add to -o FILE instead of replacing it */
	const char *metrics;       /* -M: the model's metrics and factors to print */
	bool metric_only;          /* --metric-only: the model's values in one line */
	int *cpu_cache;            /* --per-cache: per CPU id, its cache's id (first CPU), -1 none */
	int n_cpu_cache;
	int cache_found;           /* the level those caches are */
};

/* How -a/-C counts are summed: over every CPU (perf's default), or per group of CPUs. */
enum { AGGR_GLOBAL, AGGR_NONE, AGGR_CORE, AGGR_SOCKET, AGGR_NODE, AGGR_DIE, AGGR_CACHE };
static const char *const aggr_flag[] = { "", "-A", "--per-core", "--per-socket", "--per-node",
					 "--per-die", "--per-cache" };

/* One group of CPUs that a line sums, as perf labels it ("N0", "S0-D0-C1", "CPU3"). */
struct aggr_group {
	char id[40];
	int width;                 /* the id's column in the table */
	int cpus;                  /* CPUs summed; -1 with -A (perf prints no count) */
	struct cnt_filter f;
	int cache;                 /* --per-cache: the cache's id (its first CPU), else -1 */
};

/* One output row: a non-uncore event, or every instance of an uncore spec. */
struct row {
	char *name;                /* owned: rows outlive -r's sessions */
	int event;                 /* session event index, -1 for a merged uncore spec */
	int spec_index;
	int spec;                  /* index into opts.specs */
	const char *cgroup;
	bool dropped;              /* not supported: no descriptor opened */
	char *why;                 /* owned, NULL none */
	bool clock;                /* task-clock / cpu-clock: shown in msec */
	bool task_clock;
	double scale;
	char *unit;                /* owned */
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

enum { OPT_JSON = 1000, OPT_INTERVAL_COUNT, OPT_NO_BIG_NUM, OPT_RAW, OPT_MODEL_PATH, OPT_CALIB, OPT_PER_THREAD,
       OPT_PER_CORE, OPT_PER_SOCKET, OPT_PER_NODE, OPT_PER_DIE, OPT_PER_CACHE, OPT_TIMEOUT,
       OPT_APPEND, OPT_METRIC_ONLY };

/* The flag that asked for a model's metrics, for messages. */
static const char *model_flag(const struct stat_opts *o)
{
	return o->metrics ? "-M" : o->metric_only ? "--metric-only" : "-m";
}

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
		{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-big-num", no_argument, NULL, OPT_NO_BIG_NUM },
		{ "model", required_argument, NULL, 'm' },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "model-path", required_argument, NULL, OPT_MODEL_PATH },
		{ "calibration", required_argument, NULL, OPT_CALIB },
		{ "repeat", required_argument, NULL, 'r' },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-core", no_argument, NULL, OPT_PER_CORE },
		{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
		{ "per-node", no_argument, NULL, OPT_PER_NODE },
		{ "per-die", no_argument, NULL, OPT_PER_DIE },
		{ "per-cache", optional_argument, NULL, OPT_PER_CACHE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "delay", required_argument, NULL, 'D' },
		{ "transaction", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "null", no_argument, NULL, 'n' },
		{ "append", no_argument, NULL, OPT_APPEND },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metric-only", no_argument, NULL, OPT_METRIC_ONLY },
		{ NULL, 0, NULL, 0 },
	};
	struct vp_err err = { 0, "" };
	int c, ret;

	o->big_num = true;
	o->repeat = 1;
	cpulist_init(&o->cpus);
	while ((c = getopt_long(argc, argv, "+e:aAC:p:t:G:I:x:o:m:r:jD:TvnM:", longopts, NULL)) != -1) {
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
			/* at most 31 days: a larger one would overflow the nanoseconds it becomes */
			o->interval_ms = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->interval_ms < 10 ||
			    o->interval_ms > 31L * 86400 * 1000)
				return cli_usage_error(self(), "-I '%s': the interval must be 10 ms to 31 "
						       "days (%ld ms)", optarg, 31L * 86400 * 1000);
			break;
		case OPT_INTERVAL_COUNT:
			o->interval_count = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->interval_count <= 0)
				return cli_usage_error(self(), "--interval-count '%s': a count of 1 or "
						       "more", optarg);
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
		case 'j':
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
		case 'r':
			o->repeat = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->repeat < 1 || o->repeat > 100000)
				return cli_usage_error(self(), "-r '%s': the number of runs must be 1 to "
						       "100000 (perf's -r 0, repeat until Ctrl-C, is not "
						       "supported)", optarg);
			break;
		case OPT_PER_THREAD:
			o->per_thread = true;
			break;
		case OPT_TIMEOUT:
			/* perf's minimum; at most 31 days, as -I */
			o->timeout_ms = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->timeout_ms < 10 ||
			    o->timeout_ms > 31L * 86400 * 1000)
				return cli_usage_error(self(), "--timeout '%s': milliseconds, 10 to 31 "
						       "days (%ld)", optarg, 31L * 86400 * 1000);
			break;
		case 'D':
			o->delay_ms = strtol(optarg, &end, 10);
			if (!*end && end != optarg && o->delay_ms == -1)
				return cli_usage_error(self(), "-D -1 starts with the events disabled "
						       "for perf's --control to enable, which vmmprof stat "
						       "does not have: give the delay in milliseconds");
			if (*end || end == optarg || o->delay_ms < 0 ||
			    o->delay_ms > 31L * 86400 * 1000)
				return cli_usage_error(self(), "-D '%s': the delay is milliseconds, 0 to "
						       "31 days (%ld)", optarg, 31L * 86400 * 1000);
			break;
		case 'T':
			o->transaction = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'n':
			o->null_run = true;
			break;
		case OPT_APPEND:
			o->append = true;
			break;
		case 'M':
			if (!*optarg || strstr(optarg, ",,") || *optarg == ',' ||
			    optarg[strlen(optarg) - 1] == ',')
				return cli_usage_error(self(), "-M '%s': metric names separated by "
						       "commas", optarg);
			o->metrics = optarg;
			break;
		case OPT_METRIC_ONLY:
			o->metric_only = true;
			break;
		case OPT_PER_CACHE:
			/* perf's [Ll][1-9][0-9]*, or the digits alone */
			if (optarg) {
				const char *d = optarg + (*optarg == 'l' || *optarg == 'L');
				long lv = strtol(d, &end, 10);

				if (*end || end == d || *d < '1' || *d > '9' || lv > 9)
					return cli_usage_error(self(), "--per-cache='%s': a cache level "
							       "as L1, L2, L3 (or 1, 2, 3)", optarg);
				o->cache_level = (int)lv;
			}
			/* fall through */
		case 'A':
		case OPT_PER_CORE:
		case OPT_PER_SOCKET:
		case OPT_PER_DIE:
		case OPT_PER_NODE: {
			int a = c == 'A' ? AGGR_NONE : c == OPT_PER_CORE ? AGGR_CORE :
				c == OPT_PER_SOCKET ? AGGR_SOCKET : c == OPT_PER_DIE ? AGGR_DIE :
				c == OPT_PER_CACHE ? AGGR_CACHE : AGGR_NODE;

			if (o->aggr && o->aggr != a)
				return cli_usage_error(self(), "%s and %s exclude each other: one way to "
						       "sum the CPUs", aggr_flag[o->aggr], aggr_flag[a]);
			o->aggr = a;
			break;
		}
		default:
			return cli_bad_option(self(), argv, "+e:aAC:p:t:G:I:x:o:m:r:D:M:");
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
	if (o->repeat > 1 && !o->cmd)
		return cli_usage_error(self(), "-r repeats a command: give one (-a, -C, -p or -t "
				       "alone count until Ctrl-C, which ends every run)");
	if (o->interval_count && !o->interval_ms)
		return cli_usage_error(self(), "--interval-count counts the intervals of -I: give -I");
	if (o->repeat > 1 && o->interval_ms)
		return cli_usage_error(self(), "-r and -I exclude each other: -r prints the means of "
				       "whole runs");
	if (o->repeat > 1 && (o->model || o->metrics || o->metric_only))
		return cli_usage_error(self(), "-r and %s exclude each other: a model's metrics "
				       "are of one run", model_flag(o));
	if (o->per_thread && (o->all_cpus || o->cpus.n || o->cgroup_all || o->nr_cgroups))
		return cli_usage_error(self(), "--per-thread counts threads: it goes with -p, -t or a "
				       "command, not with -a, -C or -G (perf needs BPF for that)");
	if (o->per_thread && (o->model || o->metrics || o->metric_only))
		return cli_usage_error(self(), "--per-thread and %s exclude each other: a model's "
				       "metrics are per run", model_flag(o));
	if (o->per_thread && o->repeat > 1)
		return cli_usage_error(self(), "--per-thread and -r exclude each other: the threads "
				       "differ from run to run");
	if (o->timeout_ms && o->interval_ms)
		return cli_usage_error(self(), "--timeout and -I exclude each other, as in perf: "
				       "give -I --interval-count N to stop after N intervals");
	if (o->append && !o->output)
		return cli_usage_error(self(), "--append adds to the file of -o: give -o FILE");
	if (o->null_run) {
		const char *with = o->n_specs ? "-e" : (o->model || o->metrics || o->metric_only) ?
			model_flag(o) : o->transaction ? "-T" :
			o->interval_ms ? "-I" : o->per_thread ? "--per-thread" :
			o->aggr ? aggr_flag[o->aggr] : o->verbose ? "-v" :
			(o->n_pids || o->n_tids) ? "-p/-t" : (o->cgroup_all || o->nr_cgroups) ? "-G" : NULL;

		if (with)
			return cli_usage_error(self(), "-n opens no counter, it times the run: it "
					       "cannot be combined with %s", with);
	}
	if (o->aggr && !o->all_cpus && !o->cpus.n)
		return cli_usage_error(self(), "%s sums the counts of CPUs: it needs -a or -C (as "
				       "perf's)", aggr_flag[o->aggr]);
	if (o->aggr && (o->cgroup_all || o->nr_cgroups || o->model || o->metrics ||
			o->metric_only || o->repeat > 1))
		return cli_usage_error(self(), "%s is not available with %s%s", aggr_flag[o->aggr],
				       o->repeat > 1 ? "-r" : (o->cgroup_all || o->nr_cgroups) ? "-G" :
				       model_flag(o), o->repeat > 1 || o->cgroup_all ||
				       o->nr_cgroups ? "" : " (a model's metrics are of the whole "
				       "machine)");
	if (o->raw && (o->metrics || o->metric_only))
		return cli_usage_error(self(), "--raw prints counts, %s metrics: one or the other",
				       o->metrics ? "-M" : "--metric-only");
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

static void free_rows(struct row *rows, size_t n)
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
	free(o->cpu_cache);
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
		if (o->metrics || o->metric_only)
			return cli_errorf("%s prints a model's metrics, and no model can run here: "
					  "%s", model_flag(o), err.msg);
		cli_warn("no model: %s", err.msg);
		return 0;
	}
	if (o->metrics && stat_model_pick(sm, o->metrics, &err))
		return cli_error(&err);
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

static void print_interval(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
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

static void print_summary(struct sbuf *out, const struct stat_opts *o, const struct cnt_session *s,
			  const struct cnt_snapshot *snap, const struct row *rows, size_t n,
			  const struct child *ch, bool child_target, char *const *comms)
{
	double elapsed = (double)(snap->t_ns - snap->start_ns) / 1e9;
	struct sbuf tgt = SBUF_INIT;
	size_t i;

	target_desc(&tgt, o);
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

/* ---- one run, and -r's runs ---- */

/* What every run shares: the options, the events to open, the output. */
struct stat_ctx {
	struct stat_opts *o;
	struct evdesc_list *list;
	const char **cgroups;
	int *groups;
	sigset_t set, oldmask;
	bool thread_target, child_target;
	struct row *rows;          /* made from the first run's session */
	size_t n_rows;
	struct stat_model *sm;
	bool have_model, model_only;
	struct stat_model_out mo;
	FILE *f;                   /* opened once the first session is open */
	struct sbuf out;
	bool header_done;
};

/* One run: its session, last snapshot and command. */
struct stat_run {
	struct cnt_session *s;
	struct cnt_snapshot snap;
	struct child ch;
	bool *was_live;
	char **comms;              /* --per-thread: per entity, its comm when the run started */
	bool interrupted;          /* ended by SIGINT, SIGTERM or SIGHUP */
	bool counted_out;          /* --interval-count ended it (its command's SIGTERM is ours) */
	bool timed_out;            /* --timeout ended it (ditto) */
};

static void stat_run_init(struct stat_run *r)
{
	memset(r, 0, sizeof(*r));
	cnt_snapshot_init(&r->snap);
	r->ch.pid = -1;
	r->ch.go_fd = r->ch.err_fd = -1;
}

static void stat_run_release(struct stat_run *r)
{
	size_t i;

	if (r->ch.go_fd >= 0)
		close(r->ch.go_fd);  /* the child reads EOF and exits without exec */
	if (r->ch.err_fd >= 0)
		close(r->ch.err_fd);
	reap_child(&r->ch, true);
	for (i = 0; r->comms && r->s && i < r->s->n_entities; i++)
		free(r->comms[i]);
	free(r->comms);
	free(r->was_live);
	cnt_snapshot_release(&r->snap);
	cnt_session_free(r->s);
	stat_run_init(r);
}

/* The exit code a shell gives a command that ended with status. */
static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	       WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

/* --per-thread: each thread's comm (/proc/TID/comm) as perf reads it when it starts. */
static void read_comms(struct stat_run *r)
{
	size_t i;

	r->comms = xcalloc(r->s->n_entities + 1, sizeof(char *));
	for (i = 0; i < r->s->n_entities; i++) {
		const struct cnt_entity *e = &r->s->entities[i];
		char path[64], *text = NULL;
		size_t len;

		if (e->kind != CNT_ENT_THREAD)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)e->pid, (int)e->tid);
		if (vp_read_file("/", path, &text, NULL, NULL)) {
			r->comms[i] = xstrdup("?");   /* gone already: perf too has no name then */
			continue;
		}
		len = strcspn(text, "\n");
		text[len] = 0;
		r->comms[i] = text;
	}
}

/*
 * -o FILE: replaced, or with --append added to; perf's "# started on" line
 * heads what each run writes to a file (not to '-', not JSON lines).
 */
static FILE *open_output(const struct stat_opts *o, struct vp_err *err)
{
	FILE *f = NULL;
	time_t now = time(NULL);
	char when[64];

	if (!o->output || !strcmp(o->output, "-"))
		return stdout;
	if (o->append) {
		int fd = open(o->output, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);

		if (fd < 0 && errno != ENOENT) {
			vp_err_errno(err, errno, "--append: cannot open '%s' for writing", o->output);
			return NULL;
		}
		if (fd >= 0 && !(f = fdopen(fd, "a"))) {
			vp_err_errno(err, errno, "cannot open '%s' for writing", o->output);
			close(fd);
			return NULL;
		}
	}
	if (!f && !(f = cli_open_output(o->output, err)))
		return NULL;
	if (!o->json && ctime_r(&now, when))  /* ctime's text ends with its newline */
		fprintf(f, "# started on %s\n", when);
	return f;
}

/*
 * Wait until deadline (-D) with the signals blocked as the loop waits: a
 * command that ends or a signal ends the wait early.
 */
static void wait_until(struct stat_ctx *c, struct stat_run *r, uint64_t deadline)
{
	for (;;) {
		uint64_t now = vp_now_ns();
		struct timespec ts;
		siginfo_t si;
		int sig;

		if (now >= deadline || r->interrupted || r->ch.done)
			return;
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ull);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ull);
		sig = sigtimedwait(&c->set, &si, &ts);
		if (sig == SIGCHLD) {
			reap_child(&r->ch, false);
		} else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			r->interrupted = true;
			if (r->ch.pid > 0 && !r->ch.done)
				kill(r->ch.pid, sig);
		}
	}
}

/*
 * Open the counters (none with -n), run the command (if any) and count
 * until it ends, the threads end, --timeout passes or a signal comes; print
 * intervals as they pass.  r holds the session and its last snapshot
 * afterwards (with -n no session, the snapshot's times only).  Returns 0
 * or the exit code of an error already reported.
 */
static int stat_run_once(struct stat_ctx *c, struct stat_run *r)
{
	struct stat_opts *o = c->o;
	struct cnt_request req = { 0 };
	struct vp_err err = { 0, "" };
	uint64_t next_ns, poll_ns, t0, deadline = 0;
	bool done = false;
	long intervals = 0;
	size_t i;
	int rc = 0;

	if (o->cmd && (rc = start_child(&r->ch, o->cmd, &c->oldmask)))
		return rc;
	if (!o->null_run) {
		req.events = c->list->v;
		req.n_events = c->list->n;
		req.cgroups = c->cgroups;
		req.groups = c->groups;
		req.target.system_wide = o->all_cpus;
		cpulist_copy(&req.target.cpus, &o->cpus);
		req.target.pids = c->child_target ? &r->ch.pid : o->pids;
		req.target.n_pids = c->child_target ? 1 : o->n_pids;
		req.target.tids = o->tids;
		req.target.n_tids = o->n_tids;
		req.target.inherit = true;
		/* -D: enabled when the delay has passed, not at the exec */
		req.target.enable_on_exec = c->child_target && !o->delay_ms;
		req.root = "/";
		rc = cnt_session_new(&r->s, &req, &err);
		cpulist_release(&req.target.cpus);
		if (rc)
			return cli_error(&err);
		if (!c->rows) {
			c->rows = make_rows(o, r->s, &c->n_rows);
			if (c->have_model)
				stat_model_opened(c->sm, r->s);
		}
		r->was_live = xcalloc(r->s->n_entities + 1, sizeof(bool));
	}
	if (!c->f && !(c->f = o->output ? open_output(o, &err) : stderr))
		return cli_error(&err);  /* perf stat writes its counts to stderr; -o - for stdout */
	if (r->s && !c->child_target && !o->delay_ms && cnt_session_enable(r->s, &err))
		return cli_error(&err);
	t0 = vp_now_ns();
	if (o->cmd) {
		int e;

		/*
		 * The run starts when the child is let go, as perf stat's clock
		 * does: the exec's EOF on err_fd may come after a short command
		 * has already ended (elapsed would then be shorter than its
		 * task-clock).
		 */
		if (r->s && c->child_target && !o->delay_ms)
			cnt_session_mark_start(r->s);
		if (c->have_model && c->child_target)
			stat_model_watch_command(c->sm, r->ch.pid);
		e = release_child(&r->ch);
		if (e) {
			reap_child(&r->ch, true);
			rc = cli_errorf("cannot run '%s': %s", o->cmd[0], strerror(e));
			return rc ? 127 : 0;
		}
	}
	if (o->delay_ms && r->s) {
		/* perf's -D: its messages; elapsed and CPUs utilized from the enable, as perf 6.1's */
		fprintf(stderr, "Events disabled\n");
		wait_until(c, r, t0 + (uint64_t)o->delay_ms * 1000000ull);
		if (cnt_session_enable(r->s, &err))
			return cli_error(&err);
		fprintf(stderr, "Events enabled\n");
	}
	if (o->timeout_ms)
		deadline = t0 + (uint64_t)o->timeout_ms * 1000000ull;
	if (o->per_thread)
		read_comms(r);  /* after the exec: a command's thread has its own name now */
	if (c->have_model)
		stat_model_start(c->sm);

	/*
	 * The loop: wait for the interval, a signal or the child.  Signals are
	 * blocked and taken with sigtimedwait(), so no handler and no global
	 * flag is needed.  Without -I, reads only notice exited threads (-p/-t
	 * runs end when all have): often for a few threads, once a second for
	 * many, where each read costs a syscall per thread.
	 */
	if (o->interval_ms)
		poll_ns = (uint64_t)o->interval_ms * 1000000ull;
	else if (c->thread_target && r->s)
		poll_ns = r->s->n_entities < 100 ? 100000000ull : 1000000000ull;
	else
		poll_ns = 3600000000000ull;
	/* a model's context-switch tracer is drained at least this often (with -I: each interval) */
	if (c->have_model && !o->interval_ms && stat_model_poll_ns(c->sm) &&
	    poll_ns > stat_model_poll_ns(c->sm))
		poll_ns = stat_model_poll_ns(c->sm);
	next_ns = (r->s ? r->s->last_ns : t0) + poll_ns;
	/* the delay may have seen the end already: read once and stop */
	done = r->ch.done || (r->interrupted && !(r->ch.pid > 0));
	for (;;) {
		uint64_t now = vp_now_ns(), wake = next_ns;
		struct timespec ts;
		siginfo_t si;
		int sig;

		if (deadline && !r->timed_out && deadline < wake)
			wake = deadline;
		if (done) {
			sig = 0;
		} else if (now < wake) {
			ts.tv_sec = (time_t)((wake - now) / 1000000000ull);
			ts.tv_nsec = (long)((wake - now) % 1000000000ull);
			sig = sigtimedwait(&c->set, &si, &ts);
		} else {
			sig = -1;
			errno = EAGAIN;
		}
		if (sig == SIGCHLD) {
			reap_child(&r->ch, false);
			done = r->ch.done;
			if (!done)
				continue;
		} else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			r->interrupted = true;
			if (r->ch.pid > 0 && !r->ch.done) {
				kill(r->ch.pid, sig);  /* end the command; its end ends the run */
				continue;
			}
			done = true;
		} else if (sig < 0 && errno == EINTR) {
			continue;
		} else if (sig < 0) {
			now = vp_now_ns();
			/* --timeout: as perf, the command gets SIGTERM and its end ends the run */
			if (deadline && !r->timed_out && now >= deadline) {
				r->timed_out = true;
				if (r->ch.pid > 0 && !r->ch.done)
					kill(r->ch.pid, SIGTERM);
				else
					done = true;
			}
			if (now >= next_ns)
				next_ns += poll_ns;
			else if (!done)
				continue;
		}
		if (!r->s) {
			if (done)
				break;
			continue;
		}
		if (c->have_model)
			stat_model_poll(c->sm);
		if (done && c->child_target)
			cnt_session_disable(r->s);
		for (i = 0; i < r->s->n_entities; i++)
			r->was_live[i] = r->s->entities[i].state == CNT_ENT_LIVE;
		cnt_session_read(r->s, &r->snap, &err);
		if (o->interval_ms && r->counted_out) {
			;       /* --interval-count printed its intervals: the command is ending */
		} else if (o->interval_ms) {
			/* the last, partial interval is printed as perf does */
			if (c->model_only)
				stat_model_print(c->sm, r->s, &r->snap, false, &c->mo, &c->out);
			else
				print_interval(&c->out, o, r->s, &r->snap, c->rows, c->n_rows, r->was_live,
					       &c->header_done, r->comms);
			if (flush_out(c->f, &c->out))
				return cli_errorf("write failure: %s", strerror(errno));
		}
		if (c->thread_target && !o->cmd && all_threads_ended(r->s))
			done = true;
		/* --interval-count N: the run ends after N intervals, a command with it (as perf) */
		if (o->interval_count && !r->counted_out && ++intervals >= o->interval_count) {
			r->counted_out = true;
			if (r->ch.pid > 0 && !r->ch.done)
				kill(r->ch.pid, SIGTERM);
			else
				done = true;
		}
		if (done)
			break;
	}
	if (!r->s) {
		r->snap.start_ns = t0;
		r->snap.t_ns = vp_now_ns();
	}
	return 0;
}

/* -r N: each row's count over every run, and the runs' times and exit codes. */
struct repeat {
	int asked;                 /* N */
	int done;                  /* runs counted */
	size_t n_rows;
	struct runstat *rs;        /* per row: its scaled counts (runs that counted it) */
	double *runs;              /* [row * asked + run]: scaled count, NaN not counted */
	struct cnt_value *sum;     /* per row: raw, enabled, running summed over the runs */
	struct runstat elapsed;    /* seconds */
	double *elapsed_runs;
	int *status;               /* per run: the command's exit code */
};

static void repeat_init(struct repeat *rp, int asked, size_t n_rows)
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

static void repeat_release(struct repeat *rp)
{
	free(rp->rs);
	free(rp->runs);
	free(rp->sum);
	free(rp->elapsed_runs);
	free(rp->status);
	memset(rp, 0, sizeof(*rp));
}

static void repeat_add(struct repeat *rp, const struct row *rows, const struct stat_run *r)
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
	rp->status[k] = r->ch.done && !r->timed_out ? exit_code(r->ch.status) : 0;
}

/* The summary of -r: means with perf's "( +- x% )", the elapsed time's mean and spread. */
static void repeat_print(struct sbuf *out, const struct stat_opts *o, const struct repeat *rp,
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
	target_desc(&tgt, o);
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
	print_notes(out, o, last->s, rows, n, child_target, last->snap.t_ns);
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

/*
 * -T: perf's transaction events (Intel TSX) where the core PMU has them in
 * sysfs, as perf adds them; where it has not, nothing could be counted.
 */
static int add_transaction(struct stat_opts *o, struct pmu_db *db)
{
	struct evdesc_list tmp;
	struct vp_err err = { 0, "" };
	bool el;

	evdesc_list_init(&tmp);
	if (event_resolve(db, "cpu/tx-start/", -1, &tmp, &err)) {
		evdesc_list_release(&tmp);
		return cli_errorf("-T counts hardware transactions (Intel TSX: cpu/tx-start/, "
				  "cpu/cycles-t/, cpu/cycles-ct/), and this CPU or VM has no such "
				  "event (%s): TSX is absent or disabled here", err.msg);
	}
	vp_err_clear(&err);
	el = !event_resolve(db, "cpu/el-start/", -1, &tmp, &err);
	evdesc_list_release(&tmp);
	return parse_events(o, el ? "task-clock,{instructions,cycles,cpu/cycles-t/,cpu/tx-start/,"
			    "cpu/el-start/,cpu/cycles-ct/}" :
			    "task-clock,{instructions,cycles,cpu/cycles-t/,cpu/tx-start/,cpu/cycles-ct/}");
}

/*
 * --per-cache: each CPU's last-level cache from the platform's topology
 * (sysfs cache/index*: the highest data or unified level, its
 * shared_cpu_list); the cache's id is its first CPU, as perf numbers them.
 */
static int cache_map(struct stat_opts *o)
{
	struct platform plat;
	struct vp_err err = { 0, "" };
	const struct topology *t;
	int d, rc = 0;
	size_t k;

	memset(&plat, 0, sizeof(plat));
	if (platform_probe(&plat, "/", &err)) {
		platform_release(&plat);
		return cli_error(&err);
	}
	t = platform_local_topo(&plat);
	if (!t->n_llc) {
		rc = cli_errorf("--per-cache: the caches of the CPUs are not known here: %s",
				sbuf_str(&t->llc_reason));
		goto out;
	}
	o->cache_found = t->llc[0].level;
	if (o->cache_level && o->cache_level != o->cache_found) {
		rc = cli_errorf("--per-cache=L%d: the topology knows the last-level cache only, "
				"L%d here: give --per-cache or --per-cache=L%d", o->cache_level,
				o->cache_found, o->cache_found);
		goto out;
	}
	o->n_cpu_cache = t->max_cpu + 1;
	o->cpu_cache = xcalloc((size_t)o->n_cpu_cache + 1, sizeof(int));
	for (d = 0; d < o->n_cpu_cache; d++)
		o->cpu_cache[d] = -1;
	for (d = 0; d < t->n_llc; d++) {
		const struct cpulist *cl = &t->llc[d].cpus;
		int first = -1;

		for (k = 0; k < cl->n; k++)
			if (first < 0 || cl->ids[k] < first)
				first = cl->ids[k];
		for (k = 0; k < cl->n; k++)
			if (cl->ids[k] >= 0 && cl->ids[k] < o->n_cpu_cache)
				o->cpu_cache[cl->ids[k]] = first;
	}
out:
	platform_release(&plat);
	return rc;
}

static int run_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct pmu_db *db = NULL;
	struct evdesc_list list;
	struct stat_ctx c;
	struct stat_run run;
	struct repeat rp;
	struct vp_err err = { 0, "" };
	bool masked = false;
	struct stat_model sm;
	struct sbuf tgt = SBUF_INIT;
	size_t i;
	int k, rc = 0;

	memset(&sm, 0, sizeof(sm));
	memset(&c, 0, sizeof(c));
	memset(&rp, 0, sizeof(rp));
	stat_run_init(&run);
	evdesc_list_init(&list);
	c.o = &o;
	c.list = &list;
	c.sm = &sm;
	c.out = (struct sbuf)SBUF_INIT;
	rc = parse_args(&o, argc, argv);
	if (rc)
		goto out;
	if (o.raw && !o.model) {
		rc = cli_usage_error(self(), "--raw goes with -m MODEL");
		goto out;
	}
	if (o.cgroup_all || o.nr_cgroups)
		o.all_cpus = true;     /* perf requires -a with -G; counting a cgroup is per CPU anyway */
	if (o.null_run)
		goto run;
	if (o.aggr == AGGR_CACHE && (rc = cache_map(&o)))
		goto out;
	if (pmu_db_new(&db, "/", &err)) {
		rc = cli_error(&err);
		goto out;
	}
	/*
	 * no -e: perf's defaults, and the model chosen for this machine (no -m:
	 * shown after them; not with -r, whose summary is of means)
	 */
	if (o.transaction && (rc = add_transaction(&o, db)))
		goto out;
	if (!o.n_specs && !o.model && !o.metrics && !o.metric_only) {
		for (i = 0; i < VP_ARRAY_SIZE(default_events); i++)
			add_spec(&o, default_events[i], -1, true);
		if (o.repeat == 1 && !o.per_thread && (rc = add_model(&o, &sm, db, &c.have_model)))
			goto out;
	} else if ((o.model || o.metrics || o.metric_only) &&
		   (rc = add_model(&o, &sm, db, &c.have_model))) {
		goto out;
	}
	c.model_only = c.have_model && (o.model || o.metrics || o.metric_only) && !o.raw;
	rc = resolve_all(&o, db, &list, &c.cgroups, &c.groups);
	if (rc)
		goto out;
	if (!list.n) {
		rc = cli_errorf("none of the events can be counted here");
		goto out;
	}
run:

	c.thread_target = o.n_pids || o.n_tids;
	c.child_target = o.cmd && !c.thread_target && !o.all_cpus && !o.cpus.n;
	sigemptyset(&c.set);
	sigaddset(&c.set, SIGINT);
	sigaddset(&c.set, SIGTERM);
	sigaddset(&c.set, SIGCHLD);
	sigaddset(&c.set, SIGHUP);
	/* a shell starts background jobs with SIGINT ignored; perf still ends on it */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_BLOCK, &c.set, &c.oldmask);
	masked = true;
	target_desc(&tgt, &o);
	c.mo.sep = o.sep;
	c.mo.json = o.json;
	c.mo.metric_only = o.metric_only;
	c.mo.target = sbuf_str(&tgt);

	if (o.repeat > 1) {
		for (k = 0; k < o.repeat; k++) {
			stat_run_release(&run);  /* the last run stays for the notes */
			if ((rc = stat_run_once(&c, &run)))
				goto out;
			if (!rp.asked)
				repeat_init(&rp, (int)o.repeat, c.n_rows);
			repeat_add(&rp, c.rows, &run);
			if (run.interrupted)
				break;
		}
		repeat_print(&c.out, &o, &rp, c.rows, &run, c.child_target);
		if (flush_out(c.f, &c.out))
			rc = cli_errorf("write failure: %s", strerror(errno));
		if (!rc && rp.done)
			rc = rp.status[rp.done - 1];  /* perf stat -r exits as the last run did */
		goto out;
	}

	if ((rc = stat_run_once(&c, &run)))
		goto out;
	c.mo.elapsed = (double)(run.snap.t_ns - run.snap.start_ns) / 1e9;
	if (c.model_only && !(o.metric_only && o.interval_ms && !o.json))
		stat_model_print(&sm, run.s, &run.snap, true, &c.mo, &c.out);
	else if (c.model_only)
		;       /* --metric-only -I: the intervals were the output, as perf's */
	else if (!o.interval_ms || o.json)
		print_summary(&c.out, &o, run.s, &run.snap, c.rows, c.n_rows, &run.ch, c.child_target,
			      run.comms);
	else if (!o.sep)
		print_notes(&c.out, &o, run.s, c.rows, c.n_rows, c.child_target, run.snap.t_ns);
	if (c.have_model && !o.model && !c.model_only && !o.json && !o.sep && !o.interval_ms)
		stat_model_print(&sm, run.s, &run.snap, true, &c.mo, &c.out); /* the automatic model, after the counts */
	if (flush_out(c.f, &c.out))
		rc = cli_errorf("write failure: %s", strerror(errno));
	if (!rc && run.ch.pid > 0 && run.ch.done && !run.counted_out && !run.timed_out)
		rc = exit_code(run.ch.status);
out:
	stat_run_release(&run);
	if (c.f && c.f != stderr) {
		int crc = cli_close_output(c.f, o.output);

		rc = rc ? rc : crc;
	}
	if (masked)
		sigprocmask(SIG_SETMASK, &c.oldmask, NULL);
	repeat_release(&rp);
	free_rows(c.rows, c.n_rows);
	if (c.have_model || o.model || sm.m)
		stat_model_close(&sm);
	sbuf_release(&tgt);
	sbuf_release(&c.out);
	free(c.cgroups);
	free(c.groups);
	evdesc_list_release(&list);
	pmu_db_free(db);
	free_opts(&o);
	return rc;
}

const struct cmd cmd_stat = {
	.name = "stat",
	.args = "@programs|@files",
	.fn = run_stat,
	.summary = "count events system-wide, per CPU, process, thread, cgroup or command",
	.synopsis = "stat [-e EVENTS]... [-m NAME|FILE [--raw]] [-M NAMES] [--metric-only] [-T] [-a] [-C CPUS] [-G CGROUPS] [-I MS | -r N | --timeout MS] [-D MS] [--per-thread] [-v] [-x SEP | --json] [-o FILE [--append]] [--] COMMAND [ARGS]\n"
		    "stat -n [-r N] [--timeout MS] [-x SEP | --json] [-o FILE [--append]] [--] COMMAND [ARGS]\n"
		    "stat [-e EVENTS]... (-a | -C CPUS | -p PIDS | -t TIDS | -G CGROUPS) [-I MS] [--per-thread] [-x SEP | --json] [-o FILE]\n"
		    "stat [-e EVENTS]... (-a | -C CPUS) (-A | --per-core | --per-socket | --per-node) [-I MS] [-x SEP | --json] [-o FILE] [COMMAND [ARGS]]\n"
		    "stat [-e EVENTS]... (-a | -C CPUS) (--per-die | --per-cache[=LEVEL]) [-I MS] [-x SEP | --json] [-o FILE] [COMMAND [ARGS]]",
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
		"-r N runs the command N times and prints, as perf does, the mean of each count\n"
		"with its spread '( +-  1.23% )' (the standard deviation of the mean, relative to\n"
		"the mean) and the elapsed time as '0.1234 +- 0.0012 seconds time elapsed'; -x adds\n"
		"the spread as a field after the event, --json the runs' values, mean, stddev and\n"
		"exit codes.  A run whose command exits non-zero is counted and the runs go on, as\n"
		"with perf; vmmprof then exits as the last run did, and the table notes each such\n"
		"run.  A command that cannot be started stops the runs (exit 127).  Ctrl-C ends the\n"
		"runs after the one it interrupts.\n"
		"\n"
		"--per-thread prints one row per thread and event, named comm-tid as perf names\n"
		"them ('sleep-1234'): the threads of -p processes and -t when counting starts, or\n"
		"the command's process (its later threads and children count in that row).\n"
		"\n"
		"-m MODEL counts what a profile model (docs/models.md, 'vmmprof model list') needs\n"
		"and prints its metrics and the five factor scores (locality, llc, sharing, imc,\n"
		"queue) with severity, cost and quality, per interval with -I, instead of the raw\n"
		"counts (--raw prints those).  Without -e and -m the model chosen for this machine\n"
		"is counted too and its metrics follow perf's default counts.  A value that cannot\n"
		"be measured here is n/a with the reason.  For a command, the model's scheduler\n"
		"sources come from the task-clock and cpu-migrations events and, for moves\n"
		"between nodes, from the kernel's context-switch records (docs/stat.md).\n"
		"\n"
		"perf's run controls: --timeout MS ends the run after MS milliseconds (a command\n"
		"gets SIGTERM, and vmmprof exits 0 as perf does); -D MS counts from MS milliseconds\n"
		"after the start, printing perf's 'Events disabled' and 'Events enabled' on standard\n"
		"error (the time elapsed is the time counted, as perf's); -n opens no counter\n"
		"and times the command (-x prints the time as perf's duration_time line).  -T counts\n"
		"perf's transaction events, where the core PMU lists cpu/tx-start/ (Intel TSX), and\n"
		"is an error elsewhere.  -v prints each counter's raw count and its enabled and\n"
		"running nanoseconds before the table, -vv each CPU's or thread's first (on\n"
		"standard error with -x or --json).\n"
		"-o FILE starts with perf's '# started on DATE' line (not with --json); --append\n"
		"adds each run to the file.\n"
		"\n"
		"perf's metric flags run a model's metrics: -M NAMES prints only the metrics (and\n"
		"factors: locality, llc, sharing, imc, queue) named, of the model given with -m or\n"
		"else the one chosen for this machine; a name the model lacks is an error that lists\n"
		"the names it has ('vmmprof model show NAME' describes them).  --metric-only prints\n"
		"the values in one line under a line of their names (with -I one line per interval,\n"
		"with -x a line of names and one of values, each ending in the separator), an n/a\n"
		"with the number of its reason, each reason printed once below.",
	.options =
		"-e, --event EVENTS\tevents to count, comma-separated; repeatable\n"
		"-a, --all-cpus\tcount on every online CPU\n"
		"-C, --cpu CPUS\tcount on these CPUs (\"0-3,8\"); an offline one is reported\n"
		"-p, --pid PIDS\tcount these processes (all their threads)\n"
		"-t, --tid TIDS\tcount these threads\n"
		"-G, --cgroup CGROUPS\tcount only inside these cgroups (see above)\n"
		"-I, --interval-print MS\tprint the counts of every MS milliseconds (at least 10)\n"
		"--interval-count N\twith -I: stop after N intervals (a command is ended with SIGTERM), as perf stat\n"
		"-x, --field-separator SEP\tCSV as perf -x prints it: value,unit,event,run-ns,pct,metric,metric-unit\n"
		"-j, --json\tJSON lines: one per interval and a summary (docs/stat-json.md)\n"
		"-o, --output FILE\twrite the counts to FILE ('-' for standard output)\n"
		"--no-big-num\tno thousands separators\n"
		"-m, --model NAME|FILE\ta model name or file: print its metrics and factor scores\n"
		"--raw\twith -m: print the counts of the model's events instead\n"
		"--model-path DIR\tlook for models in DIR first (repeatable)\n"
		"--calibration FILE\tcalibration for cal.* values (default ~/.config/vmmprof/calibration.json)\n"
		"-r, --repeat N\trun the command N times: means and their spread (see above)\n"
		"--per-thread\tone row per thread (with -p, -t or a command)\n"
		"-A, --no-aggr\twith -a or -C: one row per CPU (CPU3)\n"
		"--per-core\twith -a or -C: one row per physical core, its CPUs summed (S0-D0-C1)\n"
		"--per-socket\twith -a or -C: one row per package (S0)\n"
		"--per-node\twith -a or -C: one row per NUMA node (N1), the CPUs of the node summed\n"
		"--per-die\twith -a or -C: one row per die of a package (S0-D0)\n"
		"--per-cache[=LEVEL]\twith -a or -C: one row per last-level cache (S0-D0-L3-ID0: its first CPU); LEVEL L3 or 3 names it\n"
		"--timeout MS\tstop after MS milliseconds (at least 10; a command gets SIGTERM), as perf; not with -I\n"
		"-D, --delay MS\tcount from MS milliseconds after the start (perf's -D; its -1 needs --control, which vmmprof lacks)\n"
		"-T, --transaction\tperf's transaction events (Intel TSX); an error where the CPU has none\n"
		"-v, --verbose\teach counter's raw count, enabled and running ns (perf -v; -vv also per CPU or thread)\n"
		"-n, --null\topen no counter: time the run only (perf's null run; with -r, the spread of the times)\n"
		"--append\twith -o: add to FILE instead of replacing it (each run starts with perf's '# started on' line)\n"
		"-M, --metrics NAMES\tprint only these metrics and factors of the model (-m, or the one chosen here)\n"
		"--metric-only\tthe model's metrics and factor scores in one line under their names, as perf's",
	.examples =
		"vmmprof stat -- make -j2\tperf's default counts for a build\n"
		"vmmprof stat -a -I 1000\tthe whole machine, every second (Ctrl-C ends it)\n"
		"vmmprof stat -e task-clock,sched:sched_switch -p 1234\ta process until it exits\n"
		"vmmprof stat -a -e task-clock -G machine/qemu-1-vm1.libvirt-qemu/vcpu0 sleep 5\tone vCPU of a libvirt VM\n"
		"vmmprof stat -x, -e page-faults -- ./app\tCSV for a script\n"		"vmmprof stat -r 5 -- ./bench\tfive runs: means and their spread\n"
		"vmmprof stat --per-thread -e task-clock -p 1234\teach thread of a process\n"
		"vmmprof stat -m skx -a -I 1000\tthe five factors of a Skylake-SP host, every second\n"
		"vmmprof stat --metric-only -M cpu_util,locality -a -I 1000\ttwo values a second, one line each",
	.flags = CMD_STOP_AT_POSITIONAL,
};

static const struct cmd *self(void)
{
	return &cmd_stat;
}
