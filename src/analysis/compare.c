/* compare.c - the change in the mean of a per-interval measure between two runs, with a bootstrap interval */
#include "analysis/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* xorshift64*: a small generator whose sequence is the same everywhere */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static size_t finite_copy(const double *v, size_t n, double *out)
{
	size_t i, k = 0;

	for (i = 0; v && i < n; i++)
		if (isfinite(v[i]))
			out[k++] = v[i];
	return k;
}

static double mean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

static double resample_mean(const double *v, size_t n, uint64_t *s)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[next(s) % n];
	return sum / (double)n;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The p-quantile of sorted v (n >= 1), linear between ranks. */
static double quantile(const double *v, size_t n, double p)
{
	double r = p * (double)(n - 1);
	size_t lo = (size_t)r;

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (r - (double)lo) * (v[lo + 1] - v[lo]);
}

void cmp_stat_compute(const double *a, size_t n_a, const double *b, size_t n_b, unsigned resamples,
		      unsigned long seed, struct cmp_stat *out)
{
	double *fa = xcalloc(n_a + 1, sizeof(double)), *fb = xcalloc(n_b + 1, sizeof(double));
	uint64_t s = (uint64_t)seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t na = finite_copy(a, n_a, fa), nb = finite_copy(b, n_b, fb);
	unsigned k;

	memset(out, 0, sizeof(*out));
	out->n_before = na;
	out->n_after = nb;
	out->before = mean(fa, na);
	out->after = mean(fb, nb);
	out->change = na && nb ? out->after - out->before : NAN;
	out->lo = out->hi = NAN;
	if (na >= 2 && nb >= 2 && resamples >= 20) {
		double *d = xcalloc(resamples, sizeof(double));

		for (k = 0; k < resamples; k++)
			d[k] = resample_mean(fb, nb, &s) - resample_mean(fa, na, &s);
		qsort(d, resamples, sizeof(double), cmp_double);
		out->lo = quantile(d, resamples, 0.025);
		out->hi = quantile(d, resamples, 0.975);
		out->moved = out->lo > 0 ? 1 : out->hi < 0 ? -1 : 0;
		free(d);
	}
	free(fa);
	free(fb);
}

void cmp_mean_interval(const double *v, size_t n, unsigned resamples, unsigned long seed,
		       double *mean, double *lo, double *hi)
{
	struct cmp_stat c;

	/* the change from a run of no values is not defined: compare v with a
	 * run of zeros, whose resamples are all 0, so the change is v's mean */
	double zero[2] = { 0, 0 };

	cmp_stat_compute(zero, 2, v, n, resamples, seed, &c);
	*mean = c.after;
	*lo = c.lo;
	*hi = c.hi;
}

double cmp_wait_pct(double run_ns, double wait_ns)
{
	if (!isfinite(run_ns) || !isfinite(wait_ns) || run_ns < 0 || wait_ns < 0 ||
	    !(run_ns + wait_ns > 0))
		return NAN;
	return 100 * wait_ns / (run_ns + wait_ns);
}
