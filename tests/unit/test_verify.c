/* test_verify.c - the judge of `vmmprof verify`: verdicts and margins from counts alone */
#include "test.h"

#include <math.h>
#include <string.h>

#include "analysis/verify.h"
#include "bench/provoke.h"
#include "util/jsonread.h"

static void set(double *dst, int *n, const double *v, int k)
{
	memcpy(dst, v, (size_t)k * sizeof(double));
	*n = k;
}

static struct verify_check check(enum verify_kind kind, enum verify_expect x, double expected,
				 const double *ctl, int nc, const double *trt, int nt)
{
	struct verify_check c;

	memset(&c, 0, sizeof(c));
	c.factor = "f";
	c.name = "n";
	c.unit = "";
	c.kind = kind;
	c.expect = x;
	c.expected = expected;
	c.companion = NAN;
	set(c.control, &c.n_control, ctl, nc);
	set(c.treat, &c.n_treat, trt, nt);
	verify_judge(&c);
	return c;
}

TEST(verify_median_odd_even)
{
	double a[3] = { 5, 1, 3 }, b[4] = { 4, 1, 3, 2 };

	CHECK_NEAR(verify_median(a, 3), 3, 0);
	CHECK_NEAR(verify_median(b, 4), 2.5, 0);
	CHECK_NAN(verify_median(a, 0));
	/* the runs are left as they were */
	CHECK_NEAR(a[0], 5, 0);
}

/*
 * A rise: control 10, 11, 12 (median 11, spread 2); treatment 20, 21, 22
 * (median 21): +10 against a margin of 2.
 */
TEST(verify_rise_beyond_spread_passes)
{
	double ctl[] = { 10, 11, 12 }, trt[] = { 20, 21, 22 };
	struct verify_check c = check(VK_HARDWARE, VX_RISE, NAN, ctl, 3, trt, 3);

	CHECK_INT(c.verdict, VV_PASS);
	CHECK_NEAR(c.measured, 10, 0);
	CHECK_NEAR(c.margin, 2, 0);
}

/* Control 10, 14, 12 (median 12, spread 4), treatment 15 x 3: +3 is inside the spread. */
TEST(verify_rise_within_spread_fails)
{
	double ctl[] = { 10, 14, 12 }, trt[] = { 15, 15, 15 };
	struct verify_check c = check(VK_HARDWARE, VX_RISE, NAN, ctl, 3, trt, 3);

	CHECK_INT(c.verdict, VV_FAIL);
	CHECK_NEAR(c.measured, 3, 0);
	CHECK_NEAR(c.margin, 4, 0);
}

/* A fall is not a rise: the direction the physics says is checked, not a change. */
TEST(verify_fall_fails_a_rise)
{
	double ctl[] = { 50, 50 }, trt[] = { 10, 10 };
	struct verify_check c = check(VK_HARDWARE, VX_RISE, NAN, ctl, 2, trt, 2);

	CHECK_INT(c.verdict, VV_FAIL);
	CHECK_NEAR(c.measured, -40, 0);
}

/*
 * The counting loop: 2 instructions per iteration, 10^7 more iterations in
 * the treatment: +2 x 10^7 exactly.  Control 2009 every time, treatment
 * 20002009 every time: no spread, so no margin, and exact.
 */
TEST(verify_exact_count)
{
	double ctl[] = { 2009, 2009, 2009 }, trt[] = { 20002009, 20002009, 20002009 };
	struct verify_check c = check(VK_HARDWARE, VX_EXACT, 2e7, ctl, 3, trt, 3);

	CHECK_INT(c.verdict, VV_PASS);
	CHECK_NEAR(c.measured, 2e7, 0);
	CHECK_NEAR(c.margin, 0, 0);
	CHECK_STR(c.why, "exact");
}

/* One instruction too many with runs that never vary is a failure, not noise. */
TEST(verify_exact_off_by_one_fails)
{
	double ctl[] = { 2009, 2009 }, trt[] = { 20002010, 20002010 };
	struct verify_check c = check(VK_HARDWARE, VX_EXACT, 2e7, ctl, 2, trt, 2);

	CHECK_INT(c.verdict, VV_FAIL);
	CHECK_CONTAINS(c.why, "off by 1");
}

/*
 * Runs that vary: control 100, 102 (median 101, spread 2), treatment 20101
 * twice: +20000 within a margin of 2 + 0.
 */
TEST(verify_exact_within_spread)
{
	double ctl[] = { 100, 102 }, trt[] = { 20101, 20101 };
	struct verify_check c = check(VK_SOFTWARE, VX_EXACT, 20000, ctl, 2, trt, 2);

	CHECK_INT(c.verdict, VV_PASS);
	CHECK_NEAR(c.margin, 2, 0);
}

/*
 * A partial PMU (the testbed's Arm guest lists stall events that always
 * count 0): a hardware count of 0 in every run beside cycles > 0 is
 * skipped as a suspect zero, neither passed nor failed.
 */
TEST(verify_suspect_zero_is_skipped)
{
	double ctl[] = { 0, 0, 0 }, trt[] = { 0, 0, 0 };
	struct verify_check c;

	memset(&c, 0, sizeof(c));
	c.kind = VK_HARDWARE;
	c.expect = VX_RISE;
	set(c.control, &c.n_control, ctl, 3);
	set(c.treat, &c.n_treat, trt, 3);
	c.companion = 4.2e9;
	c.companion_name = "cycles";
	verify_judge(&c);
	CHECK_INT(c.verdict, VV_SKIP);
	CHECK_CONTAINS(c.why, "suspect zero");
	CHECK_CONTAINS(c.why, "cycles = 4200000000");
	CHECK_NAN(c.measured);
	/* without a companion that must be non-zero the zeros are judged: no rise */
	c.companion = 0;
	verify_judge(&c);
	CHECK_INT(c.verdict, VV_FAIL);
	/* a software count of 0 is a count */
	c.companion = 4.2e9;
	c.kind = VK_SOFTWARE;
	verify_judge(&c);
	CHECK_INT(c.verdict, VV_FAIL);
}

TEST(verify_missing_values_are_skipped)
{
	double ctl[] = { 1, 2 }, trt[] = { 5, NAN };
	struct verify_check c = check(VK_HARDWARE, VX_RISE, NAN, ctl, 2, trt, 2);

	CHECK_INT(c.verdict, VV_SKIP);
	CHECK_CONTAINS(c.why, "not counted");
}

/* One control run has no spread: no margin, so no verdict. */
TEST(verify_one_control_run_is_skipped)
{
	double ctl[] = { 1 }, trt[] = { 5, 6 };
	struct verify_check c = check(VK_HARDWARE, VX_RISE, NAN, ctl, 1, trt, 2);

	CHECK_INT(c.verdict, VV_SKIP);
	CHECK_CONTAINS(c.why, "spread");
}

/* A check the measuring side could not run keeps its reason whatever its runs say. */
TEST(verify_skip_reason_kept)
{
	double ctl[] = { 1, 1 }, trt[] = { 5, 5 };
	struct verify_check c;

	memset(&c, 0, sizeof(c));
	c.kind = VK_HARDWARE;
	c.expect = VX_RISE;
	set(c.control, &c.n_control, ctl, 2);
	set(c.treat, &c.n_treat, trt, 2);
	strcpy(c.skip, "no core PMU");
	verify_judge(&c);
	CHECK_INT(c.verdict, VV_SKIP);
	CHECK_STR(c.why, "no core PMU");
}

/* Placement: every sampled page on the bound node (100 %), or not. */
TEST(verify_at_least)
{
	double none[1] = { 0 }, all[] = { 100, 100, 100 }, some[] = { 90, 91, 92 };
	struct verify_check c = check(VK_PLACEMENT, VX_AT_LEAST, 100, none, 0, all, 3);

	CHECK_INT(c.verdict, VV_PASS);
	CHECK_NEAR(c.measured, 100, 0);
	c = check(VK_PLACEMENT, VX_AT_LEAST, 100, none, 0, some, 3);
	/* 91 + a spread of 2 is still below 100 */
	CHECK_INT(c.verdict, VV_FAIL);
}

/* The prerequisites, worded as the skip reason: a 1-node 2-CPU VM without a PMU. */
TEST(verify_hw_reason)
{
	int cpus[2] = { 0, 1 }, node[2] = { 0, 0 }, pkg[2] = { 0, 0 }, llc[2] = { 0, 0 };
	int nodes[1] = { 0 };
	struct bench_topo t;
	char why[256];

	memset(&t, 0, sizeof(t));
	t.n_cpus = 2;
	t.cpus = cpus;
	t.cpu_node = node;
	t.cpu_pkg = pkg;
	t.cpu_llc = llc;
	t.n_nodes = 1;
	t.nodes = nodes;
	t.n_pkgs = 1;
	t.n_llc = 1;
	provoke_hw_reason(false, &t, 0, 2, 0, why, sizeof(why));
	CHECK_STR(why, "no core PMU");
	provoke_hw_reason(false, &t, 2, 0, 0, why, sizeof(why));
	CHECK_STR(why, "no core PMU; needs 2 NUMA nodes, this machine has 1");
	provoke_hw_reason(true, &t, 0, 2, 0, why, sizeof(why));
	CHECK_STR(why, "");
	provoke_hw_reason(true, &t, 0, 0, 2, why, sizeof(why));
	CHECK_STR(why, "needs 2 packages, this machine has 1");
	llc[1] = 1;
	provoke_hw_reason(true, &t, 0, 2, 0, why, sizeof(why));
	CHECK_STR(why, "needs 2 CPUs on one LLC, this machine has 1");
}

/* The short verdict says when no hardware check ran, and never calls that a pass. */
TEST(verify_text_verdict)
{
	double ctl[] = { 16, 16 }, trt[] = { 2064, 2064 };
	struct verify_check c[2];
	struct verify_machine m;
	struct sbuf out = SBUF_INIT;
	int p, f, s;

	memset(&m, 0, sizeof(m));
	c[0] = check(VK_SOFTWARE, VX_EXACT, 2048, ctl, 2, trt, 2);
	memset(&c[1], 0, sizeof(c[1]));
	c[1].factor = "llc";
	c[1].name = "misses";
	c[1].kind = VK_HARDWARE;
	strcpy(c[1].skip, "no core PMU");
	verify_judge(&c[1]);
	verify_tally(c, 2, &p, &f, &s);
	CHECK_INT(p, 1);
	CHECK_INT(f, 0);
	CHECK_INT(s, 1);
	verify_text(&m, c, 2, &out);
	CHECK_CONTAINS(out.buf, "skipped: no core PMU");
	CHECK_CONTAINS(out.buf, "verdict: 1 passed, 0 failed, 1 skipped: no hardware check ran here");
	/* the hardware counting passed, every factor check skipped: still said */
	c[0].kind = VK_HARDWARE;
	c[0].factor = "counting";
	sbuf_reset(&out);
	verify_text(&m, c, 2, &out);
	CHECK_CONTAINS(out.buf, "verdict: 1 passed, 0 failed, 1 skipped: the counting ran, but every "
				"factor check was skipped");
	sbuf_release(&out);
}

/*
 * A saved result read back: the same checks and verdicts, judged again from
 * the saved runs, so a run edited into the file changes the verdict.
 */
TEST(verify_json_round_trip)
{
	double ctl[] = { 16, 16 }, trt[] = { 2064, 2064 }, zero[] = { 0, 0 };
	struct verify_check c[3], back[4];
	struct verify_machine m, mb;
	struct sbuf out = SBUF_INIT;
	struct vp_err err = { 0, "" };
	struct jv doc;
	size_t n = 0;
	char *p;

	memset(&m, 0, sizeof(m));
	strcpy(m.host, "h1");
	m.n_nodes = 2;
	c[0] = check(VK_SOFTWARE, VX_EXACT, 2048, ctl, 2, trt, 2);
	c[0].factor = "counting";
	c[0].name = "page faults";
	c[1] = check(VK_HARDWARE, VX_RISE, NAN, zero, 2, zero, 2);
	c[1].companion = 1e9;
	c[1].companion_name = "cycles";
	verify_judge(&c[1]);
	memset(&c[2], 0, sizeof(c[2]));
	c[2].factor = "llc";
	c[2].name = "misses";
	c[2].unit = "";
	c[2].kind = VK_HARDWARE;
	strcpy(c[2].skip, "no core PMU");
	verify_judge(&c[2]);
	CHECK_INT(c[1].verdict, VV_SKIP);
	verify_json(&m, c, 3, &out);
	CHECK_INT(jv_parse(&doc, out.buf, out.len, "t", &err), 0);
	CHECK_INT(verify_from_json(&doc, &mb, back, 4, &n, &err), 0);
	CHECK_INT((int)n, 3);
	CHECK_STR(mb.host, "h1");
	CHECK_INT(mb.n_nodes, 2);
	CHECK_INT(back[0].verdict, VV_PASS);
	CHECK_NEAR(back[0].measured, 2048, 0);
	CHECK_STR(back[0].name, "page faults");
	/* the suspect zero is found again from the saved companion */
	CHECK_INT(back[1].verdict, VV_SKIP);
	CHECK_CONTAINS(back[1].why, "suspect zero");
	CHECK_INT(back[2].verdict, VV_SKIP);
	CHECK_STR(back[2].why, "no core PMU");
	jv_release(&doc);
	/* a treatment run edited from 2064 to 2065: no longer exact */
	p = strstr(out.buf, "2064");
	CHECK(p != NULL);
	p[3] = '5';
	CHECK_INT(jv_parse(&doc, out.buf, out.len, "t", &err), 0);
	CHECK_INT(verify_from_json(&doc, &mb, back, 4, &n, &err), 0);
	CHECK_INT(back[0].verdict, VV_PASS);  /* the spread of 1 covers it: 2064.5 - 16 */
	jv_release(&doc);
	p = strstr(out.buf, "2064");
	CHECK(p != NULL);
	p[3] = '5';
	CHECK_INT(jv_parse(&doc, out.buf, out.len, "t", &err), 0);
	CHECK_INT(verify_from_json(&doc, &mb, back, 4, &n, &err), 0);
	CHECK_INT(back[0].verdict, VV_FAIL);  /* both 2065: +2049 with no spread */
	jv_release(&doc);
	sbuf_release(&out);
}
