/* cmd_list.c - `vmmprof list [KIND] [PATTERN]` and `vmmprof list --encode SPEC...` */
#include "cli/commands.h"
#include "cli/list.h"
#include "hv/hv.h"

#include <fnmatch.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmu/counter.h"
#include "pmu/event.h"
#include "pmu/generic.h"
#include "pmu/libpfm.h"
#include "pmu/sysfs_pmu.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/table.h"

/* Add a kind here (and its function in list.h); `vmmprof list KIND` dispatches on it. */
static const struct list_kind kinds[] = {
	{ "events", "every event that can be named here (the default)", list_events },
	{ "pmus", "the PMUs the kernel describes, with their formats and event counts", list_pmus },
	{ "vms", "the VMs on this host: vCPU threads, placement, affinity, memory per node", list_vms },
};

bool list_match(const struct list_opts *o, const char *s)
{
	if (!o->pattern)
		return true;
	if (strpbrk(o->pattern, "*?["))
		return fnmatch(o->pattern, s, FNM_CASEFOLD) == 0;
	return strcasestr(s, o->pattern) != NULL;
}

bool list_keep_vm(const void *ctx, const struct hv_vm *vm)
{
	return (vm->name && list_match(ctx, vm->name)) || (vm->alias && list_match(ctx, vm->alias));
}

void list_raw_word(struct sbuf *out, const char *name, size_t len)
{
	size_t from;

	if (out->len && out->buf[out->len - 1] != '\n')
		sbuf_addch(out, ' ');
	from = out->len;
	sbuf_add(out, name, len);
	sbuf_sanitize(out, from, false);
}

/* ---- events ---- */

struct ev_row {
	char *name;
	const char *section;  /* static: "hardware", "software", "hw_cache", "sysfs", "libpfm", "tracepoint" */
	char *pmu;
	char *desc;
	char *encoding;       /* sysfs alias terms, NULL otherwise */
	char unit[32];
	double scale;
	int instances;        /* sysfs families: how many PMUs the name opens on */
	int openable;         /* generic hardware rows on the live machine: 1 opens, 0 does not;
			       * -1 not tried (other rows, fixture roots) */
};

struct ev_rows {
	struct ev_row *v;
	size_t n, cap;
	const struct list_opts *o;
	bool live;            /* the machine itself: hardware rows are tried */
	size_t closed;        /* hardware rows that cannot be opened here */
	char *closed_why;     /* why the first of them cannot (heap), NULL none */
};

static struct ev_row *add_row(struct ev_rows *r, const char *section, const char *name,
			      const char *pmu, const char *desc)
{
	struct ev_row *row;

	VP_GROW(r->v, r->cap, r->n + 1);
	row = &r->v[r->n++];
	memset(row, 0, sizeof(*row));
	row->section = section;
	row->name = xstrdup(name);
	row->pmu = xstrdup(pmu);
	row->desc = xstrdup(desc ? desc : "");
	row->scale = 1.0;
	row->openable = -1;
	return row;
}

/*
 * A generic hardware or cache event (type, config) named name: listed when it
 * opens here, as perf list lists only what the machine has; without --all one
 * that does not open is left out and counted (the note at the end says why).
 * Fixture roots describe another machine: nothing is tried there.
 */
static void add_hw_row(struct ev_rows *r, const char *section, const char *name, uint32_t type,
		       uint64_t config, const char *desc)
{
	struct evdesc ev;
	char first[96];
	int rc;

	if (!r->live) {
		add_row(r, section, name, section, desc);
		return;
	}
	/* "cycles OR cpu-cycles": the reason names the first */
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(name, " "), name);
	memset(&ev, 0, sizeof(ev));
	ev.name = first;
	snprintf(ev.pmu, sizeof(ev.pmu), "%s", "cpu");
	ev.attr.type = type;
	ev.attr.config = config;
	rc = cnt_try_open(&ev);
	if (rc && !r->closed_why) {
		struct cnt_explain_ctx ctx;

		cnt_explain_probe(&ctx, "/");
		r->closed_why = cnt_explain(-rc, &ev, false, &ctx);
	}
	r->closed += rc != 0;
	if (!rc || r->o->all)
		add_row(r, section, name, section, desc)->openable = !rc;
}

static void free_rows(struct ev_rows *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].pmu);
		free(r->v[i].desc);
		free(r->v[i].encoding);
	}
	free(r->v);
}

static void collect_generic(struct ev_rows *r)
{
	const struct generic_event *g;
	size_t n, i;
	uint64_t config;
	char name[96];

	g = generic_events(&n);
	for (i = 0; i < n; i++) {
		if (!g[i].alias)
			snprintf(name, sizeof(name), "%s", g[i].name);
		else
			snprintf(name, sizeof(name), "%s OR %s", g[i].name, g[i].alias);
		if (!list_match(r->o, name))
			continue;
		if (g[i].type == PERF_TYPE_HARDWARE)
			add_hw_row(r, "hardware", name, g[i].type, g[i].config, g[i].desc);
		else
			add_row(r, "software", name, "software", g[i].desc);
	}
	for (i = 0; generic_cache_name(i, name, sizeof(name), &config); i++)
		if (list_match(r->o, name))
			add_hw_row(r, "hw_cache", name, PERF_TYPE_HW_CACHE, config,
				   "hardware cache event");
}

/* "N generic hardware events cannot be opened here (why); --all lists them" */
static struct sbuf *closed_note(const struct ev_rows *r, struct sbuf *note)
{
	sbuf_reset(note);
	sbuf_addf(note, "%zu generic hardware event%s cannot be opened here (%s); %s", r->closed,
		  r->closed == 1 ? "" : "s", r->closed_why ? r->closed_why : "?",
		  r->o->all ? "they are marked" : "'vmmprof list --all' lists them");
	return note;
}

static bool first_instance(const struct pmu_db *db, const struct pmu_desc *p, int *count)
{
	size_t i;
	bool first = true;

	*count = 0;
	if (p->instance < 0) {
		*count = 1;
		return true;
	}
	for (i = 0; i < pmu_db_count(db); i++) {
		const struct pmu_desc *q = pmu_db_pmu(db, i);

		if (q->instance < 0 || strcmp(q->family, p->family))
			continue;
		(*count)++;
		if (q->instance < p->instance)
			first = false;
	}
	return first;
}

static void collect_sysfs(struct ev_rows *r, const struct pmu_db *db)
{
	size_t i, j;

	for (i = 0; i < pmu_db_count(db); i++) {
		const struct pmu_desc *p = pmu_db_pmu(db, i);
		const char *pname;
		int count;

		if (!first_instance(db, p, &count))
			continue;
		pname = count > 1 ? p->family : p->name;
		for (j = 0; j < p->naliases; j++) {
			const struct pmu_alias *a = &p->aliases[j];
			struct ev_row *row;
			char *name = xasprintf("%s/%s/", pname, a->name);

			if (list_match(r->o, name)) {
				row = add_row(r, "sysfs", name, pname, NULL);
				row->encoding = xstrdup(a->terms);
				row->scale = a->scale;
				snprintf(row->unit, sizeof(row->unit), "%s", a->unit);
				row->instances = count;
				free(row->desc);
				row->desc = count > 1 ? xasprintf("%s (%d instances)", a->terms, count) :
							xstrdup(a->terms);
			}
			free(name);
		}
	}
}

static void pfm_row(void *ctx, const char *pmu, const char *pmu_desc, const char *event,
		    const char *umask, const char *desc)
{
	struct ev_rows *r = ctx;
	char *name = umask ? xasprintf("%s::%s:%s", pmu, event, umask) :
			     xasprintf("%s::%s", pmu, event);

	(void)pmu_desc;
	if (list_match(r->o, name))
		add_row(r, "libpfm", name, pmu, desc);
	free(name);
}

static void collect_tracepoints(struct ev_rows *r, const struct pmu_db *db)
{
	const char *tf = pmu_db_tracefs(db);
	char **subs = NULL, **evs = NULL;
	size_t ns = 0, ne = 0, i, j;
	char *dir;

	if (!tf)
		return;
	dir = xasprintf("%s/events", tf);
	if (vp_list_dir(pmu_db_root(db), dir, &subs, &ns, NULL)) {
		free(dir);
		return;
	}
	for (i = 0; i < ns; i++) {
		char *sub = xasprintf("%s/%s", dir, subs[i]);

		if (!vp_list_dir(pmu_db_root(db), sub, &evs, &ne, NULL)) {
			for (j = 0; j < ne; j++) {
				char *name = xasprintf("%s:%s", subs[i], evs[j]);
				char *idp = xasprintf("%s/%s/id", sub, evs[j]);

				if (list_match(r->o, name) && vp_exists(pmu_db_root(db), idp) == 0)
					add_row(r, "tracepoint", name, "tracepoint", NULL);
				free(idp);
				free(name);
			}
			vp_free_names(evs, ne);
		}
		free(sub);
	}
	vp_free_names(subs, ns);
	free(dir);
}

static const struct {
	const char *section;
	const char *title;
} sections[] = {
	{ "hardware", "hardware events (generic)" },
	{ "software", "software events" },
	{ "hw_cache", "hardware cache events (generic)" },
	{ "sysfs", "kernel PMU events (sysfs aliases): PMU/EVENT/" },
	{ "libpfm", "libpfm4 events of this machine's PMUs: PMU::EVENT[:UMASK]" },
	{ "tracepoint", "tracepoints: SUBSYSTEM:NAME" },
};

int list_events(const struct list_opts *o, struct sbuf *out)
{
	struct ev_rows r = { NULL, 0, 0, o, false, 0, NULL };
	struct pmu_db *db = NULL;
	struct vp_err err = { 0, "" };
	bool live = !strcmp(o->root, "/");
	size_t s, i;
	struct sbuf note = SBUF_INIT;

	r.live = live;
	if (pmu_db_new(&db, o->root, &err))
		return cli_error(&err);
	collect_generic(&r);
	collect_sysfs(&r, db);
	if (live && !pmu_db_libpfm_error(db)[0])
		libpfm_foreach_event(pfm_row, &r);
	collect_tracepoints(&r, db);
	if (o->raw) {
		size_t start = out->len;

		/* "cycles OR cpu-cycles" is two names a shell can complete */
		for (i = 0; i < r.n; i++) {
			const char *n = r.v[i].name, *or;

			while ((or = strstr(n, " OR "))) {
				list_raw_word(out, n, (size_t)(or - n));
				n = or + 4;
			}
			list_raw_word(out, n, strlen(n));
		}
		if (out->len > start)
			sbuf_addch(out, '\n');
	} else if (o->json) {
		struct jw w;

		jw_init(&w, out, true);
		jw_obj_begin(&w);
		jw_key(&w, "events");
		jw_arr_begin(&w);
		for (i = 0; i < r.n; i++) {
			const struct ev_row *row = &r.v[i];

			jw_obj_begin(&w);
			jw_kstr(&w, "name", row->name);
			jw_kstr(&w, "kind", row->section);
			jw_kstr(&w, "pmu", row->pmu);
			if (row->openable >= 0)
				jw_kbool(&w, "openable", row->openable);
			if (row->encoding) {
				jw_kstr(&w, "encoding", row->encoding);
				jw_kdouble(&w, "scale", row->scale);
				jw_kstr(&w, "unit", row->unit);
				jw_kint(&w, "instances", row->instances);
			} else {
				jw_kstr(&w, "description", row->desc);
			}
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_key(&w, "notes");
		jw_arr_begin(&w);
		if (pmu_db_sysfs_error(db)[0])
			jw_str(&w, pmu_db_sysfs_error(db));
		if (pmu_db_tracefs_error(db)[0])
			jw_str(&w, pmu_db_tracefs_error(db));
		if (!live)
			jw_str(&w, "libpfm4 events are listed for this machine only, not under --root");
		if (r.closed)
			jw_str(&w, sbuf_str(closed_note(&r, &note)));
		jw_arr_end(&w);
		jw_obj_end(&w);
		sbuf_addch(out, '\n');
	} else {
		for (s = 0; s < VP_ARRAY_SIZE(sections); s++) {
			static const char *const titles[] = { "name", "description" };
			struct table t;
			bool any = false;

			table_init(&t, 2, titles);
			for (i = 0; i < r.n; i++) {
				if (strcmp(r.v[i].section, sections[s].section))
					continue;
				any = true;
				table_row(&t);
				table_cell(&t, "%s", r.v[i].name);
				if (r.v[i].openable == 0)
					table_cell(&t, "%s (cannot be opened here)", r.v[i].desc);
				else if (r.v[i].encoding && (r.v[i].unit[0] || r.v[i].scale != 1.0))
					table_cell(&t, "%s [scale %g %s]", r.v[i].desc, r.v[i].scale,
						   r.v[i].unit);
				else
					table_cell(&t, "%s", r.v[i].desc);
			}
			if (any) {
				sbuf_addf(out, "%s:\n", sections[s].title);
				table_render(&t, out, 2, false);
				sbuf_addch(out, '\n');
			}
			table_release(&t);
		}
		if (pmu_db_sysfs_error(db)[0])
			sbuf_addf(out, "note: no kernel PMUs: %s\n", pmu_db_sysfs_error(db));
		if (pmu_db_tracefs_error(db)[0])
			sbuf_addf(out, "note: no tracepoints: %s\n", pmu_db_tracefs_error(db));
		if (!live)
			sbuf_addstr(out, "note: libpfm4 events are listed for this machine only, not under --root\n");
		if (r.closed)
			sbuf_addf(out, "note: %s\n", sbuf_str(closed_note(&r, &note)));
		sbuf_addstr(out, "raw codes: rNNNN (hex, core PMU); any PMU: PMU/event=0xNN,umask=0xNN/ "
				 "(see 'vmmprof list pmus')\n");
	}
	free_rows(&r);
	free(r.closed_why);
	sbuf_release(&note);
	pmu_db_free(db);
	return 0;
}

/* ---- pmus ---- */

int list_pmus(const struct list_opts *o, struct sbuf *out)
{
	static const char *const titles[] = { "name", ">type", "cpumask", ">formats", ">events", "note" };
	struct sbuf raw = SBUF_INIT;
	struct pmu_db *db = NULL;
	struct vp_err err = { 0, "" };
	struct table t;
	struct jw w;
	size_t i, j;

	if (pmu_db_new(&db, o->root, &err))
		return cli_error(&err);
	table_init(&t, VP_ARRAY_SIZE(titles), titles);
	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_key(&w, "pmus");
	jw_arr_begin(&w);
	for (i = 0; i < pmu_db_count(db); i++) {
		const struct pmu_desc *p = pmu_db_pmu(db, i);
		struct sbuf cpus = SBUF_INIT;

		if (!list_match(o, p->name))
			continue;
		if (o->raw) {
			list_raw_word(&raw, p->name, strlen(p->name));
			continue;
		}
		cpulist_format(&p->cpus, &cpus);
		if (o->json) {
			char fmt[128];

			jw_obj_begin(&w);
			jw_kstr(&w, "name", p->name);
			jw_kstr(&w, "family", p->family);
			jw_kint(&w, "instance", p->instance);
			jw_kint(&w, "type", p->type);
			jw_kbool(&w, "uncore", p->has_cpumask);
			jw_kstr(&w, "cpus", sbuf_str(&cpus));
			jw_key(&w, "formats");
			jw_obj_begin(&w);
			for (j = 0; j < p->nfields; j++) {
				pmu_field_format(&p->fields[j], fmt, sizeof(fmt));
				jw_kstr(&w, p->fields[j].name, fmt);
			}
			jw_obj_end(&w);
			jw_kint(&w, "events", (int64_t)p->naliases);
			jw_kstr(&w, "error", p->error);
			jw_obj_end(&w);
		} else {
			table_row(&t);
			table_cell(&t, "%s", p->name);
			table_cell(&t, "%d", p->type);
			table_cell(&t, "%s", p->has_cpumask ? sbuf_str(&cpus) : "-");
			table_cell(&t, "%zu", p->nfields);
			table_cell(&t, "%zu", p->naliases);
			table_cell(&t, "%s", p->error);
		}
		sbuf_release(&cpus);
	}
	jw_arr_end(&w);
	jw_kstr(&w, "note", pmu_db_sysfs_error(db));
	jw_obj_end(&w);
	if (o->raw) {
		sbuf_reset(out);
		if (raw.len)
			sbuf_addf(out, "%s\n", sbuf_str(&raw));
	} else if (o->json) {
		sbuf_addch(out, '\n');
	} else {
		sbuf_reset(out);
		if (pmu_db_sysfs_error(db)[0])
			sbuf_addf(out, "note: %s\n", pmu_db_sysfs_error(db));
		else
			table_render(&t, out, 0, true);
	}
	table_release(&t);
	sbuf_release(&raw);
	pmu_db_free(db);
	return 0;
}

/* ---- --encode ---- */

static void encode_text(const struct evdesc *e, struct sbuf *out)
{
	const struct perf_event_attr *a = &e->attr;
	struct sbuf cpus = SBUF_INIT;

	cpulist_format(&e->cpus, &cpus);
	sbuf_addf(out, "%s\n", e->name);
	sbuf_addf(out, "  %-16s%s\n", "spec", e->spec);
	sbuf_addf(out, "  %-16s%s\n", "pmu", e->pmu);
	sbuf_addf(out, "  %-16s%s\n", "source", ev_source_name(e->source));
	if (e->fstr)
		sbuf_addf(out, "  %-16s%s\n", "libpfm4 name", e->fstr);
	sbuf_addf(out, "  %-16s%u\n", "type", a->type);
	sbuf_addf(out, "  %-16s0x%llx\n", "config", (unsigned long long)a->config);
	sbuf_addf(out, "  %-16s0x%llx\n", "config1", (unsigned long long)a->config1);
	sbuf_addf(out, "  %-16s0x%llx\n", "config2", (unsigned long long)a->config2);
	sbuf_addf(out, "  %-16s%u\n", "exclude_user", (unsigned)a->exclude_user);
	sbuf_addf(out, "  %-16s%u\n", "exclude_kernel", (unsigned)a->exclude_kernel);
	sbuf_addf(out, "  %-16s%u\n", "exclude_hv", (unsigned)a->exclude_hv);
	sbuf_addf(out, "  %-16s%u\n", "exclude_guest", (unsigned)a->exclude_guest);
	sbuf_addf(out, "  %-16s%u\n", "exclude_host", (unsigned)a->exclude_host);
	if (a->exclude_idle)
		sbuf_addf(out, "  %-16s%u\n", "exclude_idle", (unsigned)a->exclude_idle);
	if (a->precise_ip)
		sbuf_addf(out, "  %-16s%u\n", "precise_ip", (unsigned)a->precise_ip);
	if (a->pinned)
		sbuf_addf(out, "  %-16s%u\n", "pinned", (unsigned)a->pinned);
	if (a->sample_period)
		sbuf_addf(out, "  %-16s%llu\n", "sample_period", (unsigned long long)a->sample_period);
	sbuf_addf(out, "  %-16s%.10g\n", "scale", e->scale);
	sbuf_addf(out, "  %-16s%s\n", "unit", e->unit);
	sbuf_addf(out, "  %-16s%s\n", "cpus", e->uncore ? sbuf_str(&cpus) : "any");
	sbuf_release(&cpus);
}

static void hex_key(struct jw *w, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)v);
	if (!v)
		snprintf(buf, sizeof(buf), "0x0");
	jw_kstr(w, key, buf);
}

static void encode_json(const struct evdesc *e, struct jw *w)
{
	const struct perf_event_attr *a = &e->attr;
	struct sbuf cpus = SBUF_INIT;

	cpulist_format(&e->cpus, &cpus);
	jw_obj_begin(w);
	jw_kstr(w, "spec", e->spec);
	jw_kstr(w, "name", e->name);
	jw_kstr(w, "pmu", e->pmu);
	jw_kstr(w, "source", ev_source_name(e->source));
	jw_kstr(w, "libpfm4_name", e->fstr);
	jw_kuint(w, "type", a->type);
	hex_key(w, "config", a->config);
	hex_key(w, "config1", a->config1);
	hex_key(w, "config2", a->config2);
	jw_kbool(w, "exclude_user", a->exclude_user);
	jw_kbool(w, "exclude_kernel", a->exclude_kernel);
	jw_kbool(w, "exclude_hv", a->exclude_hv);
	jw_kbool(w, "exclude_guest", a->exclude_guest);
	jw_kbool(w, "exclude_host", a->exclude_host);
	jw_kbool(w, "exclude_idle", a->exclude_idle);
	jw_kuint(w, "precise_ip", a->precise_ip);
	jw_kbool(w, "pinned", a->pinned);
	jw_kuint(w, "sample_period", a->sample_period);
	jw_kdouble(w, "scale", e->scale);
	jw_kstr(w, "unit", e->unit);
	jw_kbool(w, "uncore", e->uncore);
	jw_kstr(w, "cpus", sbuf_str(&cpus));
	jw_kint(w, "spec_index", e->spec_index);
	jw_obj_end(w);
	sbuf_release(&cpus);
}

static int run_encode(const struct list_opts *o, int nspecs, char **specs)
{
	struct evdesc_list l;
	struct pmu_db *db = NULL;
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT;
	struct jw w;
	size_t i;
	int k, rc = 0;

	if (pmu_db_new(&db, o->root, &err))
		return cli_error(&err);
	evdesc_list_init(&l);
	for (k = 0; k < nspecs; k++) {
		vp_err_clear(&err);
		if (event_resolve(db, specs[k], k, &l, &err))
			rc = cli_error(&err);
	}
	if (o->json) {
		jw_init(&w, &out, true);
		jw_obj_begin(&w);
		jw_key(&w, "events");
		jw_arr_begin(&w);
		for (i = 0; i < l.n; i++)
			encode_json(&l.v[i], &w);
		jw_arr_end(&w);
		jw_obj_end(&w);
		sbuf_addch(&out, '\n');
	} else {
		for (i = 0; i < l.n; i++) {
			if (i)
				sbuf_addch(&out, '\n');
			encode_text(&l.v[i], &out);
		}
	}
	if (cli_write(&out))
		rc = 1;
	sbuf_release(&out);
	evdesc_list_release(&l);
	pmu_db_free(db);
	return rc;
}

/* ---- the command ---- */

static int run_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'r' },
		{ "encode", no_argument, NULL, 'e' },
		{ "xen-numa-dump", no_argument, NULL, 'X' },
		{ "xentrace", optional_argument, NULL, 'T' },
		{ "xen-psr", no_argument, NULL, 'P' },
		{ "raw-dump", no_argument, NULL, 'R' },
		{ "all", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	struct list_opts o = { "/", NULL, false };
	const struct list_kind *kind = &kinds[0];
	struct sbuf out = SBUF_INIT;
	bool encode = false;
	int c, rc, i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o.json = true; break;
		case 'r': o.root = optarg; break;
		case 'e': encode = true; break;
		case 'X': o.xen_numa_dump = true; break;
		case 'T': {
			char *end = NULL;
			unsigned long secs = optarg ? strtoul(optarg, &end, 10) : 1;

			if (optarg && (*end || !*optarg || secs < 1 || secs > 3600))
				return cli_usage_error(&cmd_list, "invalid --xentrace '%s' (seconds, 1 to 3600)",
						       optarg);
			o.xentrace_s = (unsigned)secs;
			break;
		}
		case 'P': o.xen_psr = true; break;
		case 'A': o.all = true; break;
		case 'R': o.raw = true; break;
		default:
			return cli_bad_option(&cmd_list, argv, "");
		}
	}
	if (vp_exists(o.root, "/"))
		return cli_errorf("cannot use root '%s': no such directory", o.root);
	if (encode && o.raw)
		return cli_usage_error(&cmd_list, "--raw-dump lists names: not with --encode");
	if (o.json && o.raw)
		return cli_usage_error(&cmd_list, "--raw-dump and --json are two different outputs: choose one");
	if (encode) {
		if (optind >= argc)
			return cli_usage_error(&cmd_list, "--encode needs at least one SPEC");
		return run_encode(&o, argc - optind, argv + optind);
	}
	for (i = optind; i < argc; i++) {
		size_t k;
		bool is_kind = false;

		for (k = 0; i == optind && k < VP_ARRAY_SIZE(kinds); k++) {
			if (!strcmp(argv[i], kinds[k].name)) {
				kind = &kinds[k];
				is_kind = true;
			}
		}
		if (is_kind)
			continue;
		if (o.pattern)
			return cli_usage_error(&cmd_list, "unexpected argument '%s'", argv[i]);
		o.pattern = argv[i];
	}
	if (o.xen_numa_dump && kind->fn != list_vms)
		return cli_usage_error(&cmd_list, "--xen-numa-dump is for 'list vms'");
	if (o.xen_psr && kind->fn != list_vms)
		return cli_usage_error(&cmd_list, "--xen-psr is for 'list vms'");
	if (o.xentrace_s && kind->fn != list_vms)
		return cli_usage_error(&cmd_list, "--xentrace is for 'list vms'");
	if (o.all && kind->fn != list_events)
		return cli_usage_error(&cmd_list, "--all is for 'list events'");
	rc = kind->fn(&o, &out);
	if (!rc)
		rc = cli_write(&out);
	sbuf_release(&out);
	return rc;
}

const struct cmd cmd_list = {
	.name = "list",
	.args = "events pmus vms|",
	.fn = run_list,
	.summary = "list the events, PMUs and other things that can be measured here",
	.synopsis = "list [events|pmus|vms] [PATTERN] [--json|--raw-dump] [--root DIR]\n"
		    "list vms [--xen-numa-dump] [--xentrace[=SECS]] [--xen-psr] [--json]\n"
		    "list --encode SPEC... [--json] [--root DIR]",
	.description =
		"Without a KIND, or with 'events', lists every event name that 'vmmprof stat -e'\n"
		"accepts here: perf's generic hardware, software and cache names, the kernel's\n"
		"PMU aliases from sysfs (PMU/EVENT/, one name for all instances of an uncore\n"
		"PMU), the libpfm4 events of the PMUs libpfm4 detects, and tracepoints.  'pmus'\n"
		"lists the kernel's PMUs with their type, cpumask and number of formats and events.\n"
		"'vms' lists the VMs of this host: their vCPU threads with CPU, node and\n"
		"affinity, memory per node, and for QEMU its passthrough devices, its I/O threads\n"
		"(main loop, IOThreads, vhost workers: where each ran) and its virtual NUMA nodes\n"
		"(each one's vCPUs, memory backend, binding and pages per host node); docs/vms.md.\n"
		"\n"
		"PATTERN keeps the names that contain it (case-insensitive), or that match it\n"
		"when it holds glob characters (*, ?, [).\n"
		"\n"
		"With --encode, resolves each SPEC and prints the perf_event_attr it opens, as\n"
		"'perf stat -vv' shows it: PMU name, type, config, config1, config2, exclude\n"
		"bits, scale, unit and the CPUs an uncore event opens on.  A family such as\n"
		"uncore_imc/.../ shows one entry per instance.  Exit status 1 when a SPEC\n"
		"does not resolve.  The accepted syntaxes are described in docs/events.md.",
	.options = "-j, --json\tprint JSON instead of text\n"
		   "--root DIR\tread sysfs and tracefs under DIR (a fixture tree) instead of /\n"
		   "--encode\ttreat the arguments as event specs and print their encoding\n"
		   "--raw-dump\tthe names only, space-separated on one line, as perf list --raw-dump\n"
		   "\tprints them (for shell completion and scripts)\n"
		   "--all\tevents: also the generic hardware and cache events that cannot be\n"
		   "\topened here (no core PMU, or the CPU lacks them), marked so; without it they\n"
		   "\tare left out, as perf list leaves them out, and a note says how many and why\n"
		   "--xen-numa-dump\tlist vms on Xen: each domain's memory per node from Xen's 'u'\n"
		   "\tdebug key ('xl debug-keys u', read back from 'xl dmesg'); it writes to Xen's\n"
		   "\tconsole ring, so it is off unless asked for\n"
		   "--xentrace[=SECS]\tlist vms on Xen: trace Xen's scheduler for SECS (default 1)\n"
		   "\twith 'xentrace -e 0x00021000' and give each vCPU its exact run time per\n"
		   "\tpCPU; uses Xen's trace buffers as they are (tbuf_size= or 'xentrace -S')\n"
		   "--xen-psr\tlist vms on Xen with psr=cmt: each domain's LLC occupancy and memory\n"
		   "\tbandwidth (Intel CMT/MBM): attaches the domains with 'xl psr-cmt-attach', reads\n"
		   "\t'xl psr-cmt-show' and detaches what it attached",
	.examples = "vmmprof list\tevery event\n"
		    "vmmprof list events 'sched:*'\tthe scheduler tracepoints\n"
		    "vmmprof list pmus\tthe kernel's PMUs\n"
		    "vmmprof list --encode uncore_imc/cas_count_read/\tthe attr of every IMC instance\n"
		    "vmmprof list --encode --root tests/data/root/skx-2s cpu/event=0xd3,umask=0x04/\tencode for another machine",
};
