/* test_runstat.c - perf stat -r's mean, standard deviation of the mean and precision, checked by hand */
#include "test.h"

#include "util/alloc.h"
#include "util/runstat.h"

static const struct {
	int line;
	double v[5];
	size_t n;
	double mean, sd, pct;          /* sd = sqrt(sum((x-mean)^2)/(n-1)/n), pct = 100 sd/mean */
} rows[] = {
	/* 1,2,3,4: mean 2.5, deviations^2 2.25+0.25+0.25+2.25 = 5, 5/3/4 = 0.41667 */
	{ __LINE__, { 1, 2, 3, 4 }, 4, 2.5, 0.6454972243679028, 25.819888974716112 },
	/* 100,200,300 ms: 20000/2/3 = 3333.3, sqrt = 57.735 */
	{ __LINE__, { 100, 200, 300 }, 3, 200, 57.735026918962575, 28.867513459481287 },
	/* equal runs: no spread */
	{ __LINE__, { 7, 7, 7 }, 3, 7, 0, 0 },
	/* one run: perf prints no spread */
	{ __LINE__, { 42 }, 1, 42, 0, 0 },
	/* mean 0: perf's relative spread is 0, not a division by zero */
	{ __LINE__, { -1, 1 }, 2, 0, 1, 0 },
	/* large counts: Welford keeps the small spread (naive sums of squares lose it) */
	{ __LINE__, { 1e9 + 1, 1e9 + 2, 1e9 + 3 }, 3, 1e9 + 2, 0.5773502691896258, 5.773502680349752e-08 },
};

TEST(runstat_mean_and_stddev_of_mean)
{
	size_t i, k;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		struct runstat r = { 0 };
		double sd;

		for (k = 0; k < rows[i].n; k++)
			runstat_add(&r, rows[i].v[k]);
		CHECK_INT_AT(rows[i].line, r.n, rows[i].n);
		CHECK_NEAR_AT(rows[i].line, runstat_mean(&r), rows[i].mean, 1e-9 * (1 + fabs(rows[i].mean)));
		sd = runstat_stddev_mean(&r);
		CHECK_NEAR_AT(rows[i].line, sd, rows[i].sd, 1e-9);
		CHECK_NEAR_AT(rows[i].line, runstat_rel_pct(sd, runstat_mean(&r)), rows[i].pct, 1e-9);
	}
}

TEST(runstat_empty_is_nan)
{
	struct runstat r = { 0 };

	CHECK_NAN(runstat_mean(&r));
	CHECK_NEAR(runstat_stddev_mean(&r), 0, 0);
}

static const struct {
	int line;
	double sd;
	int want;
} prec[] = {
	{ __LINE__, 0.0012, 5 },   /* first significant digit at 1e-3: 3 + 2 */
	{ __LINE__, 0.01, 4 },     /* -log10 = 2 exactly: 2 + 2 */
	{ __LINE__, 0.5, 3 },
	{ __LINE__, 1, 2 },        /* not > 1: ceil(-log10(1)) = 0 */
	{ __LINE__, 2.5, 2 },
	{ __LINE__, 1e-12, 9 },    /* clamped to nanoseconds */
	{ __LINE__, 0, 9 },        /* no spread: the single-run precision */
};

TEST(runstat_precision_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(prec); i++)
		CHECK_INT_AT(prec[i].line, runstat_precision(prec[i].sd), prec[i].want);
}
