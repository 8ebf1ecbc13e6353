/* runstat.c - mean and spread of repeated measurements, as perf stat -r reports them */
#include "util/runstat.h"

#include <math.h>

void runstat_add(struct runstat *r, double x)
{
	double delta = x - r->mean;

	r->n++;
	r->mean += delta / (double)r->n;
	r->m2 += delta * (x - r->mean);
}

double runstat_mean(const struct runstat *r)
{
	return r->n ? r->mean : NAN;
}

double runstat_stddev_mean(const struct runstat *r)
{
	if (r->n < 2)
		return 0;
	return sqrt(r->m2 / (double)(r->n - 1) / (double)r->n);
}

double runstat_rel_pct(double sd, double mean)
{
	return mean != 0 ? 100.0 * sd / mean : 0;
}

int runstat_precision(double sd)
{
	double p;

	if (!(sd > 0))
		return 9;
	p = sd > 1 ? 0 : ceil(-log10(sd));
	p += 2;
	return p > 9 ? 9 : (int)p;
}
