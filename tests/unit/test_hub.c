/* test_hub.c - the shared collector: views over one merged counter set */
#include <dirent.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/hub.h"
#include "test.h"
#include "util/alloc.h"

/*
 * Live tests count software events (task-clock, context-switches,
 * page-faults) on this process's threads, which count for real without a
 * hardware PMU; the expected values come from the CPU time the process
 * measures itself (CLOCK_PROCESS_CPUTIME_ID) and, for merging, from the
 * events' kernel encodings (PERF_TYPE_SOFTWARE = 1; PERF_COUNT_SW_TASK_CLOCK
 * = 1, _PAGE_FAULTS = 2, _CONTEXT_SWITCHES = 3 in linux/perf_event.h).
 */

/* The five factors every model binds, none measurable by these test models. */
#define NO_FACTORS "factor locality unavailable \"test\"\nfactor llc unavailable \"test\"\n" \
	"factor sharing unavailable \"test\"\nfactor imc unavailable \"test\"\n" \
	"factor queue unavailable \"test\"\n"

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void burn_ms(double ms)
{
	double t0 = cpu_ms();
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	} while (cpu_ms() - t0 < ms);
}

/* perf_event descriptors this process holds. */
static int perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[300], link[64];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		n += !strcmp(link, "anon_inode:[perf_event]");
	}
	closedir(d);
	return n;
}

static struct model *load_text(const char *text)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };

	diags_init(&d);
	if (model_load_text(&m, text, "test.model", NULL, 0, &d, &err))
		test_fail(__FILE__, __LINE__, "%s", err.msg);
	diags_release(&d);
	return m;
}

/* A live hub on this machine with one platform; fixture hubs pass a root. */
struct fix {
	struct platform plat;
	struct hub *h;
	bool ok;
};

static void fix_init(struct fix *x, const char *root)
{
	struct vp_err err = { 0, "" };
	struct hub_opts ho;

	memset(x, 0, sizeof(*x));
	if (platform_probe(&x->plat, root, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	memset(&ho, 0, sizeof(ho));
	ho.root = root;
	ho.plat = &x->plat;
	if (hub_new(&x->h, &ho, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		return;
	}
	x->ok = true;
}

static void fix_release(struct fix *x)
{
	hub_free(x->h);
	platform_release(&x->plat);
}

static int add_pid_view(struct hub *h, const struct model *m, const int *pid, int line)
{
	struct hub_view_opts vo;
	struct vp_err err = { 0, "" };
	int id = -1;

	memset(&vo, 0, sizeof(vo));
	vo.model = m;
	vo.pids = pid;
	vo.n_pids = 1;
	if (hub_view_add(h, &vo, &id, &err))
		test_fail(__FILE__, line, "hub_view_add: %s", err.msg);
	return id;
}

/* The process row's (row 0) value of input name in a fresh sample; NaN on failure. */
/* The run time of pid so far in ms, from /proc/PID/schedstat (the kernel's own sum); NaN unreadable. */
static double run_ms(int pid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (!(f = fopen(path, "r")))
		return NAN;
	ok = fscanf(f, "%llu", &ns) == 1;
	fclose(f);
	return ok ? ns / 1e6 : NAN;
}

static double sample_input(struct hub *h, int id, const struct model *m, const char *name,
			   struct collect_frame *f, int line)
{
	struct vp_err err = { 0, "" };
	int in = model_find_input(m, name);

	memset(f, 0, sizeof(*f));
	if (hub_sample(h, id, f, &err)) {
		test_fail(__FILE__, line, "hub_sample: %s", err.msg);
		return NAN;
	}
	if (in < 0 || !f->n_rows) {
		test_fail(__FILE__, line, "no input '%s' or no rows", name);
		return NAN;
	}
	return f->rows[0].inputs[in];
}

static const struct hub_event *find_event(const struct hub_event *ev, size_t n, const char *enc)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(ev[i].encoding, enc))
			return &ev[i];
	return NULL;
}

static const char model_a[] = "model a\nevent tclk = task-clock\nevent cs = context-switches\n"
			      "metric cpu_util = tclk / (duration * 1e9)\n" NO_FACTORS;
/* task-clock again (spelt as in model a), page-faults new, context-switches
 * under its other perf name (the same encoding, so the same event), and
 * task-clock in user mode only (a modifier: another event) */
static const char model_b[] = "model b\nevent tclk = task-clock\nevent pf = page-faults\n"
			      "event sw = cs\nevent tu = task-clock:u\n"
			      "metric cpu_util = tclk / (duration * 1e9)\n" NO_FACTORS;

/* A view on this process: its task-clock is the CPU time the process burnt. */
TEST(hub_one_view_counts_own_process)
{
	struct model *m = load_text(model_a);
	struct collect_frame f;
	struct fix x;
	int pid = (int)getpid(), id;
	double t0, tc;

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	if (!m || !x.ok)
		goto out;
	id = add_pid_view(x.h, m, &pid, __LINE__);
	CHECK(id >= 0);
	if (id < 0)
		goto out;
	t0 = cpu_ms();
	burn_ms(60);
	tc = sample_input(x.h, id, m, "tclk", &f, __LINE__) / 1e6;
	t0 = cpu_ms() - t0;
	/* at least the 60 ms burnt, at most the process's CPU time over the interval plus slack */
	CHECK(tc >= 55);
	CHECK(tc <= t0 + 20);
	CHECK_INT(f.n_scaling, 2);
	if (f.n_scaling == 2) {
		CHECK_STR(f.scaling[0].event, "task-clock");
		CHECK_STR(f.scaling[1].event, "context-switches");
		/* software events are never multiplexed */
		CHECK_NEAR(f.scaling[0].running_pct, 100.0, 0.01);
		CHECK(f.scaling[0].enabled_s > 0.05);
	}
out:
	collect_frame_release(&f);
	fix_release(&x);
	model_free(m);
}

/* Two views with overlapping models: the union, de-duplicated, each event opened once. */
TEST(hub_merges_overlapping_views)
{
	struct model *ma = load_text(model_a), *mb = load_text(model_b);
	struct hub_event *ev = NULL;
	const struct hub_event *e;
	size_t n_ev = 0, nt;
	struct fix x;
	int pid = (int)getpid(), a = -1, b = -1, fds0 = perf_fds();

	fix_init(&x, "/");
	if (!ma || !mb || !x.ok)
		goto out;
	a = add_pid_view(x.h, ma, &pid, __LINE__);
	if (a < 0)
		goto out;
	nt = hub_view_n_targets(x.h, a);
	CHECK(nt >= 1);
	/* model a: task-clock and context-switches on every thread */
	CHECK_INT(perf_fds() - fds0, 2 * (int)nt);
	b = add_pid_view(x.h, mb, &pid, __LINE__);
	if (b < 0)
		goto out;
	CHECK(b != a);
	/* model b adds only page-faults and task-clock:u: task-clock and cs are shared */
	CHECK_INT(perf_fds() - fds0, 4 * (int)nt);
	CHECK_INT(hub_events(x.h, &ev, &n_ev), 0);
	CHECK_INT(n_ev, 4);
	/* :u is exclude_kernel and exclude_hv (perf's modifier) */
	e = find_event(ev, n_ev, "type=1,config=0x1,mod=kh");
	CHECK(e != NULL);
	if (e) {
		CHECK_STR(e->name, "task-clock:u");
		CHECK_INT(e->n_views, 1);
	}
	e = find_event(ev, n_ev, "type=1,config=0x1");
	CHECK(e != NULL);
	if (e) {
		CHECK_STR(e->name, "task-clock");
		CHECK_INT(e->n_views, 2);
		CHECK(e->open);
		CHECK(e->why == NULL);
	}
	e = find_event(ev, n_ev, "type=1,config=0x3");
	CHECK(e != NULL);
	if (e) {
		CHECK_STR(e->name, "context-switches"); /* the first asker's spelling */
		CHECK_INT(e->n_views, 2);
	}
	e = find_event(ev, n_ev, "type=1,config=0x2");
	CHECK(e != NULL);
	if (e) {
		CHECK_INT(e->n_views, 1);
		if (e->n_views == 1)
			CHECK_INT(e->views[0], b);
	}
	/* every input of both views is counted */
	CHECK(hub_view_input_reason(x.h, a, (size_t)model_find_input(ma, "cs")) == NULL);
	CHECK(hub_view_input_reason(x.h, b, (size_t)model_find_input(mb, "sw")) == NULL);
	CHECK(hub_view_input_reason(x.h, b, (size_t)model_find_input(mb, "pf")) == NULL);
out:
	hub_events_release(ev, n_ev);
	fix_release(&x);
	CHECK_INT(perf_fds(), fds0);
	model_free(ma);
	model_free(mb);
}

/*
 * A view added later does not change the first view's deltas: the first
 * view's task-clock over an interval in which the second was added matches
 * what an independent single-view hub counts over the same interval, and
 * the CPU time burnt; the second view counts only since it was added.
 */
TEST(hub_later_view_leaves_first_alone)
{
	struct model *ma = load_text(model_a), *mb = load_text(model_b);
	struct collect_frame f;
	struct fix x, y;
	struct vp_err err = { 0, "" };
	int pid = (int)getpid(), a, b, solo;
	double ta, tsolo, tb, tot, c0, c1;

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	fix_init(&y, "/");
	if (!ma || !mb || !x.ok || !y.ok)
		goto out;
	a = add_pid_view(x.h, ma, &pid, __LINE__);
	solo = add_pid_view(y.h, ma, &pid, __LINE__);
	if (a < 0 || solo < 0)
		goto out;
	sample_input(x.h, a, ma, "tclk", &f, __LINE__);
	collect_frame_release(&f);
	sample_input(y.h, solo, ma, "tclk", &f, __LINE__);
	collect_frame_release(&f);
	c0 = cpu_ms();
	burn_ms(80);
	b = add_pid_view(x.h, mb, &pid, __LINE__);
	if (b < 0)
		goto out;
	burn_ms(80);
	ta = sample_input(x.h, a, ma, "tclk", &f, __LINE__) / 1e6;
	collect_frame_release(&f);
	tsolo = sample_input(y.h, solo, ma, "tclk", &f, __LINE__) / 1e6;
	collect_frame_release(&f);
	tb = sample_input(x.h, b, mb, "tclk", &f, __LINE__) / 1e6;
	c1 = cpu_ms() - c0;
	collect_frame_release(&f);
	/* both burns, as the solo hub counts them (sampled a moment apart) */
	CHECK(ta >= 155);
	CHECK(ta <= c1 + 20);
	CHECK_NEAR(ta, tsolo, 0.1 * tsolo + 10);
	/* the second view: the second burn only */
	CHECK(tb >= 75);
	CHECK(tb <= ta - 60);
	/* the first view's whole run is at least both burns */
	memset(&f, 0, sizeof(f));
	CHECK_INT(hub_total(x.h, a, &f, &err), 0);
	tot = f.n_rows ? f.rows[0].inputs[model_find_input(ma, "tclk")] / 1e6 : NAN;
	CHECK(tot >= ta);
out:
	collect_frame_release(&f);
	fix_release(&x);
	fix_release(&y);
	model_free(ma);
	model_free(mb);
}

/* Removing a view closes its private events and leaves the other view's counts alone. */
TEST(hub_remove_view_closes_private_events)
{
	struct model *ma = load_text(model_a), *mb = load_text(model_b);
	struct hub_event *ev = NULL;
	struct collect_frame f;
	size_t n_ev = 0, nt;
	struct fix x;
	struct vp_err err = { 0, "" };
	int pid = (int)getpid(), a, b, fds0 = perf_fds();
	double ta;

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	if (!ma || !mb || !x.ok)
		goto out;
	a = add_pid_view(x.h, ma, &pid, __LINE__);
	b = add_pid_view(x.h, mb, &pid, __LINE__);
	if (a < 0 || b < 0)
		goto out;
	nt = hub_view_n_targets(x.h, a);
	sample_input(x.h, a, ma, "tclk", &f, __LINE__);
	collect_frame_release(&f);
	burn_ms(50);
	hub_view_remove(x.h, b);
	/* page-faults and task-clock:u were b's alone */
	CHECK_INT(perf_fds() - fds0, 2 * (int)nt);
	CHECK_INT(hub_events(x.h, &ev, &n_ev), 0);
	CHECK_INT(n_ev, 2);
	CHECK(find_event(ev, n_ev, "type=1,config=0x2") == NULL);
	if (find_event(ev, n_ev, "type=1,config=0x1"))
		CHECK_INT(find_event(ev, n_ev, "type=1,config=0x1")->n_views, 1);
	burn_ms(50);
	ta = sample_input(x.h, a, ma, "tclk", &f, __LINE__) / 1e6;
	CHECK(ta >= 95);
	collect_frame_release(&f);
	/* the removed view is gone for good; removing it again changes nothing */
	CHECK(hub_sample(x.h, b, &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "view");
	hub_view_remove(x.h, b);
	CHECK(hub_view_avail(x.h, b) == NULL);
	hub_view_remove(x.h, a);
	CHECK_INT(perf_fds(), fds0);
out:
	hub_events_release(ev, n_ev);
	collect_frame_release(&f);
	fix_release(&x);
	model_free(ma);
	model_free(mb);
}

/* A view on a pid sees that process's rows only, counted on its threads only. */
TEST(hub_pid_views_see_their_rows)
{
	struct model *m = load_text(model_a);
	struct collect_frame fa, fb;
	struct fix x;
	int self = (int)getpid(), child, a, b, ab = -1, p[2], fds0;
	size_t i, nt;
	char c = 0;
	double tb, run0, before, after;

	memset(&fa, 0, sizeof(fa));
	memset(&fb, 0, sizeof(fb));
	fix_init(&x, "/");
	if (!m || !x.ok || pipe(p))
		goto out0;
	child = fork();
	if (child == 0) {
		/* burn CPU once told to, until killed */
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		for (;;)
			burn_ms(1000);
	}
	if (child < 0)
		goto out0;
	a = add_pid_view(x.h, m, &self, __LINE__);
	b = add_pid_view(x.h, m, &child, __LINE__);
	if (a < 0 || b < 0)
		goto out;
	CHECK_INT(hub_view_n_targets(x.h, b), 1);
	nt = hub_view_n_targets(x.h, a);
	/* a third view on both: model a is already counted on every one of those threads */
	fds0 = perf_fds();
	{
		struct hub_view_opts vo;
		struct vp_err err = { 0, "" };
		int both[2] = { self, child };

		memset(&vo, 0, sizeof(vo));
		vo.model = m;
		vo.pids = both;
		vo.n_pids = 2;
		CHECK_INT(hub_view_add(x.h, &vo, &ab, &err), 0);
	}
	CHECK_INT(perf_fds(), fds0);
	CHECK_INT(hub_view_n_targets(x.h, ab), nt + 1);
	CHECK_INT(hub_n_targets(x.h), nt + 1);
	hub_view_remove(x.h, ab);
	CHECK_INT(perf_fds(), fds0);
	run0 = run_ms(child);
	if (write(p[1], &c, 1) != 1)
		goto out;
	/* until the child has run 50 ms by the kernel's account (at load 20 on two
	 * CPUs that takes seconds, not the 300 ms of a quiet machine) */
	for (i = 0; i < 300 && !(run_ms(child) - run0 >= 50); i++)
		usleep(50 * 1000);
	sample_input(x.h, a, m, "tclk", &fa, __LINE__);
	before = run_ms(child);
	tb = sample_input(x.h, b, m, "tclk", &fb, __LINE__) / 1e6;
	after = run_ms(child);
	for (i = 0; i < fa.n_rows; i++)
		CHECK_INT(fa.rows[i].pid, self);
	CHECK_INT(fb.n_rows, 2); /* the process and its one thread */
	for (i = 0; i < fb.n_rows; i++)
		CHECK_INT(fb.rows[i].pid, child);
	if (fb.n_rows == 2)
		CHECK_INT(fb.rows[1].tid, child);
	/* task-clock counts what the kernel's schedstat sums: the child's run time from
	 * when the view was added (it sat blocked in read() before, run0) to the sample,
	 * read just before and after it; 2 ms of slack for the child running between
	 * a read of schedstat and the counter's */
	CHECK_AT(__LINE__, tb >= before - run0 - 2 && tb <= after - run0 + 2,
		 "task-clock %.1f ms, schedstat says %.1f to %.1f ms", tb, before - run0,
		 after - run0);
	CHECK(before - run0 >= 50);
out:
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
out0:
	close(p[0]);
	close(p[1]);
	collect_frame_release(&fa);
	collect_frame_release(&fb);
	fix_release(&x);
	model_free(m);
}

/*
 * Views by VM name on a fixture host (host-libvirt-v2: VM web1 with vCPU
 * threads 1002 and 1003, its 1 GiB 196608 + 65536 pages on nodes 0 and 1;
 * VM db-2 with one vCPU, all its memory on node 1).  Each view's frame has
 * its own VMs' rows; placement.spread = 1 - largest node share.
 */
TEST(hub_vm_views_on_fixture)
{
	static const struct {
		int line;
		const char *vm;     /* NULL: every VM */
		size_t rows;        /* VM rows + vCPU rows */
		double spread0;     /* the first VM row's spread */
	} rows[] = {
		{ __LINE__, "web1", 1 + 2, 1.0 - 196608.0 / 262144.0 },
		{ __LINE__, "db-2", 1 + 1, 0.0 },
		{ __LINE__, NULL, 2 + 3, NAN },
	};
	struct model *m = load_text("model s\nsource spread = placement.spread\n"
				    "metric s = spread\n" NO_FACTORS);
	struct hub_event *ev = NULL;
	size_t n_ev = 0, i;
	struct fix x;
	int ids[3];
	char root[4096];

	snprintf(root, sizeof(root), "%s", test_data("root/host-libvirt-v2"));
	fix_init(&x, root);
	if (!m || !x.ok)
		goto out;
	for (i = 0; i < 3; i++) {
		struct hub_view_opts vo;
		struct vp_err err = { 0, "" };

		memset(&vo, 0, sizeof(vo));
		vo.model = m;
		vo.vm_names = rows[i].vm ? &rows[i].vm : NULL;
		vo.n_vm_names = rows[i].vm ? 1 : 0;
		ids[i] = -1;
		CHECK_INT_AT(rows[i].line, hub_view_add(x.h, &vo, &ids[i], &err), 0);
	}
	for (i = 0; i < 3; i++) {
		struct collect_frame f;
		struct vp_err err = { 0, "" };
		size_t k;

		if (ids[i] < 0)
			continue;
		CHECK_INT_AT(rows[i].line, hub_sample(x.h, ids[i], &f, &err), 0);
		CHECK_INT_AT(rows[i].line, f.n_rows, rows[i].rows);
		for (k = 0; rows[i].vm && k < f.n_rows; k++)
			if (f.rows[k].kind == ENT_VM)
				CHECK_STR_AT(rows[i].line, f.rows[k].name, rows[i].vm);
		if (rows[i].vm && f.n_rows)
			CHECK_NEAR_AT(rows[i].line, f.rows[0].inputs[0], rows[i].spread0, 1e-9);
		CHECK_INT_AT(rows[i].line, f.n_scaling, 0); /* no events */
		collect_frame_release(&f);
	}
	/* sources only: nothing to open */
	CHECK_INT(hub_events(x.h, &ev, &n_ev), 0);
	CHECK_INT(n_ev, 0);
out:
	hub_events_release(ev, n_ev);
	fix_release(&x);
	model_free(m);
}

/* Bad requests fail with a message and leave the hub as it was. */
TEST(hub_bad_views)
{
	struct model *m = load_text(model_a);
	struct hub_view_opts vo;
	struct collect_frame f;
	struct vp_err err = { 0, "" };
	struct fix x;
	int gone = 0x3ffffff0, id = -1, fds0 = perf_fds();

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	if (!m || !x.ok)
		goto out;
	memset(&vo, 0, sizeof(vo));
	vo.model = m;
	vo.pids = &gone;
	vo.n_pids = 1;
	vo.strict = true;
	CHECK(hub_view_add(x.h, &vo, &id, &err) < 0);
	CHECK_CONTAINS(err.msg, "process 1073741808 does not exist");
	CHECK_INT(perf_fds(), fds0);
	/* a VM name this host does not have */
	{
		const char *nosuch = "no-such-vm";

		vo.pids = NULL;
		vo.n_pids = 0;
		vo.vm_names = &nosuch;
		vo.n_vm_names = 1;
		CHECK(hub_view_add(x.h, &vo, &id, &err) < 0);
		CHECK_CONTAINS(err.msg, "no VM named 'no-such-vm'");
		/* not strict: a view with no rows (what 'diagnose --vm' reports as no VM found) */
		vo.strict = false;
		CHECK_INT(hub_view_add(x.h, &vo, &id, &err), 0);
		CHECK_INT(hub_view_n_targets(x.h, id), 0);
	}
	CHECK(hub_sample(x.h, 7, &f, &err) < 0);
	CHECK_CONTAINS(err.msg, "no view 7");
	CHECK(hub_total(x.h, -1, &f, &err) < 0);
	CHECK(hub_view_input_reason(x.h, 7, 0) == NULL);
	CHECK_INT(hub_view_n_targets(x.h, 7), 0);
out:
	collect_frame_release(&f);
	fix_release(&x);
	model_free(m);
}

/* A fixed amount of work: the same instructions every call. */
static void spin(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i;
}

/*
 * The promise: a session never sees another's events change its
 * numbers beyond the reported scaling.  View c counts instructions alone
 * over a fixed loop; then view d adds more hardware events than a core
 * PMU has counters, so the kernel multiplexes: c's scaled count of the
 * same loop stays within 15 % and its frames report the share it ran.
 * Needs a core PMU (skipped on this kind of VM).
 */
TEST(hub_multiplexed_views_keep_their_scaled_counts)
{
	struct model *mc = load_text("model c\nevent ins = instructions\n"
				     "metric ipns = ins / (duration * 1e9)\n" NO_FACTORS);
	struct model *md = load_text(
		"model d\nevent c1 = cycles\nevent c2 = branches\nevent c3 = branch-misses\n"
		"event c4 = cache-references\nevent c5 = cache-misses\nevent c6 = ref-cycles\n"
		"event c7 = L1-dcache-loads\nevent c8 = L1-dcache-load-misses\n"
		"event c9 = LLC-loads\nevent c10 = LLC-load-misses\nevent c11 = dTLB-loads\n"
		"event c12 = dTLB-load-misses\nevent c13 = iTLB-load-misses\n"
		"event c14 = instructions:u\nevent c15 = cycles:u\n"
		"metric z = c1 + c2\n" NO_FACTORS);
	struct collect_frame f;
	struct fix x;
	const char *why;
	int pid = (int)getpid(), c, d;
	double i1, i2, pct2 = NAN;

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	if (!mc || !md || !x.ok)
		goto out;
	{
		struct hub_view_opts vo;
		struct vp_err err = { 0, "" };

		memset(&vo, 0, sizeof(vo));
		vo.model = mc;
		vo.pids = &pid;
		vo.n_pids = 1;
		if (hub_view_add(x.h, &vo, &c, &err)) {
			test_skip("no hardware counter here: %s", err.msg);
			goto out;
		}
	}
	why = hub_view_input_reason(x.h, c, 0);
	if (why) {
		test_skip("no hardware counter here: %s", why);
		goto out;
	}
	sample_input(x.h, c, mc, "ins", &f, __LINE__);
	collect_frame_release(&f);
	spin(200000000ul);
	i1 = sample_input(x.h, c, mc, "ins", &f, __LINE__);
	collect_frame_release(&f);
	d = add_pid_view(x.h, md, &pid, __LINE__);
	if (d < 0)
		goto out;
	sample_input(x.h, c, mc, "ins", &f, __LINE__);
	collect_frame_release(&f);
	spin(200000000ul);
	i2 = sample_input(x.h, c, mc, "ins", &f, __LINE__);
	if (f.n_scaling == 1)
		pct2 = f.scaling[0].running_pct;
	CHECK_INT(f.n_scaling, 1);
	/* the loop is at least 2 instructions an iteration */
	CHECK(i1 >= 4e8);
	CHECK_NEAR(i2, i1, 0.15 * i1);
	CHECK(pct2 > 0 && pct2 <= 100.0 + 1e-9);
out:
	collect_frame_release(&f);
	fix_release(&x);
	model_free(mc);
	model_free(md);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Per-node counting on snc-2cpu (tests/data/root/snc-2cpu/README.md): one
 * package holding node 0 (CPU 0) and node 1 (CPU 1), and two "uncore" PMUs
 * that are the software clock (type 1, config 0 = cpu-clock): uncore_box_0
 * with cpumask 0 (a per-package box) and uncore_ccx_0 with cpumask 0-1.
 * cpu-clock counted on a CPU advances by the time it was enabled, so over a
 * frame of D seconds: the box counts D s on CPU 0 for the whole package,
 * split evenly between its two nodes (D/2 each, marked split); the ccx
 * counts D s on each CPU, each for its own node.  The fixture has no VMs,
 * so these are counted with no target thread at all.
 */
TEST(hub_node_counts_on_fixture)
{
	struct model *m = load_text("model n\nevent box = uncore_box_0/event=0/\n"
				    "event ccx = uncore_ccx_0/event=0/\n"
				    "metric ccx_s = ccx / 1e9 / duration\n" NO_FACTORS);
	struct collect_frame f, t;
	struct hub_event *ev = NULL;
	size_t n_ev = 0, i;
	struct vp_err err = { 0, "" };
	struct hub_view_opts vo;
	int id = -1, id2 = -1;
	struct fix x;
	char root[4096];

	memset(&f, 0, sizeof(f));
	memset(&t, 0, sizeof(t));
	memset(&x, 0, sizeof(x));
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		model_free(m);
		SKIP("the fixture counts on live CPUs 0 and 1; this machine has fewer");
	}
	snprintf(root, sizeof(root), "%s", test_data("root/snc-2cpu"));
	fix_init(&x, root);
	if (!m || !x.ok)
		goto out;
	CHECK_INT(x.plat.topo.n_nodes, 2);
	memset(&vo, 0, sizeof(vo));
	vo.model = m;
	CHECK_INT(hub_view_add(x.h, &vo, &id, &err), 0);
	CHECK_INT(hub_view_add(x.h, &vo, &id2, &err), 0); /* the same events: shared */
	if (id < 0 || id2 < 0)
		goto out;
	CHECK_INT(hub_view_n_targets(x.h, id), 0);
	CHECK(hub_view_input_reason(x.h, id, 0) == NULL);
	sleep_ms(200);
	CHECK_INT(hub_sample(x.h, id, &f, &err), 0);
	CHECK_INT(f.n_rows, 0);
	CHECK_INT(f.n_nodes, 2);
	CHECK_INT(f.n_scaling, 2);
	for (i = 0; i < f.n_scaling; i++)
		CHECK_NEAR(f.scaling[i].running_pct, 100.0, 0.01);
	if (f.n_nodes == 2 && f.n_scaling == 2) {
		/* what the counters were enabled for: the box on one CPU (scaling[0]),
		 * the ccx on two (scaling[1]); the frame's duration is measured a little
		 * later than the counters are read, hence its looser check */
		double box = f.scaling[0].enabled_s * 1e9, ccx = f.scaling[1].enabled_s * 1e9;

		CHECK(f.duration > 0.15);
		CHECK_NEAR(box, f.duration * 1e9, 0.25 * f.duration * 1e9);
		CHECK_NEAR(ccx, 2 * box, 0.05 * box);
		for (i = 0; i < 2; i++) {
			CHECK_INT(f.nodes[i].kind, ENT_NODE);
			CHECK_INT(f.nodes[i].node, (int)i);
			CHECK_NEAR(f.nodes[i].inputs[0], box / 2, 0.02 * box / 2);
			CHECK_NEAR(f.nodes[i].inputs[1], ccx / 2, 0.05 * ccx / 2);
			CHECK_NEAR(f.nodes[i].metrics[0], 1.0, 0.25);
			CHECK(f.nodes[i].apportioned); /* the box's count is a package's, split */
		}
	}
	/* the whole run so far, a bit longer than the sample */
	sleep_ms(100);
	CHECK_INT(hub_total(x.h, id, &t, &err), 0);
	if (t.n_nodes == 2 && t.n_scaling == 2) {
		CHECK(t.duration > f.duration + 0.05);
		CHECK_NEAR(t.nodes[1].inputs[1], t.scaling[1].enabled_s * 1e9 / 2,
			   0.05 * t.scaling[1].enabled_s * 1e9 / 2);
		CHECK(t.nodes[1].inputs[1] > f.nodes[1].inputs[1] + 0.05e9);
	}
	/* merged: one counter set per event for both views, keyed by where it counts */
	CHECK_INT(hub_events(x.h, &ev, &n_ev), 0);
	CHECK_INT(n_ev, 2);
	{
		const struct hub_event *b = find_event(ev, n_ev, "type=1,config=0x0,cpu-wide,cpus=0");
		const struct hub_event *c = find_event(ev, n_ev, "type=1,config=0x0,cpu-wide,cpus=0-1");

		CHECK(b && c);
		if (b && c) {
			CHECK_INT(b->n_views, 2);
			CHECK(b->open && c->open);
		}
	}
out:
	hub_events_release(ev, n_ev);
	collect_frame_release(&f);
	collect_frame_release(&t);
	fix_release(&x);
	model_free(m);
}

/*
 * A model input marked `node` (cpu-clock here) is counted system-wide per
 * CPU, summed per node, and apportioned to this process by its run time
 * over the node's busy time.  Expected, for a frame of D seconds on a node
 * of n CPUs: the node row counts n x D s; the process's share is its run
 * time r over the node's busy time b <= n x D, so its value n D r / b lies
 * between about r (the node fully busy) and the node's count (the process
 * alone on it).  r is at least the 80 ms burnt (and about its task-clock).
 */
TEST(hub_node_event_apportioned_to_process)
{
	struct model *m = load_text("model p\nevent clk = cpu-clock node\nevent tclk = task-clock\n"
				    NO_FACTORS);
	struct collect_frame f;
	struct hub_event *ev = NULL;
	size_t n_ev = 0;
	struct fix x;
	int pid = (int)getpid(), id;

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	if (!m || !x.ok)
		goto out;
	id = add_pid_view(x.h, m, &pid, __LINE__);
	if (id < 0)
		goto out;
	burn_ms(80);
	sample_input(x.h, id, m, "clk", &f, __LINE__);
	CHECK_INT(f.n_nodes, (size_t)x.plat.topo.n_nodes);
	CHECK_INT(f.n_scaling, 2);
	if (f.n_nodes >= 1 && f.n_rows >= 1 && f.n_scaling == 2) {
		/* cpu-clock counts the ns its counters were enabled (scaling[0]: all CPUs) */
		double node = 0, en = f.scaling[0].enabled_s * 1e9, d = f.duration * 1e9;
		size_t i;

		for (i = 0; i < f.n_nodes; i++)
			node += f.nodes[i].inputs[0];
		CHECK_NEAR(node, en, 0.05 * en);
		CHECK_NEAR(en, (double)x.plat.topo.n_cpus * d, 0.25 * x.plat.topo.n_cpus * d);
		CHECK_NAN(f.nodes[0].inputs[1]); /* a per-thread event has no node value */
		CHECK(f.rows[0].apportioned);
		CHECK(!f.nodes[0].apportioned);
		/* half, not all: the context-switch recorder charges a thread that
		 * was already running only from when it started watching */
		CHECK(f.rows[0].inputs[0] >= 0.5 * 80e6);
		CHECK(f.rows[0].inputs[0] >= 0.5 * f.rows[0].inputs[1]);
		CHECK(f.rows[0].inputs[0] <= node * 1.001);
	}
	/* the node event is its own (cpu-wide) counter set, not the per-thread one */
	CHECK_INT(hub_events(x.h, &ev, &n_ev), 0);
	CHECK(find_event(ev, n_ev, "type=1,config=0x0,cpu-wide") != NULL);
	CHECK(find_event(ev, n_ev, "type=1,config=0x1") != NULL);
out:
	hub_events_release(ev, n_ev);
	collect_frame_release(&f);
	fix_release(&x);
	model_free(m);
}

/* The run time attrib charged to this process's main thread on every node so far. */
static double main_thread_run_s(const struct attrib *a, int pid)
{
	double s = 0;
	size_t i;
	int n;

	for (i = 0; a && i < a->n; i++)
		if (a->ents[i].alive && a->ents[i].tid == pid && a->ents[i].kind != ENT_PROCESS &&
		    a->ents[i].kind != ENT_VM)
			for (n = 0; n < a->n_nodes; n++)
				s += a->ents[i].node_run_s[n];
	return s;
}

/*
 * Two views that need exact residency share the hub's one context-switch
 * recorder (one ring buffer per CPU for the collector, not per view), and
 * each counts residency from its own start: view B, added after view A's
 * first 80 ms of burning, is charged only the 80 ms burnt after it, while
 * A is charged both.  When A goes, B keeps the recorder.
 */
TEST(hub_views_share_one_recorder)
{
	struct model *m = load_text("model p\nevent clk = cpu-clock node\nevent tclk = task-clock\n"
				    NO_FACTORS);
	struct collect_frame f;
	const struct attrib *aa, *ab;
	struct fix x;
	int pid = (int)getpid(), a, b;
	double ra, rb;

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	if (!m || !x.ok)
		goto out;
	a = add_pid_view(x.h, m, &pid, __LINE__);
	if (a < 0)
		goto out;
	burn_ms(80);
	sample_input(x.h, a, m, "clk", &f, __LINE__);
	collect_frame_release(&f);
	aa = hub_view_attrib(x.h, a);
	if (!aa || !aa->exact) {
		fix_release(&x);
		model_free(m);
		SKIP("no context-switch recorder here (perf access)");
	}
	b = add_pid_view(x.h, m, &pid, __LINE__);
	if (b < 0)
		goto out;
	burn_ms(80);
	sample_input(x.h, a, m, "clk", &f, __LINE__);
	collect_frame_release(&f);
	sample_input(x.h, b, m, "clk", &f, __LINE__);
	collect_frame_release(&f);
	aa = hub_view_attrib(x.h, a);
	ab = hub_view_attrib(x.h, b);
	CHECK(ab && ab->exact == aa->exact);
	ra = main_thread_run_s(aa, pid);
	rb = main_thread_run_s(ab, pid);
	/* A: both burns (the first from its watch, which is after the add); B: the second */
	CHECK(ra >= 0.5 * 0.160);
	CHECK(rb >= 0.5 * 0.080);
	CHECK(rb <= ra - 0.5 * 0.080);
	hub_view_remove(x.h, a);
	burn_ms(40);
	sample_input(x.h, b, m, "clk", &f, __LINE__);
	ab = hub_view_attrib(x.h, b);
	CHECK(ab && ab->exact != NULL);
	CHECK(main_thread_run_s(ab, pid) >= rb + 0.5 * 0.040);
out:
	collect_frame_release(&f);
	fix_release(&x);
	model_free(m);
}

/*
 * skx-2s (tests/data/root/skx-2s): uncore_imc_0..5, each with cpumask 0,4
 * (the first CPU of each socket).  `uncore_imc/.../` resolves to one event
 * per instance, each counted per node on its cpumask; two views asking for
 * CAS_COUNT.RD share the six.  The PMU types are invented and CPU 4 does
 * not exist on this machine, so opening fails here: the input says why,
 * and a view with nothing else to count fails with that reason.
 */
TEST(hub_uncore_on_skx_fixture)
{
	struct model *m = load_text("model u\nevent cas_rd = uncore_imc/event=0x04,umask=0x03/ optional\n"
				    "source spread = placement.spread\n"
				    "metric mem_bw = cas_rd * 64 / duration / 1e9\n" NO_FACTORS);
	struct model *only = load_text("model o\nevent cas_wr = uncore_imc/event=0x04,umask=0x0c/\n"
				       NO_FACTORS);
	struct hub_event *ev = NULL;
	size_t n_ev = 0, i, n_imc = 0;
	struct hub_view_opts vo;
	struct vp_err err = { 0, "" };
	struct collect_frame f;
	int id = -1, id2 = -1, bad = -1;
	const char *why;
	struct fix x;
	char root[4096];

	memset(&f, 0, sizeof(f));
	snprintf(root, sizeof(root), "%s", test_data("root/skx-2s"));
	fix_init(&x, root);
	if (!m || !only || !x.ok)
		goto out;
	memset(&vo, 0, sizeof(vo));
	vo.model = m;
	CHECK_INT(hub_view_add(x.h, &vo, &id, &err), 0);
	if (err.msg[0])
		test_fail(__FILE__, __LINE__, "%s", err.msg);
	CHECK_INT(hub_view_add(x.h, &vo, &id2, &err), 0);
	if (id < 0)
		goto out;
	why = hub_view_input_reason(x.h, id, 0);
	CHECK(why != NULL);
	if (why) {
		CHECK_CONTAINS(why, "not counted: ");
		CHECK(!strstr(why, "not implemented"));
	}
	CHECK_INT(hub_events(x.h, &ev, &n_ev), 0);
	for (i = 0; i < n_ev; i++) {
		if (!strncmp(ev[i].name, "uncore_imc_", 11)) {
			n_imc++;
			CHECK_CONTAINS(ev[i].encoding, "config=0x304,cpu-wide,cpus=0,4");
			CHECK_INT(ev[i].n_views, 2);
			CHECK(!ev[i].open);
			CHECK(ev[i].why != NULL);
		}
	}
	CHECK_INT(n_imc, 6);
	/* no node rows when no per-node input is counted; bandwidth n/a, never 0 */
	CHECK_INT(hub_sample(x.h, id, &f, &err), 0);
	CHECK_INT(f.n_nodes, 0);
	for (i = 0; i < f.n_rows; i++)
		CHECK_NAN(f.rows[i].inputs[0]);
	/* a model with only uncore events: the view itself fails, saying why */
	memset(&vo, 0, sizeof(vo));
	vo.model = only;
	CHECK(hub_view_add(x.h, &vo, &bad, &err) < 0);
	CHECK(err.msg[0] != '\0');
out:
	hub_events_release(ev, n_ev);
	collect_frame_release(&f);
	fix_release(&x);
	model_free(m);
	model_free(only);
}

/* A thread of the test that burns when told to, then ends when told to. */
struct late_thread {
	volatile int step;          /* 1: burn 80 ms, 2: exit */
	volatile int done;          /* 1: burnt */
	volatile int tid;
};

static void *late_main(void *arg)
{
	struct late_thread *t = arg;

	struct timespec ts;
	double t0, now;
	volatile unsigned long x = 0;

	t->tid = (int)syscall(SYS_gettid);
	while (t->step < 1)
		usleep(1000);
	/*
	 * 80 ms of this thread's own CPU time: burn_ms() reads the process's
	 * clock, to which the main thread's polling adds, so on a loaded machine
	 * this thread burnt less than the 70 ms the test asks of its row
	 */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t0 = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		now = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	} while (now - t0 < 80);
	t->done = 1;
	while (t->step < 2)
		usleep(1000);
	return NULL;
}

static const struct collect_row *row_of_tid(const struct collect_frame *f, int tid)
{
	size_t i;

	for (i = 0; i < f->n_rows; i++)
		if (f->rows[i].kind == ENT_THREAD && f->rows[i].tid == tid)
			return &f->rows[i];
	return NULL;
}

/*
 * A thread that starts after the view was made (a vCPU hot-added): the view
 * counts it without being made again.  The sample that first sees it has its
 * row with no count (its counter opens at that sample: n/a, not 0); the next
 * has the 80 ms it burnt (at least 70 ms, at most its process's CPU time over
 * the interval plus 20 ms); the sample after it ended has its row once more,
 * marked ended, and none after that.
 */
TEST(hub_view_grows_with_a_thread_that_comes_and_ends)
{
	struct model *m = load_text(model_a);
	struct collect_frame f;
	struct late_thread lt = { 0, 0, 0 };
	const struct collect_row *r;
	struct vp_err err = { 0, "" };
	pthread_t th;
	struct fix x;
	int pid = (int)getpid(), id, tc = -1;
	size_t n0;
	double c0;
	bool started = false;

	memset(&f, 0, sizeof(f));
	fix_init(&x, "/");
	if (!m || !x.ok)
		goto out;
	tc = model_find_input(m, "tclk");
	id = add_pid_view(x.h, m, &pid, __LINE__);
	if (id < 0)
		goto out;
	n0 = hub_view_n_targets(x.h, id);
	if (pthread_create(&th, NULL, late_main, &lt))
		goto out;
	started = true;
	while (!lt.tid)
		usleep(1000);
	CHECK_INT(hub_sample(x.h, id, &f, &err), 0);
	r = row_of_tid(&f, lt.tid);
	CHECK(r != NULL);
	if (r) {
		CHECK_NAN(r->inputs[tc]);
		CHECK_INT(r->state, RS_RUNNING);
	}
	CHECK_INT((int)hub_view_n_targets(x.h, id), (int)n0 + 1);
	collect_frame_release(&f);

	c0 = cpu_ms();
	lt.step = 1;
	while (!lt.done)
		usleep(1000);
	CHECK_INT(hub_sample(x.h, id, &f, &err), 0);
	c0 = cpu_ms() - c0;
	r = row_of_tid(&f, lt.tid);
	CHECK(r != NULL);
	if (r) {
		CHECK(r->inputs[tc] / 1e6 >= 70);
		CHECK(r->inputs[tc] / 1e6 <= c0 + 20);
	}
	collect_frame_release(&f);

	lt.step = 2;
	pthread_join(th, NULL);
	started = false;
	CHECK_INT(hub_sample(x.h, id, &f, &err), 0);
	r = row_of_tid(&f, lt.tid);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->state, RS_ENDED);
		CHECK(isfinite(r->inputs[tc]));
	}
	collect_frame_release(&f);
	CHECK_INT(hub_sample(x.h, id, &f, &err), 0);
	CHECK(row_of_tid(&f, lt.tid) == NULL);
out:
	if (started) {
		lt.step = 2;
		pthread_join(th, NULL);
	}
	collect_frame_release(&f);
	fix_release(&x);
	model_free(m);
}
