/* cpulist.c - sets of CPU (or node) numbers and the kernel's list syntax */
#include "util/cpulist.h"
#include "util/alloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cpulist_init(struct cpulist *cl)
{
	cl->ids = NULL;
	cl->n = 0;
	cl->cap = 0;
}

void cpulist_release(struct cpulist *cl)
{
	free(cl->ids);
	cpulist_init(cl);
}

static size_t lower_bound(const struct cpulist *cl, int id)
{
	size_t lo = 0, hi = cl->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cl->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void cpulist_add(struct cpulist *cl, int id)
{
	size_t pos = lower_bound(cl, id);

	if (pos < cl->n && cl->ids[pos] == id)
		return;
	VP_GROW(cl->ids, cl->cap, cl->n + 1);
	memmove(cl->ids + pos + 1, cl->ids + pos, (cl->n - pos) * sizeof(int));
	cl->ids[pos] = id;
	cl->n++;
}

bool cpulist_has(const struct cpulist *cl, int id)
{
	size_t pos = lower_bound(cl, id);

	return pos < cl->n && cl->ids[pos] == id;
}

void cpulist_copy(struct cpulist *dst, const struct cpulist *src)
{
	cpulist_init(dst);
	if (!src->n)
		return;
	VP_GROW(dst->ids, dst->cap, src->n);
	memcpy(dst->ids, src->ids, src->n * sizeof(int));
	dst->n = src->n;
}

static int parse_num(const char *s, const char **end, int *out)
{
	long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || v >= CPULIST_MAX)
		return -2;
	*out = (int)v;
	*end = e;
	return 0;
}

int cpulist_parse(struct cpulist *cl, const char *s, struct vp_err *err)
{
	const char *p = s, *q;
	int a, b, r;

	cpulist_init(cl);
	while (isspace((unsigned char)*p))
		p++;
	while (*p && !isspace((unsigned char)*p)) {
		r = parse_num(p, &q, &a);
		if (r)
			goto bad;
		b = a;
		if (*q == '-') {
			p = q + 1;
			r = parse_num(p, &q, &b);
			if (r || b < a)
				goto bad;
		}
		for (; a <= b; a++)
			cpulist_add(cl, a);
		p = q;
		if (*p == ',')
			p++;
		else if (*p && !isspace((unsigned char)*p))
			goto bad;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		goto bad;
	return 0;
bad:
	cpulist_release(cl);
	return vp_err_set(err, VP_EPARSE, "invalid CPU list '%s' at column %d%s", s,
			  (int)(p - s) + 1,
			  r == -2 ? ": number too large" : "");
}

int cpulist_parse_mask(struct cpulist *cl, const char *s, struct vp_err *err)
{
	size_t len = strlen(s);
	int bit = 0;

	cpulist_init(cl);
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	while (len--) {
		char c = s[len];
		int v, i;

		if (c == ',')
			continue;
		if (!isxdigit((unsigned char)c)) {
			cpulist_release(cl);
			return vp_err_set(err, VP_EPARSE, "invalid CPU mask '%s' at column %zu",
					  s, len + 1);
		}
		v = isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10);
		for (i = 0; i < 4; i++)
			if (v & (1 << i) && bit + i < CPULIST_MAX)
				cpulist_add(cl, bit + i);
		bit += 4;
	}
	return 0;
}

void cpulist_format(const struct cpulist *cl, struct sbuf *out)
{
	size_t i = 0;

	while (i < cl->n) {
		size_t j = i;

		while (j + 1 < cl->n && cl->ids[j + 1] == cl->ids[j] + 1)
			j++;
		if (i)
			sbuf_addch(out, ',');
		if (j == i)
			sbuf_addf(out, "%d", cl->ids[i]);
		else
			sbuf_addf(out, "%d-%d", cl->ids[i], cl->ids[j]);
		i = j + 1;
	}
	if (!cl->n && !out->buf)
		sbuf_addstr(out, "");
}
