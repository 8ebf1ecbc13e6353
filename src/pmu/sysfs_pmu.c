/* sysfs_pmu.c - the kernel's PMU descriptions: type, cpumask, format/ bit fields, events/ aliases */
#include "pmu/sysfs_pmu.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

#define DEVICES "/sys/bus/event_source/devices"

static int parse_uint(const char **p, unsigned *v)
{
	unsigned long x = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		x = x * 10 + (unsigned long)(*s - '0');
		if (x > 1000)
			return -1;
		s++;
	}
	*p = s;
	*v = (unsigned)x;
	return 0;
}

static uint64_t range_mask(unsigned lo, unsigned hi)
{
	unsigned w = hi - lo + 1;

	return (w >= 64 ? ~0ULL : ((1ULL << w) - 1)) << lo;
}

int pmu_field_parse(struct pmu_field *f, const char *text, struct vp_err *err)
{
	const char *s = text;
	uint64_t used = 0;
	int bits = 0;

	f->nranges = 0;
	f->bits = 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!strncmp(s, "config1:", 8)) {
		f->word = 1;
		s += 8;
	} else if (!strncmp(s, "config2:", 8)) {
		f->word = 2;
		s += 8;
	} else if (!strncmp(s, "config:", 7)) {
		f->word = 0;
		s += 7;
	} else {
		goto bad;
	}
	for (;;) {
		unsigned lo, hi;

		if (parse_uint(&s, &lo))
			goto bad;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_uint(&s, &hi))
				goto bad;
		}
		if (hi < lo || hi > 63 || f->nranges == PMU_FIELD_RANGES)
			goto bad;
		/* overlapping ranges would make a value unreadable */
		if (used & range_mask(lo, hi))
			goto bad;
		used |= range_mask(lo, hi);
		f->r[f->nranges].lo = (uint8_t)lo;
		f->r[f->nranges].hi = (uint8_t)hi;
		f->nranges++;
		bits += (int)(hi - lo + 1);
		if (*s != ',')
			break;
		s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s || bits > 64)
		goto bad;
	f->bits = bits;
	return 0;
bad:
	return vp_err_set(err, VP_EPARSE,
			  "invalid format '%s': expected 'config[12]:LO-HI[,LO-HI...]' with distinct bits",
			  text);
}

void pmu_field_format(const struct pmu_field *f, char *buf, size_t size)
{
	static const char *const words[] = { "config", "config1", "config2" };
	size_t len;
	int i;

	snprintf(buf, size, "%s:", words[f->word]);
	for (i = 0; i < f->nranges; i++) {
		len = strlen(buf);
		if (f->r[i].lo == f->r[i].hi)
			snprintf(buf + len, size - len, "%s%u", i ? "," : "", f->r[i].lo);
		else
			snprintf(buf + len, size - len, "%s%u-%u", i ? "," : "", f->r[i].lo, f->r[i].hi);
	}
}

static uint64_t *field_word(const struct pmu_field *f, struct perf_event_attr *attr)
{
	return f->word == 0 ? (uint64_t *)&attr->config :
	       f->word == 1 ? (uint64_t *)&attr->config1 : (uint64_t *)&attr->config2;
}

int pmu_field_set(const struct pmu_field *f, uint64_t value, struct perf_event_attr *attr)
{
	uint64_t *w = field_word(f, attr), v = value;
	int i;

	if (f->bits < 64 && (value >> f->bits))
		return VP_ERANGE;
	for (i = 0; i < f->nranges; i++) {
		unsigned lo = f->r[i].lo, hi = f->r[i].hi, width = hi - lo + 1;
		uint64_t m = range_mask(lo, hi);

		*w = (*w & ~m) | ((v << lo) & m);
		v = width >= 64 ? 0 : v >> width;
	}
	return 0;
}

uint64_t pmu_field_get(const struct pmu_field *f, const struct perf_event_attr *attr)
{
	uint64_t w = *field_word(f, (struct perf_event_attr *)attr), v = 0;
	unsigned shift = 0;
	int i;

	for (i = 0; i < f->nranges; i++) {
		unsigned lo = f->r[i].lo, hi = f->r[i].hi;

		if (shift < 64)
			v |= ((w & range_mask(lo, hi)) >> lo) << shift;
		shift += hi - lo + 1;
	}
	return v;
}

void pmu_name_split(const char *name, char *family, size_t size, int *instance)
{
	const char *us = strrchr(name, '_');
	const char *d;

	*instance = -1;
	snprintf(family, size, "%s", name);
	if (!us || us == name || !us[1] || strlen(us + 1) > 6)
		return;
	for (d = us + 1; *d; d++)
		if (!isdigit((unsigned char)*d))
			return;
	*instance = atoi(us + 1);
	snprintf(family, size, "%.*s", (int)(us - name), name);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcmp(s + n - m, suf);
}

/* events/NAME.per-pkg and .snapshot hold "1" when set. */
static bool read_flag(const char *root, const char *path)
{
	char buf[16];

	return vp_read_line(root, path, buf, sizeof(buf), NULL) == 0 && atoi(buf) == 1;
}

static int cmp_alias(const void *a, const void *b)
{
	return strcasecmp(((const struct pmu_alias *)a)->name, ((const struct pmu_alias *)b)->name);
}

static void load_events(struct pmu_desc *p, const char *root, const char *dir)
{
	char **names = NULL;
	size_t n = 0, i, cap = 0;

	if (vp_list_dir(root, dir, &names, &n, NULL))
		return;
	for (i = 0; i < n; i++) {
		struct pmu_alias *a;
		char *path, *text, buf[64];

		if (has_suffix(names[i], ".scale") || has_suffix(names[i], ".unit") ||
		    has_suffix(names[i], ".per-pkg") || has_suffix(names[i], ".snapshot"))
			continue;
		path = xasprintf("%s/%s", dir, names[i]);
		if (vp_read_file(root, path, &text, NULL, NULL)) {
			free(path);
			continue;
		}
		free(path);
		VP_GROW(p->aliases, cap, p->naliases + 1);
		a = &p->aliases[p->naliases++];
		memset(a, 0, sizeof(*a));
		a->name = xstrdup(names[i]);
		a->terms = vp_rstrip(text);
		a->scale = 1.0;
		path = xasprintf("%s/%s.scale", dir, names[i]);
		if (!vp_read_line(root, path, buf, sizeof(buf), NULL)) {
			char *end;
			double s = strtod(buf, &end);

			if (end != buf && !*end)
				a->scale = s;
		}
		free(path);
		path = xasprintf("%s/%s.unit", dir, names[i]);
		/* a unit longer than its field is cut before a character that does not fit */
		if (vp_read_line(root, path, buf, sizeof(buf), NULL))
			a->unit[0] = '\0';
		else
			utf8_copy(a->unit, sizeof(a->unit), buf);
		free(path);
		path = xasprintf("%s/%s.per-pkg", dir, names[i]);
		a->per_pkg = read_flag(root, path);
		free(path);
		path = xasprintf("%s/%s.snapshot", dir, names[i]);
		a->snapshot = read_flag(root, path);
		free(path);
	}
	vp_free_names(names, n);
	if (p->naliases)
		qsort(p->aliases, p->naliases, sizeof(*p->aliases), cmp_alias);
}

static void note_error(struct pmu_desc *p, const struct vp_err *e)
{
	if (!p->error[0])
		snprintf(p->error, sizeof(p->error), "%s", e->msg);
}

static void load_formats(struct pmu_desc *p, const char *root, const char *dir)
{
	char **names = NULL;
	size_t n = 0, i, cap = 0;

	if (vp_list_dir(root, dir, &names, &n, NULL))
		return;
	for (i = 0; i < n; i++) {
		struct vp_err e = { 0, "" };
		struct pmu_field *f;
		char *path = xasprintf("%s/%s", dir, names[i]);
		char text[256];
		int ret = vp_read_line(root, path, text, sizeof(text), &e);

		free(path);
		if (ret) {
			note_error(p, &e);
			continue;
		}
		VP_GROW(p->fields, cap, p->nfields + 1);
		f = &p->fields[p->nfields];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", names[i]);
		if (pmu_field_parse(f, text, &e)) {
			vp_err_prefix(&e, "PMU '%s' format '%s'", p->name, names[i]);
			note_error(p, &e);
		} else {
			p->nfields++;
		}
	}
	vp_free_names(names, n);
}

void pmu_desc_load(struct pmu_desc *p, const char *root, const char *name)
{
	char *dir = xasprintf(DEVICES "/%s", name);
	char *path, *sub, *text = NULL;
	struct vp_err e = { 0, "" };

	memset(p, 0, sizeof(*p));
	cpulist_init(&p->cpus);
	snprintf(p->name, sizeof(p->name), "%s", name);
	pmu_name_split(name, p->family, sizeof(p->family), &p->instance);
	p->type = -1;

	path = xasprintf("%s/type", dir);
	if (vp_read_int(root, path, &p->type, &e)) {
		p->type = -1;
		note_error(p, &e);
	}
	free(path);
	path = xasprintf("%s/cpumask", dir);
	if (!vp_read_file(root, path, &text, NULL, NULL)) {
		p->has_cpumask = true;
	} else {
		free(path);
		path = xasprintf("%s/cpus", dir);
		if (vp_read_file(root, path, &text, NULL, NULL))
			text = NULL;
	}
	free(path);
	if (text && cpulist_parse(&p->cpus, text, &e)) {
		vp_err_prefix(&e, "PMU '%s'", name);
		note_error(p, &e);
		cpulist_init(&p->cpus);
	}
	free(text);
	sub = xasprintf("%s/format", dir);
	load_formats(p, root, sub);
	free(sub);
	sub = xasprintf("%s/events", dir);
	load_events(p, root, sub);
	free(sub);
	free(dir);
}

void pmu_desc_release(struct pmu_desc *p)
{
	size_t i;

	for (i = 0; i < p->naliases; i++) {
		free(p->aliases[i].name);
		free(p->aliases[i].terms);
	}
	free(p->aliases);
	free(p->fields);
	cpulist_release(&p->cpus);
	p->aliases = NULL;
	p->naliases = 0;
	p->fields = NULL;
	p->nfields = 0;
}

static bool name_eq(const char *a, const char *b, size_t blen)
{
	return strlen(a) == blen && !strncasecmp(a, b, blen);
}

const struct pmu_field *pmu_desc_field(const struct pmu_desc *p, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < p->nfields; i++)
		if (name_eq(p->fields[i].name, name, len))
			return &p->fields[i];
	return NULL;
}

const struct pmu_alias *pmu_desc_alias(const struct pmu_desc *p, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < p->naliases; i++)
		if (name_eq(p->aliases[i].name, name, len))
			return &p->aliases[i];
	return NULL;
}
