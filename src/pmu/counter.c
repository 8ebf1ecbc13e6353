/* counter.c - counting engine: plans, opens and reads perf counter groups over CPUs, threads and cgroups */
#include "pmu/counter.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"
#include "util/timeutil.h"

/* One perf_event_open() descriptor. */
struct cnt_fd {
	int fd;                    /* -1 once closed (its entity ended) */
	int counter;               /* series it adds to */
	uint64_t id;               /* PERF_FORMAT_ID */
	struct cnt_value cur;      /* cumulative raw/enabled/running at the last read */
	struct cnt_value prev;     /* ... at the read before */
};

/* One group leader; its members follow it in s->fds. */
struct cnt_group {
	size_t first;              /* index of the leader in s->fds */
	size_t n;                  /* leader + members that opened */
	int entity;
};

/* Where one group is opened: perf_event_open's pid, cpu and flags. */
struct unit {
	pid_t pid;                 /* tid, cgroup fd, or -1 */
	int cpu;                   /* CPU or -1 */
	unsigned long flags;
	int entity;
};

/* A plan group: events opened together on every unit of its scope. */
struct plan_group {
	int *ev;                   /* event indices, leader first */
	size_t n;
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int cnt_try_open(const struct evdesc *ev)
{
	struct perf_event_attr a = ev->attr;
	long fd;

	a.size = sizeof(a);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

/* ---- values ---- */

void cnt_value_scale(struct cnt_value *v, double scale)
{
	v->pct = v->enabled ? 100.0 * (double)v->running / (double)v->enabled : NAN;
	if (!v->running) {
		/* never enabled: a per-thread counter whose thread did not run
		 * counted exactly nothing; enabled but never running: unknown */
		v->value = v->enabled ? NAN : 0.0;
		return;
	}
	v->value = (double)v->raw * scale;
	if (v->running < v->enabled)
		v->value *= (double)v->enabled / (double)v->running;
}

void cnt_value_delta(struct cnt_value *d, const struct cnt_value *cur, const struct cnt_value *prev)
{
	d->raw = cur->raw >= prev->raw ? cur->raw - prev->raw : 0;
	d->enabled = cur->enabled >= prev->enabled ? cur->enabled - prev->enabled : 0;
	d->running = cur->running >= prev->running ? cur->running - prev->running : 0;
	d->value = NAN;
	d->pct = NAN;
}

static void value_add(struct cnt_value *sum, const struct cnt_value *v)
{
	sum->raw += v->raw;
	sum->enabled += v->enabled;
	sum->running += v->running;
}

void cnt_snapshot_init(struct cnt_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
}

void cnt_snapshot_release(struct cnt_snapshot *snap)
{
	free(snap->delta);
	free(snap->total);
	free(snap->state);
	cnt_snapshot_init(snap);
}

/* ---- the machine: CPUs, threads, cgroups ---- */

/* Online and possible CPUs. */
static int read_cpus(const char *root, struct cpulist *online, struct cpulist *possible,
		     struct vp_err *err)
{
	char line[4096];
	int ret;

	ret = vp_read_line(root, "/sys/devices/system/cpu/online", line, sizeof(line), err);
	if (!ret)
		ret = cpulist_parse(online, line, err);
	if (ret)
		return ret;
	if (vp_read_line(root, "/sys/devices/system/cpu/possible", line, sizeof(line), NULL) ||
	    cpulist_parse(possible, line, NULL))
		cpulist_copy(possible, online);
	return 0;
}

/* cpuN/topology/NAME (physical_package_id, die_id, core_id); -1 unknown. */
static int cpu_topology(const char *root, int cpu, const char *name)
{
	char path[128];
	int v;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	return vp_read_int(root, path, &v, NULL) ? -1 : v;
}

/* The node of a CPU: its cpuN/nodeM link; -1 when it has none. */
static int cpu_node(const char *root, int cpu)
{
	char path[64], **names = NULL;
	size_t n = 0, i;
	int node = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	if (vp_list_dir(root, path, &names, &n, NULL))
		return -1;
	for (i = 0; i < n && node < 0; i++) {
		char *end;
		long v;

		if (strncmp(names[i], "node", 4) || !names[i][4])
			continue;
		v = strtol(names[i] + 4, &end, 10);
		if (!*end && v >= 0 && v < 1 << 16)
			node = (int)v;
	}
	vp_free_names(names, n);
	return node;
}

/* Thread ids of process pid from /proc/PID/task, ascending. */
static int list_tasks(const char *root, pid_t pid, pid_t **tids, size_t *n)
{
	char rel[64];
	char *path;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	snprintf(rel, sizeof(rel), "/proc/%d/task", (int)pid);
	path = vp_path(root, rel);
	d = opendir(path);
	free(path);
	*tids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long v = strtol(de->d_name, &end, 10);

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end || v <= 0)
			continue;
		VP_GROW(*tids, cap, *n + 1);
		(*tids)[(*n)++] = (pid_t)v;
	}
	closedir(d);
	return 0;
}

/* A process that exited but was not reaped yet (zombie) still lists its leader. */
static bool leader_zombie(const char *root, pid_t pid)
{
	char rel[64], buf[512], *p;

	/* the leader's own stat: /proc/PID/stat would sum the CPU time of every thread */
	snprintf(rel, sizeof(rel), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	if (vp_read_line(root, rel, buf, sizeof(buf), NULL))
		return true;
	p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* Tgid of a thread from /proc/TID/status; -errno when it does not exist. */
static int thread_tgid(const char *root, pid_t tid, pid_t *tgid)
{
	char rel[64], *buf, *p;
	int ret;

	snprintf(rel, sizeof(rel), "/proc/%d/status", (int)tid);
	ret = vp_read_file(root, rel, &buf, NULL, NULL);
	if (ret)
		return ret;
	p = strstr(buf, "\nTgid:");
	*tgid = p ? (pid_t)strtol(p + 6, NULL, 10) : tid;
	free(buf);
	return 0;
}

static char *unescape_mount(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len &&
		    s[i + 1] >= '0' && s[i + 1] <= '7') {
			*o++ = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = 0;
	return out;
}

int cnt_cgroup_mount(const char *root, char *buf, size_t size, bool *v2, struct vp_err *err)
{
	char *text, *line, *save = NULL, *v2mnt = NULL, *v1mnt = NULL;
	int ret;

	ret = vp_read_file(root, "/proc/self/mountinfo", &text, NULL, err);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, " - "), *mnt, *end, *fstype, *opts;
		int i;

		if (!sep)
			continue;
		/* fields: id parent major:minor root mountpoint ... */
		mnt = line;
		for (i = 0; i < 4 && mnt; i++) {
			mnt = strchr(mnt, ' ');
			if (mnt)
				mnt++;
		}
		if (!mnt || !(end = strchr(mnt, ' ')))
			continue;
		fstype = sep + 3;
		opts = strrchr(fstype, ' ');
		if (!strncmp(fstype, "cgroup2 ", 8) && !v2mnt)
			v2mnt = unescape_mount(mnt, (size_t)(end - mnt));
		else if (!strncmp(fstype, "cgroup ", 7) && opts && !v1mnt) {
			char *o, *osave = NULL, *copy = xstrdup(opts + 1);

			for (o = strtok_r(copy, ",", &osave); o; o = strtok_r(NULL, ",", &osave))
				if (!strcmp(o, "perf_event"))
					v1mnt = unescape_mount(mnt, (size_t)(end - mnt));
			free(copy);
		}
	}
	free(text);
	if (v1mnt) {
		snprintf(buf, size, "%s", v1mnt);
		*v2 = false;
	} else if (v2mnt) {
		snprintf(buf, size, "%s", v2mnt);
		*v2 = true;
	} else {
		ret = vp_err_set(err, VP_EUNSUPP, "no cgroup hierarchy with the perf_event controller "
				 "is mounted (neither cgroup v2 nor a v1 'perf_event' hierarchy)");
	}
	free(v1mnt);
	free(v2mnt);
	return ret;
}

/* ---- planning ---- */

static int add_entity(struct cnt_session *s, size_t *cap, const struct cnt_entity *e)
{
	VP_GROW(s->entities, *cap, s->n_entities + 1);
	s->entities[s->n_entities] = *e;
	return (int)s->n_entities++;
}

static int find_cpu_entity(const struct cnt_session *s, int cpu)
{
	size_t i;

	for (i = 0; i < s->n_entities; i++)
		if (s->entities[i].kind == CNT_ENT_CPU && s->entities[i].cpu == cpu)
			return (int)i;
	return -1;
}

static int cpu_entity(struct cnt_session *s, size_t *cap, int cpu, const struct cpulist *online)
{
	struct cnt_entity e = { 0 };
	int i = find_cpu_entity(s, cpu);

	if (i >= 0)
		return i;
	e.kind = CNT_ENT_CPU;
	e.state = cpulist_has(online, cpu) ? CNT_ENT_LIVE : CNT_ENT_OFFLINE;
	e.cpu = cpu;
	e.package = cpu_topology(s->root, cpu, "physical_package_id");
	e.die = cpu_topology(s->root, cpu, "die_id");
	e.core = cpu_topology(s->root, cpu, "core_id");
	e.node = cpu_node(s->root, cpu);
	e.tid = e.pid = -1;
	return add_entity(s, cap, &e);
}

static bool is_soft(const struct evdesc *ev)
{
	return !ev->uncore && (ev->attr.type == PERF_TYPE_SOFTWARE ||
			       ev->attr.type == PERF_TYPE_TRACEPOINT);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * Split events into groups: a user group id joins events; otherwise
 * software and tracepoint events of one cgroup (or none) share one group
 * (they never multiplex, so this only saves reads); every other event is
 * a group of its own, as perf stat opens it.
 */
static struct plan_group *plan_groups(const struct cnt_session *s, size_t *n_out)
{
	struct plan_group *g = NULL;
	size_t n = 0, cap = 0, i, j;

	for (i = 0; i < s->n_events; i++) {
		const struct cnt_event *e = &s->events[i];
		struct plan_group *hit = NULL;

		for (j = 0; j < n && !hit; j++) {
			const struct cnt_event *l = &s->events[g[j].ev[0]];

			if (e->group >= 0 && l->group == e->group)
				hit = &g[j];
			else if (e->group < 0 && l->group < 0 && is_soft(&e->ev) &&
				 is_soft(&l->ev) && same_str(e->cgroup, l->cgroup))
				hit = &g[j];
		}
		if (!hit) {
			VP_GROW(g, cap, n + 1);
			hit = &g[n++];
			hit->ev = NULL;
			hit->n = 0;
		}
		hit->ev = xrealloc(hit->ev, (hit->n + 1) * sizeof(int));
		hit->ev[hit->n++] = (int)i;
	}
	*n_out = n;
	return g;
}

static void copy_evdesc(struct evdesc *dst, const struct evdesc *src)
{
	*dst = *src;
	dst->spec = xstrdup(src->spec ? src->spec : src->name);
	dst->name = xstrdup(src->name ? src->name : src->spec);
	dst->fstr = src->fstr ? xstrdup(src->fstr) : NULL;
	cpulist_init(&dst->cpus);
	cpulist_copy(&dst->cpus, &src->cpus);
}

/* Raise RLIMIT_NOFILE so that need more descriptors fit. */
static int fd_budget(size_t need, struct vp_err *err)
{
	struct rlimit rl;
	rlim_t want;
	long open_now = 0, fdsize = -1;
	DIR *d;
	char line[256];
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	/* FDSize (the descriptor table's size) bounds what is open: when need fits beside it,
	 * no listing of /proc/self/fd, a dentry per descriptor (9 % of record's CPU at 1,000
	 * vCPUs, one listing per new VM) */
	if ((f = fopen("/proc/self/status", "re"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "FDSize: %ld", &fdsize) == 1)
				break;
		fclose(f);
	}
	if (fdsize >= 0 && (rl.rlim_cur == RLIM_INFINITY ||
			    rl.rlim_cur >= (rlim_t)need + (rlim_t)fdsize + 16))
		return 0;
	if ((d = opendir("/proc/self/fd"))) {
		while (readdir(d))
			open_now++;
		closedir(d);
	}
	want = (rlim_t)need + (rlim_t)open_now + 16;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= want)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want) {
		/* twice, within the hard limit: the next VM's threads fit without a listing */
		rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && want * 2 > rl.rlim_max ? rl.rlim_max :
											 want * 2;
		setrlimit(RLIMIT_NOFILE, &rl);
		return 0;
	}
	/* try beyond the hard limit (works with CAP_SYS_RESOURCE) */
	rl.rlim_cur = rl.rlim_max = want;
	if (!setrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	getrlimit(RLIMIT_NOFILE, &rl);
	return vp_err_set(err, -EMFILE, "counting needs %zu file descriptors (%zu counters plus %ld "
			  "already open) but RLIMIT_NOFILE allows %llu: raise it with 'ulimit -n %llu' "
			  "or count fewer events or threads", (size_t)want, need, open_now,
			  (unsigned long long)rl.rlim_max, (unsigned long long)want);
}

static void note_failure(struct cnt_event *e, int errnum)
{
	e->n_failed++;
	if (!e->errnum)
		e->errnum = errnum;
}

/* Series index of (event, entity), creating it. */
static int series(struct cnt_session *s, int **map, size_t *cap, int ev, int ent)
{
	if (map[ev][ent] < 0) {
		VP_GROW(s->counters, *cap, s->n_counters + 1);
		s->counters[s->n_counters].event = ev;
		s->counters[s->n_counters].entity = ent;
		map[ev][ent] = (int)s->n_counters++;
	}
	return map[ev][ent];
}

/*
 * Open one plan group on one unit.  The first event that opens leads;
 * members that fail are noted on their event.  Returns the open errno
 * that concerns the unit rather than the events (ENODEV: CPU offline,
 * ESRCH: thread gone), else 0.
 */
static int open_group(struct cnt_session *s, const struct plan_group *pg, const struct unit *u,
		      bool thread_mode, bool inherit, int **map, size_t *cap_fds,
		      size_t *cap_grps, size_t *cap_ctr)
{
	int leader = -1;
	size_t i, first = s->n_fds;

	for (i = 0; i < pg->n; i++) {
		struct cnt_event *e = &s->events[pg->ev[i]];
		struct perf_event_attr attr = e->ev.attr;
		struct cnt_fd *f;
		long fd;

		attr.size = sizeof(attr);
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		attr.inherit = thread_mode && inherit;
		attr.disabled = leader < 0;
		attr.enable_on_exec = leader < 0 && s->enable_on_exec;
		fd = sys_perf_event_open(&attr, u->pid, u->cpu, leader, u->flags | PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int errnum = errno;

			if (errnum == ESRCH && thread_mode)
				return ESRCH;
			if (errnum == ENODEV && u->cpu >= 0 && !e->ev.uncore &&
			    s->entities[u->entity].kind == CNT_ENT_CPU)
				return ENODEV;
			note_failure(e, errnum);
			continue;
		}
		VP_GROW(s->fds, *cap_fds, s->n_fds + 1);
		f = &s->fds[s->n_fds++];
		memset(f, 0, sizeof(*f));
		f->fd = (int)fd;
		f->counter = series(s, map, cap_ctr, pg->ev[i], u->entity);
		if (ioctl(f->fd, PERF_EVENT_IOC_ID, &f->id))
			f->id = 0;
		e->n_fds++;
		if (leader < 0)
			leader = (int)fd;
	}
	if (leader >= 0) {
		struct cnt_group *g;

		VP_GROW(s->grps, *cap_grps, s->n_grps + 1);
		g = &s->grps[s->n_grps++];
		g->first = first;
		g->n = s->n_fds - first;
		g->entity = u->entity;
	}
	return 0;
}

static void close_entity_fds(struct cnt_session *s, int entity)
{
	size_t i, j;

	for (i = 0; i < s->n_grps; i++) {
		if (s->grps[i].entity != entity)
			continue;
		for (j = s->grps[i].first; j < s->grps[i].first + s->grps[i].n; j++) {
			if (s->fds[j].fd >= 0)
				close(s->fds[j].fd);
			s->fds[j].fd = -1;
		}
	}
}

/* Which CPUs a group opens on. */
static void group_cpus(const struct cnt_session *s, const struct plan_group *pg,
		       const struct cnt_target *t, const struct cpulist *online,
		       struct cpulist *out)
{
	const struct evdesc *lead = &s->events[pg->ev[0]].ev;
	size_t i;

	cpulist_init(out);
	if (lead->uncore && lead->cpus.n) {
		cpulist_copy(out, &lead->cpus);
		return;
	}
	if (lead->uncore && online->n) {
		cpulist_add(out, online->ids[0]);
		return;
	}
	if (t->cpus.n) {
		cpulist_copy(out, &t->cpus);
		return;
	}
	for (i = 0; i < online->n; i++)
		cpulist_add(out, online->ids[i]);
}

/*
 * What cnt_session_new() builds a session from, phase to phase
 * (build_events() .. build_verdict()); build_release() frees it, whatever
 * phase stopped.
 */
struct build {
	struct cnt_session *s;
	const struct cnt_target *t;
	bool thread_mode;             /* processes or threads, not CPUs or cgroups */
	struct cpulist online, possible;
	pid_t *threads, *owners;      /* every thread counted, and its process */
	size_t n_threads, cap_thr;
	int *cg_fd, *cg_ent;          /* per event: its cgroup's directory and entity (-1 none) */
	char mnt[4096];               /* the cgroup mount, once needed */
	bool v2;
	struct plan_group *pgs;       /* the groups to open */
	size_t n_pgs;
	int **map;                    /* [event][entity]: its descriptor's index, -1 none */
	size_t cap_ent, cap_fds, cap_grps, cap_ctr;
};

/* The events, each with its cgroup and group; a cgroup is per CPU only. */
static int build_events(struct build *b, const struct cnt_request *req, struct vp_err *err)
{
	struct cnt_session *s = b->s;
	size_t i;

	if (!req->n_events)
		return vp_err_set(err, VP_EINVAL, "no events to count");
	s->n_events = req->n_events;
	s->events = xcalloc(req->n_events, sizeof(*s->events));
	for (i = 0; i < req->n_events; i++) {
		copy_evdesc(&s->events[i].ev, &req->events[i]);
		s->events[i].cgroup = req->cgroups && req->cgroups[i] ? xstrdup(req->cgroups[i]) : NULL;
		s->events[i].group = req->groups ? req->groups[i] : -1;
		if (s->events[i].cgroup && b->thread_mode)
			return vp_err_set(err, VP_EINVAL, "cgroup counting ('%s') is per CPU: it cannot "
					  "be combined with counting processes or threads",
					  s->events[i].cgroup);
	}
	return 0;
}

/* The CPUs asked for exist, and there is something to count on. */
static int build_check_target(struct build *b, struct vp_err *err)
{
	const struct cnt_target *t = b->t;
	struct cnt_session *s = b->s;
	size_t i;
	int ret = read_cpus(s->root, &b->online, &b->possible, err);

	if (ret)
		return ret;
	for (i = 0; i < t->cpus.n; i++) {
		if (!cpulist_has(&b->possible, t->cpus.ids[i])) {
			struct sbuf sb = SBUF_INIT;

			cpulist_format(&b->possible, &sb);
			ret = vp_err_set(err, VP_EINVAL, "CPU %d does not exist: this machine has CPUs %s",
					 t->cpus.ids[i], sbuf_str(&sb));
			sbuf_release(&sb);
			return ret;
		}
	}
	if (!b->thread_mode && !t->system_wide && !t->cpus.n) {
		bool any_cg = false;

		for (i = 0; i < s->n_events; i++)
			any_cg |= s->events[i].cgroup != NULL;
		if (!any_cg)
			return vp_err_set(err, VP_EINVAL, "nothing to count on: give CPUs, processes, "
					  "threads or a cgroup");
	}
	return 0;
}

static void add_thread(struct build *b, pid_t tid, pid_t owner)
{
	VP_GROW(b->threads, b->cap_thr, b->n_threads + 1);
	b->owners = xrealloc(b->owners, b->cap_thr * sizeof(*b->owners));
	b->threads[b->n_threads] = tid;
	b->owners[b->n_threads++] = owner;
}

/* Threads: every task of each process, then the named threads. */
static int build_threads(struct build *b, struct vp_err *err)
{
	const struct cnt_target *t = b->t;
	const char *root = b->s->root;
	size_t i, j;

	for (i = 0; i < t->n_pids; i++) {
		pid_t *tids;
		size_t n;

		if (list_tasks(root, t->pids[i], &tids, &n) || !n) {
			free(tids);
			return vp_err_set(err, -ESRCH, "process %d does not exist", (int)t->pids[i]);
		}
		qsort(tids, n, sizeof(*tids), cmp_pid);
		for (j = 0; j < n; j++)
			add_thread(b, tids[j], t->pids[i]);
		free(tids);
	}
	for (i = 0; i < t->n_tids; i++) {
		pid_t tgid;

		if (thread_tgid(root, t->tids[i], &tgid)) {
			if (t->skip_gone)
				continue;
			return vp_err_set(err, -ESRCH, "thread %d does not exist", (int)t->tids[i]);
		}
		add_thread(b, t->tids[i], tgid);
	}
	return 0;
}

/* Entities: CPUs (including offline ones asked for), uncore CPUs, threads. */
static void build_entities(struct build *b)
{
	const struct cnt_target *t = b->t;
	struct cnt_session *s = b->s;
	size_t i, j;

	if (!b->thread_mode) {
		const struct cpulist *want = t->cpus.n ? &t->cpus : &b->online;

		for (i = 0; i < want->n; i++)
			cpu_entity(s, &b->cap_ent, want->ids[i], &b->online);
	}
	for (i = 0; i < s->n_events; i++)
		for (j = 0; j < s->events[i].ev.cpus.n && s->events[i].ev.uncore; j++)
			cpu_entity(s, &b->cap_ent, s->events[i].ev.cpus.ids[j], &b->online);
	for (i = 0; i < b->n_threads; i++) {
		struct cnt_entity e = { 0 };
		bool dup = false;

		for (j = 0; j < i && !dup; j++)
			dup = b->threads[j] == b->threads[i];
		if (dup)
			continue;
		e.kind = CNT_ENT_THREAD;
		e.cpu = e.package = e.die = e.core = e.node = -1;
		e.tid = b->threads[i];
		e.pid = b->owners[i];
		add_entity(s, &b->cap_ent, &e);
	}
}

/* Each cgroup named once: its directory opened, an entity for it. */
static int build_cgroups(struct build *b, struct vp_err *err)
{
	struct cnt_session *s = b->s;
	size_t i, j;
	int ret;

	b->cg_fd = xcalloc(s->n_events, sizeof(int));
	b->cg_ent = xcalloc(s->n_events, sizeof(int));
	for (i = 0; i < s->n_events; i++)
		b->cg_fd[i] = b->cg_ent[i] = -1;
	for (i = 0; i < s->n_events; i++) {
		const char *name = s->events[i].cgroup;
		struct cnt_entity e = { 0 };
		char *rel, *path;

		if (!name)
			continue;
		for (j = 0; j < i; j++)
			if (same_str(s->events[j].cgroup, name)) {
				b->cg_ent[i] = b->cg_ent[j];
				b->cg_fd[i] = b->cg_fd[j];
			}
		if (b->cg_ent[i] >= 0)
			continue;
		if (!b->mnt[0] && (ret = cnt_cgroup_mount(s->root, b->mnt, sizeof(b->mnt), &b->v2, err)))
			return ret;
		rel = xasprintf("%s/%s", b->mnt, name[0] == '/' ? name + 1 : name);
		path = vp_path(s->root, rel);
		free(rel);
		b->cg_fd[i] = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (b->cg_fd[i] < 0) {
			ret = vp_err_errno(err, errno, "cannot open cgroup '%s' (%s)", name, path);
			free(path);
			return ret;
		}
		e.kind = CNT_ENT_CGROUP;
		e.cpu = e.package = e.die = e.core = e.node = -1;
		e.tid = e.pid = -1;
		e.cgroup = xstrdup(name);
		e.cgroup_path = path;
		b->cg_ent[i] = add_entity(s, &b->cap_ent, &e);
	}
	return 0;
}

/* The groups to open, within the descriptor limit; the event x entity map. */
static int build_budget(struct build *b, struct vp_err *err)
{
	struct cnt_session *s = b->s;
	struct cpulist cpus;
	size_t i, j;
	int ret;

	b->pgs = plan_groups(s, &b->n_pgs);
	for (i = 0; i < b->n_pgs; i++) {
		const struct cnt_event *lead = &s->events[b->pgs[i].ev[0]];

		group_cpus(s, &b->pgs[i], b->t, &b->online, &cpus);
		if (b->thread_mode && !lead->ev.uncore)
			s->fds_needed += b->pgs[i].n * b->n_threads;
		else
			s->fds_needed += b->pgs[i].n * cpus.n;
		cpulist_release(&cpus);
	}
	if ((ret = fd_budget(s->fds_needed, err)))
		return ret;
	if (b->thread_mode && !strcmp(s->root, "/")) {
		struct vp_err ign = { 0, "" };

		/* room for a pidfd per thread too, when the limit allows (else tgkill) */
		fd_budget(s->fds_needed + b->n_threads, &ign);
	}
	b->map = xcalloc(s->n_events, sizeof(*b->map));
	for (i = 0; i < s->n_events; i++) {
		b->map[i] = xmalloc((s->n_entities + 1) * sizeof(int));
		for (j = 0; j < s->n_entities; j++)
			b->map[i][j] = -1;
	}
	return 0;
}

/* One group per live thread (a thread gone meanwhile has ended). */
static void open_on_threads(struct build *b, const struct plan_group *pg)
{
	struct cnt_session *s = b->s;
	size_t j;

	for (j = 0; j < s->n_entities; j++) {
		struct unit u = { 0 };

		if (s->entities[j].kind != CNT_ENT_THREAD || s->entities[j].state != CNT_ENT_LIVE)
			continue;
		u.pid = s->entities[j].tid;
		u.cpu = -1;
		u.entity = (int)j;
		if (open_group(s, pg, &u, true, b->t->inherit, b->map, &b->cap_fds, &b->cap_grps,
			       &b->cap_ctr) == ESRCH) {
			s->entities[j].state = CNT_ENT_ENDED;
			s->entities[j].ended_ns = vp_now_ns();
		}
	}
}

/* One group per CPU of the group (its cgroup's, or the CPU's entity). */
static void open_on_cpus(struct build *b, const struct plan_group *pg)
{
	struct cnt_session *s = b->s;
	const struct cnt_event *lead = &s->events[pg->ev[0]];
	struct cpulist cpus;
	size_t j, k;

	group_cpus(s, pg, b->t, &b->online, &cpus);
	for (j = 0; j < cpus.n; j++) {
		struct unit u = { 0 };
		int ent = find_cpu_entity(s, cpus.ids[j]);

		if (!lead->ev.uncore && ent >= 0 && s->entities[ent].state == CNT_ENT_OFFLINE)
			continue;
		u.cpu = cpus.ids[j];
		u.pid = -1;
		if (lead->cgroup) {
			u.pid = b->cg_fd[pg->ev[0]];
			u.flags = PERF_FLAG_PID_CGROUP;
			ent = b->cg_ent[pg->ev[0]];
		} else if (ent < 0) {
			ent = cpu_entity(s, &b->cap_ent, cpus.ids[j], &b->online);
			for (k = 0; k < s->n_events; k++) {
				b->map[k] = xrealloc(b->map[k], (s->n_entities + 1) * sizeof(int));
				b->map[k][ent] = -1;
			}
		}
		u.entity = ent;
		if (open_group(s, pg, &u, false, false, b->map, &b->cap_fds, &b->cap_grps,
			       &b->cap_ctr) == ENODEV)
			s->entities[ent].state = CNT_ENT_OFFLINE;
	}
	cpulist_release(&cpus);
}

/*
 * Each event open or dropped with the kernel's reason; when none opened,
 * the first one's reason is the error.
 */
static int build_verdict(struct build *b, struct vp_err *err)
{
	struct cnt_session *s = b->s;
	struct cnt_explain_ctx ctx;
	size_t i;
	int opened = 0, ret = 0;
	char *why;

	for (i = 0; i < s->n_events; i++) {
		struct cnt_event *e = &s->events[i];

		if (e->n_fds) {
			e->state = CNT_EV_OPEN;
			opened++;
			continue;
		}
		e->state = CNT_EV_DROPPED;
		if (!e->errnum)
			e->errnum = b->thread_mode ? ESRCH : ENODEV;
	}
	cnt_explain_probe(&ctx, s->root);
	ctx.fds_needed = s->fds_needed;
	if (opened) {
		for (i = 0; i < s->n_events; i++)
			if (s->events[i].errnum)
				s->events[i].why = cnt_explain(s->events[i].errnum, &s->events[i].ev,
							       !b->thread_mode, &ctx);
		return 0;
	}
	why = cnt_explain(s->events[0].errnum, &s->events[0].ev, !b->thread_mode, &ctx);
	ret = vp_err_set(err, -s->events[0].errnum, "%s%s", why,
			 s->n_events > 1 ? " (and no other event could be opened either)" : "");
	free(why);
	return ret;
}

static void build_release(struct build *b)
{
	size_t i, j;

	for (i = 0; b->cg_fd && i < b->s->n_events; i++) {
		bool dup = false;

		for (j = 0; j < i; j++)
			dup |= b->cg_fd[j] == b->cg_fd[i];
		if (b->cg_fd[i] >= 0 && !dup)
			close(b->cg_fd[i]);
	}
	for (i = 0; b->map && i < b->s->n_events; i++)
		free(b->map[i]);
	free(b->map);
	for (i = 0; i < b->n_pgs; i++)
		free(b->pgs[i].ev);
	free(b->pgs);
	free(b->cg_fd);
	free(b->cg_ent);
	free(b->threads);
	free(b->owners);
	cpulist_release(&b->online);
	cpulist_release(&b->possible);
}

int cnt_session_new(struct cnt_session **out, const struct cnt_request *req, struct vp_err *err)
{
	struct build b = { .t = &req->target };
	size_t i;
	int ret;

	*out = NULL;
	b.thread_mode = b.t->n_pids || b.t->n_tids;
	b.s = xcalloc(1, sizeof(*b.s));
	b.s->root = xstrdup(req->root ? req->root : "/");
	b.s->enable_on_exec = b.t->enable_on_exec;
	cpulist_init(&b.online);
	cpulist_init(&b.possible);
	if (!(ret = build_events(&b, req, err)) && !(ret = build_check_target(&b, err)) &&
	    !(ret = build_threads(&b, err))) {
		build_entities(&b);
		if (!(ret = build_cgroups(&b, err)) && !(ret = build_budget(&b, err))) {
			for (i = 0; i < b.n_pgs; i++) {
				if (b.thread_mode && !b.s->events[b.pgs[i].ev[0]].ev.uncore)
					open_on_threads(&b, &b.pgs[i]);
				else
					open_on_cpus(&b, &b.pgs[i]);
			}
			ret = build_verdict(&b, err);
		}
	}
	build_release(&b);
	if (ret)
		cnt_session_free(b.s);
	else
		*out = b.s;
	return ret;
}

void cnt_session_free(struct cnt_session *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_fds; i++)
		if (s->fds[i].fd >= 0)
			close(s->fds[i].fd);
	for (i = 0; i < s->n_events; i++) {
		free(s->events[i].ev.spec);
		free(s->events[i].ev.name);
		free(s->events[i].ev.fstr);
		cpulist_release(&s->events[i].ev.cpus);
		free(s->events[i].cgroup);
		free(s->events[i].why);
	}
	for (i = 0; i < s->n_entities; i++) {
		free(s->entities[i].cgroup);
		free(s->entities[i].cgroup_path);
		if (s->pidfds && s->pidfds[i] >= 0)
			close(s->pidfds[i]);
	}
	free(s->pidfds);
	free(s->events);
	free(s->entities);
	free(s->counters);
	free(s->fds);
	free(s->grps);
	free(s->root);
	free(s);
}

size_t cnt_session_fds(const struct cnt_session *s)
{
	return s->fds_needed;
}

/* ---- running ---- */

int cnt_session_enable(struct cnt_session *s, struct vp_err *err)
{
	size_t i;

	for (i = 0; i < s->n_grps; i++) {
		int fd = s->fds[s->grps[i].first].fd;

		if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return vp_err_errno(err, errno, "cannot enable counter of '%s'",
					    s->events[s->counters[s->fds[s->grps[i].first].counter].event].ev.name);
	}
	cnt_session_mark_start(s);
	return 0;
}

void cnt_session_mark_start(struct cnt_session *s)
{
	s->start_ns = s->last_ns = vp_now_ns();
	s->started = true;
}

void cnt_session_disable(struct cnt_session *s)
{
	size_t i;

	for (i = 0; i < s->n_grps; i++) {
		int fd = s->fds[s->grps[i].first].fd;

		if (fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	}
}

/* Read one group into its descriptors' cur values. */
static void read_group(struct cnt_session *s, const struct cnt_group *g, uint64_t *buf, size_t words)
{
	struct cnt_fd *lead = &s->fds[g->first];
	uint64_t nr, ena, run, k;
	ssize_t n;
	size_t i;

	if (lead->fd < 0)
		return;
	n = read(lead->fd, buf, words * sizeof(uint64_t));
	if (n < (ssize_t)(3 * sizeof(uint64_t)))
		return;
	nr = buf[0];
	ena = buf[1];
	run = buf[2];
	if ((size_t)n < (3 + 2 * nr) * sizeof(uint64_t))
		return;
	for (k = 0; k < nr; k++) {
		uint64_t val = buf[3 + 2 * k], id = buf[4 + 2 * k];
		struct cnt_fd *f = NULL;

		/* siblings come back in the order they were added */
		if (k < g->n && s->fds[g->first + k].id == id)
			f = &s->fds[g->first + k];
		for (i = 0; !f && i < g->n; i++)
			if (s->fds[g->first + i].id == id)
				f = &s->fds[g->first + i];
		if (!f)
			continue;
		f->cur.raw = val;
		f->cur.enabled = ena;
		f->cur.running = run;
	}
}

/*
 * Does thread tid of process pid still exist?  Live, tgkill(pid, tid, 0)
 * answers in one cheap syscall per thread (a readdir of /proc/PID/task
 * costs a dentry per thread and dominated the read at 1,000 threads) and
 * cannot be fooled by a reused tid, which would belong to another process.
 * Under a fixture root the task list is read instead.
 */
static bool thread_exists(const struct cnt_session *s, pid_t pid, pid_t tid,
			  pid_t **tids, size_t *n_tids, pid_t *listed_pid)
{
	if (!strcmp(s->root, "/"))
		return syscall(SYS_tgkill, pid, tid, 0) == 0 || errno != ESRCH;
	if (*listed_pid != pid) {
		free(*tids);
		if (list_tasks(s->root, pid, tids, n_tids))
			*n_tids = 0;
		if (*n_tids)
			qsort(*tids, *n_tids, sizeof(**tids), cmp_pid);
		*listed_pid = pid;
	}
	return *n_tids && bsearch(&tid, *tids, *n_tids, sizeof(**tids), cmp_pid);
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/*
 * On the live root, each thread's pidfd (PIDFD_THREAD: readable once that
 * thread exits, a leader too while its other threads live on) opened at the
 * first read, so that one poll() says which of them exited, where a
 * tgkill(pid, tid, 0) per thread and interval cost a system call each (the
 * largest part of reading 1,000 threads' counters: issue 22).  Kernels
 * before 6.9, or no descriptor left: tgkill, and a leader's zombie check.
 */
static void open_pidfds(struct cnt_session *s)
{
	size_t i;

	s->pidfds = xmalloc((s->n_entities + 1) * sizeof(int));
	for (i = 0; i < s->n_entities; i++) {
		const struct cnt_entity *e = &s->entities[i];
		long fd = -1;

		if (e->kind == CNT_ENT_THREAD && e->state == CNT_ENT_LIVE) {
			fd = syscall(SYS_pidfd_open, e->tid, PIDFD_THREAD);
			if (fd < 0 && errno == ESRCH)
				fd = -2; /* gone already */
			else if (fd >= 0)
				fcntl((int)fd, F_SETFD, FD_CLOEXEC);
		}
		s->pidfds[i] = (int)fd;
	}
}

static void close_pidfd(struct cnt_session *s, size_t i)
{
	if (s->pidfds && s->pidfds[i] >= 0) {
		close(s->pidfds[i]);
		s->pidfds[i] = -1;
	}
}

/* Which of the live threads with a pidfd exited: one poll(); gone[i] set for those. */
static void poll_pidfds(struct cnt_session *s, bool *gone)
{
	struct pollfd *pfd = xmalloc((s->n_entities + 1) * sizeof(*pfd));
	size_t *ent = xmalloc((s->n_entities + 1) * sizeof(*ent)), n = 0, i;

	for (i = 0; i < s->n_entities; i++) {
		if (s->entities[i].state != CNT_ENT_LIVE || s->entities[i].kind != CNT_ENT_THREAD)
			continue;
		if (s->pidfds[i] == -2) {
			gone[i] = true;
			s->pidfds[i] = -1;
		} else if (s->pidfds[i] >= 0) {
			pfd[n].fd = s->pidfds[i];
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			ent[n++] = i;
		}
	}
	if (n && poll(pfd, n, 0) >= 0)
		for (i = 0; i < n; i++)
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
				gone[ent[i]] = true;
	free(pfd);
	free(ent);
}

/* Which thread and cgroup entities still exist; mark the vanished ones. */
static int check_vanished(struct cnt_session *s, uint64_t now)
{
	pid_t listed_pid = -1, *tids = NULL;
	size_t n_tids = 0, i;
	int ended = 0;
	bool live = !strcmp(s->root, "/"), *polled = NULL;

	if (live) {
		if (!s->pidfds)
			open_pidfds(s);
		polled = xcalloc(s->n_entities + 1, sizeof(bool));
		poll_pidfds(s, polled);
	}
	for (i = 0; i < s->n_entities; i++) {
		struct cnt_entity *e = &s->entities[i];
		bool gone = false;

		if (e->state != CNT_ENT_LIVE)
			continue;
		if (e->kind == CNT_ENT_THREAD && polled && (polled[i] || s->pidfds[i] >= 0)) {
			gone = polled[i];
		} else if (e->kind == CNT_ENT_THREAD) {
			gone = !thread_exists(s, e->pid, e->tid, &tids, &n_tids, &listed_pid) ||
			       /* an exited leader stays a zombie until its parent reaps it */
			       (e->tid == e->pid && leader_zombie(s->root, e->pid));
		} else if (e->kind == CNT_ENT_CGROUP) {
			struct stat st;

			gone = stat(e->cgroup_path, &st) != 0;
		}
		if (gone) {
			e->state = CNT_ENT_ENDED;
			e->ended_ns = now;
			close_pidfd(s, i);
			ended++;
		}
	}
	free(polled);
	free(tids);
	return ended;
}

int cnt_session_read(struct cnt_session *s, struct cnt_snapshot *snap, struct vp_err *err)
{
	uint64_t now = vp_now_ns(), *buf;
	size_t i, words = 3;
	bool *was_live;

	(void)err;
	if (!s->started)
		cnt_session_mark_start(s);
	if (snap->n != s->n_counters) {
		cnt_snapshot_release(snap);
		snap->n = s->n_counters;
		snap->delta = xcalloc(s->n_counters + 1, sizeof(*snap->delta));
		snap->total = xcalloc(s->n_counters + 1, sizeof(*snap->total));
		snap->state = xcalloc(s->n_counters + 1, 1);
	}
	was_live = xmalloc((s->n_entities + 1) * sizeof(bool));
	for (i = 0; i < s->n_entities; i++)
		was_live[i] = s->entities[i].state == CNT_ENT_LIVE;
	snap->n_ended_now = check_vanished(s, now);
	for (i = 0; i < s->n_grps; i++)
		if (3 + 2 * s->grps[i].n > words)
			words = 3 + 2 * s->grps[i].n;
	buf = xmalloc(words * sizeof(uint64_t));
	/* the final counts of a vanished entity are still readable once */
	for (i = 0; i < s->n_grps; i++)
		if (s->entities[s->grps[i].entity].state == CNT_ENT_LIVE || was_live[s->grps[i].entity])
			read_group(s, &s->grps[i], buf, words);
	free(buf);

	memset(snap->delta, 0, s->n_counters * sizeof(*snap->delta));
	memset(snap->total, 0, s->n_counters * sizeof(*snap->total));
	for (i = 0; i < s->n_fds; i++) {
		struct cnt_fd *f = &s->fds[i];
		struct cnt_value d;

		cnt_value_delta(&d, &f->cur, &f->prev);
		value_add(&snap->delta[f->counter], &d);
		value_add(&snap->total[f->counter], &f->cur);
		f->prev = f->cur;
	}
	for (i = 0; i < s->n_counters; i++) {
		const struct cnt_counter *c = &s->counters[i];
		const struct cnt_entity *e = &s->entities[c->entity];
		double scale = s->events[c->event].ev.scale;

		if (!(scale > 0) || !isfinite(scale))
			scale = 1.0;
		if (e->state == CNT_ENT_ENDED && !was_live[c->entity])
			snap->state[i] = CNT_SERIES_ENDED;
		else if (e->state == CNT_ENT_ENDED)
			snap->state[i] = CNT_SERIES_ENDED_NOW;
		else
			snap->state[i] = CNT_SERIES_LIVE;
		cnt_value_scale(&snap->total[i], scale);
		if (snap->state[i] == CNT_SERIES_ENDED) {
			memset(&snap->delta[i], 0, sizeof(snap->delta[i]));
			snap->delta[i].value = NAN;
			snap->delta[i].pct = NAN;
		} else {
			cnt_value_scale(&snap->delta[i], scale);
		}
	}
	for (i = 0; i < s->n_entities; i++)
		if (was_live[i] && s->entities[i].state == CNT_ENT_ENDED)
			close_entity_fds(s, (int)i);
	free(was_live);
	snap->start_ns = s->start_ns;
	snap->prev_ns = s->last_ns;
	snap->t_ns = now;
	s->last_ns = now;
	return 0;
}

/* ---- sums ---- */

int cnt_sum(const struct cnt_session *s, const struct cnt_snapshot *snap, bool use_total,
	    const struct cnt_filter *f, struct cnt_value *out)
{
	double scale = 1.0;
	size_t i;
	int n = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < snap->n && i < s->n_counters; i++) {
		const struct cnt_counter *c = &s->counters[i];
		const struct cnt_event *e = &s->events[c->event];

		if ((f->event >= 0 && c->event != f->event) ||
		    (f->spec_index >= 0 && e->ev.spec_index != f->spec_index) ||
		    (f->entity >= 0 && c->entity != f->entity) ||
		    (f->package >= 0 && s->entities[c->entity].package != f->package) ||
		    (f->die >= 0 && s->entities[c->entity].die != f->die) ||
		    (f->core >= 0 && s->entities[c->entity].core != f->core) ||
		    (f->node >= 0 && s->entities[c->entity].node != f->node))
			continue;
		if (!use_total && snap->state[i] == CNT_SERIES_ENDED)
			continue;
		value_add(out, use_total ? &snap->total[i] : &snap->delta[i]);
		if (e->ev.scale > 0 && isfinite(e->ev.scale))
			scale = e->ev.scale;
		n++;
	}
	cnt_value_scale(out, scale);
	if (!n)
		out->value = out->pct = NAN;
	return n;
}
