/* swsource.c - the table of software source names a model may use, with their providers */
#include "model/swsource.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/numastat.h"
#include "util/alloc.h"
#include "util/fs.h"

/* numastat.FIELD: the field summed over every node. */
static int read_numastat(const char *root, const char *name, double *val, struct vp_err *err)
{
	const char *field = strchr(name, '.') + 1;
	struct node_stat *ns = NULL;
	size_t n = 0, i;
	int f, ret, have = 0;
	double sum = 0;

	for (f = 0; f < NS_NFIELDS; f++)
		if (!strcmp(node_numastat_field_name((enum node_numastat_field)f), field))
			break;
	if (f == NS_NFIELDS)
		return vp_err_set(err, VP_ENOTFOUND, "unknown source '%s'", name);
	ret = node_stat_read_all(root, &ns, &n, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (ns[i].ns_have & (1u << f)) {
			sum += (double)ns[i].ns[f];
			have++;
		}
	free(ns);
	if (!have)
		return vp_err_set(err, VP_EUNSUPP, "no node numastat holds '%s'", field);
	*val = sum;
	return 0;
}

/* vmstat.FIELD from /proc/vmstat. */
static int read_vmstat(const char *root, const char *name, double *val, struct vp_err *err)
{
	const char *field = strchr(name, '.') + 1;
	struct vmstat_numa vs;
	int f, ret;

	for (f = 0; f < VS_NFIELDS; f++)
		if (!strcmp(vmstat_numa_field_name((enum vmstat_numa_field)f), field))
			break;
	if (f == VS_NFIELDS)
		return vp_err_set(err, VP_ENOTFOUND, "unknown source '%s'", name);
	ret = vmstat_numa_read(root, &vs, err);
	if (ret)
		return ret;
	if (!(vs.have & (1u << f)))
		return vp_err_set(err, VP_EUNSUPP, "/proc/vmstat has no '%s' (kernel without "
				  "NUMA balancing?)", field);
	*val = (double)vs.v[f];
	return 0;
}

/*
 * sched.run_ns / sched.wait_ns machine-wide: /proc/schedstat, summed over
 * its "cpuN" lines.  Documentation/scheduler/sched-stats.rst (versions
 * 15-17): after cpuN come yld_count, a legacy 0, schedule() calls, idle
 * schedules, try_to_wake_up() calls, local wake-ups, then the 7th field,
 * the time tasks ran on this CPU (ns), and the 8th, the time tasks waited
 * to run on it (ns).
 */
static int read_schedstat_machine(const char *root, const char *name, double *val,
				  struct vp_err *err)
{
	int field = !strcmp(name, "sched.run_ns") ? 6 : 7;
	char *text = NULL, *line, *save = NULL;
	double sum = 0;
	int ret, version = -1, cpus = 0;

	ret = vp_read_file(root, "/proc/schedstat", &text, NULL, err);
	if (ret)
		return vp_err_set(err, VP_EUNSUPP, "no /proc/schedstat (kernel without "
				  "CONFIG_SCHEDSTATS?): per task it is read with stat -m -p/-t");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p, *end;
		int k;

		if (sscanf(line, "version %d", &version) == 1)
			continue;
		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		p = line + 3;
		strtoul(p, &end, 10); /* the CPU number */
		p = end;
		for (k = 0; k < field; k++) {
			strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		sum += strtod(p, &end);
		if (k < field || end == p) {
			free(text);
			return vp_err_set(err, VP_EPARSE, "/proc/schedstat: short cpu line '%.40s'", line);
		}
		cpus++;
	}
	free(text);
	if (version < 15 || version > 17)
		return vp_err_set(err, VP_EUNSUPP, "/proc/schedstat version %d, not one of 15-17 "
				  "(sched-stats.rst)", version);
	if (!cpus)
		return vp_err_set(err, VP_EPARSE, "/proc/schedstat has no cpu lines");
	*val = sum;
	return 0;
}

/*
 * One thread's value: /proc/TID/schedstat ("run_ns wait_ns timeslices",
 * Documentation/scheduler/sched-stats.rst) or, for sched.migrations, the
 * se.nr_migrations line of /proc/TID/sched (CONFIG_SCHED_DEBUG).  path is
 * the thread's /proc directory.
 */
static int read_task(const char *root, const char *dir, const char *name, double *val,
		     struct vp_err *err)
{
	bool migr = !strcmp(name, "sched.migrations");
	char *path = xasprintf("%s/%s", dir, migr ? "sched" : "schedstat");
	char *text = NULL, *p;
	double run, wait;
	int ret = vp_read_file(root, path, &text, NULL, err);

	if (ret)
		goto out;
	if (migr) {
		p = strstr(text, "se.nr_migrations");
		if (!p || !(p = strchr(p, ':'))) {
			ret = vp_err_set(err, VP_EUNSUPP, "%s has no se.nr_migrations", path);
			goto out;
		}
		*val = strtod(p + 1, NULL);
	} else if (sscanf(text, "%lf %lf", &run, &wait) == 2) {
		*val = !strcmp(name, "sched.run_ns") ? run : wait;
	} else {
		ret = vp_err_set(err, VP_EPARSE, "%s: not 'run wait slices'", path);
	}
out:
	free(text);
	free(path);
	return ret;
}

/*
 * sched.run_ns, .wait_ns, .migrations summed over the threads of the
 * scope's processes and its single threads.  A thread that ends takes its
 * time with it: the caller sees the sum go back and makes that interval
 * n/a.  With no task listed yet, whether this kernel has the file at all
 * (read for this process).
 */
static int read_sched_tasks(const char *root, const char *name, const struct swsource_scope *sc,
			    double *val, struct vp_err *err)
{
	bool migr = !strcmp(name, "sched.migrations");
	double sum = 0, v;
	size_t i, k, have = 0;
	int ret = 0;

	if (!sc->n_pids && !sc->n_tids) {
		if (read_task(root, "/proc/self", name, &v, NULL))
			return vp_err_set(err, VP_EUNSUPP, "no /proc/self/%s (kernel without %s?)",
					  migr ? "sched" : "schedstat",
					  migr ? "CONFIG_SCHED_DEBUG" : "CONFIG_SCHED_INFO");
		*val = 0;
		return 0;
	}
	for (i = 0; i < sc->n_pids && !ret; i++) {
		char *dir = xasprintf("/proc/%d/task", (int)sc->pids[i]);
		char **tids = NULL;
		size_t n = 0;

		ret = vp_list_dir(root, dir, &tids, &n, err);
		for (k = 0; k < n && !ret; k++) {
			char *td = xasprintf("%s/%s", dir, tids[k]);

			ret = read_task(root, td, name, &v, err);
			if (ret == -ENOENT || ret == -ESRCH) { /* ended since the listing */
				ret = 0;
			} else if (!ret) {
				sum += v;
				have++;
			}
			free(td);
		}
		vp_free_names(tids, n);
		free(dir);
	}
	for (i = 0; i < sc->n_tids && !ret; i++) {
		char *td = xasprintf("/proc/%d", (int)sc->tids[i]);

		ret = read_task(root, td, name, &v, err);
		if (!ret) {
			sum += v;
			have++;
		}
		free(td);
	}
	if (!ret && !have)
		ret = vp_err_set(err, VP_ENOTFOUND, "none of the tasks is running any more");
	if (!ret)
		*val = sum;
	return ret;
}

/* Completes "'NAME' is ...": where the value is instead. */
#define PLACEMENT_HOW                                                                              \
	"computed per VM and vCPU by diagnose, top, record and the daemon (where the vCPU threads "  \
	"ran against where the VM's memory is); stat -m has no vCPU rows"
#define SCHED_MIGR_HOW                                                                             \
	"counted per task by stat -m -p/-t (se.nr_migrations of /proc/TID/sched), not for the whole " \
	"machine: count the cpu-migrations event there"

#define SCHED_WAIT_CMD_WHY                                                                         \
	"not for a command stat starts: the kernel keeps a task's wait time (schedstat) only while " \
	"the task lives and no perf event counts it, so the waits of threads and children that end " \
	"are lost; per task with stat -m -p/-t on running tasks, machine-wide with -a"

/*
 * read is NULL until the module that produces a source lands and a
 * provider is added here (one function each): the model language can name
 * them today, and every model that uses them says why the value is
 * missing meanwhile.
 */
/* src/collect/resctrl_vm.c: one monitoring group per VM, on request */
#define RESCTRL_HOW "measured per VM by a resctrl monitoring group: diagnose --resctrl, " \
	"record --resctrl, or a daemon session with resctrl: true"

static const struct swsource_def table[] = {
	/* /sys/devices/system/node/nodeN/numastat, summed over nodes */
	{ "numastat.numa_hit", "pages", "pages allocated on the node the process wanted", true, read_numastat },
	{ "numastat.numa_miss", "pages", "pages allocated here although another node was wanted", true, read_numastat },
	{ "numastat.numa_foreign", "pages", "pages wanted here but allocated on another node", true, read_numastat },
	{ "numastat.local_node", "pages", "pages allocated on the node of the allocating CPU", true, read_numastat },
	{ "numastat.other_node", "pages", "pages allocated on another node than the allocating CPU's", true, read_numastat },
	{ "numastat.interleave_hit", "pages", "interleave-policy pages allocated on the intended node", true, read_numastat },
	/* /proc/vmstat */
	{ "vmstat.numa_hint_faults", "events", "NUMA-balancing hinting faults", true, read_vmstat },
	{ "vmstat.numa_hint_faults_local", "events", "hinting faults on pages already local", true, read_vmstat },
	{ "vmstat.numa_pages_migrated", "pages", "pages moved by NUMA balancing", true, read_vmstat },
	{ "vmstat.pgmigrate_success", "pages", "pages migrated (any reason)", true, read_vmstat },
	/* placement: vCPU residency by node x guest memory by node (src/hv) */
	{ "placement.remote_fraction", "ratio", "expected share of memory accesses to a remote node, from where the vCPU ran and where its VM's memory is", false, NULL, PLACEMENT_HOW },
	{ "placement.spread", "ratio", "share of the VM's memory outside its largest node", false, NULL, PLACEMENT_HOW },
	/* resctrl monitoring group of the entity */
	{ "resctrl.llc_occupancy", "bytes", "LLC bytes held by the group (resctrl llc_occupancy)", false, NULL, RESCTRL_HOW },
	{ "resctrl.mbm_total_bytes", "bytes", "memory traffic of the group (resctrl mbm_total_bytes)", true, NULL, RESCTRL_HOW },
	{ "resctrl.mbm_local_bytes", "bytes", "memory traffic to the local node (resctrl mbm_local_bytes)", true, NULL, RESCTRL_HOW },
	/*
	 * scheduler: machine-wide from /proc/schedstat, per task from
	 * /proc/TID/schedstat and /proc/TID/sched; diagnose, top, record and
	 * the daemon compute run/wait per vCPU themselves (src/collect)
	 */
	/*
	 * For a command: task-clock is the task's sum_exec_runtime, the clock
	 * schedstat's run time reads; cpu-migrations counts where
	 * se.nr_migrations is incremented (set_task_cpu(), charged at the
	 * next switch-in on the new CPU).  No event counts wait time.
	 */
	{ "sched.run_ns", "ns", "time on a CPU (schedstat field 1)", true, read_schedstat_machine, NULL, read_sched_tasks,
	  "task-clock", NULL },
	{ "sched.wait_ns", "ns", "time runnable but waiting for a CPU (schedstat field 2)", true, read_schedstat_machine, NULL, read_sched_tasks,
	  NULL, SCHED_WAIT_CMD_WHY },
	{ "sched.migrations", "events", "moves to another CPU", true, NULL, SCHED_MIGR_HOW, read_sched_tasks,
	  "cpu-migrations", NULL },
	{ "sched.node_migrations", "events", "moves to a CPU of another NUMA node", true, NULL,
	  "counted per task by stat -m -p/-t and for a command stat -m starts, from the kernel's "
	  "context-switch records (a thread that comes onto a CPU of another node than where it "
	  "last ran moved), not for the whole machine or a part of it" },
	{ NULL, NULL, NULL, false, NULL },
};

const struct swsource_def *swsource_table(void)
{
	return table;
}

const struct swsource_def *swsource_find(const char *name)
{
	const struct swsource_def *d;

	for (d = table; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

static bool per_task(const struct swsource_def *d, const struct swsource_scope *sc)
{
	return d->read_tasks && sc && sc->kind != SWS_MACHINE;
}

static int check_scoped(const char *name, const struct swsource_scope *sc, struct vp_err *err)
{
	const struct swsource_def *d = swsource_find(name);

	if (!d)
		return vp_err_set(err, VP_ENOTFOUND, "unknown source '%s'", name);
	if (per_task(d, sc) && sc->kind == SWS_COMMAND && d->cmd_why)
		return vp_err_set(err, VP_EUNSUPP, "%s", d->cmd_why);
	if (per_task(d, sc) && sc->kind == SWS_COMMAND && !d->cmd_event)
		return vp_err_set(err, VP_EUNSUPP, "not for a command stat starts (its threads and "
				  "children end before the last reading): per task with stat -m -p/-t on "
				  "running tasks%s", d->read ? ", machine-wide with -a" : "");
	if (per_task(d, sc) && sc->kind == SWS_COMMAND)
		return 0;  /* counted by d->cmd_event: swsource_event_for() */
	if (per_task(d, sc) && sc->kind == SWS_PART)
		return vp_err_set(err, VP_EUNSUPP, "not for a part of the machine (-C, -G): per task "
				  "with stat -m -p/-t%s", d->read ? ", machine-wide with -a" : "");
	if (!d->read && !per_task(d, sc)) {
		if (d->entity)
			return vp_err_set(err, VP_EUNSUPP, "'%s' is %s", name, d->entity);
		return vp_err_set(err, VP_EUNSUPP, "no provider for source '%s' in this build yet",
				  name);
	}
	return 0;
}

const char *swsource_event_for(const char *name, const struct swsource_scope *sc)
{
	const struct swsource_def *d = swsource_find(name);

	return d && per_task(d, sc) && sc->kind == SWS_COMMAND ? d->cmd_event : NULL;
}

int swsource_check(const char *name, struct vp_err *err)
{
	return check_scoped(name, NULL, err);
}

int swsource_read_scoped(const char *root, const char *name, const struct swsource_scope *sc,
			 double *val, struct vp_err *err)
{
	const struct swsource_def *d = swsource_find(name);
	int ret = check_scoped(name, sc, err);

	*val = NAN;
	if (ret)
		return ret;
	if (swsource_event_for(name, sc))
		return vp_err_set(err, VP_EUNSUPP, "'%s' of a command is counted by the event '%s', "
				  "not read", name, d->cmd_event);
	if (per_task(d, sc))
		return d->read_tasks(root, name, sc, val, err);
	return d->read(root, name, val, err);
}

int swsource_read(const char *root, const char *name, double *val, struct vp_err *err)
{
	return swsource_read_scoped(root, name, NULL, val, err);
}
