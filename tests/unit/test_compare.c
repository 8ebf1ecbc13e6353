/* test_compare.c - the change between two runs' per-interval values and its bootstrap interval */
#include "test.h"

#include <math.h>

#include "analysis/compare.h"

/* Constant runs: the change is exact and so is its interval (every resample is the same). */
TEST(compare_constant_runs)
{
	double a[4] = { 1, 1, 1, 1 }, b[5] = { 3, 3, 3, 3, 3 };
	struct cmp_stat c;

	cmp_stat_compute(a, 4, b, 5, 500, 1, &c);
	CHECK_NEAR(c.before, 1, 0);
	CHECK_NEAR(c.after, 3, 0);
	CHECK_NEAR(c.change, 2, 0);
	CHECK_NEAR(c.lo, 2, 0);
	CHECK_NEAR(c.hi, 2, 0);
	CHECK_INT(c.moved, 1);
}

/*
 * Two runs of 0.00, 0.01, ... 0.09 and 0.00 ... 0.99 (rec_synth's place_rem):
 * means 0.045 and 0.495, change 0.45.  Standard errors: 0.0287 / sqrt(10) =
 * 0.0091 and 0.2887 / sqrt(100) = 0.0289, together 0.0303: a 95 % interval
 * of about 0.45 +- 0.06.  Bounds checked loosely (resampling), the centre
 * exactly; the same seed gives the same interval.
 */
TEST(compare_bootstrap_interval)
{
	double a[10], b[100];
	struct cmp_stat c, again;
	int k;

	for (k = 0; k < 10; k++)
		a[k] = k / 100.0;
	for (k = 0; k < 100; k++)
		b[k] = k / 100.0;
	cmp_stat_compute(a, 10, b, 100, 2000, 7, &c);
	CHECK_NEAR(c.change, 0.45, 1e-12);
	CHECK(c.lo > 0.45 - 0.09 && c.lo < 0.45 - 0.03);
	CHECK(c.hi < 0.45 + 0.09 && c.hi > 0.45 + 0.03);
	CHECK_INT(c.moved, 1);
	cmp_stat_compute(a, 10, b, 100, 2000, 7, &again);
	CHECK_NEAR(again.lo, c.lo, 0);
	CHECK_NEAR(again.hi, c.hi, 0);
	/* the same run against itself: the interval holds 0 */
	cmp_stat_compute(b, 100, b, 100, 2000, 7, &c);
	CHECK_NEAR(c.change, 0, 1e-12);
	CHECK(c.lo < 0 && c.hi > 0);
	CHECK_INT(c.moved, 0);
}

/* NaN intervals are left out; too few values give no interval, never a fake one. */
TEST(compare_missing_values)
{
	double a[3] = { NAN, 2, NAN }, b[3] = { 4, NAN, 6 }, none[2] = { NAN, NAN };
	struct cmp_stat c;

	cmp_stat_compute(a, 3, b, 3, 500, 1, &c);
	CHECK_INT((int)c.n_before, 1);
	CHECK_INT((int)c.n_after, 2);
	CHECK_NEAR(c.change, 3, 0);
	CHECK_NAN(c.lo);
	CHECK_NAN(c.hi);
	CHECK_INT(c.moved, 0);
	cmp_stat_compute(none, 2, b, 3, 500, 1, &c);
	CHECK_NAN(c.before);
	CHECK_NAN(c.change);
}

/*
 * A figure measured second by second: mean 12 of 10, 12, 14 (and a NaN
 * sample left out); the bootstrap interval of the mean lies within the
 * values' range and around 12; one value gives no interval.
 */
TEST(compare_mean_interval)
{
	double v[4] = { 10, NAN, 12, 14 }, mean, lo, hi;

	cmp_mean_interval(v, 4, 1000, 1, &mean, &lo, &hi);
	CHECK_NEAR(mean, 12, 1e-12);
	CHECK(lo >= 10 && lo < 12);
	CHECK(hi <= 14 && hi > 12);
	cmp_mean_interval(v, 1, 1000, 1, &mean, &lo, &hi);
	CHECK_NEAR(mean, 10, 0);
	CHECK_NAN(lo);
}

/*
 * CPU contention as compare reads it: two always-runnable vCPUs on one CPU
 * each run half the time, so over 1 s each ran 500 ms and waited 500 ms:
 * 50 %; a VM row sums both (1000 ms run, 1000 ms wait): the same 50 %.
 * Alone on a CPU: 0 wait, 0 %.  Unknown, negative or no time at all: NaN.
 */
TEST(compare_wait_pct)
{
	CHECK_NEAR(cmp_wait_pct(500e6, 500e6), 50, 1e-12);
	CHECK_NEAR(cmp_wait_pct(1000e6, 1000e6), 50, 1e-12);
	CHECK_NEAR(cmp_wait_pct(1e9, 0), 0, 0);
	/* 188 ms waited while it ran 164 ms (the libvirt tier): 188 / 352 */
	CHECK_NEAR(cmp_wait_pct(164e6, 188e6), 53.409, 1e-3);
	CHECK_NAN(cmp_wait_pct(0, 0));
	CHECK_NAN(cmp_wait_pct(NAN, 1));
	CHECK_NAN(cmp_wait_pct(1, NAN));
	CHECK_NAN(cmp_wait_pct(-1, 5));
}
