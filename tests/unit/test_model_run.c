/* test_model_run.c - a model run end to end: resolve, count, inputs, metrics */
#include "test.h"

#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "model/run.h"
#include "util/alloc.h"
#include "util/timeutil.h"

/* CPU time of this thread in ns. */
static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The software model on this machine, counting this thread while it spins
 * for 0.3 s: the task-clock input is the thread's CPU time, which the
 * kernel also reports through CLOCK_THREAD_CPUTIME_ID (a shared, loaded
 * machine changes both alike); cpu_util is that over the wall time.
 */
TEST(model_run_software_live)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	struct pmu_db *db = NULL;
	struct model_machine mm;
	struct model_run r;
	struct cnt_request req;
	struct cnt_session *s = NULL;
	struct cnt_snapshot snap;
	struct expr_env env;
	struct factor_value fv[FACTOR_N];
	double *in = NULL, *met = NULL, util, cpu0, cpu1, wall;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char *path = xstrdup(test_data("../../models/software.model"));
	uint64_t t0;
	volatile unsigned long x = 0;
	int i;

	diags_init(&d);
	cnt_snapshot_init(&snap);
	memset(&r, 0, sizeof(r));
	if (model_load(&m, path, NULL, 0, &d, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	if (pmu_db_new(&db, "/", &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	memset(&mm, 0, sizeof(mm));
	mm.db = db;
	mm.root = "/";
	CHECK_INT(model_run_init(&r, m, &mm, NULL, &err), 0);
	/* task-clock, context-switches, cpu-migrations: one series each, opened
	 * as specs 5, 6, 7 after five specs of a caller's own */
	CHECK_INT(r.events.n, 3);
	CHECK_INT(model_run_renumber(&r, 5), 3);
	CHECK_INT(r.events.v[0].spec_index, 5);
	CHECK_INT(r.events.v[2].spec_index, 7);
	CHECK_INT(r.spec_of[model_find_input(m, "migr")], 7);
	CHECK_INT(r.spec_of[model_find_input(m, "place_rem")], -1);
	memset(&req, 0, sizeof(req));
	req.events = r.events.v;
	req.n_events = r.events.n;
	req.target.tids = &tid;
	req.target.n_tids = 1;
	req.root = "/";
	if (cnt_session_new(&s, &req, &err)) {
		test_skip("cannot count this thread: %s", err.msg);
		goto out;
	}
	model_run_start(&r);
	CHECK_INT(cnt_session_enable(s, &err), 0);
	cpu0 = thread_cpu_ns();
	t0 = vp_now_ns();
	while (vp_now_ns() - t0 < 300000000ULL)
		for (i = 0; i < 1000; i++)
			x += (unsigned long)i;
	cpu1 = thread_cpu_ns();
	CHECK_INT(cnt_session_read(s, &snap, &err), 0);
	in = xcalloc(m->n_inputs, sizeof(double));
	met = xcalloc(m->n_metrics, sizeof(double));
	model_run_inputs(&r, s, &snap, false, -1, in);
	{
		/* one read: the run's totals are its first interval */
		double *tot = xcalloc(m->n_inputs, sizeof(double));

		model_run_inputs(&r, s, &snap, true, -1, tot);
		CHECK_NEAR(tot[model_find_input(m, "tclk")], in[model_find_input(m, "tclk")], 0);
		free(tot);
	}
	model_env_fill(&env, NULL, NULL, (double)(snap.t_ns - snap.prev_ns) / 1e9);
	env.inputs = in;
	env.n_inputs = m->n_inputs;
	model_eval(m, &env, met, fv);
	/* the counted interval holds the spin: task-clock within 20 % of the spin's CPU time */
	CHECK_AT(__LINE__, fabs(in[model_find_input(m, "tclk")] - (cpu1 - cpu0)) < 0.2 * (cpu1 - cpu0),
		 "task-clock %g ns, thread CPU time %g ns", in[model_find_input(m, "tclk")], cpu1 - cpu0);
	wall = (double)(snap.t_ns - snap.prev_ns);
	util = met[model_find_metric(m, "cpu_util")];
	CHECK_NEAR(util, in[model_find_input(m, "tclk")] / wall, 1e-9);
	CHECK_AT(__LINE__, util > 0 && util <= 1.05, "cpu_util %g of one thread", util);
	/* sources without a provider are n/a, never 0 */
	CHECK_NAN(in[model_find_input(m, "place_rem")]);
	CHECK_NAN(met[model_find_metric(m, "wait_frac")]);
	/* llc, sharing and queue cannot be measured by software: n/a */
	CHECK_INT(fv[FACTOR_LLC].sev, SEV_NA);
	CHECK_INT(fv[FACTOR_QUEUE].sev, SEV_NA);
out:
	free(in);
	free(met);
	cnt_snapshot_release(&snap);
	cnt_session_free(s);
	model_run_release(&r);
	pmu_db_free(db);
	model_free(m);
	diags_release(&d);
	free(path);
}

/* A model whose required event is absent cannot run, and says which. */
TEST(model_run_required_absent)
{
	static const char text[] =
		"model need\ninclude vpmu\nevent x = uncore_imc/event=0x04,umask=0x03/\n";
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	struct pmu_db *db = NULL;
	struct model_machine mm;
	struct model_run r;
	char *dir = xstrdup(test_data("../../models"));
	const char *dirs[1] = { dir };
	char *root = xstrdup(test_data("root/zen2-2s"));

	diags_init(&d);
	CHECK_INT(model_load_text(&m, text, "/nonexistent/need.model", dirs, 1, &d, &err), 0);
	CHECK_INT(pmu_db_new(&db, root, &err), 0);
	memset(&mm, 0, sizeof(mm));
	mm.db = db;
	mm.root = root;
	CHECK_INT(model_run_init(&r, m, &mm, NULL, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "model 'need' cannot run here: event 'x' "
		       "(uncore_imc/event=0x04,umask=0x03/): no PMU 'uncore_imc' here");
	model_run_release(&r);
	pmu_db_free(db);
	model_free(m);
	diags_release(&d);
	free(dir);
	free(root);
}

/*
 * The software model for a command (SWS_COMMAND): sched.run_ns is opened
 * as a task-clock event, bound and summed like the model's own task-clock,
 * so the two agree; sched.wait_ns, which no event counts, is absent with
 * that reason.  Counted on this thread while it spins for 0.2 s.
 */
TEST(model_run_command_sched_as_events)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	struct pmu_db *db = NULL;
	struct model_machine mm;
	struct swsource_scope sc = { SWS_COMMAND, NULL, 0, NULL, 0 };
	struct model_run r;
	struct cnt_request req;
	struct cnt_session *s = NULL;
	struct cnt_snapshot snap;
	double *in = NULL, tclk, run;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char *path = xstrdup(test_data("../../models/software.model"));
	uint64_t t0;
	volatile unsigned long x = 0;
	int i, k_run, k_wait;

	diags_init(&d);
	cnt_snapshot_init(&snap);
	memset(&r, 0, sizeof(r));
	if (model_load(&m, path, NULL, 0, &d, &err) || pmu_db_new(&db, "/", &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	memset(&mm, 0, sizeof(mm));
	mm.db = db;
	mm.root = "/";
	mm.scope = &sc;
	CHECK_INT(model_run_init(&r, m, &mm, NULL, &err), 0);
	k_run = model_find_input(m, "run_ns");
	k_wait = model_find_input(m, "wait_ns");
	CHECK_STR(model_run_event_spec(&r, (size_t)k_run), "task-clock");
	CHECK(model_run_event_spec(&r, (size_t)k_wait) == NULL);
	CHECK(!r.av.input_ok[k_wait]);
	CHECK_CONTAINS(r.av.input_reason[k_wait], "no perf event counts it");
	/* task-clock, context-switches, cpu-migrations, and task-clock for run_ns */
	CHECK_INT(r.events.n, 4);
	CHECK_INT(model_run_renumber(&r, 0), 4);
	CHECK(r.spec_of[k_run] >= 0);
	memset(&req, 0, sizeof(req));
	req.events = r.events.v;
	req.n_events = r.events.n;
	req.target.tids = &tid;
	req.target.n_tids = 1;
	req.root = "/";
	if (cnt_session_new(&s, &req, &err)) {
		test_skip("cannot count this thread: %s", err.msg);
		goto out;
	}
	model_run_start(&r);
	CHECK_INT(cnt_session_enable(s, &err), 0);
	t0 = vp_now_ns();
	while (vp_now_ns() - t0 < 200000000ULL)
		for (i = 0; i < 1000; i++)
			x += (unsigned long)i;
	CHECK_INT(cnt_session_read(s, &snap, &err), 0);
	in = xcalloc(m->n_inputs, sizeof(double));
	model_run_inputs(&r, s, &snap, true, -1, in);
	tclk = in[model_find_input(m, "tclk")];
	run = in[k_run];
	/* two task-clock counters on one thread, enabled together: within 1 % */
	CHECK_AT(__LINE__, tclk > 0 && fabs(run - tclk) <= 0.01 * tclk, "run_ns %g, task-clock %g", run, tclk);
	CHECK_NAN(in[k_wait]);
out:
	free(in);
	cnt_snapshot_release(&snap);
	cnt_session_free(s);
	model_run_release(&r);
	pmu_db_free(db);
	model_free(m);
	diags_release(&d);
	free(path);
}

/* A caller's live source (stat -m's tracer) for sched.node_migrations: 10, 17, ... */
static int live_counter(void *ctx, const char *name, double *val, struct vp_err *err)
{
	int *calls = ctx;

	if (strcmp(name, "sched.node_migrations"))
		return VP_ENOTFOUND;
	if (*calls < 0)
		return vp_err_set(err, VP_EUNSUPP, "no recorder here");
	*val = 10 + 7 * (*calls)++;
	return 0;
}

/*
 * model_machine.live is asked before the source table: a source it
 * provides is present and seen as its increase; one it cannot give is
 * absent with its reason (others fall through to the table: stat -m
 * always sets it, and t4010's numastat metrics still read).
 */
TEST(model_run_live_source)
{
	static const char text[] =
		"model live\n"
		"source nm = sched.node_migrations optional\n"
		"metric moves = nm\n"
		"factor locality unavailable \"t\"\nfactor llc unavailable \"t\"\n"
		"factor sharing unavailable \"t\"\nfactor imc unavailable \"t\"\n"
		"factor queue unavailable \"t\"\n";
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	struct model_machine mm;
	struct model_run r;
	char *root = xstrdup(test_data("root/skx-2s"));
	double in[2];
	int calls = 0, k;

	diags_init(&d);
	CHECK_INT(model_load_text(&m, text, "/nonexistent/live.model", NULL, 0, &d, &err), 0);
	if (!m)
		goto out;
	k = model_find_input(m, "nm");
	memset(&mm, 0, sizeof(mm));
	mm.root = root;
	mm.live = live_counter;
	mm.live_ctx = &calls;
	CHECK_INT(model_run_init(&r, m, &mm, NULL, &err), 0);
	CHECK(r.av.input_ok[k]);
	model_run_start(&r);
	model_run_inputs(&r, NULL, NULL, false, -1, in);
	CHECK_NEAR(in[k], 7, 0);                    /* read 10 at the start, then 17 */
	model_run_release(&r);
	calls = -1;
	CHECK_INT(model_run_init(&r, m, &mm, NULL, &err), 0);
	CHECK(!r.av.input_ok[k]);
	CHECK_CONTAINS(r.av.input_reason[k], "no recorder here");
	model_run_release(&r);
out:
	model_free(m);
	diags_release(&d);
	free(root);
}
