/* runstat.h - mean and spread of repeated measurements, as perf stat -r reports them */
#ifndef VP_RUNSTAT_H
#define VP_RUNSTAT_H

#include <stddef.h>

/*
 * Welford's running mean and sum of squared deviations (numerically
 * stable: no sum of squares that cancels).  Zero-initialise, then add.
 */
struct runstat {
	size_t n;
	double mean;
	double m2;                 /* sum of (x - mean)^2 */
};

void runstat_add(struct runstat *r, double x);
/* The mean; NaN when nothing was added. */
double runstat_mean(const struct runstat *r);
/*
 * The standard deviation of the mean, sqrt(m2 / (n - 1) / n): what perf
 * stat -r calls stddev (tools/perf/util/stat.c stddev_stats()); 0 below
 * two values.
 */
double runstat_stddev_mean(const struct runstat *r);
/* 100 * sd / mean as perf prints it after "+-"; 0 when mean is 0 (perf's rel_stddev_stats()). */
double runstat_rel_pct(double sd, double mean);
/*
 * Decimals for "0.1234 +- 0.0012 seconds time elapsed": two more than the
 * first significant digit of sd (perf's get_precision(sd) + 2), at most 9
 * (nanoseconds); 9 when sd is 0.
 */
int runstat_precision(double sd);

#endif
