/* test_provoke.c - verify's factor scenarios counted: the readings of a counter turned into checks */
#include "test.h"

#include <math.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analysis/verify.h"
#include "bench/provoke.h"

static void reading(struct provoke_reading *r, int f, double score, double cost, double cycles)
{
	int i;

	for (i = 0; i < FACTOR_N; i++)
		r->score[i] = r->cost_pct[i] = r->node_score[i] = NAN;
	r->score[f] = score;
	r->cost_pct[f] = cost;
	r->node_score[f] = NAN;
	r->cycles = cycles;
	r->remote = NAN;
}

static struct verify_check blank(enum verify_kind k)
{
	struct verify_check c;

	memset(&c, 0, sizeof(c));
	c.factor = "locality";
	c.name = "n";
	c.unit = "%";
	c.kind = k;
	c.expect = VX_RISE;
	c.expected = NAN;
	c.companion = NAN;
	return c;
}

/*
 * A remote share of 0.02, 0.03, 0.025 with memory bound locally and 0.80,
 * 0.82, 0.79 bound remotely, in %: control median 2.5, spread 1; the
 * treatment's median 80, so +77.5 > 1: a pass.  The locality cost from the
 * same readings (1, 2, 1.5 against 30, 31, 29): +28.5, margin 1.
 */
TEST(provoke_fill_takes_the_factor_value)
{
	struct provoke_reading ctl[3], trt[3];
	struct verify_check a = blank(VK_HARDWARE), b = blank(VK_HARDWARE);
	const double cs[3] = { 0.02, 0.03, 0.025 }, ts[3] = { 0.80, 0.82, 0.79 };
	const double cc[3] = { 1, 2, 1.5 }, tc[3] = { 30, 31, 29 };
	int i;

	for (i = 0; i < 3; i++) {
		reading(&ctl[i], FACTOR_LOCALITY, cs[i], cc[i], 1e9);
		reading(&trt[i], FACTOR_LOCALITY, ts[i], tc[i], 2e9 + i);
	}
	provoke_fill(&a, PV_SCORE, FACTOR_LOCALITY, 100, ctl, 3, trt, 3, "why");
	verify_judge(&a);
	CHECK_INT(a.verdict, VV_PASS);
	CHECK_NEAR(a.measured, 77.5, 1e-9);
	CHECK_NEAR(a.margin, 1, 1e-9);
	CHECK_NEAR(a.companion, 2e9 + 1, 0);   /* the treatment's median cycles */
	provoke_fill(&b, PV_COST, FACTOR_LOCALITY, 1, ctl, 3, trt, 3, "why");
	verify_judge(&b);
	CHECK_INT(b.verdict, VV_PASS);
	CHECK_NEAR(b.measured, 28.5, 1e-9);
	CHECK_NEAR(b.margin, 1, 1e-9);
}

/* A model that has no value for the factor: skipped with its reason, never judged. */
TEST(provoke_fill_nan_is_the_models_reason)
{
	struct provoke_reading ctl[2], trt[2];
	struct verify_check a = blank(VK_HARDWARE);

	reading(&ctl[0], FACTOR_LLC, 1, 1, 1e9);
	reading(&ctl[1], FACTOR_LLC, 1, 1, 1e9);
	reading(&trt[0], FACTOR_LLC, NAN, 1, 1e9);
	reading(&trt[1], FACTOR_LLC, 5, 1, 1e9);
	provoke_fill(&a, PV_SCORE, FACTOR_LLC, 1, ctl, 2, trt, 2, "model x has no llc value");
	verify_judge(&a);
	CHECK_INT(a.verdict, VV_SKIP);
	CHECK_STR(a.why, "model x has no llc value");
}

/* An emulated PMU: HITM 0 in every run beside cycles > 0 is a suspect zero, skipped. */
TEST(provoke_fill_suspect_zero)
{
	struct provoke_reading ctl[3], trt[3];
	struct verify_check a = blank(VK_HARDWARE);
	int i;

	for (i = 0; i < 3; i++) {
		reading(&ctl[i], FACTOR_SHARING, 0, 0, 1e9);
		reading(&trt[i], FACTOR_SHARING, 0, 0, 1e9);
	}
	provoke_fill(&a, PV_SCORE, FACTOR_SHARING, 1, ctl, 3, trt, 3, "why");
	verify_judge(&a);
	CHECK_INT(a.verdict, VV_SKIP);
	CHECK_CONTAINS(a.why, "suspect zero");
	CHECK_CONTAINS(a.why, "cycles");
}

/* All zeros and no cycles counted beside them: no evidence either way, skipped (not a FAIL). */
TEST(provoke_fill_zeros_without_cycles)
{
	struct provoke_reading ctl[3], trt[3];
	struct verify_check a = blank(VK_HARDWARE);
	int i;

	for (i = 0; i < 3; i++) {
		reading(&ctl[i], FACTOR_LOCALITY, 0, 0, NAN);
		reading(&trt[i], FACTOR_LOCALITY, 0, 0, NAN);
	}
	provoke_fill(&a, PV_COST, FACTOR_LOCALITY, 1, ctl, 3, trt, 3, "why");
	verify_judge(&a);
	CHECK_INT(a.verdict, VV_SKIP);
	CHECK_CONTAINS(a.why, "counted 0 in every run");
}

/* A check already skipped (no core PMU) keeps its reason whatever the readings. */
TEST(provoke_fill_keeps_a_skip)
{
	struct provoke_reading ctl[2], trt[2];
	struct verify_check a = blank(VK_HARDWARE);

	reading(&ctl[0], FACTOR_LOCALITY, 0, 0, 1);
	reading(&ctl[1], FACTOR_LOCALITY, 0, 0, 1);
	reading(&trt[0], FACTOR_LOCALITY, 1, 0, 1);
	reading(&trt[1], FACTOR_LOCALITY, 1, 0, 1);
	snprintf(a.skip, sizeof(a.skip), "no core PMU");
	provoke_fill(&a, PV_SCORE, FACTOR_LOCALITY, 100, ctl, 2, trt, 2, "why");
	verify_judge(&a);
	CHECK_INT(a.verdict, VV_SKIP);
	CHECK_STR(a.why, "no core PMU");
}

/*
 * The scenarios run for real on this machine, counted by an injected
 * counter: it answers the n-th stop with the factor's control value on
 * even n and the treatment value on odd n (every scenario alternates
 * control, treatment), so each check here must pass with the injected rise,
 * the victim's thread must be the one the llc check reads, and the imc
 * check must ask for its node.  The placement checks and the counting of
 * instructions are not the subject here.
 */
struct fake {
	int calls, starts, llc_tid, imc_node;
	int ends, calls_at_end;
	bool llc_seen, imc_seen;
};

/* the factor scenarios are over: the counter is given back once, after the last stop */
static void fake_end(void *ctx)
{
	struct fake *fk = ctx;

	fk->ends++;
	fk->calls_at_end = fk->calls;
}

static int fake_start(void *ctx, char *why, size_t size)
{
	(void)why;
	(void)size;
	((struct fake *)ctx)->starts++;
	return 0;
}

static int fake_stop(void *ctx, int tid, int node, struct provoke_reading *r, char *why,
		     size_t size)
{
	struct fake *fk = ctx;
	bool treat = fk->calls++ % 2;
	int i;

	(void)why;
	(void)size;
	for (i = 0; i < FACTOR_N; i++) {
		r->score[i] = treat ? 10 : 1;
		r->cost_pct[i] = treat ? 20 : 2;
		r->node_score[i] = node >= 0 ? (treat ? 0.9 : 0.4) : NAN;
	}
	r->cycles = 1e8;
	r->remote = treat ? 0.8 : 0.01;
	if (tid > 0) {
		fk->llc_seen = true;
		fk->llc_tid = tid;
	}
	if (node >= 0) {
		fk->imc_seen = true;
		fk->imc_node = node;
	}
	return 0;
}

static const struct verify_check *find(const struct verify_check *c, size_t n, const char *f,
				       const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(c[i].factor, f) && !strcmp(c[i].name, name))
			return &c[i];
	return NULL;
}

TEST(provoke_scenarios_counted_by_an_injected_counter)
{
	struct bench_topo t;
	struct vp_err err = { 0, "" };
	struct fake fk = { 0 };
	struct provoke_counter pc = { .start = fake_start, .stop = fake_stop, .end = fake_end,
				      .model = "fake", .ctx = &fk };
	struct provoke_env e;
	struct pmu_db *db = NULL;
	struct verify_check c[32];
	const struct verify_check *x;
	size_t n, i;
	int same_llc = 0;
	cpu_set_t before, after;

	if (bench_topo_probe(&t, &err))
		SKIP("no topology here: %s", err.msg);
	for (i = 1; i < (size_t)t.n_cpus; i++)
		same_llc += t.cpu_llc[i] == t.cpu_llc[0];
	if (!same_llc) {
		bench_topo_release(&t);
		SKIP("needs 2 CPUs on one LLC (this machine has none): the llc and sharing scenarios");
	}
	if (pmu_db_new(&db, "/", &err)) {
		bench_topo_release(&t);
		SKIP("no event tables here: %s", err.msg);
	}
	memset(&e, 0, sizeof(e));
	e.t = &t;
	e.db = db;
	e.core_pmu = true;          /* pretended: the counter is injected */
	e.runs = 2;
	e.counter = &pc;
	e.window_s = 0.02;
	e.chase_bytes = 1u << 20;
	CHECK(!sched_getaffinity(0, sizeof(before), &before));
	n = provoke_checks(&e, c, 32);
	/* the checks pin this thread and must give its affinity back */
	CHECK(!sched_getaffinity(0, sizeof(after), &after));
	CHECK_INT(CPU_COUNT(&after), CPU_COUNT(&before));
	for (i = 0; i < n; i++)
		verify_judge(&c[i]);
	x = find(c, n, "llc", "LLC misses above the solo rate, victim with co-runners vs alone");
	CHECK(x && x->verdict == VV_PASS);
	if (x)
		CHECK_NEAR(x->measured, 9, 0);       /* 10 - 1 */
	x = find(c, n, "llc", "LLC contention cost, with co-runners vs alone");
	CHECK(x && x->verdict == VV_PASS);
	if (x)
		CHECK_NEAR(x->measured, 18, 0);      /* 20 - 2 */
	CHECK(fk.llc_seen);
	CHECK_INT(fk.llc_tid, (int)syscall(SYS_gettid));
	x = find(c, n, "sharing", "HITM/forwards, false sharing vs padded, one LLC");
	CHECK(x && x->verdict == VV_PASS);
	x = find(c, n, "sharing", "sharing cost, false sharing vs padded, one LLC");
	CHECK(x && x->verdict == VV_PASS);
	if (t.n_nodes >= 2) {
		x = find(c, n, "imc", "node bandwidth near the calibrated peak, packed");
		CHECK(x && x->verdict == VV_PASS);
		if (x)
			CHECK_NEAR(x->measured, 50, 1e-9);   /* (0.9 - 0.4) x 100 */
		CHECK(fk.imc_seen && fk.imc_node == t.cpu_node[0]);
		x = find(c, n, "locality", "model's remote share from placement, remote vs local binding");
		CHECK(x && x->verdict == VV_PASS);
		if (x)
			CHECK_NEAR(x->measured, 79, 1e-9);   /* (0.8 - 0.01) x 100 */
	} else {
		x = find(c, n, "imc", "node bandwidth near the calibrated peak, packed");
		CHECK(x && x->verdict == VV_SKIP);
		if (x)
			CHECK_CONTAINS(x->why, "needs 2 NUMA nodes");
		x = find(c, n, "locality", "model's remote share from placement, remote vs local binding");
		CHECK(x && x->verdict == VV_SKIP);
	}
	/* every run started the counter once and stopped it once */
	CHECK_INT(fk.starts, fk.calls);
	CHECK(fk.calls % 2 == 0);
	/* and it was given back once, after the last scenario (before the queue check) */
	CHECK_INT(fk.ends, 1);
	CHECK_INT(fk.calls_at_end, fk.calls);
	CHECK(fk.calls > 0);
	pmu_db_free(db);
	bench_topo_release(&t);
}

/* A model without the sharing factor: its checks are skipped with the model's reason, unrun. */
static const char *no_sharing(void *ctx, int f)
{
	(void)ctx;
	return f == FACTOR_SHARING ? "no snoop event" : NULL;
}

TEST(provoke_unmodelled_factor_is_not_run)
{
	struct bench_topo t;
	struct vp_err err = { 0, "" };
	struct fake fk = { 0 };
	struct provoke_counter pc = { .start = fake_start, .stop = fake_stop,
				      .factor_why = no_sharing, .model = "fake", .ctx = &fk };
	struct provoke_env e;
	struct pmu_db *db = NULL;
	struct verify_check c[32];
	const struct verify_check *x;
	size_t n, i;

	if (bench_topo_probe(&t, &err))
		SKIP("no topology here: %s", err.msg);
	if (pmu_db_new(&db, "/", &err)) {
		bench_topo_release(&t);
		SKIP("no event tables here: %s", err.msg);
	}
	memset(&e, 0, sizeof(e));
	e.t = &t;
	e.db = db;
	e.core_pmu = true;
	e.runs = 2;
	e.counter = &pc;
	e.window_s = 0.02;
	e.chase_bytes = 1u << 20;
	n = provoke_checks(&e, c, 32);
	for (i = 0; i < n; i++)
		verify_judge(&c[i]);
	x = find(c, n, "sharing", "HITM/forwards, false sharing vs padded, one LLC");
	CHECK(x && x->verdict == VV_SKIP);
	if (x)
		CHECK_STR(x->why, "model fake has no sharing value here: no snoop event");
	x = find(c, n, "sharing", "sharing cost, false sharing vs padded, one LLC");
	CHECK(x && x->verdict == VV_SKIP);
	/* llc (2 runs a side) ran where it can, sharing did not: 4 stops, or none without an LLC pair */
	x = find(c, n, "llc", "LLC contention cost, with co-runners vs alone");
	if (x && x->verdict == VV_PASS)
		CHECK_INT(fk.calls, 4 + (t.n_nodes >= 2 ? 8 : 0));
	pmu_db_free(db);
	bench_topo_release(&t);
}

/* No counter (no model here): the factor checks say why, with the counter's reason. */
TEST(provoke_without_a_counter_says_why)
{
	struct bench_topo t;
	struct vp_err err = { 0, "" };
	struct provoke_env e;
	struct pmu_db *db = NULL;
	struct verify_check c[32];
	const struct verify_check *x;
	size_t n, i;

	if (bench_topo_probe(&t, &err))
		SKIP("no topology here: %s", err.msg);
	if (pmu_db_new(&db, "/", &err)) {
		bench_topo_release(&t);
		SKIP("no event tables here: %s", err.msg);
	}
	memset(&e, 0, sizeof(e));
	e.t = &t;
	e.db = db;
	e.core_pmu = true;
	e.runs = 2;
	e.counter_why = "not counted: no model for this machine";
	n = provoke_checks(&e, c, 32);
	for (i = 0; i < n; i++)
		verify_judge(&c[i]);
	x = find(c, n, "sharing", "sharing cost, false sharing vs padded, one LLC");
	CHECK(x && x->verdict == VV_SKIP);
	if (x && t.n_cpus > 1)
		CHECK_CONTAINS(x->why, "no model for this machine");
	pmu_db_free(db);
	bench_topo_release(&t);
}
