/* chase.c - random pointer chains (latency) and curve analysis (levels, knees) */
#include "bench/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void chase_build(void *buf, size_t nlines, size_t stride, uint64_t seed)
{
	size_t *order, i;
	char *base = buf;

	if (nlines == 0)
		return;
	order = xmalloc(nlines * sizeof(*order));
	for (i = 0; i < nlines; i++)
		order[i] = i;
	for (i = nlines - 1; i > 0; i--) {
		size_t j = (size_t)(splitmix(&seed) % (i + 1)), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (i = 0; i < nlines; i++)
		*(void **)(base + order[i] * stride) = base + order[(i + 1) % nlines] * stride;
	free(order);
}

VP_UNINSTRUMENTED void *chase_walk(void *p, uint64_t steps)
{
	void **q = p;

	while (steps >= 8) {
		q = *q; q = *q; q = *q; q = *q;
		q = *q; q = *q; q = *q; q = *q;
		steps -= 8;
	}
	while (steps--)
		q = *q;
	return q;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double seg_median(const double *y, int first, int last)
{
	double tmp[BENCH_MAX_POINTS * 2];
	int n = 0, i;

	for (i = first; i <= last && n < (int)VP_ARRAY_SIZE(tmp); i++)
		tmp[n++] = y[i];
	return bench_median(tmp, n);
}

int curve_levels(const double *x, const double *y, int n, double tol,
		 struct curve_level *out, int max)
{
	int i = 0, m = 0;

	while (i < n) {
		double lo = y[i], hi = y[i];
		int j = i + 1;

		while (j < n) {
			double nlo = fmin(lo, y[j]), nhi = fmax(hi, y[j]);

			if (nhi > nlo * (1 + tol))
				break;
			lo = nlo;
			hi = nhi;
			j++;
		}
		if (j - i >= 2) {
			double med = seg_median(y, i, j - 1);

			if (m > 0 && fmax(med, out[m - 1].lat) <= fmin(med, out[m - 1].lat) * (1 + tol)) {
				out[m - 1].last = j - 1;
				out[m - 1].to = x[j - 1];
				out[m - 1].lat = seg_median(y, out[m - 1].first, j - 1);
			} else if (m < max) {
				out[m].first = i;
				out[m].last = j - 1;
				out[m].from = x[i];
				out[m].to = x[j - 1];
				out[m].lat = med;
				m++;
			}
			i = j;
		} else {
			i++;
		}
	}
	return m;
}

int curve_knee(const double *x, const double *y, int n, double min_dist)
{
	int i, top = 0, best = -1;
	double ymin, dx, dy, bestd = -1;

	if (n < 3)
		return -1;
	for (i = 1; i < n; i++)
		if (y[i] > y[top])
			top = i;
	ymin = y[0];
	dx = x[top] - x[0];
	dy = y[top] - ymin;
	/* flat throughout (rise under 10 %), or peaking too early to tell */
	if (top < 2 || dx <= 0 || dy <= 0.1 * fabs(y[top]))
		return -1;
	for (i = 1; i < top; i++) {
		double d = (y[i] - ymin) / dy - (x[i] - x[0]) / dx;

		if (d > bestd) {
			bestd = d;
			best = i;
		}
	}
	/* the highest point is the knee when the curve flattens after it */
	if (top == n - 1 && bestd < min_dist)
		return -1;
	if (bestd < min_dist)
		return top < n - 1 ? top : -1;
	return best;
}

static double med3(double a, double b, double c)
{
	return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

int scaling_knee(const double *y, int n, double tol)
{
	double e[BENCH_MAX_POINTS], s[BENCH_MAX_POINTS];
	int i, first_below = -1;

	if (n < 3 || n > BENCH_MAX_POINTS || !(y[0] > 0) || !isfinite(y[0]))
		return -1;
	for (i = 0; i < n; i++) {
		if (!isfinite(y[i]))
			return -1;
		e[i] = y[i] / y[0];
	}
	s[0] = 1;                          /* the reference itself */
	for (i = 1; i < n - 1; i++)
		s[i] = med3(e[i - 1], e[i], e[i + 1]);
	s[n - 1] = med3(e[n - 3], e[n - 2], e[n - 1]);
	/* the first point from which the efficiency stays below 1 - tol */
	for (i = n - 1; i >= 1 && s[i] < 1 - tol; i--)
		first_below = i;
	return first_below > 0 ? first_below - 1 : -1;
}
