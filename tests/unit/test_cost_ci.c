/* test_cost_ci.c - cost intervals on synthetic samples, worked by hand */
#include "test.h"

#include <math.h>
#include <string.h>

#include "analysis/cost_ci.h"

/*
 * The bootstrap is random; its generator is seeded (ctx.seed), and the
 * bounds below hold for any seed with overwhelming probability, as each
 * case says.
 */
static struct cost_ci_ctx ctx(double running)
{
	struct cost_ci_ctx c = { running, "exact", true, 1000, 7 };

	return c;
}

/* Every sample 10: every resample's mean is 10, whatever the seed or the widening. */
TEST(cost_ci_constant_samples)
{
	double v[4] = { 10, 10, 10, 10 };
	struct cost_ci_ctx c = ctx(0.25);
	struct cost_ci ci;

	cost_ci_compute(v, 4, &c, &ci);
	CHECK_INT((int)ci.n, 4);
	CHECK_NEAR(ci.value, 10, 1e-12);
	CHECK_NEAR(ci.lo, 10, 1e-12);
	CHECK_NEAR(ci.hi, 10, 1e-12);
	CHECK_NEAR(ci.half, 0, 1e-12);
	CHECK_NEAR(ci.widen, 2, 1e-12);          /* 1 / sqrt(0.25) */
	CHECK(!ci.holds_zero);
}

/*
 * Samples 0 and 20: a resample of two is {0,0}, {0,20} or {20,20}, means
 * 0, 10, 20 with chances 1/4, 1/2, 1/4.  The 2.5th percentile of 1000 is 0
 * unless fewer than 25 of 1000 draws are 0 (expected 250: chance below
 * 1e-80), the 97.5th is 20 likewise: [0, 20], which holds 0.
 */
TEST(cost_ci_two_samples_hold_zero)
{
	double v[2] = { 0, 20 };
	struct cost_ci_ctx c = ctx(NAN);
	struct cost_ci ci;

	cost_ci_compute(v, 2, &c, &ci);
	CHECK_NEAR(ci.value, 10, 1e-12);
	CHECK_NEAR(ci.lo, 0, 1e-12);
	CHECK_NEAR(ci.hi, 20, 1e-12);
	CHECK_NEAR(ci.half, 10, 1e-12);
	CHECK(ci.holds_zero);
}

/*
 * Ten samples, five 16 and five 20: a resample's mean is 16 + 0.4 k with
 * k ~ Binomial(10, 1/2).  P(k <= 1) = 11/1024 (1.1 %), P(k <= 2) = 56/1024
 * (5.5 %), so the 2.5th percentile is k = 2 (16.8); k = 1 or 3 (16.4,
 * 17.2) only if 1000 draws stray far from those shares (expected 11 and
 * 55 draws against the 25th: chance below 1e-6).  Symmetrically hi in
 * [18.8, 19.6].  Counted half the time (running 0.25 would be a quarter):
 * half-widths x 1/sqrt(0.25) = 2 about the mean 18.
 */
TEST(cost_ci_spread_and_multiplexing)
{
	double v[10] = { 16, 20, 16, 20, 16, 20, 16, 20, 16, 20 };
	struct cost_ci_ctx c = ctx(1.0);
	struct cost_ci a, b;

	cost_ci_compute(v, 10, &c, &a);
	CHECK_NEAR(a.value, 18, 1e-12);
	CHECK(a.lo >= 16.4 - 1e-9 && a.lo <= 17.2 + 1e-9);
	CHECK(a.hi >= 18.8 - 1e-9 && a.hi <= 19.6 + 1e-9);
	CHECK_NEAR(a.widen, 1, 1e-12);
	CHECK(!a.holds_zero);
	c.running = 0.25;
	cost_ci_compute(v, 10, &c, &b);         /* the same seed: the same resamples */
	CHECK_NEAR(b.value, 18, 1e-12);
	CHECK_NEAR(18 - b.lo, 2 * (18 - a.lo), 1e-9);
	CHECK_NEAR(b.hi - 18, 2 * (a.hi - 18), 1e-9);
	CHECK(b.lo >= 14.8 - 1e-9 && b.lo <= 16.4 + 1e-9);
}

/* A cost never goes below 0: widened past it, the interval stops at 0 and holds it. */
TEST(cost_ci_clamped_at_zero)
{
	double v[10] = { 1, 3, 1, 3, 1, 3, 1, 3, 1, 3 };
	struct cost_ci_ctx c = ctx(0.01);       /* widened x10: 2 - 10 x (2 - lo) < 0 */
	struct cost_ci ci;

	cost_ci_compute(v, 10, &c, &ci);
	CHECK_NEAR(ci.value, 2, 1e-12);
	CHECK_NEAR(ci.lo, 0, 1e-12);
	CHECK(ci.holds_zero);
}

/* One finite sample: a value, no interval; none: n/a. */
TEST(cost_ci_too_few)
{
	double v[3] = { NAN, 5, NAN }, w[2] = { NAN, NAN };
	struct cost_ci_ctx c = ctx(NAN);
	struct cost_ci ci;

	cost_ci_compute(v, 3, &c, &ci);
	CHECK_INT((int)ci.n, 1);
	CHECK_NEAR(ci.value, 5, 1e-12);
	CHECK(isnan(ci.lo) && isnan(ci.hi) && !ci.holds_zero);
	cost_ci_compute(w, 2, &c, &ci);
	CHECK_INT((int)ci.n, 0);
	CHECK(isnan(ci.value));
}

/* The lowest running share of the frame's events; an uncounted one (NaN) is left out. */
TEST(cost_ci_running_share)
{
	struct collect_scaling sc[3] = { { NULL, 0, 1, 1, 100 }, { NULL, 1, 1, 0.5, 50 },
					 { NULL, 2, 0, 0, NAN } };
	struct collect_frame f = { 0 };
	struct cost_ci_set s = { 0 };
	struct collect_row r[2];
	struct sbuf out = SBUF_INIT;
	struct cost_ci_ctx c = ctx(NAN);
	const struct cost_ci *ci;
	int i, k;

	f.scaling = sc;
	f.n_scaling = 3;
	CHECK_NEAR(cost_ci_running(&f), 0.5, 1e-12);
	f.n_scaling = 0;
	CHECK(isnan(cost_ci_running(&f)));

	/* two VMs over two samples: web's llc 0 then 20 (holds 0), db's locality 18 twice */
	memset(r, 0, sizeof(r));
	r[0].kind = r[1].kind = ENT_VM;
	r[0].name = (char *)"web";
	r[1].name = (char *)"db";
	f.rows = r;
	f.n_rows = 2;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < FACTOR_N; i++)
			r[0].fv[i].cost_pct = r[1].fv[i].cost_pct = NAN;
		r[0].fv[FACTOR_LLC].cost_pct = k ? 20 : 0;
		r[1].fv[FACTOR_LOCALITY].cost_pct = 18;
		cost_ci_add(&s, &f);
	}
	c.calibrated = false;
	c.running = 0.5;
	cost_ci_finish(&s, &c);
	ci = cost_ci_find(&s, "web", FACTOR_LLC);
	CHECK(ci && ci->holds_zero);
	CHECK(cost_ci_find(&s, "web", FACTOR_IMC) == NULL);
	cost_ci_text(&s, &out);
	CHECK_CONTAINS(sbuf_str(&out), "  db: locality 18.0 % ±0.0\n");
	CHECK_CONTAINS(sbuf_str(&out), "(holds 0)");
	CHECK_CONTAINS(sbuf_str(&out), "events counted 50 % of the time at worst; widened x1.41");
	CHECK_CONTAINS(sbuf_str(&out), "no calibration");
	sbuf_release(&out);
	cost_ci_release(&s);
}
