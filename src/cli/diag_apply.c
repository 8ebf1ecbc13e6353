/* diag_apply.c - `diagnose --apply`: record before, apply the advice command by command, record after, compare, undo list */
#include "cli/diag_apply.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/apply.h"
#include "hv/kvm.h"
#include "cli/commands.h"
#include "record/record.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/timeutil.h"

/* The diagnosis of a recording's whole run, as structs (the advice to apply). */
struct before_diag {
	struct recording rec;
	struct pipeline p;
	struct model_avail av;
	bool have_p, have_av, have_diag;
	struct collect_frame total;  /* the whole run: din's names point into it */
	bool have_total;
	struct diag_input din;
	struct diag_result res;
};

void host_span_begin(struct host_span *h, const char *root)
{
	memset(h, 0, sizeof(*h));
	h->t0 = (double)vp_now_ns() / 1e9;
	h->have_cs = !cpustat_read(root, &h->cs[0], NULL);
	h->have_dl = !cpudelay_read(root, &h->dl[0], NULL);
}

void host_span_end(struct host_span *h, const char *root)
{
	h->secs = (double)vp_now_ns() / 1e9 - h->t0;
	if (h->have_cs && cpustat_read(root, &h->cs[1], NULL)) {
		cpustat_release(&h->cs[0]);
		h->have_cs = false;
	}
	if (h->have_dl && cpudelay_read(root, &h->dl[1], NULL)) {
		cpudelay_release(&h->dl[0]);
		h->have_dl = false;
	}
}

void host_span_release(struct host_span *h)
{
	if (h->have_cs) {
		cpustat_release(&h->cs[0]);
		cpustat_release(&h->cs[1]);
	}
	if (h->have_dl) {
		cpudelay_release(&h->dl[0]);
		cpudelay_release(&h->dl[1]);
	}
	h->have_cs = h->have_dl = false;
}

static int before_open(struct before_diag *b, const char *path, const struct pipe_opts *o,
		       const struct host_span *host)
{
	struct collect_frame fr;
	struct rec_total *acc;
	struct vp_err err = { 0, "" };
	int more;

	memset(b, 0, sizeof(*b));
	if (rec_open(path, &b->rec, &err))
		return cli_error(&err);
	b->have_p = true;
	if (cli_pipeline_model(&b->p, o, b->rec.model_name))
		return 1;
	if (rec_bind_model(&b->rec, b->p.model, &b->av, &err))
		return cli_error(&err);
	b->have_av = true;
	acc = rec_total_new(&b->rec, b->p.model);
	while ((more = rec_next_frame(&b->rec, &fr, &err)) > 0) {
		rec_total_add(acc, &fr);
		collect_frame_release(&fr);
	}
	rec_total_finish(acc, &b->total);
	b->have_total = true;
	if (host->have_cs)
		frame_host_cpus(&b->total, &host->cs[0], &host->cs[1],
				host->have_dl ? &host->dl[0] : NULL,
				host->have_dl ? &host->dl[1] : NULL, host->secs);
	if (more < 0)
		return cli_error(&err);
	frame_diag_input(b->p.model, b->av.factor_ok, &b->rec.plat.topo,
			 b->rec.have_cal ? &b->rec.cal : NULL, &b->total, &b->din);
	if (diagnose(&b->din, &b->res, &err))
		return cli_error(&err);
	b->have_diag = true;
	return 0;
}

static void before_close(struct before_diag *b)
{
	if (b->have_diag)
		diag_result_release(&b->res);
	collect_diag_release(&b->din);
	if (b->have_total)
		collect_frame_release(&b->total);
	if (b->have_av)
		model_avail_release(b->p.model, &b->av);
	if (b->have_p)
		pipeline_close(&b->p);
	rec_release(&b->rec);
}

/* Cpus_allowed_list of a thread under root: /proc/TID, else /proc/PID/task/TID of a fixture. */
static char *affinity(void *ctx, int tid)
{
	const char *root = ctx;
	char path[128], *text = NULL, *p, *end, *res = NULL;
	char **pids = NULL;
	size_t n = 0, i;
	struct vp_err err;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (vp_read_file(root, path, &text, NULL, &err)) {
		text = NULL;
		if (!vp_list_dir(root, "/proc", &pids, &n, &err)) {
			for (i = 0; i < n && !text; i++) {
				snprintf(path, sizeof(path), "/proc/%.20s/task/%d/status", pids[i], tid);
				if (vp_read_file(root, path, &text, NULL, &err))
					text = NULL;
			}
			vp_free_names(pids, n);
		}
	}
	if (text && (p = strstr(text, "Cpus_allowed_list:"))) {
		p += strlen("Cpus_allowed_list:");
		p += strspn(p, " \t");
		end = p + strcspn(p, " \t\n");
		res = xstrndup(p, (size_t)(end - p));
	}
	free(text);
	return res;
}

/*
 * The pin of vCPU vcpu in libvirt domain dom's persistent configuration under
 * root; a configuration that pins it nowhere lets it run on every host CPU
 * (the online CPUs).  NULL when there is no such configuration.
 */
static char *config_pin(void *ctx, const char *dom, int vcpu)
{
	const char *root = ctx;
	char *cpus = NULL, *online = NULL;

	if (kvm_libvirt_config_vcpupin(root, dom, vcpu, &cpus))
		return NULL;
	if (cpus)
		return cpus;
	if (vp_read_file(root, "/sys/devices/system/cpu/online", &online, NULL, NULL))
		return NULL;
	online[strcspn(online, " \t\r\n")] = '\0';
	return online;
}

/* The thread of IOThread id of QEMU process pid under root (kvm_qemu_iothread_tid()). */
static int iothread_tid(void *ctx, int pid, int id)
{
	return kvm_qemu_iothread_tid(ctx, pid, id);
}

/* Run `vmmprof CMD ARGS...` in this process (record, compare): its exit code. */
static int run_cmd(const struct cmd *c, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	fflush(stdout);
	optind = 1;
	return c->fn(argc, argv);
}

static int record_run(const struct diag_apply_opts *o, const char *path)
{
	char dur[32];
	char **argv = xcalloc(o->n_pass + 8, sizeof(char *));
	size_t n = 0, i;
	int rc;

	snprintf(dur, sizeof(dur), "%g", o->duration);
	argv[n++] = (char *)"record";
	argv[n++] = (char *)"-o";
	argv[n++] = (char *)path;
	argv[n++] = (char *)"-d";
	argv[n++] = dur;
	argv[n++] = (char *)"-q";
	for (i = 0; i < o->n_pass; i++)
		argv[n++] = o->pass[i];
	argv[n] = NULL;
	rc = run_cmd(&cmd_record, argv);
	free(argv);
	return rc;
}

/*
 * Run one command line without a shell, its output (standard output and
 * error together) indented under it.  Returns its exit status, 127 when it
 * could not be run, 128 + N killed by signal N.
 */
static int run_line(const char *line)
{
	const char *why;
	char **w = apply_split(line, &why);
	int pfd[2], status = 0;
	pid_t pid;
	FILE *f;
	char buf[1024];

	if (!w)
		return 127;
	fflush(stdout);
	fflush(stderr);
	if (pipe(pfd)) {
		apply_split_free(w);
		return 127;
	}
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execvp(w[0], w);
		fprintf(stderr, "cannot run '%s': %s\n", w[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	apply_split_free(w);
	if (pid < 0) {
		close(pfd[0]);
		return 127;
	}
	f = fdopen(pfd[0], "r");
	while (f && fgets(buf, sizeof(buf), f))
		printf("    %s%s", buf, strchr(buf, '\n') ? "" : "\n");
	if (f)
		fclose(f);
	else
		close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
}

/* Ask on the terminal; true on y or yes. */
static bool confirm(size_t n_cmds)
{
	char line[64];

	fprintf(stderr, "apply these %zu command%s now? [y/N] ", n_cmds, n_cmds == 1 ? "" : "s");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	line[strcspn(line, "\r\n")] = '\0';
	return !strcmp(line, "y") || !strcmp(line, "Y") || !strcmp(line, "yes");
}

/* Each line of text on its own line after prefix (an undo may be two commands). */
static void print_lines(const char *prefix, const char *text)
{
	size_t len;

	for (; *text; text += len + (text[len] == '\n')) {
		len = strcspn(text, "\n");
		printf("%s%.*s\n", prefix, (int)len, text);
	}
}

static void print_undo(const struct apply_plan *pl, size_t done_item, size_t done_step,
		       bool all)
{
	size_t i, k, n = 0;

	printf("\nto undo what was applied, run (in this order):\n");
	for (i = pl->n; i-- > 0;) {
		const struct apply_item *it = &pl->items[i];

		if (!it->apply || (!all && i > done_item))
			continue;
		for (k = it->n_steps; k-- > 0;) {
			if (!all && i == done_item && k >= done_step)
				continue;
			print_lines("  ", it->steps[k].undo);
			n++;
		}
	}
	if (!n)
		printf("  (nothing was applied)\n");
}

/*
 * The baseline: the same VMs for the same time under the kernel's own
 * automatic NUMA balancing instead of the advice (issue 17 item 2): turned
 * on when it is off, put back as it was afterwards, also when the recording
 * fails.  Where it is already on, the baseline is the host as it runs.
 */
/* Write a sysctl's value (with its newline); 0, or -1 with errno.  The file
 * is closed either way (a failed write left it open before). */
static int write_knob(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int rc, e;

	if (!f)
		return -1;
	rc = fprintf(f, "%s\n", value) < 0 ? -1 : 0;
	e = errno;
	if (fclose(f) && !rc) {
		rc = -1;
		e = errno;
	}
	errno = e;
	return rc;
}

static int baseline_run(const struct diag_apply_opts *o, const char *path)
{
	static const char knob[] = "/proc/sys/kernel/numa_balancing";
	char was[32];
	char *full;
	int rc, wrc = 0;
	struct vp_err err;

	if (vp_read_line(o->po->root, knob, was, sizeof(was), &err))
		return cli_errorf("--balancing-baseline: this kernel has no automatic NUMA balancing to "
				  "compare with (%s: %s)", knob, err.msg);
	full = vp_path(o->po->root, knob);
	if (strcmp(was, "0")) {
		printf("\ndiagnose --apply: the kernel's NUMA balancing is on (%s = %s): the "
		       "baseline is the host as it runs, for %g s, into %s\n", knob, was,
		       o->duration, path);
	} else if (write_knob(full, "1")) {
		rc = cli_errorf("--balancing-baseline: cannot turn the kernel's NUMA balancing on: %s: %s "
				"(needs root)", full, strerror(errno));
		free(full);
		return rc;
	} else {
		printf("\ndiagnose --apply: baseline with the kernel's NUMA balancing on (%s: 0 -> "
		       "1) for %g s into %s\n", knob, o->duration, path);
	}
	fflush(stdout);
	rc = record_run(o, path);
	if (!strcmp(was, "0")) {
		if (write_knob(full, "0"))
			wrc = cli_errorf("--balancing-baseline: cannot put the kernel's NUMA balancing back "
					 "off: %s: %s: write 0 there by hand", full, strerror(errno));
		else
			printf("diagnose --apply: the kernel's NUMA balancing back off (%s: 0)\n",
			       knob);
	}
	free(full);
	return rc ? rc : wrc;
}

int diagnose_apply(const struct diag_apply_opts *o)
{
	struct before_diag b;
	struct host_span host;
	struct apply_plan pl = { 0 };
	char tmpl[4096], before[4200], after[4200], base[4200];
	const char *tmp = getenv("TMPDIR");
	size_t i, k, n_cmds = 0;
	int rc, st;
	bool have_b = false;

	snprintf(tmpl, sizeof(tmpl), "%s/vmmprof-apply.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl))
		return cli_errorf("cannot make a directory for the recordings '%s': %s", tmpl,
				  strerror(errno));
	snprintf(before, sizeof(before), "%s/before.vmmdb", tmpl);
	snprintf(after, sizeof(after), "%s/after.vmmdb", tmpl);
	snprintf(base, sizeof(base), "%s/baseline.vmmdb", tmpl);
	printf("diagnose --apply: recording before for %g s into %s\n", o->duration, before);
	/* what else ran on each CPU meanwhile, which the recording does not keep */
	host_span_begin(&host, o->po->root);
	rc = record_run(o, before);
	host_span_end(&host, o->po->root);
	if (rc || (rc = diagnose_recording(before, o->po, false, &host))) {
		host_span_release(&host);
		return rc;
	}
	have_b = true;
	if ((rc = before_open(&b, before, o->po, &host)))
		goto out;
	{
		struct apply_probe pr = { affinity, iothread_tid, (void *)o->po->root, config_pin };

		apply_plan_make(&b.din, &b.res, o->allow_low, &pr, &pl);
	}
	printf("\napply plan (%zu of %zu advice):\n", pl.n_apply, pl.n);
	for (i = 0; i < pl.n; i++) {
		const struct apply_item *it = &pl.items[i];
		const struct diag_advice *a = &b.res.a[it->advice];

		printf("  %zu. %s (%s confidence): %s\n", i + 1, a->rule,
		       diag_confidence_name(it->confidence),
		       it->apply ? "apply" : "not applied");
		if (!it->apply) {
			printf("     because %s\n", it->why_not);
			continue;
		}
		for (k = 0; k < it->n_steps; k++, n_cmds++) {
			printf("     run:  %s\n", it->steps[k].cmd);
			print_lines("     undo: ", it->steps[k].undo);
		}
	}
	if (!pl.n_apply) {
		printf("\nnothing to apply: no command was run\n");
		goto out;
	}
	if (o->dry_run) {
		printf("\ndry run (--dry-run): no command was run\n");
		print_undo(&pl, 0, 0, true);
		goto out;
	}
	if (!o->yes) {
		if (!isatty(STDIN_FILENO)) {
			rc = cli_errorf("not applying: no terminal to confirm on (--yes applies "
					"without asking)");
			goto out;
		}
		fflush(stdout);
		if (!confirm(n_cmds)) {
			printf("not confirmed: no command was run\n");
			goto out;
		}
	}
	if (o->baseline && (rc = baseline_run(o, base)))
		goto out;
	printf("\n");
	for (i = 0; i < pl.n; i++) {
		const struct apply_item *it = &pl.items[i];

		for (k = 0; it->apply && k < it->n_steps; k++) {
			printf("$ %s\n", it->steps[k].cmd);
			st = run_line(it->steps[k].cmd);
			printf("  exit status %d%s\n", st, st ? ": failed" : "");
			if (st) {
				printf("\nstopped at a failed command: nothing after it was run, "
				       "nothing was recorded after\n");
				print_undo(&pl, i, k, false);
				rc = 1;
				goto out;
			}
		}
	}
	printf("\ndiagnose --apply: recording after for %g s into %s\n", o->duration, after);
	if (!(rc = record_run(o, after))) {
		printf("\n");
		fflush(stdout);
		/* BEFORE's diagnosis (the predicted gain) with the CPUs' load, as planned */
		rc = compare_recordings(before, after, o->baseline ? base : NULL, o->po, false,
					&host);
	}
	print_undo(&pl, 0, 0, true);
out:
	apply_plan_release(&pl);
	if (have_b) {
		before_close(&b);
		host_span_release(&host);
	}
	return rc;
}
