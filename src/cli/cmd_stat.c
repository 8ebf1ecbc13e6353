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
#include "cli/stat.h"
#include "cli/stat_model.h"

/* perf stat's default events, in its order. */
static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", "branches", "branch-misses",
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
						       "sum the CPUs", stat_aggr_flag[o->aggr], stat_aggr_flag[a]);
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
			o->aggr ? stat_aggr_flag[o->aggr] : o->verbose ? "-v" :
			(o->n_pids || o->n_tids) ? "-p/-t" : (o->cgroup_all || o->nr_cgroups) ? "-G" : NULL;

		if (with)
			return cli_usage_error(self(), "-n opens no counter, it times the run: it "
					       "cannot be combined with %s", with);
	}
	if (o->aggr && !o->all_cpus && !o->cpus.n)
		return cli_usage_error(self(), "%s sums the counts of CPUs: it needs -a or -C (as "
				       "perf's)", stat_aggr_flag[o->aggr]);
	if (o->aggr && (o->cgroup_all || o->nr_cgroups || o->model || o->metrics ||
			o->metric_only || o->repeat > 1))
		return cli_usage_error(self(), "%s is not available with %s%s", stat_aggr_flag[o->aggr],
				       o->repeat > 1 ? "-r" : (o->cgroup_all || o->nr_cgroups) ? "-G" :
				       model_flag(o), o->repeat > 1 || o->cgroup_all ||
				       o->nr_cgroups ? "" : " (a model's metrics are of the whole "
				       "machine)");
	if (o->raw && (o->metrics || o->metric_only))
		return cli_usage_error(self(), "--raw prints counts, %s metrics: one or the other",
				       o->metrics ? "-M" : "--metric-only");
	return 0;
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
	stat_target_desc(&tgt, &o);
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
				stat_repeat_init(&rp, (int)o.repeat, c.n_rows);
			stat_repeat_add(&rp, c.rows, &run);
			if (run.interrupted)
				break;
		}
		stat_repeat_print(&c.out, &o, &rp, c.rows, &run, c.child_target);
		if (stat_flush_out(c.f, &c.out))
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
		stat_print_summary(&c.out, &o, run.s, &run.snap, c.rows, c.n_rows, &run.ch, c.child_target,
			      run.comms);
	else if (!o.sep)
		stat_print_notes(&c.out, &o, run.s, c.rows, c.n_rows, c.child_target, run.snap.t_ns);
	if (c.have_model && !o.model && !c.model_only && !o.json && !o.sep && !o.interval_ms)
		stat_model_print(&sm, run.s, &run.snap, true, &c.mo, &c.out); /* the automatic model, after the counts */
	if (stat_flush_out(c.f, &c.out))
		rc = cli_errorf("write failure: %s", strerror(errno));
	if (!rc && run.ch.pid > 0 && run.ch.done && !run.counted_out && !run.timed_out)
		rc = stat_exit_code(run.ch.status);
out:
	stat_run_release(&run);
	if (c.f && c.f != stderr) {
		int crc = cli_close_output(c.f, o.output);

		rc = rc ? rc : crc;
	}
	if (masked)
		sigprocmask(SIG_SETMASK, &c.oldmask, NULL);
	stat_repeat_release(&rp);
	stat_free_rows(c.rows, c.n_rows);
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
