/* downsample.c - a series of n values kept as at most nb buckets: means, and the most frequent value */
#include "record/downsample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

void ds_geom_init(struct ds_geom *g, size_t n, size_t max)
{
	g->n = n;
	g->nb = n < max ? n : max;
}

size_t ds_bucket(const struct ds_geom *g, size_t i)
{
	return g->n ? i * g->nb / g->n : 0;
}

void ds_range(const struct ds_geom *g, size_t b, size_t *first, size_t *end)
{
	/* the smallest i with i * nb / n >= b is ceil(b * n / nb) */
	*first = g->nb ? (b * g->n + g->nb - 1) / g->nb : 0;
	*end = g->nb ? ((b + 1) * g->n + g->nb - 1) / g->nb : 0;
}

void ds_mean_init(struct ds_mean *m, const struct ds_geom *g)
{
	m->g = *g;
	m->sum = xcalloc(g->nb ? g->nb : 1, sizeof(double));
	m->cnt = xcalloc(g->nb ? g->nb : 1, sizeof(size_t));
}

void ds_mean_release(struct ds_mean *m)
{
	free(m->sum);
	free(m->cnt);
	memset(m, 0, sizeof(*m));
}

void ds_mean_add(struct ds_mean *m, size_t i, double v)
{
	size_t b;

	if (!isfinite(v) || i >= m->g.n)
		return;
	b = ds_bucket(&m->g, i);
	m->sum[b] += v;
	m->cnt[b]++;
}

double ds_mean_get(const struct ds_mean *m, size_t b)
{
	if (b >= m->g.nb || !m->cnt[b])
		return NAN;
	return m->sum[b] / (double)m->cnt[b];
}

void ds_mode_init(struct ds_mode *m, const struct ds_geom *g)
{
	size_t b;

	memset(m, 0, sizeof(*m));
	m->g = *g;
	m->v = xcalloc(g->nb ? g->nb : 1, sizeof(int));
	m->n = xcalloc(g->nb ? g->nb : 1, sizeof(size_t));
	for (b = 0; b < g->nb; b++)
		m->v[b] = -1;
}

void ds_mode_release(struct ds_mode *m)
{
	free(m->v);
	free(m->n);
	free(m->t);
	memset(m, 0, sizeof(*m));
}

static void close_open(struct ds_mode *m)
{
	size_t i, best = 0;

	if (!m->have_open)
		return;
	for (i = 1; i < m->n_t; i++)
		if (m->t[i].n > m->t[best].n ||
		    (m->t[i].n == m->t[best].n && m->t[i].last > m->t[best].last))
			best = i;
	m->v[m->open] = m->t[best].v;
	m->n[m->open] = m->t[best].n;
	m->n_t = 0;
	m->have_open = 0;
}

void ds_mode_add(struct ds_mode *m, size_t i, int v)
{
	size_t b, j;

	if (i >= m->g.n)
		return;
	b = ds_bucket(&m->g, i);
	if (m->have_open && b != m->open)
		close_open(m);
	m->open = b;
	m->have_open = 1;
	for (j = 0; j < m->n_t && m->t[j].v != v; j++)
		;
	if (j == m->n_t) {
		VP_GROW(m->t, m->cap_t, m->n_t + 1);
		m->t[m->n_t++] = (struct ds_tally){ v, 0, 0 };
	}
	m->t[j].n++;
	m->t[j].last = i;
}

void ds_mode_finish(struct ds_mode *m)
{
	close_open(m);
}

int ds_mode_get(const struct ds_mode *m, size_t b, size_t *count)
{
	if (b >= m->g.nb) {
		*count = 0;
		return -1;
	}
	*count = m->n[b];
	return m->v[b];
}
