/* test_model_encodings.c - every event of every built-in model against the vendors' own tables */
#include "test.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/resolve.h"
#include "platform/platform.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

/*
 * The expected encodings are not written here: they are the facts in
 * tests/data/vendor-events/ (README.md there), extracted by
 * scripts/vendor-events.py from Intel's perfmon JSON, the kernel's
 * pmu-events JSON (AMD, Arm) and perf_event.h, with the kernel drivers'
 * format bits (formats.tsv) saying where each field goes.  models.tsv
 * names the vendor event each model event is.
 *
 * Every model event is resolved as vmmprof resolves it on the model's
 * fixture tree (the pairing of tests/tiers/models.sh) and compared with
 * the fact field by field (event code, unit mask, its extension, counter
 * mask, invert, edge, offcore-response MSR, filter register, PMU-specific
 * fields), then as whole config/config1 words (no stray bits).  A model
 * event without a models.tsv row or without its fact fails; a fact no
 * model uses is fine (facts are also kept for events the cost stage is
 * to use).  A second test holds every `match pmu` rule against the CPUs
 * libpfm4 4.13 gives that table (libpfm4-detect.tsv).
 */

/* A check reported at a line of a data file (models.tsv) rather than of this file. */
#define FCHECK(file, line, cond, ...)                                        \
	do { if (!(cond)) test_fail((file), (line), __VA_ARGS__); } while (0)

/* ---- tab-separated files with a header row, '#' comments ---- */

struct tsv {
	char *path;
	char *text;        /* owned; cells point into it */
	char **cols;       /* header names */
	size_t n_cols;
	char ***rows;      /* rows[i][j], n_cols cells each ("" when missing) */
	int *lines;        /* file line of each row */
	size_t n_rows;
};

static char **split_tabs(char *line, size_t *n)
{
	char **v = NULL;
	size_t k = 0;
	char *p = line;

	for (;;) {
		char *tab = strchr(p, '\t');

		v = xrealloc(v, (k + 1) * sizeof(*v));
		v[k++] = p;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	*n = k;
	return v;
}

static bool tsv_load(struct tsv *t, const char *path)
{
	struct vp_err err = { 0, "" };
	char *p, *line;
	int lineno = 0;

	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	if (vp_read_file("/", path, &t->text, NULL, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		return false;
	}
	for (p = t->text; p && *p; p = line) {
		char *nl = strchr(p, '\n');
		char **cells;
		size_t n, i;

		line = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		if (!*p || *p == '#')
			continue;
		cells = split_tabs(p, &n);
		if (!t->cols) {
			t->cols = cells;
			t->n_cols = n;
			continue;
		}
		if (n != t->n_cols)
			test_fail(t->path, lineno, "%zu cells, the header has %zu", n, t->n_cols);
		t->rows = xrealloc(t->rows, (t->n_rows + 1) * sizeof(*t->rows));
		t->lines = xrealloc(t->lines, (t->n_rows + 1) * sizeof(*t->lines));
		t->rows[t->n_rows] = xcalloc(t->n_cols, sizeof(char *));
		for (i = 0; i < t->n_cols; i++)
			t->rows[t->n_rows][i] = i < n ? cells[i] : (char *)"";
		t->lines[t->n_rows++] = lineno;
		free(cells);
	}
	if (!t->cols)
		test_fail(t->path, 1, "no header row");
	return t->cols != NULL;
}

static void tsv_free(struct tsv *t)
{
	size_t i;

	for (i = 0; i < t->n_rows; i++)
		free(t->rows[i]);
	free(t->rows);
	free(t->lines);
	free(t->cols);
	free(t->text);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* Column index by name; -1 (and a failure) when the file lacks it. */
static int tsv_col(const struct tsv *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n_cols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	test_fail(t->path ? t->path : "?", 1, "no column '%s'", name);
	return -1;
}

static const char *cell(const struct tsv *t, size_t row, int col)
{
	return col >= 0 ? t->rows[row][col] : "";
}

static bool in_list(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == wl && !strncmp(p, word, wl))
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || !strcmp(s, "-"))
		return false;
	*v = strtoull(s, &end, 0);
	return *end == '\0';
}

/* ---- sysfs-style format bits: "config:0-7,32-35", "config1:32-63" ---- */

struct bits {
	int word;          /* 0 config, 1 config1, 2 config2 */
	int lo[4], hi[4];
	int n;
};

static bool bits_parse(const char *s, struct bits *b)
{
	const char *p;

	memset(b, 0, sizeof(*b));
	if (!strncmp(s, "config2:", 8))
		b->word = 2, p = s + 8;
	else if (!strncmp(s, "config1:", 8))
		b->word = 1, p = s + 8;
	else if (!strncmp(s, "config:", 7))
		b->word = 0, p = s + 7;
	else
		return false;
	while (*p && b->n < 4) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			return false;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (lo < 0 || hi > 63 || hi < lo)
			return false;
		b->lo[b->n] = (int)lo;
		b->hi[b->n++] = (int)hi;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return false;
	}
	return *p == '\0';
}

static uint64_t range_mask(int lo, int hi)
{
	return (hi - lo == 63 ? ~0ULL : ((1ULL << (hi - lo + 1)) - 1)) << lo;
}

/* Put v into the bits (low bits of v first, as perf fills a format); false if v does not fit. */
static bool bits_pack(const struct bits *b, uint64_t v, uint64_t word[3])
{
	int i, shift = 0;

	for (i = 0; i < b->n; i++) {
		int w = b->hi[i] - b->lo[i] + 1;
		uint64_t part = shift < 64 ? v >> shift : 0;

		if (w < 64)
			part &= (1ULL << w) - 1;
		word[b->word] |= (part << b->lo[i]) & range_mask(b->lo[i], b->hi[i]);
		shift += w;
	}
	return shift >= 64 || (v >> shift) == 0;
}

static uint64_t bits_unpack(const struct bits *b, const uint64_t word[3])
{
	uint64_t v = 0;
	int i, shift = 0;

	for (i = 0; i < b->n; i++) {
		uint64_t part = (word[b->word] & range_mask(b->lo[i], b->hi[i])) >> b->lo[i];

		if (shift < 64)
			v |= part << shift;
		shift += b->hi[i] - b->lo[i] + 1;
	}
	return v;
}

/* ---- the facts ---- */

struct facts {
	struct tsv formats, models, detect;
	struct tsv *cpu;    /* one per CPU facts file */
	char **cpu_name;
	size_t n_cpu;
};

static const char *vdir(void)
{
	return test_data("vendor-events");
}

static void facts_load(struct facts *f)
{
	struct vp_err err = { 0, "" };
	char **names = NULL, *dir = xstrdup(vdir());
	size_t n = 0, i;

	memset(f, 0, sizeof(*f));
	if (vp_list_dir("/", dir, &names, &n, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		free(dir);
		return;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char *path = xasprintf("%s/%s", dir, names[i]);

		if (!strcmp(names[i], "formats.tsv"))
			tsv_load(&f->formats, path);
		else if (!strcmp(names[i], "models.tsv"))
			tsv_load(&f->models, path);
		else if (!strcmp(names[i], "libpfm4-detect.tsv"))
			tsv_load(&f->detect, path);
		else if (len > 4 && !strcmp(names[i] + len - 4, ".tsv")) {
			f->cpu = xrealloc(f->cpu, (f->n_cpu + 1) * sizeof(*f->cpu));
			f->cpu_name = xrealloc(f->cpu_name, (f->n_cpu + 1) * sizeof(*f->cpu_name));
			if (tsv_load(&f->cpu[f->n_cpu], path))
				f->cpu_name[f->n_cpu++] = xstrndup(names[i], len - 4);
			else
				tsv_free(&f->cpu[f->n_cpu]);
		}
		free(path);
	}
	vp_free_names(names, n);
	free(dir);
}

static void facts_free(struct facts *f)
{
	size_t i;

	for (i = 0; i < f->n_cpu; i++) {
		tsv_free(&f->cpu[i]);
		free(f->cpu_name[i]);
	}
	free(f->cpu);
	free(f->cpu_name);
	tsv_free(&f->formats);
	tsv_free(&f->models);
	tsv_free(&f->detect);
}

static const struct tsv *facts_cpu(const struct facts *f, const char *cpu)
{
	size_t i;

	for (i = 0; i < f->n_cpu; i++)
		if (!strcmp(f->cpu_name[i], cpu))
			return &f->cpu[i];
	return NULL;
}

/* The kernel's bits for field of pmu on cpu (formats.tsv), false when none. */
static bool format_of(const struct facts *f, const char *cpu, const char *pmu, const char *field, struct bits *b)
{
	const struct tsv *t = &f->formats;
	int cc = tsv_col(t, "cpus"), cp = tsv_col(t, "pmu"), cf = tsv_col(t, "field"), cb = tsv_col(t, "bits");
	size_t i;

	for (i = 0; i < t->n_rows; i++)
		if (in_list(cell(t, i, cc), cpu) && !strcmp(cell(t, i, cp), pmu) && !strcmp(cell(t, i, cf), field)) {
			if (!bits_parse(cell(t, i, cb), b)) {
				test_fail(t->path, t->lines[i], "bad bits '%s'", cell(t, i, cb));
				return false;
			}
			return true;
		}
	return false;
}

/* One fact as (field, value) pairs. */
struct fval {
	char field[32];
	uint64_t v;
};

struct fact {
	const char *event, *pmu, *source;
	const char *file;
	int line;
	struct fval f[16];
	size_t n;
};

static void fact_add(struct fact *ft, const char *field, uint64_t v)
{
	if (ft->n < VP_ARRAY_SIZE(ft->f)) {
		snprintf(ft->f[ft->n].field, sizeof(ft->f[ft->n].field), "%s", field);
		ft->f[ft->n++].v = v;
	}
}

static bool fact_find(const struct facts *f, const char *cpu, const char *event, struct fact *ft)
{
	const struct tsv *t = facts_cpu(f, cpu);
	size_t i;

	memset(ft, 0, sizeof(*ft));
	if (!t)
		return false;
	for (i = 0; i < t->n_rows; i++) {
		static const char *const num[] = { "code", "umask", "umask_ext", "cmask", "inv", "edge", "msr" };
		const char *filter, *extra;
		uint64_t v;
		size_t k;

		if (strcmp(cell(t, i, tsv_col(t, "event")), event))
			continue;
		ft->event = event;
		ft->pmu = cell(t, i, tsv_col(t, "pmu"));
		ft->source = cell(t, i, tsv_col(t, "source"));
		ft->file = t->path;
		ft->line = t->lines[i];
		for (k = 0; k < VP_ARRAY_SIZE(num); k++) {
			const char *s = cell(t, i, tsv_col(t, num[k]));

			if (parse_u64(s, &v))
				fact_add(ft, num[k], v);
			else if (strcmp(s, "-"))
				test_fail(t->path, t->lines[i], "%s: '%s' is not a number or '-'", num[k], s);
		}
		/* filter: "Filter1=0x40433" (the register the vendor names, and its value) */
		filter = cell(t, i, tsv_col(t, "filter"));
		if (strcmp(filter, "-")) {
			const char *eq = strchr(filter, '=');
			char name[32];
			size_t j, len = eq ? (size_t)(eq - filter) : 0;

			if (!eq || len >= sizeof(name) || !parse_u64(eq + 1, &v))
				test_fail(t->path, t->lines[i], "filter '%s' is not REGISTER=VALUE", filter);
			else {
				for (j = 0; j < len; j++)
					name[j] = (char)(filter[j] >= 'A' && filter[j] <= 'Z' ? filter[j] + 32 : filter[j]);
				name[len] = '\0';
				fact_add(ft, name, v);
			}
		}
		/* extra: "enallcores=1,sliceid=3" */
		extra = cell(t, i, tsv_col(t, "extra"));
		while (strcmp(extra, "-") && *extra) {
			size_t len = strcspn(extra, ","), nl = strcspn(extra, "=");
			char name[32], val[32];

			if (nl < len && len - nl - 1 < sizeof(val)) {
				memcpy(val, extra + nl + 1, len - nl - 1);
				val[len - nl - 1] = '\0';
			} else
				val[0] = '\0';
			if (nl >= len || nl >= sizeof(name) || !parse_u64(val, &v)) {
				test_fail(t->path, t->lines[i], "extra '%s' is not NAME=VALUE,...", extra);
				break;
			}
			memcpy(name, extra, nl);
			name[nl] = '\0';
			fact_add(ft, name, v);
			extra += len;
			if (*extra == ',')
				extra++;
		}
		return true;
	}
	return false;
}

/* ---- the comparison ---- */

/* Does the resolved PMU name fit the fact's PMU ("uncore_cha" -> "uncore_cha_3")? */
static bool pmu_fits(const char *got, const char *want)
{
	size_t n = strlen(want);

	if (!strcmp(want, "cpu") || !strcmp(want, "hardware") || !strcmp(want, "software"))
		return !strcmp(got, want);
	if (strncmp(got, want, n))
		return false;
	if (!got[n])
		return true;
	if (got[n] != '_' || !got[n + 1])
		return false;
	for (n++; got[n]; n++)
		if (got[n] < '0' || got[n] > '9')
			return false;
	return true;
}

/* The PMU type the kernel gives: generic and raw ids, else the fixture's sysfs type file. */
static long expected_type(const char *root, const char *fact_pmu, const char *got_pmu)
{
	struct vp_err err = { 0, "" };
	char *path, *text = NULL;
	long type = -1;

	if (!strcmp(fact_pmu, "hardware"))
		return PERF_TYPE_HARDWARE;
	if (!strcmp(fact_pmu, "software"))
		return PERF_TYPE_SOFTWARE;
	if (!strcmp(fact_pmu, "cpu"))
		return PERF_TYPE_RAW;
	path = xasprintf("/sys/bus/event_source/devices/%s/type", got_pmu);
	if (!vp_read_file(root, path, &text, NULL, &err))
		type = strtol(text, NULL, 10);
	free(text);
	free(path);
	return type;
}

/*
 * Compare one resolved event with the fact of one facts file: type, PMU,
 * then each field through the kernel's format, then whole words.
 */
static void check_against(const struct facts *f, const char *cpu, const struct fact *ft, const char *what,
			  const char *root, const struct evdesc *ev, int mline)
{
	const char *mfile = f->models.path;
	uint64_t want[3] = { 0, 0, 0 }, got[3];
	bool generic = !strcmp(ft->pmu, "hardware") || !strcmp(ft->pmu, "software");
	long type = expected_type(root, ft->pmu, ev->pmu);
	size_t i;

	got[0] = ev->attr.config;
	got[1] = ev->attr.config1;
	got[2] = ev->attr.config2;
	FCHECK(mfile, mline, pmu_fits(ev->pmu, ft->pmu), "%s: PMU %s, the vendor's %s (%s:%d) is on %s", what, ev->pmu,
		 ft->event, ft->file, ft->line, ft->pmu);
	FCHECK(mfile, mline, (long)ev->attr.type == type, "%s: type %u, expected %ld for PMU %s", what, ev->attr.type, type,
		 ev->pmu);
	if (generic) {
		for (i = 0; i < ft->n; i++)
			if (!strcmp(ft->f[i].field, "code"))
				want[0] = ft->f[i].v;
	} else {
		for (i = 0; i < ft->n; i++) {
			struct bits b;

			if (!format_of(f, cpu, ft->pmu, ft->f[i].field, &b)) {
				/* a zero field the kernel has no bits for sets nothing */
				FCHECK(mfile, mline, ft->f[i].v == 0,
					 "%s: the vendor's %s sets %s=0x%llx, which formats.tsv places nowhere on %s/%s",
					 what, ft->event, ft->f[i].field, (unsigned long long)ft->f[i].v, cpu, ft->pmu);
				continue;
			}
			FCHECK(mfile, mline, bits_pack(&b, ft->f[i].v, want), "%s: %s=0x%llx does not fit its bits", what,
				 ft->f[i].field, (unsigned long long)ft->f[i].v);
			FCHECK(mfile, mline, bits_unpack(&b, got) == ft->f[i].v,
				 "%s: %s is 0x%llx, the vendor's %s has 0x%llx (%s:%d, %s)", what, ft->f[i].field,
				 (unsigned long long)bits_unpack(&b, got), ft->event, (unsigned long long)ft->f[i].v,
				 ft->file, ft->line, ft->source);
		}
	}
	for (i = 0; i < 3; i++)
		FCHECK(mfile, mline, got[i] == want[i], "%s: config%s 0x%llx, the vendor's %s encodes 0x%llx (%s:%d)", what,
			 i == 0 ? "" : i == 1 ? "1" : "2", (unsigned long long)got[i], ft->event,
			 (unsigned long long)want[i], ft->file, ft->line);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * The fixture of a model as tests/tiers/models.sh pairs them: its lines
 * "	a | b) echo FIXTURE ;;".  Returns a heap string or NULL.
 */
static char *fixture_of(const char *sh, const char *model)
{
	const char *line = sh;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *l = xstrndup(line, len), *paren = strstr(l, ") echo "), *res = NULL;

		if (paren && l[0] == '\t' && l[1] != '*') {
			char *names = xstrndup(l + 1, (size_t)(paren - l - 1)), *tok, *save = NULL;

			for (tok = strtok_r(names, " |", &save); tok; tok = strtok_r(NULL, " |", &save))
				if (!strcmp(tok, model))
					res = xstrndup(paren + 7, strcspn(paren + 7, " ;"));
			free(names);
		}
		free(l);
		if (res)
			return res;
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Check every event of one model against its vendor facts; count the events checked. */
static size_t check_model(const struct facts *f, const char *path, const char *fx)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	char *dir = xstrdup(test_data("../../models"));
	const char *dirs[1] = { dir };
	char *rel = xasprintf("root/%s", fx);
	char *root = xstrdup(test_data(rel));
	struct platform plat;
	struct pmu_db *db = NULL;
	struct model_machine mm;
	bool plat_ok = false;
	const struct tsv *mt = &f->models;
	int cfile = tsv_col(mt, "file"), cname = tsv_col(mt, "name"), cfacts = tsv_col(mt, "facts"),
	    cev = tsv_col(mt, "event");
	size_t i, checked = 0;

	diags_init(&d);
	if (model_load(&m, path, dirs, 1, &d, &err)) {
		test_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
		goto out;
	}
	plat_ok = platform_probe(&plat, root, &err) == 0;
	CHECK(plat_ok);
	if (pmu_db_new(&db, root, &err)) {
		test_fail(__FILE__, __LINE__, "%s: pmu_db_new: %s", fx, err.msg);
		goto out;
	}
	memset(&mm, 0, sizeof(mm));
	mm.db = db;
	mm.root = root;
	mm.plat = plat_ok ? &plat : NULL;
	/* as `model check --root` does: the root's CPU, else the model's match rule */
	if (plat_ok && plat.cpu.pfm_pmu[0])
		snprintf(mm.pfm_table, sizeof(mm.pfm_table), "%s", plat.cpu.pfm_pmu);
	else if (model_pfm_table(m))
		snprintf(mm.pfm_table, sizeof(mm.pfm_table), "%s", model_pfm_table(m));
	for (i = 0; i < m->n_inputs; i++) {
		const struct model_input *in = &m->inputs[i];
		const char *file = base_name(in->loc.file);
		char *reason = NULL, *what, *list, *tok, *save = NULL;
		struct evdesc_list l;
		size_t r;
		int ret;

		if (in->kind == INPUT_SOURCE)
			continue;
		for (r = 0; r < mt->n_rows; r++)
			if (!strcmp(cell(mt, r, cfile), file) && !strcmp(cell(mt, r, cname), in->name))
				break;
		if (r == mt->n_rows) {
			test_fail(in->loc.file, in->loc.line,
				  "event '%s' = %s (model %s) has no row in tests/data/vendor-events/models.tsv: "
				  "name the vendor event it is, and add its fact", in->name, in->spec, m->name);
			continue;
		}
		what = xasprintf("%s:%d: %s = %s (model %s on %s)", file, in->loc.line, in->name, in->spec, m->name, fx);
		evdesc_list_init(&l);
		ret = model_resolve_event(&mm, in->spec, (int)i, &l, &reason);
		FCHECK(mt->path, mt->lines[r], ret == 0 && l.n > 0, "%s does not resolve: %s", what,
		       reason ? reason : "");
		list = xstrdup(cell(mt, r, cfacts));
		for (tok = strtok_r(list, ",", &save); !ret && l.n && tok; tok = strtok_r(NULL, ",", &save)) {
			struct fact ft;
			size_t k;

			if (!fact_find(f, tok, cell(mt, r, cev), &ft)) {
				test_fail(f->models.path, mt->lines[r], "%s: no fact '%s' in %s.tsv", what,
					  cell(mt, r, cev), tok);
				continue;
			}
			check_against(f, tok, &ft, what, root, &l.v[0], mt->lines[r]);
			/* every other instance (uncore boxes) encodes as the first */
			for (k = 1; k < l.n; k++)
				FCHECK(mt->path, mt->lines[r],
				       l.v[k].attr.config == l.v[0].attr.config &&
					       l.v[k].attr.config1 == l.v[0].attr.config1,
				       "%s: instance %s encodes config 0x%llx config1 0x%llx, %s 0x%llx 0x%llx", what,
				       l.v[k].pmu, (unsigned long long)l.v[k].attr.config,
				       (unsigned long long)l.v[k].attr.config1, l.v[0].pmu,
				       (unsigned long long)l.v[0].attr.config, (unsigned long long)l.v[0].attr.config1);
		}
		checked++;
		free(list);
		free(what);
		free(reason);
		evdesc_list_release(&l);
	}
out:
	if (plat_ok)
		platform_release(&plat);
	pmu_db_free(db);
	model_free(m);
	diags_release(&d);
	free(root);
	free(rel);
	free(dir);
	return checked;
}

TEST(model_builtin_encodings_match_vendor_tables)
{
	struct vp_err err = { 0, "" };
	char **names = NULL, *sh = NULL;
	size_t n = 0, i, models = 0, events = 0;
	char *dir = xstrdup(test_data("../../models"));
	struct facts f;

	facts_load(&f);
	CHECK(f.n_cpu >= 12);
	CHECK(f.models.n_rows > 100);
	if (vp_read_file("/", test_data("../tiers/models.sh"), &sh, NULL, &err) ||
	    vp_list_dir("/", dir, &names, &n, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char *name, *fx, *path;

		if (len < 7 || strcmp(names[i] + len - 6, ".model"))
			continue;
		name = xstrndup(names[i], len - 6);
		fx = fixture_of(sh, name);
		path = xasprintf("%s/%s", dir, names[i]);
		if (!fx)
			test_fail(__FILE__, __LINE__, "models.sh pairs no fixture with model %s", name);
		else
			events += check_model(&f, path, fx);
		models++;
		free(fx);
		free(path);
		free(name);
	}
	CHECK(models >= 12);
	CHECK(events >= 150);
out:
	vp_free_names(names, n);
	free(sh);
	free(dir);
	facts_free(&f);
}

/* The checker itself: the SKX CHA filter and a multi-range AMD event code, packed by hand. */
TEST(vendor_fact_packing_by_hand)
{
	struct bits b;
	uint64_t w[3] = { 0, 0, 0 };

	/* FILTER1 = config1 >> 32 (uncore_snbep.c hswep_cbox_enable_event): 0x40433 -> 0x4043300000000 */
	CHECK(bits_parse("config1:32-63", &b));
	CHECK(bits_pack(&b, 0x40433, w));
	CHECK_U64(w[1], 0x4043300000000ULL);
	CHECK_U64(bits_unpack(&b, w), 0x40433);
	/* AMD DF event 0x1c7 in config:0-7,32-35,59-60: 0xc7 low, 0x1 at bit 32 */
	w[0] = w[1] = 0;
	CHECK(bits_parse("config:0-7,32-35,59-60", &b));
	CHECK(bits_pack(&b, 0x1c7, w));
	CHECK_U64(w[0], 0xc7ULL | 1ULL << 32);
	CHECK_U64(bits_unpack(&b, w), 0x1c7);
	/* a value too wide for its bits is refused */
	w[0] = 0;
	CHECK(bits_parse("config:8-15", &b));
	CHECK(!bits_pack(&b, 0x1ff, w));
}

/* Which rule claims family/model: a `match cpu` rule of the same model with a range holding it. */
static bool cpu_rules_claim(const struct model *m, const char *vendor, int family, int model)
{
	size_t i, k;

	for (i = 0; i < m->n_matches; i++) {
		const struct model_match *mt = &m->matches[i];

		if (mt->kind != MATCH_CPU || strcmp(mt->vendor, vendor) || (mt->family >= 0 && mt->family != family))
			continue;
		if (!mt->n_models)
			return true;
		for (k = 0; k < mt->n_models; k++)
			if (model >= mt->models[k][0] && model <= mt->models[k][1])
				return true;
	}
	return false;
}

TEST(model_match_pmu_rules_claim_only_their_cpus)
{
	struct vp_err err = { 0, "" };
	char **names = NULL, *dir = xstrdup(test_data("../../models"));
	const char *dirs[1] = { dir };
	size_t n = 0, i, rules = 0;
	struct facts f;
	int ct, cv, cf, cm;

	facts_load(&f);
	ct = tsv_col(&f.detect, "table");
	cv = tsv_col(&f.detect, "vendor");
	cf = tsv_col(&f.detect, "family");
	cm = tsv_col(&f.detect, "models");
	if (vp_list_dir("/", dir, &names, &n, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]), j, p, r;
		char *path = xasprintf("%s/%s", dir, names[i]);
		struct model *m = NULL;
		struct diags d;

		diags_init(&d);
		if (len > 6 && !strcmp(names[i] + len - 6, ".model") && !model_load(&m, path, dirs, 1, &d, &err)) {
			for (j = 0; j < m->n_matches; j++) {
				const struct model_match *mt = &m->matches[j];

				for (p = 0; mt->kind == MATCH_PMU && p < mt->n_pmus; p++) {
					bool known = false;

					rules++;
					for (r = 0; r < f.detect.n_rows; r++) {
						const char *s = cell(&f.detect, r, cm);
						int family = (int)strtol(cell(&f.detect, r, cf), NULL, 0);

						if (strcmp(cell(&f.detect, r, ct), mt->pmus[p]))
							continue;
						known = true;
						while (*s) {
							char *end;
							long lo = strtol(s, &end, 0), hi = lo, x;

							if (*end == '-')
								hi = strtol(end + 1, &end, 0);
							for (x = lo; x <= hi; x++)
								FCHECK(mt->loc.file, mt->loc.line,
								       cpu_rules_claim(m, cell(&f.detect, r, cv), family, (int)x),
								       "`match pmu %s` gives model %s to %s family 0x%x model 0x%lx "
								       "(libpfm4 4.13 detects table %s there: %s), which its "
								       "`match cpu` rules do not claim",
								       mt->pmus[p], m->name, cell(&f.detect, r, cv),
								       (unsigned)family, x, mt->pmus[p],
								       cell(&f.detect, r, tsv_col(&f.detect, "source")));
							s = *end == ',' ? end + 1 : end;
							if (end == s && *s)
								break;
						}
					}
					FCHECK(mt->loc.file, mt->loc.line, known,
					       "`match pmu %s`: no row in tests/data/vendor-events/libpfm4-detect.tsv",
					       mt->pmus[p]);
				}
			}
		}
		model_free(m);
		diags_release(&d);
		free(path);
	}
	CHECK(rules >= 7);
out:
	vp_free_names(names, n);
	free(dir);
	facts_free(&f);
}
