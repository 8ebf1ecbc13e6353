/* xen_tracer.c - a running xentrace read as it writes: exact vCPU residency for periodic views */
#include "hv/hv.h"
#include "source/xentrace.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Live: `xentrace -D -e 0x00021000 FILE` runs for the tracer's life and
 * writes into a file in a private directory under /tmp as fast as Xen
 * gives it records (a pipe would make it wait for the next scan, and Xen
 * would lose records meanwhile).  Each read takes what was added since the
 * last one and punches the bytes parsed out of the file (FALLOC_FL_PUNCH_HOLE,
 * so it holds about one interval's records; where the filesystem cannot
 * punch holes the file grows by the trace's rate).  The stream parser
 * carries the per-pCPU state from read to read: no gap, no restart.  Xen
 * still counts records it lost (full buffers), which the reason then says.  Under a fixture root
 * the N-th read feeds ROOT/.vmmprof-fixture/xentrace/stream/N.bin (a
 * missing file: no new data), and the directory's absence is the failure
 * "xentrace not found".
 */
struct hv_xen_tracer {
	const char *root;            /* NULL live */
	pid_t pid;                   /* xentrace; 0 none (exited, or a fixture) */
	int fd;                      /* the trace file, read; -1 none */
	off_t off;                   /* bytes read so far */
	char dir[64], fifo[96], errf[96];
	struct xentrace_stream s;
	unsigned reads;
	char why[1100];              /* when it stopped working: why; "" fine */
	uint64_t t0_ns;              /* started (wall clock) */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define TBUF_ADVICE "Xen's trace buffers are sized once and never freed: boot Xen with " \
		    "tbuf_size=PAGES (pages per pCPU), or size them once with 'xentrace -S PAGES'"

/* The first line xentrace wrote to its standard error, into t->why with what failed. */
static void child_failed(struct hv_xen_tracer *t, int status)
{
	char *text = NULL, *nl;
	size_t len = 0;

	if (vp_read_file("/", t->errf, &text, &len, NULL) || !len) {
		free(text);
		text = xasprintf("(nothing on its standard error)");
	}
	if ((nl = strchr(text, '\n')))
		*nl = '\0';
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(t->why, sizeof(t->why), "xentrace not found (Debian: xen-utils-4.17)");
	else
		snprintf(t->why, sizeof(t->why), "'xentrace' stopped (status %d): %s; %s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text,
			 TBUF_ADVICE);
	free(text);
}

/* A start that failed: the tracer stays, failed with err's message as its reason. */
static int start_failed(struct hv_xen_tracer *t, struct hv_xen_tracer **out, int ret,
			const struct vp_err *err)
{
	snprintf(t->why, sizeof(t->why), "%s", err->msg);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (t->fifo[0])
		unlink(t->fifo);
	if (t->dir[0])
		rmdir(t->dir);
	t->fifo[0] = t->errf[0] = t->dir[0] = '\0';
	*out = t;
	return ret;
}

int hv_xentrace_running(const char *root)
{
	char **names = NULL, *stat, *close_paren;
	size_t n = 0, i;
	int pid = 0;

	if (vp_list_dir(root, "/proc", &names, &n, NULL))
		return 0;
	for (i = 0; i < n && !pid; i++) {
		char *path;

		if (!names[i][0] || strspn(names[i], "0123456789") != strlen(names[i]) ||
		    atoi(names[i]) == (int)getpid())
			continue;
		/* "PID (COMM) STATE ...": an exited one (a zombie, Z or X) holds no buffers */
		path = xasprintf("/proc/%s/stat", names[i]);
		stat = NULL;
		if (!vp_read_file(root, path, &stat, NULL, NULL) &&
		    (close_paren = strrchr(stat, ')')) && close_paren - stat >= 9 &&
		    !strncmp(close_paren - 9, "(xentrace)", 10) && close_paren[1] == ' ' &&
		    close_paren[2] != 'Z' && close_paren[2] != 'X')
			pid = atoi(names[i]);
		free(stat);
		free(path);
	}
	vp_free_names(names, n);
	return pid;
}

int hv_xentrace_refuse(const char *root, struct vp_err *err)
{
	int pid = hv_xentrace_running(root);

	if (!pid)
		return 0;
	return vp_err_set(err, -EBUSY, "xentrace is already running (pid %d): Xen's trace buffers "
			  "are one per host and each reader takes the records it reads, so a second "
			  "xentrace would leave both traces incomplete; stop it (or let it finish) "
			  "first", pid);
}

int hv_xen_tracer_start(struct hv_xen_tracer **out, const char *root, struct vp_err *err)
{
	struct hv_xen_tracer *t = xcalloc(1, sizeof(*t));
	bool live = !root || !*root || !strcmp(root, "/");
	pid_t parent;
	int ret;

	t->fd = -1;
	t->t0_ns = now_ns();
	xentrace_stream_init(&t->s);
	if ((ret = hv_xentrace_refuse(live ? "/" : root, err)))
		return start_failed(t, out, ret, err);
	if (!live) {
		char *p = xasprintf("%s/.vmmprof-fixture/xentrace/stream", root);
		struct stat st;

		t->root = root;
		if (stat(p, &st)) {
			ret = vp_err_set(err, -ENOENT, "xentrace not found (fixture %s: %s)", p,
					 strerror(errno));
			free(p);
			return start_failed(t, out, ret, err);
		}
		free(p);
		*out = t;
		return 0;
	}
	snprintf(t->dir, sizeof(t->dir), "/tmp/vmmprof-xentrace-XXXXXX");
	if (!mkdtemp(t->dir)) {
		t->dir[0] = '\0';
		ret = vp_err_errno(err, errno, "cannot make a directory for xentrace's file in /tmp");
		return start_failed(t, out, ret, err);
	}
	snprintf(t->fifo, sizeof(t->fifo), "%s/trace", t->dir);
	snprintf(t->errf, sizeof(t->errf), "%s/stderr", t->dir);
	if ((t->fd = open(t->fifo, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		ret = vp_err_errno(err, errno, "cannot make xentrace's file '%s'", t->fifo);
		return start_failed(t, out, ret, err);
	}
	parent = getpid();
	t->pid = fork();
	if (t->pid < 0) {
		t->pid = 0;
		ret = vp_err_errno(err, errno, "cannot fork for xentrace");
		return start_failed(t, out, ret, err);
	}
	if (t->pid == 0) {
		const char *argv[] = { "xentrace", "-D", "-e", "0x00021000", t->fifo, NULL };
		int fd;

		/*
		 * xentrace dies with us: SIGINT (on which it turns Xen's tracing
		 * off and exits) when vmmprof ends in any way, SIGKILL included;
		 * a parent gone before the prctl() is caught by getppid().
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGINT) || getppid() != parent)
			_exit(126);
		fd = open(t->errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0)
			dup2(fd, 2);
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0)
			dup2(fd, 0), dup2(fd, 1);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	*out = t;
	return 0;
}

/* Drain the pipe (or the fixture's next piece) into the stream; notice xentrace's end. */
static void pump(struct hv_xen_tracer *t)
{
	unsigned char buf[65536];
	struct vp_err e = { 0, "" };
	ssize_t n;
	int status;

	if (t->why[0])
		return;
	if (t->root) {
		char *p = xasprintf("/.vmmprof-fixture/xentrace/stream/%u.bin", ++t->reads);
		char *data = NULL;
		size_t len = 0;

		if (!vp_read_file(t->root, p, &data, &len, NULL) &&
		    xentrace_stream_feed(&t->s, (unsigned char *)data, len, &e))
			snprintf(t->why, sizeof(t->why), "%s", e.msg);
		free(data);
		free(p);
		return;
	}
	for (;;) {
		n = pread(t->fd, buf, sizeof(buf), t->off);
		if (n > 0) {
			t->off += n;
			if (xentrace_stream_feed(&t->s, buf, (size_t)n, &e)) {
				snprintf(t->why, sizeof(t->why), "%s", e.msg);
				return;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break;  /* 0: all read for now */
	}
#ifdef FALLOC_FL_PUNCH_HOLE
	/* the file keeps only what is not read yet (whole pages; best effort) */
	if (t->off >= 1 << 20)
		fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			  t->off & ~(off_t)4095);
#endif
	if (t->pid > 0 && waitpid(t->pid, &status, WNOHANG) == t->pid) {
		t->pid = 0;
		child_failed(t, status);
	}
}

int hv_xen_tracer_read(struct hv_xen_tracer *t, double tsc_hz, struct hv_vm_list *out,
		       size_t first)
{
	const struct xentrace_res *r = &t->s.res;
	char lost[300] = "";
	size_t i, j;
	int k;

	pump(t);
	for (i = first; i < out->n; i++) {
		struct hv_vm *vm = &out->vms[i];

		if (vm->adapter != HVA_XEN)
			continue;
		free(vm->trace_reason);
		vm->trace_reason = NULL;
		vm->trace_s = 0;
		if (t->why[0]) {
			vm->trace_reason = xasprintf("no traced residency: %s", t->why);
			continue;
		}
		if (!(tsc_hz > 0)) {
			vm->trace_reason = xasprintf("no traced residency: 'xl info' gives no cpu_mhz "
						     "to turn Xen's TSC stamps into time");
			continue;
		}
		if (!r->n_sched) {
			vm->trace_reason = xasprintf(
				"no traced residency yet: no runstate-change record in %.1f s of "
				"xentrace (it starts with Xen's buffers, or they do not exist: %s)",
				(double)(now_ns() - t->t0_ns) / 1e9, TBUF_ADVICE);
			continue;
		}
		vm->trace_s = (double)(r->tsc_last - r->tsc_first) / tsc_hz;
		if (r->n_lost)
			snprintf(lost, sizeof(lost), ", inexact: Xen lost %llu records during the "
				 "trace (full buffers): " TBUF_ADVICE, (unsigned long long)r->n_lost);
		vm->trace_reason = xasprintf(
			"xentrace, %.2f s so far: run time per pCPU from %zu runstate-change records "
			"(TRC_SCHED_MIN), read as xentrace writes them%s", vm->trace_s, r->n_sched,
			lost);
		for (j = 0; j < vm->n_vcpus; j++) {
			struct hv_vcpu *v = &vm->vcpus[j];

			free(v->trace_pcpu_s);
			v->n_trace_pcpus = r->n_pcpus;
			v->trace_pcpu_s = xcalloc(r->n_pcpus ? (size_t)r->n_pcpus : 1, sizeof(double));
			for (k = 0; k < r->n_pcpus; k++)
				v->trace_pcpu_s[k] = (double)xentrace_stream_ticks(&t->s, vm->domid,
										 v->index, k) / tsc_hz;
		}
	}
	return t->why[0] ? -1 : 0;
}

const char *hv_xen_tracer_why(const struct hv_xen_tracer *t)
{
	return t->why;
}

bool hv_xen_tracer_lost(const struct hv_xen_tracer *t)
{
	return t->s.res.n_lost > 0;
}

void hv_xen_tracer_stop(struct hv_xen_tracer *t)
{
	int status, i;

	if (!t)
		return;
	if (t->pid > 0) {
		/* xentrace turns tracing off again and exits on SIGINT */
		kill(t->pid, SIGINT);
		for (i = 0; i < 40; i++) {
			if (waitpid(t->pid, &status, WNOHANG) == t->pid)
				break;
			usleep(50000);
		}
		if (i == 40) {
			kill(t->pid, SIGKILL);
			waitpid(t->pid, &status, 0);
		}
	}
	if (t->fd >= 0)
		close(t->fd);
	if (t->fifo[0])
		unlink(t->fifo);
	if (t->errf[0])
		unlink(t->errf);
	if (t->dir[0])
		rmdir(t->dir);
	xentrace_stream_release(&t->s);
	free(t);
}

void hv_xen_residency_note(const struct hv_vm_list *l, const struct hv_xen_tracer *t, char *buf,
			   size_t size)
{
	const char *why = t ? t->why : "";
	bool xen = false;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->vms[i].adapter != HVA_XEN || l->vms[i].dom0)
			continue;
		xen = true;
		if (t && !why[0] && l->vms[i].trace_reason &&
		    !strncmp(l->vms[i].trace_reason, "no traced", 9))
			why = l->vms[i].trace_reason;  /* no record yet, no cpu_mhz */
	}
	if (!size)
		return;
	buf[0] = '\0';
	if (!xen)
		return;
	if (!t)
		snprintf(buf, size, "Xen residency per node: sampled from xl vcpu-list at each "
			 "update (a vCPU that moved inside an interval is charged to one node; "
			 "exact with --xentrace)");
	else if (why[0])
		snprintf(buf, size, "Xen residency per node: sampled from xl vcpu-list at each "
			 "update, not traced: %s", why);
	else
		snprintf(buf, size, "Xen residency per node: exact, from Xen's scheduler trace "
			 "(xentrace)%s", t->s.res.n_lost ? ", but Xen lost records (full trace "
			 "buffers): approximate" : "");
}
