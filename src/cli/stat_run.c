/* stat_run.c - one run of `vmmprof stat`: the session, the command it forks, the interval loop and its signals */
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

static bool all_threads_ended(const struct cnt_session *s)
{
	size_t i;

	for (i = 0; i < s->n_entities; i++)
		if (s->entities[i].kind == CNT_ENT_THREAD && s->entities[i].state == CNT_ENT_LIVE)
			return false;
	return true;
}

void stat_run_init(struct stat_run *r)
{
	memset(r, 0, sizeof(*r));
	cnt_snapshot_init(&r->snap);
	r->ch.pid = -1;
	r->ch.go_fd = r->ch.err_fd = -1;
}

void stat_run_release(struct stat_run *r)
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
int stat_exit_code(int status)
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
int stat_run_once(struct stat_ctx *c, struct stat_run *r)
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
			c->rows = stat_make_rows(o, r->s, &c->n_rows);
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
				stat_print_interval(&c->out, o, r->s, &r->snap, c->rows, c->n_rows, r->was_live,
					       &c->header_done, r->comms);
			if (stat_flush_out(c->f, &c->out))
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
