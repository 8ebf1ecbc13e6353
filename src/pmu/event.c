/* event.c - event specs (every form a perf or likwid user writes) resolved to perf_event_attr */
#include "pmu/event.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmu/generic.h"
#include "pmu/libpfm.h"
#include "pmu/sysfs_pmu.h"
#include "util/alloc.h"
#include "util/check.h"
#include "util/fs.h"
#include "util/sbuf.h"

#define DEVICES "/sys/bus/event_source/devices"

struct pmu_db {
	char *root;
	struct pmu_desc *pmus;      /* sorted by name */
	size_t npmus;
	char *tracefs;              /* below root, NULL when not found */
	char sysfs_error[256];
	char tracefs_error[256];
	char libpfm_error[256];
	bool libpfm_ok;
};

/* ---- the database ---- */

/* uncore_imc_2 before uncore_imc_10: family, then instance number */
static int cmp_pmu(const void *a, const void *b)
{
	const struct pmu_desc *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	if (c)
		return c;
	if (x->instance != y->instance)
		return x->instance < y->instance ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

int pmu_db_new(struct pmu_db **dbp, const char *root, struct vp_err *err)
{
	struct pmu_db *db = xcalloc(1, sizeof(*db));
	struct vp_err e = { 0, "" };
	char **names = NULL;
	size_t n = 0, i;

	(void)err; /* nothing here fails as a whole: each part says why it is missing */
	db->root = xstrdup(root && *root ? root : "/");
	if (vp_list_dir(db->root, DEVICES, &names, &n, &e)) {
		snprintf(db->sysfs_error, sizeof(db->sysfs_error), "%s", e.msg);
	} else {
		db->pmus = xcalloc(n ? n : 1, sizeof(*db->pmus));
		for (i = 0; i < n; i++)
			pmu_desc_load(&db->pmus[db->npmus++], db->root, names[i]);
		vp_free_names(names, n);
		qsort(db->pmus, db->npmus, sizeof(*db->pmus), cmp_pmu);
	}
	for (i = 0; i < VP_ARRAY_SIZE(tracefs_dirs) && !db->tracefs; i++) {
		char *ev = xasprintf("%s/events", tracefs_dirs[i]);

		if (vp_exists(db->root, ev) == 0)
			db->tracefs = xstrdup(tracefs_dirs[i]);
		free(ev);
	}
	if (!db->tracefs) {
		char *p = vp_path(db->root, tracefs_dirs[0]);

		snprintf(db->tracefs_error, sizeof(db->tracefs_error),
			 "no tracefs events under '%s' (mount -t tracefs nodev %s)", p, p);
		free(p);
	}
	vp_err_clear(&e);
	if (libpfm_init(&e))
		snprintf(db->libpfm_error, sizeof(db->libpfm_error), "%s", e.msg);
	else
		db->libpfm_ok = true;
	*dbp = db;
	return 0;
}

void pmu_db_free(struct pmu_db *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->npmus; i++)
		pmu_desc_release(&db->pmus[i]);
	free(db->pmus);
	free(db->tracefs);
	free(db->root);
	free(db);
}

const char *pmu_db_root(const struct pmu_db *db) { return db->root; }
size_t pmu_db_count(const struct pmu_db *db) { return db->npmus; }
const struct pmu_desc *pmu_db_pmu(const struct pmu_db *db, size_t i) { return &db->pmus[i]; }
const char *pmu_db_tracefs(const struct pmu_db *db) { return db->tracefs; }
const char *pmu_db_sysfs_error(const struct pmu_db *db) { return db->sysfs_error; }
const char *pmu_db_tracefs_error(const struct pmu_db *db) { return db->tracefs_error; }
const char *pmu_db_libpfm_error(const struct pmu_db *db) { return db->libpfm_error; }

static const struct pmu_desc *find_pmu_n(const struct pmu_db *db, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < db->npmus; i++)
		if (strlen(db->pmus[i].name) == len && !strncmp(db->pmus[i].name, name, len))
			return &db->pmus[i];
	return NULL;
}

const struct pmu_desc *pmu_db_find(const struct pmu_db *db, const char *name)
{
	return find_pmu_n(db, name, strlen(name));
}

static const struct pmu_desc *find_pmu_type(const struct pmu_db *db, uint32_t type)
{
	size_t i;

	for (i = 0; i < db->npmus; i++)
		if (db->pmus[i].type >= 0 && (uint32_t)db->pmus[i].type == type)
			return &db->pmus[i];
	return NULL;
}

/* ---- lists ---- */

void evdesc_list_init(struct evdesc_list *l)
{
	l->v = NULL;
	l->n = 0;
	l->cap = 0;
}

void evdesc_copy(struct evdesc *dst, const struct evdesc *src)
{
	*dst = *src;
	dst->spec = src->spec ? xstrdup(src->spec) : NULL;
	dst->name = src->name ? xstrdup(src->name) : NULL;
	dst->fstr = src->fstr ? xstrdup(src->fstr) : NULL;
	cpulist_init(&dst->cpus);
	cpulist_copy(&dst->cpus, &src->cpus);
}

void evdesc_release(struct evdesc *e)
{
	free(e->spec);
	free(e->name);
	free(e->fstr);
	e->spec = e->name = e->fstr = NULL;
	cpulist_release(&e->cpus);
}

void evdesc_list_release(struct evdesc_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		evdesc_release(&l->v[i]);
	free(l->v);
	evdesc_list_init(l);
}

struct evdesc *evdesc_list_push(struct evdesc_list *l)
{
	struct evdesc *e;

	VP_GROW(l->v, l->cap, l->n + 1);
	e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	e->scale = 1.0;
	e->attr.size = sizeof(e->attr);
	cpulist_init(&e->cpus);
	return e;
}

/* Drop the entries appended after n (a resolution that failed half-way). */
static void list_truncate(struct evdesc_list *l, size_t n)
{
	while (l->n > n)
		evdesc_release(&l->v[--l->n]);
}

const char *ev_source_name(enum ev_source s)
{
	switch (s) {
	case EV_GENERIC: return "generic";
	case EV_LIBPFM: return "libpfm";
	case EV_SYSFS: return "sysfs";
	case EV_RAW: return "raw";
	case EV_TRACEPOINT: return "tracepoint";
	}
	return "unknown";
}

int event_split_list(const char *list, char ***specs, size_t *n, struct vp_err *err)
{
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	const char *p = list, *start = list;
	bool in_slash = false;
	int brace = 0, ret = 0;

	for (;; p++) {
		if (*p == '/')
			in_slash = !in_slash;
		else if (*p == '{' && !in_slash)
			brace++;
		else if (*p == '}' && !in_slash && brace > 0)
			brace--;
		if (*p && (*p != ',' || in_slash || brace))
			continue;
		if (p == start) {
			ret = vp_err_set(err, VP_EPARSE, "event list '%s': empty event at column %d",
					 list, (int)(p - list) + 1);
			break;
		}
		VP_GROW(v, cap, cnt + 1);
		v[cnt++] = xstrndup(start, (size_t)(p - start));
		if (!*p)
			break;
		start = p + 1;
	}
	if (ret) {
		vp_free_names(v, cnt);
		return ret;
	}
	*specs = v;
	*n = cnt;
	return 0;
}

/* ---- modifiers: cycles:u, cpu/.../k, sched:sched_switch:G ---- */

struct mods {
	int first_excl;   /* offset of the first u/k/h/G/H in the spec, -1 none */
};

/*
 * Parse perf's modifier letters at spec[off..] and apply them to attr.
 * u/k/h count only those levels; G counts guest only (exclude_host),
 * H host only (exclude_guest); without G or H both are counted: vmmprof
 * leaves exclude_guest 0 so that a host counts what its guests execute.
 */
static int parse_mods(const char *spec, size_t off, struct perf_event_attr *attr,
		      struct mods *m, struct vp_err *err)
{
	bool u = false, k = false, h = false, g = false, hh = false;
	int precise = 0;
	size_t i;

	m->first_excl = -1;
	for (i = off; spec[i]; i++) {
		char c = spec[i];

		switch (c) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'G': g = true; break;
		case 'H': hh = true; break;
		case 'p':
			if (++precise > 3)
				return vp_err_set(err, VP_EPARSE,
						  "event '%s': too many 'p' modifiers at column %zu",
						  spec, i + 1);
			break;
		case 'D': attr->pinned = 1; break;
		case 'I': attr->exclude_idle = 1; break;
		default:
			return vp_err_set(err, VP_EPARSE, "event '%s': unknown modifier '%c' at column %zu",
					  spec, c, i + 1);
		}
		if (strchr("ukhGH", c) && m->first_excl < 0)
			m->first_excl = (int)i;
	}
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	if (g && !hh)
		attr->exclude_host = 1;
	if (hh && !g)
		attr->exclude_guest = 1;
	attr->precise_ip = (unsigned)precise & 3;
	return 0;
}

static bool is_mod_string(const char *s)
{
	return *s && strspn(s, "ukhGHpDI") == strlen(s);
}

/* ---- one entry ---- */

static struct evdesc *push_entry(struct evdesc_list *out, const char *spec, int spec_index,
				 enum ev_source src, const char *pmu)
{
	struct evdesc *e = evdesc_list_push(out);

	e->spec = xstrdup(spec);
	e->name = xstrdup(spec);
	e->source = src;
	e->spec_index = spec_index;
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
	return e;
}

/* The sysfs PMU of a type (e.g. 4 -> "cpu"), or fallback. */
static const char *type_pmu_name(const struct pmu_db *db, uint32_t type, const char *fallback)
{
	const struct pmu_desc *p = find_pmu_type(db, type);

	return p ? p->name : fallback;
}

/* ---- generic names and raw codes ---- */

static int resolve_generic(struct pmu_db *db, const char *spec, size_t len, uint32_t type,
			   uint64_t config, int spec_index, struct evdesc_list *out,
			   struct vp_err *err)
{
	static const char *const fallback[] = { "hardware", "software", "tracepoint", "hw_cache" };
	struct perf_event_attr a;
	struct mods m;
	struct evdesc *e;
	int ret;

	memset(&a, 0, sizeof(a));
	if (spec[len] == ':') {
		ret = parse_mods(spec, len + 1, &a, &m, err);
		if (ret)
			return ret;
		if (!spec[len + 1])
			return vp_err_set(err, VP_EPARSE, "event '%s': missing modifier at column %zu",
					  spec, len + 2);
	}
	e = push_entry(out, spec, spec_index, EV_GENERIC,
		       type_pmu_name(db, type, type < 4 ? fallback[type] : "cpu"));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	e->attr = a;
	return 0;
}

/* rNNNN[:mods]: a raw code for the core PMU (PERF_TYPE_RAW). */
static bool raw_length(const char *spec, size_t *len)
{
	size_t n;

	if (spec[0] != 'r')
		return false;
	n = strspn(spec + 1, "0123456789abcdefABCDEF");
	if (n == 0 || (spec[1 + n] && spec[1 + n] != ':'))
		return false;
	*len = n + 1;
	return true;
}

static int resolve_raw(struct pmu_db *db, const char *spec, size_t len, int spec_index,
		       struct evdesc_list *out, struct vp_err *err)
{
	struct perf_event_attr a;
	struct evdesc *e;
	struct mods m;
	int ret;

	if (len - 1 > 16)
		return vp_err_set(err, VP_ERANGE, "event '%s': raw code wider than 64 bits at column 2",
				  spec);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_RAW;
	a.size = sizeof(a);
	a.config = strtoull(spec + 1, NULL, 16);
	if (spec[len] == ':') {
		ret = parse_mods(spec, len + 1, &a, &m, err);
		if (ret)
			return ret;
	}
	e = push_entry(out, spec, spec_index, EV_RAW, type_pmu_name(db, PERF_TYPE_RAW, "cpu"));
	e->attr = a;
	return 0;
}

/* ---- tracepoints: subsys:name, globs allowed (sched:sched_*) ---- */

static bool has_glob(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

static int add_tracepoint(struct pmu_db *db, const char *spec, const char *sys, const char *name,
			  const char *mods, size_t mods_off, int spec_index, bool expanded,
			  struct evdesc_list *out, struct vp_err *err)
{
	char *path = xasprintf("%s/events/%s/%s/id", db->tracefs, sys, name);
	struct perf_event_attr a;
	struct evdesc *e;
	struct mods m;
	uint64_t id;
	int ret;

	ret = vp_read_u64(db->root, path, &id, err);
	free(path);
	if (ret)
		return vp_err_prefix(err, "event '%s'", spec);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = id;
	if (mods) {
		ret = parse_mods(spec, mods_off, &a, &m, err);
		if (ret)
			return ret;
	}
	e = push_entry(out, spec, spec_index, EV_TRACEPOINT,
		       type_pmu_name(db, PERF_TYPE_TRACEPOINT, "tracepoint"));
	if (expanded) {
		free(e->name);
		e->name = xasprintf("%s:%s", sys, name);
	}
	e->attr = a;
	return 0;
}

/*
 * What resolve_tracepoint() found, besides 0 (resolved) and a negative code
 * (an error, err set): spec is for another form to try.  TP_NO_TRACEFS is
 * kept apart because, when no other form knows spec either, the error says
 * why tracepoints could not be looked up (db->tracefs_error) instead of
 * "unknown event".
 */
enum tp_result {
	TP_NOT_ONE = 1,     /* spec is not SYS:NAME, or not a tracepoint of this machine */
	TP_NO_TRACEFS = 2,  /* spec looks like one (lower case, no "::"), but tracefs is unreadable */
};

/* 0 when resolved, a negative code, or an enum tp_result. */
static int resolve_tracepoint(struct pmu_db *db, const char *spec, int spec_index,
			      struct evdesc_list *out, struct vp_err *err)
{
	const char *colon = strchr(spec, ':'), *name, *mods = NULL;
	char *sys = NULL, *ev = NULL, *dir = NULL;
	char **names = NULL, **evs = NULL;
	size_t n = 0, nev = 0, i, j, found = 0, mods_off = 0;
	int ret = TP_NOT_ONE;

	if (!colon || colon == spec || !colon[1])
		return TP_NOT_ONE;
	name = colon + 1;
	mods = strchr(name, ':');
	sys = xstrndup(spec, (size_t)(colon - spec));
	ev = mods ? xstrndup(name, (size_t)(mods - name)) : xstrdup(name);
	if (mods) {
		mods_off = (size_t)(mods - spec) + 1;
		mods++;
	}
	if (!*ev)
		goto out;
	if (!db->tracefs) {
		/* only an error if nothing else could be meant */
		if (islower((unsigned char)spec[0]) && !strstr(spec, "::"))
			ret = TP_NO_TRACEFS;
		goto out;
	}
	if (!has_glob(sys, strlen(sys)) && !has_glob(ev, strlen(ev))) {
		dir = xasprintf("%s/events/%s", db->tracefs, sys);
		if (vp_exists(db->root, dir))
			goto out;
		free(dir);
		dir = xasprintf("%s/events/%s/%s", db->tracefs, sys, ev);
		if (vp_exists(db->root, dir)) {
			ret = vp_err_set(err, VP_ENOTFOUND,
					 "event '%s': unknown tracepoint '%s' in subsystem '%s' at column %zu",
					 spec, ev, sys, (size_t)(name - spec) + 1);
			goto out;
		}
		ret = add_tracepoint(db, spec, sys, ev, mods, mods_off, spec_index, false, out, err);
		goto out;
	}
	dir = xasprintf("%s/events", db->tracefs);
	if (vp_list_dir(db->root, dir, &names, &n, NULL))
		goto out;
	ret = 0;
	for (i = 0; i < n && !ret; i++) {
		char *sub;

		if (fnmatch(sys, names[i], 0))
			continue;
		sub = xasprintf("%s/%s", dir, names[i]);
		if (vp_list_dir(db->root, sub, &evs, &nev, NULL)) {
			free(sub);
			continue;
		}
		free(sub);
		for (j = 0; j < nev && !ret; j++) {
			char *idp;

			if (fnmatch(ev, evs[j], 0))
				continue;
			idp = xasprintf("%s/%s/%s/id", dir, names[i], evs[j]);
			if (vp_exists(db->root, idp) == 0) {
				ret = add_tracepoint(db, spec, names[i], evs[j], mods, mods_off,
						     spec_index, true, out, err);
				found++;
			}
			free(idp);
		}
		vp_free_names(evs, nev);
	}
	if (!ret && !found)
		ret = vp_err_set(err, VP_ENOTFOUND, "event '%s': no tracepoint matches at column 1", spec);
out:
	vp_free_names(names, n);
	free(dir);
	free(ev);
	free(sys);
	return ret;
}

/* ---- perf syntax for sysfs PMUs: pmu/term=val,term,.../mods ---- */

struct term {
	size_t off, len;     /* the name, as offsets into the text */
	bool has_val;
	bool is_str;         /* the value is not a number (only name= takes one) */
	uint64_t val;
	size_t voff, vlen;
};

struct terms {
	struct term *v;
	size_t n, cap;
};

static bool term_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

/*
 * Parse "a=1,b,c=0x3" in text[start..end).  On error returns -1 with *bad
 * the offset of the offending text and *why what is wrong.
 */
static int parse_terms(const char *text, size_t start, size_t end, struct terms *tv,
		       size_t *bad, const char **why)
{
	size_t i = start;

	tv->n = 0;
	while (i < end) {
		struct term *t;

		while (i < end && isspace((unsigned char)text[i]))
			i++;
		VP_GROW(tv->v, tv->cap, tv->n + 1);
		t = &tv->v[tv->n];
		memset(t, 0, sizeof(*t));
		t->off = i;
		while (i < end && term_char(text[i]))
			i++;
		t->len = i - t->off;
		if (!t->len) {
			*bad = i;
			*why = i < end && text[i] == ',' ? "empty term" :
			       i < end ? "unexpected character" : "missing term after ','";
			return -1;
		}
		while (i < end && isspace((unsigned char)text[i]))
			i++;
		if (i < end && text[i] == '=') {
			char buf[32], *ep;
			size_t vlen;

			i++;
			while (i < end && isspace((unsigned char)text[i]))
				i++;
			t->has_val = true;
			t->voff = i;
			while (i < end && text[i] != ',' && !isspace((unsigned char)text[i]))
				i++;
			t->vlen = vlen = i - t->voff;
			if (!vlen) {
				*bad = t->voff;
				*why = "missing value";
				return -1;
			}
			if (vlen == 1 && text[t->voff] == '?') {
				*bad = t->voff;
				*why = "the alias needs a value for this parameter";
				return -1;
			}
			if (vlen < sizeof(buf) && isdigit((unsigned char)text[t->voff])) {
				memcpy(buf, text + t->voff, vlen);
				buf[vlen] = '\0';
				errno = 0;
				t->val = strtoull(buf, &ep, 0);
				if (*ep) {
					*bad = t->voff + (size_t)(ep - buf);
					*why = "invalid number";
					return -1;
				}
				if (errno) {
					*bad = t->voff;
					*why = "number does not fit in 64 bits";
					return -1;
				}
			} else if (isdigit((unsigned char)text[t->voff])) {
				*bad = t->voff;
				*why = "number does not fit in 64 bits";
				return -1;
			} else {
				t->is_str = true;
			}
			while (i < end && isspace((unsigned char)text[i]))
				i++;
		}
		tv->n++;
		if (i < end && text[i] != ',') {
			*bad = i;
			*why = "expected ',' or '/'";
			return -1;
		}
		if (i < end) {
			i++;
			if (i == end) {
				*bad = i;
				*why = "missing term after ','";
				return -1;
			}
		}
	}
	return 0;
}

/* What one instance's encoding accumulates. */
struct enc {
	struct perf_event_attr attr;
	const struct pmu_alias *alias;  /* the last alias applied */
	char *name;                     /* name= term, NULL otherwise */
	bool skip;                      /* alias unknown on this instance (others may have it) */
};

static const struct pmu_field config_words[3] = {
	{ "config", 0, 1, { { 0, 63 } }, 64 },
	{ "config1", 1, 1, { { 0, 63 } }, 64 },
	{ "config2", 2, 1, { { 0, 63 } }, 64 },
};

static bool tname_is(const char *text, const struct term *t, const char *s)
{
	return strlen(s) == t->len && !strncasecmp(text + t->off, s, t->len);
}

/* col 0: the value came from an alias, which names itself instead. */
static int set_field(const char *spec, const struct pmu_desc *p, const struct pmu_field *f,
		     uint64_t v, size_t col, const struct pmu_alias *alias, struct enc *enc,
		     struct vp_err *err)
{
	char fmt[128];

	if (pmu_field_set(f, v, &enc->attr) == 0)
		return 0;
	pmu_field_format(f, fmt, sizeof(fmt));
	if (alias)
		return vp_err_set(err, VP_ERANGE,
				  "event '%s': alias '%s' of PMU '%s': value 0x%llx does not fit format field '%s' (%d bits, %s)",
				  spec, alias->name, p->name, (unsigned long long)v, f->name, f->bits, fmt);
	return vp_err_set(err, VP_ERANGE,
			  "event '%s': value 0x%llx does not fit format field '%s' of PMU '%s' (%d bits, %s) at column %zu",
			  spec, (unsigned long long)v, f->name, p->name, f->bits, fmt, col);
}

/*
 * Apply terms to enc.  text is spec itself (columns are offsets + 1) or an
 * alias's text (then alias names it, and errors point at the alias).
 */
static int apply_terms(struct pmu_db *db, const char *spec, const struct pmu_desc *p,
		       const char *text, const struct terms *tv, const struct pmu_alias *alias,
		       bool family, struct enc *enc, struct vp_err *err)
{
	size_t i;
	int ret = 0;

	(void)db;
	for (i = 0; i < tv->n && !ret; i++) {
		const struct term *t = &tv->v[i];
		const struct pmu_field *f = pmu_desc_field(p, text + t->off, t->len);
		const struct pmu_alias *a;
		size_t col = t->off + 1, vcol = t->voff + 1;
		int w;

		if (alias && !f)
			return vp_err_set(err, VP_EPARSE,
					  "event '%s': alias '%s' of PMU '%s' uses unknown format field '%.*s'",
					  spec, alias->name, p->name, (int)t->len, text + t->off);
		if (alias && t->is_str)
			return vp_err_set(err, VP_EPARSE,
					  "event '%s': alias '%s' of PMU '%s' has a malformed value for '%.*s'",
					  spec, alias->name, p->name, (int)t->len, text + t->off);
		if (!alias && t->has_val && tname_is(text, t, "name")) {
			free(enc->name);
			enc->name = xstrndup(text + t->voff, t->vlen);
			continue;
		}
		if (t->is_str)
			return vp_err_set(err, VP_EPARSE, "event '%s': invalid value '%.*s' at column %zu",
					  spec, (int)t->vlen, text + t->voff, vcol);
		if (!f && !alias && t->has_val && tname_is(text, t, "period")) {
			enc->attr.sample_period = t->val;
			continue;
		}
		for (w = 0; !f && w < 3; w++)
			if (tname_is(text, t, config_words[w].name))
				f = &config_words[w];
		a = alias ? NULL : pmu_desc_alias(p, text + t->off, t->len);
		if (f && !(a && !t->has_val)) {
			/* a field without a value means 1 ("edge", "inv") */
			ret = set_field(spec, p, f, t->has_val ? t->val : 1, t->has_val ? vcol : col,
					alias, enc, err);
			continue;
		}
		if (a && t->has_val)
			return vp_err_set(err, VP_EPARSE, "event '%s': event '%s' of PMU '%s' takes no value at column %zu",
					  spec, a->name, p->name, vcol);
		if (a) {
			struct terms at = { NULL, 0, 0 };
			const char *why = NULL;
			size_t bad = 0;

			if (parse_terms(a->terms, 0, strlen(a->terms), &at, &bad, &why))
				ret = vp_err_set(err, VP_EPARSE,
						 "event '%s': alias '%s' of PMU '%s' is malformed: %s at '%s'",
						 spec, a->name, p->name, why, a->terms + bad);
			else
				ret = apply_terms(db, spec, p, a->terms, &at, a, family, enc, err);
			free(at.v);
			if (!ret)
				enc->alias = a;
			continue;
		}
		if (!t->has_val && family) {
			/* this instance lacks the alias; perf skips such instances */
			enc->skip = true;
			continue;
		}
		if (t->has_val)
			return vp_err_set(err, VP_ENOTFOUND,
					  "event '%s': unknown format field '%.*s' at column %zu",
					  spec, (int)t->len, text + t->off, col);
		return vp_err_set(err, VP_ENOTFOUND,
				  "event '%s': unknown event '%.*s' of PMU '%s' at column %zu",
				  spec, (int)t->len, text + t->off, p->name, col);
	}
	return ret;
}

static int cmp_instance(const void *a, const void *b)
{
	const struct pmu_desc *x = *(const struct pmu_desc *const *)a;
	const struct pmu_desc *y = *(const struct pmu_desc *const *)b;

	return x->instance - y->instance;
}

/* The PMUs a spec's PMU part names: itself, or every instance of a family. */
static size_t match_pmus(struct pmu_db *db, const char *name, size_t len,
			 const struct pmu_desc ***out)
{
	const struct pmu_desc *p = find_pmu_n(db, name, len);
	const struct pmu_desc **v;
	size_t i, n = 0;

	v = xcalloc(db->npmus + 1, sizeof(*v));
	if (p) {
		v[n++] = p;
	} else {
		for (i = 0; i < db->npmus; i++)
			if (db->pmus[i].instance >= 0 && strlen(db->pmus[i].family) == len &&
			    !strncmp(db->pmus[i].family, name, len))
				v[n++] = &db->pmus[i];
		qsort(v, n, sizeof(*v), cmp_instance);
	}
	*out = v;
	return n;
}

/* Resolve "pmu/terms/mods" (pmu_len bytes of PMU name, terms in spec[ts..te)). */
static int resolve_pmu_terms(struct pmu_db *db, const char *spec, size_t pmu_len, size_t ts,
			     size_t te, const char *mods, size_t mods_off, int spec_index,
			     struct evdesc_list *out, struct vp_err *err)
{
	const struct pmu_desc **pmus = NULL;
	struct terms tv = { NULL, 0, 0 };
	const char *why = NULL;
	size_t npmus, i, bad = 0, start = out->n, added = 0;
	bool family;
	int ret = 0;

	npmus = match_pmus(db, spec, pmu_len, &pmus);
	if (!npmus) {
		ret = vp_err_set(err, VP_ENOTFOUND, "event '%s': unknown PMU '%.*s' at column 1%s%s",
				 spec, (int)pmu_len, spec, db->sysfs_error[0] ? ": " : "",
				 db->sysfs_error);
		goto out;
	}
	family = npmus > 1 || strlen(pmus[0]->name) != pmu_len;
	if (parse_terms(spec, ts, te, &tv, &bad, &why)) {
		ret = vp_err_set(err, VP_EPARSE, "event '%s': %s at column %zu", spec, why, bad + 1);
		goto out;
	}
	if (tv.n == 0) {
		ret = vp_err_set(err, VP_EPARSE, "event '%s': no event or term between '/' at column %zu",
				 spec, ts + 1);
		goto out;
	}
	for (i = 0; i < npmus && !ret; i++) {
		const struct pmu_desc *p = pmus[i];
		struct enc enc;
		struct mods m = { -1 };
		struct evdesc *e;

		memset(&enc, 0, sizeof(enc));
		if (p->type < 0) {
			ret = vp_err_set(err, VP_EFORMAT, "event '%s': PMU '%s' has no readable type%s%s",
					 spec, p->name, p->error[0] ? ": " : "", p->error);
			break;
		}
		enc.attr.type = (uint32_t)p->type;
		enc.attr.size = sizeof(enc.attr);
		ret = apply_terms(db, spec, p, spec, &tv, NULL, family, &enc, err);
		if (!ret && mods) {
			ret = parse_mods(spec, mods_off, &enc.attr, &m, err);
			if (!ret && m.first_excl >= 0 && p->has_cpumask)
				ret = vp_err_set(err, VP_EUNSUPP,
						 "event '%s': PMU '%s' counts every privilege level: modifier '%c' not supported at column %d",
						 spec, p->name, spec[m.first_excl], m.first_excl + 1);
		}
		if (ret || enc.skip) {
			free(enc.name);
			continue;
		}
		e = push_entry(out, spec, spec_index, EV_SYSFS, p->name);
		e->attr = enc.attr;
		if (enc.name) {
			free(e->name);
			e->name = enc.name;
		} else if (family) {
			free(e->name);
			e->name = xasprintf("%s%s", p->name, spec + pmu_len);
		}
		if (enc.alias) {
			e->scale = enc.alias->scale;
			utf8_copy(e->unit, sizeof(e->unit), enc.alias->unit);
			e->per_pkg = enc.alias->per_pkg;
		}
		e->uncore = p->has_cpumask;
		cpulist_copy(&e->cpus, &p->cpus);
		added++;
	}
	if (!ret && !added) {
		/* every instance lacked an alias: name the first unknown term */
		for (i = 0; i < tv.n; i++)
			if (!tv.v[i].has_val && !pmu_desc_field(pmus[0], spec + tv.v[i].off, tv.v[i].len))
				break;
		i = i < tv.n ? i : 0;
		ret = vp_err_set(err, VP_ENOTFOUND,
				 "event '%s': unknown event '%.*s' of PMU '%.*s' at column %zu",
				 spec, (int)tv.v[i].len, spec + tv.v[i].off, (int)pmu_len, spec,
				 tv.v[i].off + 1);
	}
out:
	if (ret)
		list_truncate(out, start);
	free(tv.v);
	free(pmus);
	return ret;
}

static int resolve_sysfs(struct pmu_db *db, const char *spec, int spec_index,
			 struct evdesc_list *out, struct vp_err *err)
{
	const char *slash = strchr(spec, '/'), *last = strrchr(spec, '/');
	const char *mods = NULL;
	size_t pmu_len = (size_t)(slash - spec), mods_off = 0, i;

	if (!pmu_len)
		return vp_err_set(err, VP_EPARSE, "event '%s': missing PMU name before '/' at column 1",
				  spec);
	for (i = 0; i < pmu_len; i++)
		if (!term_char(spec[i]))
			return vp_err_set(err, VP_EPARSE,
					  "event '%s': unexpected character in PMU name at column %zu",
					  spec, i + 1);
	if (last == slash)
		return vp_err_set(err, VP_EPARSE, "event '%s': missing closing '/' at column %zu",
				  spec, strlen(spec) + 1);
	if (last[1]) {
		mods_off = (size_t)(last - spec) + 1 + (last[1] == ':');
		mods = spec + mods_off;
		if (!*mods)
			return vp_err_set(err, VP_EPARSE, "event '%s': missing modifier at column %zu",
					  spec, mods_off + 1);
	}
	return resolve_pmu_terms(db, spec, pmu_len, pmu_len + 1, (size_t)(last - spec), mods,
				 mods_off, spec_index, out, err);
}

/*
 * A bare name that is a sysfs alias of some PMU ("cas_count_read",
 * "unc_m_cas_count.rd"), as perf accepts.  Returns 1 when none has it.
 */
static int resolve_bare_alias(struct pmu_db *db, const char *spec, int spec_index,
			      struct evdesc_list *out, struct vp_err *err)
{
	size_t len = strcspn(spec, ":"), i, start = out->n;
	char *tmp;
	int ret = 1;

	for (i = 0; i < db->npmus; i++) {
		const struct pmu_desc *p = &db->pmus[i];
		struct evdesc *e;
		size_t before = out->n;

		if (!pmu_desc_alias(p, spec, len))
			continue;
		/* resolve "pmu/alias/mods" against this one PMU, then restore names */
		tmp = xasprintf("%s/%.*s/%s", p->name, (int)len, spec, spec[len] ? spec + len + 1 : "");
		ret = resolve_sysfs(db, tmp, spec_index, out, err);
		free(tmp);
		if (ret)
			break;
		for (e = &out->v[before]; e < out->v + out->n; e++) {
			free(e->spec);
			e->spec = xstrdup(spec);
		}
	}
	if (ret < 0)
		list_truncate(out, start);
	return out->n > start ? 0 : ret;
}

/* ---- libpfm4 names ---- */

static int pfm_into(struct pmu_db *db, const char *spec, const char *pfm_spec,
		    const char *mods, size_t mods_off, int spec_index, struct evdesc_list *out,
		    struct vp_err *err)
{
	struct libpfm_result r;
	const struct pmu_desc *p;
	struct evdesc *e;
	struct mods m;
	int ret;

	ret = libpfm_encode(pfm_spec, &r, err);
	if (ret)
		return ret;
	/*
	 * libpfm4 sets exclude_guest on core PMUs by default (its mg=0,mh=1).
	 * A host profiler must count what its guests execute, so vmmprof
	 * clears it unless the spec chose with libpfm4's own mg= modifier or
	 * perf's G/H letters.
	 */
	if (!strcasestr(pfm_spec, ":mg="))
		r.attr.exclude_guest = 0;
	/* and count the hypervisor level too, as perf does, unless h= was given */
	if (!strcasestr(pfm_spec, ":h="))
		r.attr.exclude_hv = 0;
	if (mods) {
		r.attr.exclude_user = r.attr.exclude_kernel = r.attr.exclude_hv = 0;
		ret = parse_mods(spec, mods_off, &r.attr, &m, err);
		if (ret) {
			free(r.fstr);
			return ret;
		}
	}
	p = find_pmu_type(db, r.attr.type);
	e = push_entry(out, spec, spec_index, EV_LIBPFM, p ? p->name : r.uncore ? r.pmu : "cpu");
	e->attr = r.attr;
	e->fstr = r.fstr;
	if (p && r.uncore) {
		e->uncore = p->has_cpumask;
		cpulist_copy(&e->cpus, &p->cpus);
	}
	return 0;
}

static int resolve_libpfm(struct pmu_db *db, const char *spec, int spec_index,
			  struct evdesc_list *out, struct vp_err *err)
{
	const char *last = strrchr(spec, ':');
	struct vp_err e2 = { 0, "" };
	char *head;
	int ret;

	if (!db->libpfm_ok)
		return vp_err_set(err, VP_EDEP, "event '%s': %s", spec, db->libpfm_error);
	ret = pfm_into(db, spec, spec, NULL, 0, spec_index, out, err);
	if (ret == 0 || !last || last == spec || last[-1] == ':' || !is_mod_string(last + 1))
		return ret;
	/* "EVENT:UMASK:G": perf's modifier letters after a libpfm4 name */
	head = xstrndup(spec, (size_t)(last - spec));
	if (pfm_into(db, spec, head, last + 1, (size_t)(last - spec) + 1, spec_index, out, &e2) == 0)
		ret = 0;
	free(head);
	return ret;
}

/* "HINT: event 'X': msg" -> "event 'X': msg (HINT)" */
static void reorder_hint(struct vp_err *err, const char *spec)
{
	char *head, *p;

	if (!err)
		return;
	p = strstr(err->msg, ": event '");
	if (!p || strncmp(p + 9, spec, strlen(spec)))
		return;
	head = xstrndup(err->msg, (size_t)(p - err->msg));
	p = xasprintf("%s (%s)", p + 2, head);
	snprintf(err->msg, sizeof(err->msg), "%s", p);
	free(p);
	free(head);
}

/* ---- the entry point ---- */

int event_resolve(struct pmu_db *db, const char *spec, int spec_index,
		  struct evdesc_list *out, struct vp_err *err)
{
	size_t len;
	uint32_t type;
	uint64_t config;
	int ret, tp;

	if (!spec || !*spec)
		return vp_err_set(err, VP_EPARSE, "empty event spec");
	for (len = 0; spec[len]; len++)
		if (!isprint((unsigned char)spec[len]) || spec[len] == ' ')
			return vp_err_set(err, VP_EPARSE,
					  "event '%s': unexpected character at column %zu", spec, len + 1);
	if (strchr(spec, '/'))
		return resolve_sysfs(db, spec, spec_index, out, err);
	if (raw_length(spec, &len))
		return resolve_raw(db, spec, len, spec_index, out, err);
	len = strcspn(spec, ":");
	if (generic_lookup(spec, len, &type, &config))
		return resolve_generic(db, spec, len, type, config, spec_index, out, err);
	tp = TP_NOT_ONE;
	if (!strstr(spec, "::")) {
		tp = resolve_tracepoint(db, spec, spec_index, out, err);
		if (tp <= 0)
			return tp;
		/* a new result would fall through here as "not a tracepoint" */
		VP_BUG_ON(tp != TP_NOT_ONE && tp != TP_NO_TRACEFS);
	}
	ret = resolve_libpfm(db, spec, spec_index, out, err);
	if (ret == VP_ENOTFOUND || ret == VP_EDEP) {
		struct vp_err e2 = { 0, "" };
		int r2 = resolve_bare_alias(db, spec, spec_index, out, &e2);

		if (r2 == 0)
			return 0;
		if (r2 < 0) {
			if (err)
				*err = e2;
			return r2;
		}
		if (tp == TP_NO_TRACEFS)
			return vp_err_set(err, VP_ENOTFOUND,
					  "event '%s': unknown event at column 1 (if it is a tracepoint: %s)",
					  spec, db->tracefs_error);
		if (ret == VP_ENOTFOUND && !strstr(spec, "::")) {
			char core[64];

			if (!db->libpfm_ok || !libpfm_core_pmu(core, sizeof(core)))
				vp_err_prefix(err, "%s",
					      "libpfm4 found no core PMU on this machine, so only "
					      "'pmu::EVENT' names of a given table resolve");
			else
				vp_err_prefix(err, "not in libpfm4's '%s' table", core);
			/* keep "event '...': ..." first: re-order the two parts */
			reorder_hint(err, spec);
		}
	}
	return ret;
}
