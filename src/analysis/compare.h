/* compare.h - before and after: the change in a per-interval measure, with a bootstrap interval */
#ifndef VP_COMPARE_H
#define VP_COMPARE_H

#include <stddef.h>

/*
 * `vmmprof compare BEFORE AFTER` (docs/verification.md "Did the advice
 * help?") reduces each recording to one value per interval and VM (its
 * cycles per instruction, each factor's cost, its remote share) and asks
 * how far the mean moved.  The interval around the change is a percentile
 * bootstrap over the intervals of each recording, resampled independently
 * (the intervals of one run are taken as exchangeable: a run whose load
 * drifts makes the interval too narrow, which docs/verification.md says).
 */

struct cmp_stat {
	size_t n_before, n_after;    /* intervals with a value */
	double before, after;        /* means; NaN with no value */
	double change;               /* after - before; NaN unless both are known */
	double lo, hi;               /* 95 % bootstrap interval of the change; NaN with fewer
					than 2 intervals on either side */
	int moved;                   /* +1 the interval lies above 0, -1 below, 0 it holds 0
					or is unknown */
};

/*
 * Compare the finite values of a (n_a) with those of b (n_b): means, their
 * difference and its interval from resamples bootstrap draws of a
 * generator seeded with seed (the same inputs and seed give the same
 * interval).  NaN values are left out.
 */
void cmp_stat_compute(const double *a, size_t n_a, const double *b, size_t n_b, unsigned resamples,
		      unsigned long seed, struct cmp_stat *out);

/*
 * The mean of the finite values of v (n) and its 95 % percentile-bootstrap
 * interval (NaN bounds with fewer than 2 values): how far a figure that was
 * measured interval by interval can be trusted (`diagnose`'s intervals).
 */
void cmp_mean_interval(const double *v, size_t n, unsigned resamples, unsigned long seed,
		       double *mean, double *lo, double *hi);

/*
 * CPU contention over an interval as `diagnose` costs it (factor cpu): the
 * time waiting for a CPU in % of the run + wait time, 100 * wait / (run +
 * wait) from schedstat nanoseconds (a VM's: its vCPUs' sums); NaN when
 * either is unknown or negative, or nothing ran or waited.
 */
double cmp_wait_pct(double run_ns, double wait_ns);

#endif
