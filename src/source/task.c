/* task.c - processes and threads in procfs: stat, schedstat, status, cgroup, cmdline */
#include "source/task.h"
#include "source/kv.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void task_path(char *buf, size_t size, int pid, int tid, const char *file)
{
	if (tid > 0)
		snprintf(buf, size, "/proc/%d/task/%d/%s", pid, tid, file);
	else
		snprintf(buf, size, "/proc/%d/%s", pid, file);
}

long task_ticks_per_sec(void)
{
	long t = sysconf(_SC_CLK_TCK);

	return t > 0 ? t : 100;
}

int task_stat_parse(const char *text, struct task_stat *out, struct vp_err *err)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')'), *p;
	unsigned long long f[40];
	int n = 0;
	char *end;

	memset(out, 0, sizeof(*out));
	out->processor = -1;
	/* comm may hold ')' itself: it ends at the LAST ')' of the line */
	if (!open || !close || close < open || sscanf(text, "%d", &out->tid) != 1)
		return vp_err_set(err, VP_EPARSE, "stat: cannot find '(comm)' in '%.60s'", text);
	snprintf(out->comm, sizeof(out->comm), "%.*s", (int)(close - open - 1), open + 1);
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!*p || *p == '\n')
		return vp_err_set(err, VP_EPARSE, "stat: no fields after comm");
	out->state = *p++;
	/* f[k] is field k+4 of proc(5): ppid is f[0], utime f[10] ... processor f[35] */
	while (n < 40 && *p && *p != '\n') {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		errno = 0;
		if (*p == '-') { /* tty_nr/tpgid/exit_signal can be negative */
			long long v = strtoll(p, &end, 10);

			f[n] = (unsigned long long)v;
		} else {
			f[n] = strtoull(p, &end, 10);
		}
		if (end == p || errno)
			return vp_err_set(err, VP_EPARSE, "stat: field %d of '%s' is not a number",
					  n + 4, out->comm);
		p = end;
		n++;
	}
	if (n < 17)
		return vp_err_set(err, VP_EPARSE, "stat: only %d fields after comm of '%s'", n + 1,
				  out->comm);
	out->ppid = (int)f[0];
	out->utime = f[10];
	out->stime = f[11];
	out->num_threads = (int)f[16];
	if (n > 18)
		out->starttime = f[18];
	if (n > 35)
		out->processor = (int)f[35];
	return 0;
}

int task_schedstat_parse(const char *text, struct task_schedstat *out, struct vp_err *err)
{
	unsigned long long a, b, c;

	memset(out, 0, sizeof(*out));
	if (sscanf(text, "%llu %llu %llu", &a, &b, &c) != 3)
		return vp_err_set(err, VP_EPARSE, "schedstat: expected three numbers, found '%.40s'",
				  text);
	out->run_ns = a;
	out->wait_ns = b;
	out->timeslices = c;
	return 0;
}

static int read_task_file(const char *root, int pid, int tid, const char *file, char **text,
			  struct vp_err *err)
{
	char path[96];

	task_path(path, sizeof(path), pid, tid, file);
	return vp_read_file(root, path, text, NULL, err);
}

int task_stat_read(const char *root, int pid, int tid, struct task_stat *out,
		   struct vp_err *err)
{
	char *text;
	int ret = read_task_file(root, pid, tid, "stat", &text, err);

	if (ret) {
		memset(out, 0, sizeof(*out));
		out->processor = -1;
		return ret;
	}
	ret = task_stat_parse(text, out, err);
	free(text);
	return ret;
}

int task_schedstat_read(const char *root, int pid, int tid, struct task_schedstat *out,
			struct vp_err *err)
{
	char *text;
	int ret = read_task_file(root, pid, tid, "schedstat", &text, err);

	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	ret = task_schedstat_parse(text, out, err);
	free(text);
	return ret;
}

int task_file_open(const char *root, int pid, int tid, const char *file)
{
	char path[96], *full;
	int fd;

	task_path(path, sizeof(path), pid, tid, file);
	full = vp_path(root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	free(full);
	return fd < 0 ? -errno : fd;
}

/* The whole file from offset 0 into buf (NUL-terminated): one pread, a second if it filled buf. */
static int pread_text(int fd, char *buf, size_t size, const char *what, struct vp_err *err)
{
	ssize_t n;

	do
		n = pread(fd, buf, size - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return vp_err_errno(err, errno, "cannot read %s", what);
	if ((size_t)n >= size - 1)
		return vp_err_set(err, VP_EPARSE, "%s: longer than %zu bytes", what, size - 2);
	buf[n] = '\0';
	return 0;
}

int task_stat_fd(int fd, struct task_stat *out, struct vp_err *err)
{
	char buf[2048];
	int ret = pread_text(fd, buf, sizeof(buf), "stat", err);

	if (ret) {
		memset(out, 0, sizeof(*out));
		out->processor = -1;
		return ret;
	}
	return task_stat_parse(buf, out, err);
}

int task_schedstat_fd(int fd, struct task_schedstat *out, struct vp_err *err)
{
	char buf[256];
	int ret = pread_text(fd, buf, sizeof(buf), "schedstat", err);

	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	return task_schedstat_parse(buf, out, err);
}

void task_status_release(struct task_status *st)
{
	cpulist_release(&st->cpus_allowed);
	cpulist_release(&st->mems_allowed);
}

int task_status_read(const char *root, int pid, int tid, struct task_status *out,
		     struct vp_err *err)
{
	char *text, buf[4096];
	int ret;

	memset(out, 0, sizeof(*out));
	cpulist_init(&out->cpus_allowed);
	cpulist_init(&out->mems_allowed);
	ret = read_task_file(root, pid, tid, "status", &text, err);
	if (ret)
		return ret;
	if (!kv_find_str(text, "Name", buf, sizeof(buf)))
		snprintf(out->name, sizeof(out->name), "%.63s", buf);
	if (!kv_find_str(text, "Tgid", buf, sizeof(buf)))
		out->tgid = atoi(buf);
	if (!kv_find_str(text, "Cpus_allowed_list", buf, sizeof(buf)) &&
	    !cpulist_parse(&out->cpus_allowed, buf, NULL))
		out->have_cpus = true;
	if (!kv_find_str(text, "Mems_allowed_list", buf, sizeof(buf)) &&
	    !cpulist_parse(&out->mems_allowed, buf, NULL))
		out->have_mems = true;
	free(text);
	return 0;
}

void task_cgroup_release(struct task_cgroup *cg)
{
	free(cg->unified);
	free(cg->v1_cpu);
	free(cg->v1_perf_event);
	free(cg->v1_cpuset);
	free(cg->v1_systemd);
	memset(cg, 0, sizeof(*cg));
}

static bool has_controller(const char *list, size_t len, const char *name)
{
	size_t nl = strlen(name);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t l = c ? (size_t)(c - p) : (size_t)(end - p);

		if (l == nl && !memcmp(p, name, nl))
			return true;
		p += l + 1;
	}
	return false;
}

/* Lines "ID:CONTROLLERS:PATH"; v2 is "0::PATH". */
void task_cgroup_parse(const char *text, struct task_cgroup *out)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	while (p && *p) {
		const char *c1 = strchr(p, ':'), *nl = strchr(p, '\n'), *c2;
		size_t plen;
		char *path;

		if (!nl)
			nl = p + strlen(p);
		if (!c1 || c1 > nl || !(c2 = memchr(c1 + 1, ':', (size_t)(nl - c1 - 1))))
			goto next;
		plen = (size_t)(nl - c2 - 1);
		path = xstrndup(c2 + 1, plen);
		if (c2 == c1 + 1 && !out->unified) {
			out->unified = path;
		} else if (has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "perf_event") &&
			   !out->v1_perf_event) {
			out->v1_perf_event = path;
		} else if ((has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "cpu") ||
			    has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "cpuacct")) &&
			   !out->v1_cpu) {
			out->v1_cpu = path;
		} else if (has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "cpuset") &&
			   !out->v1_cpuset) {
			out->v1_cpuset = path;
		} else if (has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "name=systemd") &&
			   !out->v1_systemd) {
			out->v1_systemd = path;
		} else {
			free(path);
		}
next:
		p = *nl ? nl + 1 : NULL;
	}
}

int task_cgroup_read(const char *root, int pid, int tid, struct task_cgroup *out,
		     struct vp_err *err)
{
	char *text;
	int ret = read_task_file(root, pid, tid, "cgroup", &text, err);

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	task_cgroup_parse(text, out);
	free(text);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int list_numeric(const char *root, const char *dir, int **ids, size_t *n,
			struct vp_err *err)
{
	char **names = NULL;
	size_t nn = 0, i, cap = 0;
	int ret;

	*ids = NULL;
	*n = 0;
	ret = vp_list_dir(root, dir, &names, &nn, err);
	if (ret)
		return ret;
	for (i = 0; i < nn; i++) {
		char *end;
		long v;

		if (!isdigit((unsigned char)names[i][0]))
			continue;
		v = strtol(names[i], &end, 10);
		if (*end || v <= 0 || v > 0x7fffffffL)
			continue;
		VP_GROW(*ids, cap, *n + 1);
		(*ids)[(*n)++] = (int)v;
	}
	vp_free_names(names, nn);
	if (*n)
		qsort(*ids, *n, sizeof(int), cmp_int);
	return 0;
}

int task_list(const char *root, int pid, int **tids, size_t *n, struct vp_err *err)
{
	char path[48];

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	return list_numeric(root, path, tids, n, err);
}

int proc_list(const char *root, int **pids, size_t *n, struct vp_err *err)
{
	return list_numeric(root, "/proc", pids, n, err);
}

int proc_cmdline(const char *root, int pid, char ***argv, size_t *argc, struct vp_err *err)
{
	char path[48], *text;
	size_t len, i, cap = 0;
	int ret;

	*argv = NULL;
	*argc = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	ret = vp_read_file(root, path, &text, &len, err);
	if (ret)
		return ret;
	for (i = 0; i < len;) {
		size_t l = strnlen(text + i, len - i);

		VP_GROW(*argv, cap, *argc + 2);
		(*argv)[(*argc)++] = xstrndup(text + i, l);
		i += l + 1;
	}
	if (*argv)
		(*argv)[*argc] = NULL;
	free(text);
	return 0;
}
