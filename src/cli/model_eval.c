/* model_eval.c - `vmmprof model eval` and `model test`: a model on given counts, and scenario files of expected costs */
#include "cli/model_eval.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "collect/counts.h"
#include "model/expr.h"
#include "model/resolve.h"
#include "platform/platform.h"
#include "pmu/event.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/jsonread.h"
#include "util/sbuf.h"
#include "util/vocab.h"

/* ---- what the counts are evaluated on ---- */

struct setup {
	const char *root;
	struct platform plat;
	bool plat_ok;
	struct platform view;      /* plat's shallow copy with the #constants set: only its
				      topology counts are read (model_env_fill()), never released */
	struct pmu_db *db;
	char db_error[VP_ERR_MSG_MAX];
};

static int *const_field(struct platform *p, int c)
{
	switch (c) {
	case EC_NUM_CPUS: return &p->topo.n_cpus;
	case EC_NUM_NODES: return &p->topo.n_nodes;
	case EC_NUM_PACKAGES: return &p->topo.n_packages;
	default: return NULL;
	}
}

static void setup_open(struct setup *s, const char *root)
{
	struct vp_err err = { 0, "" };

	memset(s, 0, sizeof(*s));
	s->root = root;
	/* the counts come from a model's CPU, rarely this one: let libpfm4 encode
	 * the tables of CPUs it does not see (read when libpfm4 initializes) */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	s->plat_ok = platform_probe(&s->plat, root, &err) == 0;
	if (s->plat_ok) {
		s->view = s->plat;
	}
	vp_err_clear(&err);
	if (pmu_db_new(&s->db, root, &err)) {
		s->db = NULL;
		snprintf(s->db_error, sizeof(s->db_error), "%s", err.msg);
	}
}

static void setup_close(struct setup *s)
{
	if (s->plat_ok)
		platform_release(&s->plat);
	pmu_db_free(s->db);
}

/* The probed topology again (a case's #constants do not outlive it). */
static void setup_reset(struct setup *s)
{
	if (s->plat_ok)
		s->view = s->plat;
}

/* "cal.loaded=BW:LAT,BW:LAT": the loaded-latency curve. */
static int set_loaded(struct calib *cal, const char *v, const char *where, struct vp_err *err)
{
	const char *p = v;
	size_t n = 0;

	free(cal->loaded);
	cal->loaded = xcalloc(strlen(v) / 2 + 2, sizeof(*cal->loaded));
	cal->n_loaded = 0;
	while (*p) {
		char *end;
		double bw = strtod(p, &end), lat;

		if (end == p || *end != ':')
			return vp_err_set(err, VP_EINVAL, "%s'cal.loaded=%s': expected BW:LAT,BW:LAT... "
					  "(GB/s:ns)", where, v);
		p = end + 1;
		lat = strtod(p, &end);
		if (end == p || (*end && *end != ',') || !(bw >= 0) || !(lat > 0) || !isfinite(bw) ||
		    !isfinite(lat))
			return vp_err_set(err, VP_EINVAL, "%s'cal.loaded=%s': expected BW:LAT,BW:LAT... "
					  "(GB/s:ns, latency above 0)", where, v);
		cal->loaded[n].threads = (int)n;
		cal->loaded[n].bw_gbs = bw;
		cal->loaded[n].lat_ns = lat;
		n++;
		p = *end ? end + 1 : end;
	}
	cal->n_loaded = n;
	return 0;
}

/* One --set NAME=VALUE: cal.NAME, cal.loaded, or #CONST. where prefixes messages. */
static int apply_set(struct setup *s, struct calib *cal, const char *arg, const char *where,
		     struct vp_err *err)
{
	const char *eq = strchr(arg, '=');
	char *name, *end;
	double v;
	int k, ret = 0;

	if (!eq || eq == arg)
		return vp_err_set(err, VP_EINVAL, "%s'--set %s': expected cal.NAME=VALUE or "
				  "#CONST=VALUE", where, arg);
	name = xstrndup(arg, (size_t)(eq - arg));
	if (!strcmp(name, "cal.loaded")) {
		ret = set_loaded(cal, eq + 1, where, err);
		goto out;
	}
	errno = 0;
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || errno || !isfinite(v) || v < 0) {
		ret = vp_err_set(err, VP_EINVAL, "%s'%s': '%s' is not a value of 0 or more", where,
				 name, eq + 1);
		goto out;
	}
	if (!strncmp(name, "cal.", 4)) {
		k = calib_key_lookup(name);
		if (k < 0) {
			ret = vp_err_set(err, VP_ENOTFOUND, "%sunknown calibration value '%s' (see "
					 "docs/calibration.md)", where, name);
			goto out;
		}
		calib_set(cal, (enum calib_key)k, v, v > 0 ? "" : "set to 0");
		goto out;
	}
	if (name[0] == '#') {
		for (k = 0; k < EC_N && strcmp(name + 1, expr_const_name((enum expr_const)k)); k++)
			;
		if (k == EC_N) {
			ret = vp_err_set(err, VP_ENOTFOUND, "%sunknown constant '%s' (#num_cpus, "
					 "#num_nodes, #num_packages, #smt_on)", where, name);
			goto out;
		}
		if (k == EC_ROW_NODES) {
			ret = vp_err_set(err, VP_EINVAL, "%s'#row_nodes' is the row's own (1 on a node "
					 "row, #num_nodes on a vCPU row): set #num_nodes", where);
			goto out;
		}
		if (!s->plat_ok) {
			ret = vp_err_set(err, VP_EUNSUPP, "%s'%s': the platform of '%s' could not be read, "
					 "so there is no topology to change", where, name, s->root);
			goto out;
		}
		if (v != floor(v) || v > 1e6 || (k != EC_SMT_ON && v < 1)) {
			ret = vp_err_set(err, VP_EINVAL, "%s'%s': '%s' is not a count", where, name,
					 eq + 1);
			goto out;
		}
		s->view.topo.known = true;
		if (k == EC_SMT_ON)
			s->view.topo.smt_on = v != 0;
		else
			*const_field(&s->view, k) = (int)v;
		goto out;
	}
	ret = vp_err_set(err, VP_EINVAL, "%s'--set %s': expected cal.NAME=VALUE or #CONST=VALUE",
			 where, arg);
out:
	free(name);
	return ret;
}

static const char *pfm_table_for(const struct setup *s, const struct model *m)
{
	const char *t = model_pfm_table(m);

	if (t)
		return t;
	return s->plat_ok && s->plat.cpu.pfm_pmu[0] ? s->plat.cpu.pfm_pmu : NULL;
}

static int evaluate(struct setup *s, const struct model *m, const struct calib *cal,
		    const struct counts_in *c, bool node_row, struct sbuf *json, struct vp_err *err)
{
	struct counts_eval_opts eo;

	memset(&eo, 0, sizeof(eo));
	eo.m = m;
	eo.db = s->db;
	eo.root = s->root;
	eo.pfm_table = pfm_table_for(s, m);
	eo.plat = s->plat_ok ? &s->view : NULL;
	eo.cal = cal;
	eo.node_row = node_row;
	return counts_eval(&eo, c, json, err);
}

/* ---- eval ---- */

int model_eval_run(struct model_registry *r, const struct model_eval_opts *o, const char *name)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	struct counts_in c;
	struct calib cal;
	struct setup s;
	struct sbuf json = SBUF_INIT, text = SBUF_INIT;
	char *buf = NULL;
	size_t len = 0, i;
	int rc = 0;

	if (!o->counts && !o->perf_csv)
		return cli_usage_error(&cmd_model, "'model eval' needs --counts FILE or --perf-csv FILE");
	if (o->row && strcmp(o->row, "vcpu") && strcmp(o->row, "node"))
		return cli_usage_error(&cmd_model, "--row takes vcpu or node, not '%s'", o->row);
	diags_init(&d);
	counts_in_init(&c);
	calib_init(&cal);
	setup_open(&s, o->root);
	if (model_registry_open(r, name, &m, &d, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if (o->calib && calib_load(&cal, o->calib, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	for (i = 0; i < o->n_sets; i++)
		if (apply_set(&s, &cal, o->sets[i], "", &err)) {
			rc = cli_error(&err);
			goto out;
		}
	if (o->counts) {
		if (vp_read_regular(o->counts, VP_DOC_MAX_BYTES, &buf, &len, &err) ||
		    counts_parse_json(&c, buf, len, o->counts, &err)) {
			rc = cli_error(&err);
			goto out;
		}
		free(buf);
		buf = NULL;
	}
	if (o->perf_csv) {
		if (vp_read_regular(o->perf_csv, VP_DOC_MAX_BYTES, &buf, &len, &err) ||
		    counts_parse_perf_csv(&c.row, &c.duration_s, buf, len, o->perf_csv, &err)) {
			rc = cli_error(&err);
			goto out;
		}
	}
	if (isfinite(o->duration_s))
		c.duration_s = o->duration_s;
	if (isfinite(o->ghz))
		c.cpu_ghz = o->ghz;
	if (!s.db)
		cli_warn("no event database on '%s' (%s): counts bind by the model's spelling only",
			 o->root, s.db_error);
	if (evaluate(&s, m, &cal, &c, o->row && !strcmp(o->row, "node"), &json, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if (o->json) {
		rc = cli_write(&json);
	} else {
		struct jv doc;

		if (jv_parse(&doc, json.buf, json.len, "model eval", &err)) {
			rc = cli_error(&err);
			goto out;
		}
		rc = counts_eval_text(&doc, &text, &err) ? cli_error(&err) : cli_write(&text);
		jv_release(&doc);
	}
out:
	free(buf);
	sbuf_release(&json);
	sbuf_release(&text);
	setup_close(&s);
	calib_release(&cal);
	counts_in_release(&c);
	model_free(m);
	diags_release(&d);
	return rc;
}

/* ---- test ---- */

struct range {
	double lo, hi;             /* -inf / +inf when open */
	bool na_ok;                /* "or n/a" */
};

struct tcase {
	char *name;
	int line;
	bool node_row;
	struct counts_in c;
	char **sets;
	int *set_line;
	size_t n_sets;
	char **expects;            /* the expect lines, without "expect" */
	int *expect_line;
	size_t n_expects;
};

static void tcase_release(struct tcase *t)
{
	size_t i;

	free(t->name);
	counts_in_release(&t->c);
	for (i = 0; i < t->n_sets; i++)
		free(t->sets[i]);
	for (i = 0; i < t->n_expects; i++)
		free(t->expects[i]);
	free(t->sets);
	free(t->set_line);
	free(t->expects);
	free(t->expect_line);
	memset(t, 0, sizeof(*t));
}

static char *next_word(char **p)
{
	char *w;

	while (isspace((unsigned char)**p))
		(*p)++;
	if (!**p)
		return NULL;
	w = *p;
	while (**p && !isspace((unsigned char)**p))
		(*p)++;
	if (**p)
		*(*p)++ = '\0';
	return w;
}

static int parse_num(const char *s, double *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	*v = strtod(s, &end);
	return *end || !isfinite(*v) ? -1 : 0;
}

/* "LO..HI", "..HI", "LO..", optionally followed by "or n/a" in rest */
static int parse_range(const char *s, char *rest, struct range *r)
{
	const char *dots = s ? strstr(s, "..") : NULL;
	char *lo, *w;

	if (!dots)
		return -1;
	r->lo = -INFINITY;
	r->hi = INFINITY;
	r->na_ok = false;
	lo = xstrndup(s, (size_t)(dots - s));
	if (*lo && parse_num(lo, &r->lo)) {
		free(lo);
		return -1;
	}
	free(lo);
	if (dots[2] && parse_num(dots + 2, &r->hi))
		return -1;
	w = next_word(&rest);
	if (w) {
		if (strcmp(w, "or") || !(w = next_word(&rest)) || strcmp(w, "n/a") || next_word(&rest))
			return -1;
		r->na_ok = true;
	}
	return 0;
}

static bool in_range(const struct range *r, double v)
{
	if (isnan(v))
		return r->na_ok;
	return v >= r->lo - 1e-9 && v <= r->hi + 1e-9;
}

static void range_text(const struct range *r, struct sbuf *sb)
{
	if (isfinite(r->lo))
		sbuf_addf(sb, "%g", r->lo);
	sbuf_addstr(sb, "..");
	if (isfinite(r->hi))
		sbuf_addf(sb, "%g", r->hi);
	if (r->na_ok)
		sbuf_addstr(sb, " or n/a");
}

static const struct jv *find_named(const struct jv *arr, const char *key, const char *name)
{
	size_t i;

	for (i = 0; arr && i < arr->n; i++) {
		const char *s = jv_str(&arr->items[i], key);

		if (s && !strcmp(s, name))
			return &arr->items[i];
	}
	return NULL;
}

static int factor_of(const char *s)
{
	int f;

	for (f = 0; s && f < FACTOR_N; f++)
		if (!strcmp(s, factor_name((enum factor_id)f)))
			return f;
	return -1;
}

static void vfail(struct sbuf *why, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void vfail(struct sbuf *why, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	sbuf_addf(why, "     %s:%d: ", file, line);
	va_start(ap, fmt);
	sbuf_vaddf(why, fmt, ap);
	va_end(ap);
	sbuf_addch(why, '\n');
}

static double cost_pct_of(const struct jv *row, int f)
{
	const struct jv *x = find_named(jv_arr(row, "factors"), "factor", factor_name((enum factor_id)f));

	return x ? jv_num(x, "cost_pct") : NAN;
}

/* The checks every case gets: no negative cost, the costs and the
 * remainder within the budget, the budget within the cycles. */
static void check_invariants(const struct jv *row, const char *file, int line, struct sbuf *why)
{
	const struct jv *cost = jv_get(row, "cost");
	double sum = 0, budget, rem, cycles = jv_num(row, "cycles");
	int f;

	if (!cost)
		return;
	budget = jv_num(cost, "budget_cycles");
	rem = jv_num(cost, "remainder_cycles");
	for (f = 0; f < FACTOR_N; f++) {
		const struct jv *x = find_named(jv_arr(row, "factors"), "factor",
						factor_name((enum factor_id)f));
		double c = x ? jv_num(x, "cost_cycles") : NAN;

		if (c < 0)
			vfail(why, file, line, "invariant: cost %s is negative (%g cycles)",
			      factor_name((enum factor_id)f), c);
		if (isfinite(c))
			sum += c;
	}
	if (rem < 0)
		vfail(why, file, line, "invariant: the remainder is negative (%g cycles)", rem);
	if (isfinite(rem))
		sum += rem;
	if (sum > 0 && !(sum <= budget * (1 + 1e-9) + 1e-6))
		vfail(why, file, line, "invariant: costs and remainder %g cycles exceed the budget %g",
		      sum, budget);
	if (isfinite(budget) && !(budget <= cycles * (1 + 1e-9) + 1e-6))
		vfail(why, file, line, "invariant: the budget %g cycles exceeds the cycles %g", budget,
		      cycles);
}

/* One `expect` line against the document. */
static void check_expect(const struct jv *doc, const struct tcase *t, char *text, const char *file,
			 int line, struct sbuf *why)
{
	const struct jv *row = jv_get(doc, t->node_row ? "node" : "vcpu");
	char *p = text, *what = next_word(&p), *a1 = next_word(&p);
	struct range r;
	struct sbuf rs = SBUF_INIT;
	int f = factor_of(a1);

	if (!row || row->type != JV_OBJ) {
		vfail(why, file, line, "no %s row was evaluated", t->node_row ? "node" : "vcpu");
		return;
	}
	if (!what) {
		vfail(why, file, line, "empty 'expect'");
	} else if (!strcmp(what, "cost") || !strcmp(what, "score")) {
		const struct jv *x = find_named(jv_arr(row, "factors"), "factor", a1 ? a1 : "");
		const char *key = !strcmp(what, "cost") ? "cost_pct" : "score";
		double v;

		char *rw = next_word(&p);

		v = x ? jv_num(x, key) : NAN;
		if (f >= 0 && rw && !strcmp(rw, "n/a") && !next_word(&p)) {
			if (!isnan(v))
				vfail(why, file, line, "%s %s is %.6g, expected n/a", what, a1, v);
			goto out;
		}
		if (f < 0 || parse_range(rw, p, &r)) {
			vfail(why, file, line, "expected 'expect %s FACTOR LO..HI [or n/a]' or 'expect "
			      "%s FACTOR n/a'", what, what);
			goto out;
		}
		range_text(&r, &rs);
		if (!in_range(&r, v)) {
			const char *cw = x ? jv_str(x, !strcmp(what, "cost") ? "cost_why" : "score_why") : NULL;

			if (isnan(v))
				vfail(why, file, line, "%s %s is n/a (%s), expected %s", what, a1,
				      cw ? cw : "no reason given", sbuf_str(&rs));
			else
				vfail(why, file, line, "%s %s is %.6g%s, expected %s", what, a1, v,
				      !strcmp(what, "cost") ? " %" : "", sbuf_str(&rs));
		}
	} else if (!strcmp(what, "severity") || !strcmp(what, "quality") ||
		   !strcmp(what, "cost_quality")) {
		const struct jv *x = find_named(jv_arr(row, "factors"), "factor", a1 ? a1 : "");
		const char *want = next_word(&p), *got = x ? jv_str(x, what) : NULL;

		if (f < 0 || !want || next_word(&p))
			vfail(why, file, line, "expected 'expect %s FACTOR NAME'", what);
		else if (!got || strcmp(got, want))
			vfail(why, file, line, "%s of %s is %s, expected %s", what, a1,
			      got ? got : "absent", want);
	} else if (!strcmp(what, "why")) {
		/* the rest of the line is a text the score's or the cost's reason holds */
		const struct jv *x = find_named(jv_arr(row, "factors"), "factor", a1 ? a1 : "");
		const char *sw = x ? jv_str(x, "score_why") : NULL, *cw = x ? jv_str(x, "cost_why") : NULL;

		while (isspace((unsigned char)*p))
			p++;
		if (f < 0 || !*p)
			vfail(why, file, line, "expected 'expect why FACTOR TEXT'");
		else if (!(sw && strstr(sw, p)) && !(cw && strstr(cw, p)))
			vfail(why, file, line, "no reason of %s says '%s' (score: %s; cost: %s)", a1, p,
			      sw ? sw : "none", cw ? cw : "none");
	} else if (!strcmp(what, "na")) {
		double v = f >= 0 ? cost_pct_of(row, f) : NAN;

		if (f < 0 || next_word(&p))
			vfail(why, file, line, "expected 'expect na FACTOR'");
		else if (!isnan(v))
			vfail(why, file, line, "cost %s is %.6g %%, expected n/a", a1, v);
	} else if (!strcmp(what, "first")) {
		double v = f >= 0 ? cost_pct_of(row, f) : NAN;
		int g;

		if (f < 0 || next_word(&p)) {
			vfail(why, file, line, "expected 'expect first FACTOR'");
			goto out;
		}
		if (isnan(v))
			vfail(why, file, line, "cost %s is n/a, expected it first", a1);
		for (g = 0; g < FACTOR_N && !isnan(v); g++)
			if (g != f && cost_pct_of(row, g) >= v)
				vfail(why, file, line, "cost %s %.6g %% is not below %s %.6g %%",
				      factor_name((enum factor_id)g), cost_pct_of(row, g), a1, v);
	} else if (!strcmp(what, "rank")) {
		char *prev = a1, *op, *next;

		if (f < 0) {
			vfail(why, file, line, "expected 'expect rank FACTOR > FACTOR ...'");
			goto out;
		}
		while ((op = next_word(&p))) {
			int g;
			double vp, vn;

			next = next_word(&p);
			g = factor_of(next);
			if (strcmp(op, ">") || g < 0) {
				vfail(why, file, line, "expected 'expect rank FACTOR > FACTOR ...'");
				goto out;
			}
			vp = cost_pct_of(row, factor_of(prev));
			vn = cost_pct_of(row, g);
			/* an n/a cost ranks below every number */
			if (isnan(vp) || !(isnan(vn) || vp > vn))
				vfail(why, file, line, "cost %s (%.6g %%) does not rank above %s (%.6g %%)",
				      prev, vp, next, vn);
			prev = next;
		}
	} else if (!strcmp(what, "remainder") || !strcmp(what, "budget")) {
		const struct jv *cost = jv_get(row, "cost");
		double v = cost ? jv_num(cost, !strcmp(what, "budget") ? "budget_pct" : "remainder_pct") : NAN;

		if (a1 && !strcmp(a1, "n/a") && !next_word(&p)) {
			if (!isnan(v))
				vfail(why, file, line, "%s is %.6g %% of cycles, expected n/a", what, v);
			goto out;
		}
		if (parse_range(a1, p, &r)) {
			vfail(why, file, line, "expected 'expect %s LO..HI [or n/a]' (%% of cycles)", what);
			goto out;
		}
		range_text(&r, &rs);
		if (!in_range(&r, v))
			vfail(why, file, line, "%s is %.6g %% of cycles, expected %s", what, v, sbuf_str(&rs));
	} else if (!strcmp(what, "anchor")) {
		const struct jv *cost = jv_get(row, "cost");
		const char *got = cost ? jv_str(cost, "anchor") : NULL;

		if (!a1 || next_word(&p))
			vfail(why, file, line, "expected 'expect anchor measured|estimated|none'");
		else if (!got || strcmp(got, a1))
			vfail(why, file, line, "the anchor is %s, expected %s", got ? got : "absent", a1);
	} else if (!strcmp(what, "metric")) {
		const struct jv *x = find_named(jv_arr(row, "metrics"), "name", a1 ? a1 : "");
		char *rw = next_word(&p);
		double v = x ? jv_num(x, "value") : NAN;

		if (!x) {
			vfail(why, file, line, "the model has no metric '%s'", a1 ? a1 : "");
			goto out;
		}
		if (rw && !strcmp(rw, "n/a")) {
			if (!isnan(v))
				vfail(why, file, line, "metric %s is %.6g, expected n/a", a1, v);
			goto out;
		}
		if (parse_range(rw, p, &r)) {
			vfail(why, file, line, "expected 'expect metric NAME LO..HI [or n/a]' or "
			      "'expect metric NAME n/a'");
			goto out;
		}
		range_text(&r, &rs);
		if (!in_range(&r, v))
			vfail(why, file, line, "metric %s is %.6g, expected %s", a1, v, sbuf_str(&rs));
	} else if (!strcmp(what, "unused")) {
		const struct jv *u = jv_arr(doc, "unused");
		double n;

		if (parse_num(a1, &n))
			vfail(why, file, line, "expected 'expect unused N'");
		else if ((double)(u ? u->n : 0) != n)
			vfail(why, file, line, "%zu counts are unused, expected %g%s%s", u ? u->n : 0, n,
			      u && u->n ? ": first " : "", u && u->n ? jv_str(&u->items[0], "spec") : "");
	} else {
		vfail(why, file, line, "unknown expectation '%s' (cost, score, severity, quality, "
		      "cost_quality, why, na, first, rank, remainder, budget, anchor, metric, unused)",
		      what);
	}
out:
	sbuf_release(&rs);
}

struct tfile {
	const char *path;
	char *model;
	char *root;
	char **sets;
	int *set_line;
	size_t n_sets;
	size_t pass, fail;
};

static void push_str(char ***v, int **lines, size_t *n, const char *s, int line)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(char *));
	*lines = xrealloc(*lines, (*n + 1) * sizeof(int));
	(*v)[*n] = xstrdup(s);
	(*lines)[(*n)++] = line;
}

static void run_case(struct tfile *tf, struct setup *s, const struct model *m, struct tcase *t,
		     bool verbose)
{
	struct calib cal;
	struct vp_err err = { 0, "" };
	struct sbuf json = SBUF_INIT, why = SBUF_INIT;
	struct jv doc;
	size_t i;
	bool parsed = false;

	calib_init(&cal);
	setup_reset(s);
	for (i = 0; i < tf->n_sets && !err.code; i++) {
		char *where = xasprintf("%s:%d: ", tf->path, tf->set_line[i]);

		apply_set(s, &cal, tf->sets[i], where, &err);
		free(where);
	}
	for (i = 0; i < t->n_sets && !err.code; i++) {
		char *where = xasprintf("%s:%d: ", tf->path, t->set_line[i]);

		apply_set(s, &cal, t->sets[i], where, &err);
		free(where);
	}
	if (err.code || evaluate(s, m, &cal, &t->c, t->node_row, &json, &err)) {
		sbuf_addf(&why, "     %s\n", err.msg);
		goto report;
	}
	if (jv_parse(&doc, json.buf, json.len, "model eval", &err)) {
		sbuf_addf(&why, "     %s\n", err.msg);
		goto report;
	}
	parsed = true;
	if (!t->node_row)
		check_invariants(jv_get(&doc, "vcpu"), tf->path, t->line, &why);
	for (i = 0; i < t->n_expects; i++) {
		char *copy = xstrdup(t->expects[i]);

		check_expect(&doc, t, copy, tf->path, t->expect_line[i], &why);
		free(copy);
	}
report:
	if (why.len) {
		tf->fail++;
		printf("FAIL %s:%d %s %s\n%s", tf->path, t->line, m->name, t->name, sbuf_str(&why));
	} else {
		tf->pass++;
		printf("ok   %s:%d %s %s (%zu expectations)\n", tf->path, t->line, m->name, t->name,
		       t->n_expects);
	}
	if (verbose && parsed) {
		struct sbuf text = SBUF_INIT;

		if (!counts_eval_text(&doc, &text, &err))
			fputs(sbuf_str(&text), stdout);
		sbuf_release(&text);
	}
	if (parsed)
		jv_release(&doc);
	sbuf_release(&json);
	sbuf_release(&why);
	calib_release(&cal);
}

static void push_count(struct count_set *cs, const char *spec, double val, const char *path,
		       int lineno)
{
	struct count_item *it;

	cs->v = xrealloc(cs->v, (cs->n + 1) * sizeof(*cs->v));
	it = &cs->v[cs->n++];
	memset(it, 0, sizeof(*it));
	it->spec = xstrdup(spec);
	it->value = val;
	it->why = isnan(val) ? xstrdup("n/a in the cases file") : NULL;
	snprintf(it->where, sizeof(it->where), "%s:%d", path, lineno);
}

/* The root a file names, relative to the file's directory. */
static char *root_of(const char *file, const char *root)
{
	const char *slash = strrchr(file, '/');

	if (root[0] == '/' || !slash)
		return xstrdup(root);
	return xasprintf("%.*s/%s", (int)(slash - file), file, root);
}

static int test_file(struct model_registry *r, const struct model_eval_opts *o, const char *path)
{
	struct tfile tf;
	struct tcase t;
	struct setup s;
	struct model *m = NULL;
	struct vp_err err = { 0, "" };
	struct diags d;
	char *text = NULL, *line, *next;
	size_t len;
	int lineno = 0, rc = 0;
	bool in_case = false, have_setup = false;

	memset(&tf, 0, sizeof(tf));
	memset(&t, 0, sizeof(t));
	tf.path = path;
	diags_init(&d);
	if (vp_read_regular(path, VP_DOC_MAX_BYTES, &text, &len, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	for (line = text; line; line = next) {
		char *p, *w, *arg;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		p = line;
		w = next_word(&p);
		if (!w || w[0] == '#')
			continue;
		while (isspace((unsigned char)*p))
			p++;
		arg = p;
		if (!strcmp(w, "model") || !strcmp(w, "root") || (!strcmp(w, "set") && !in_case)) {
			if (in_case) {
				rc = cli_errorf("%s:%d: '%s' belongs before the first case", path, lineno, w);
				goto out;
			}
			if (!*arg) {
				rc = cli_errorf("%s:%d: '%s' needs a value", path, lineno, w);
				goto out;
			}
			if (!strcmp(w, "model")) {
				free(tf.model);
				tf.model = xstrdup(arg);
			} else if (!strcmp(w, "root")) {
				free(tf.root);
				tf.root = root_of(path, arg);
			} else {
				char *x;

				while ((x = next_word(&arg)))
					push_str(&tf.sets, &tf.set_line, &tf.n_sets, x, lineno);
			}
			continue;
		}
		if (!strcmp(w, "case")) {
			if (!tf.model) {
				rc = cli_errorf("%s:%d: no 'model NAME' before the first case", path, lineno);
				goto out;
			}
			if (!have_setup) {
				if (model_registry_open(r, tf.model, &m, &d, &err)) {
					rc = cli_error(&err);
					goto out;
				}
				setup_open(&s, o->root_given || !tf.root ? o->root : tf.root);
				have_setup = true;
			}
			if (in_case) {
				run_case(&tf, &s, m, &t, o->verbose);
				tcase_release(&t);
			}
			memset(&t, 0, sizeof(t));
			counts_in_init(&t.c);
			t.c.duration_s = 1;
			t.name = xstrdup(*arg ? arg : "(unnamed)");
			t.line = lineno;
			in_case = true;
			continue;
		}
		if (!in_case) {
			rc = cli_errorf("%s:%d: '%s' outside a case (model, root, set, then case NAME)",
					path, lineno, w);
			goto out;
		}
		if (!strcmp(w, "counts")) {
			/* gen_counts.py's expansion of a 'gen' line, on that line: KEY VALUE pairs,
			 * duration/ghz/solo_mpki, node:SPEC, or SPEC */
			char *k, *v;

			while ((k = next_word(&arg))) {
				double val;

				v = next_word(&arg);
				if (!v || parse_num(v, &val) || val < 0) {
					rc = cli_errorf("%s:%d: 'counts' takes KEY VALUE pairs (a value of 0 "
							"or more after '%s')", path, lineno, k);
					goto out;
				}
				if (!strcmp(k, "duration") || !strcmp(k, "ghz") || !strcmp(k, "solo_mpki")) {
					*(!strcmp(k, "duration") ? &t.c.duration_s : !strcmp(k, "ghz") ?
					  &t.c.cpu_ghz : &t.c.solo_mpki) = val;
					continue;
				}
				push_count(!strncmp(k, "node:", 5) ? &t.c.node : &t.c.row,
					   !strncmp(k, "node:", 5) ? k + 5 : k, val, path, lineno);
				if (!strncmp(k, "node:", 5))
					t.c.have_node = true;
			}
		} else if (!strcmp(w, "count") || !strcmp(w, "node")) {
			char *spec = next_word(&arg), *v = next_word(&arg);
			struct count_set *cs = !strcmp(w, "count") ? &t.c.row : &t.c.node;
			double val = NAN;

			if (v && !strcmp(v, "="))
				v = next_word(&arg);
			if (!spec || !v || next_word(&arg) || (strcmp(v, "n/a") && (parse_num(v, &val) || val < 0))) {
				rc = cli_errorf("%s:%d: expected '%s SPEC = VALUE' (a count of 0 or more, or n/a)",
						path, lineno, w);
				goto out;
			}
			push_count(cs, spec, val, path, lineno);
			if (cs == &t.c.node)
				t.c.have_node = true;
		} else if (!strcmp(w, "duration") || !strcmp(w, "ghz") || !strcmp(w, "solo_mpki")) {
			double v;

			if (parse_num(next_word(&arg), &v) || v < 0 || next_word(&arg) ||
			    (strcmp(w, "solo_mpki") && v == 0)) {
				rc = cli_errorf("%s:%d: expected '%s VALUE' (a number above 0)", path, lineno, w);
				goto out;
			}
			*(!strcmp(w, "duration") ? &t.c.duration_s : !strcmp(w, "ghz") ? &t.c.cpu_ghz :
			  &t.c.solo_mpki) = v;
		} else if (!strcmp(w, "alone")) {
			char *v = next_word(&arg);

			if (!v || (strcmp(v, "yes") && strcmp(v, "no"))) {
				rc = cli_errorf("%s:%d: expected 'alone yes|no'", path, lineno);
				goto out;
			}
			t.c.llc_alone = !strcmp(v, "yes") ? 1 : -1;
		} else if (!strcmp(w, "row")) {
			char *v = next_word(&arg);

			if (!v || (strcmp(v, "vcpu") && strcmp(v, "node"))) {
				rc = cli_errorf("%s:%d: expected 'row vcpu|node'", path, lineno);
				goto out;
			}
			t.node_row = !strcmp(v, "node");
		} else if (!strcmp(w, "set")) {
			char *x;

			while ((x = next_word(&arg)))
				push_str(&t.sets, &t.set_line, &t.n_sets, x, lineno);
		} else if (!strcmp(w, "expect")) {
			push_str(&t.expects, &t.expect_line, &t.n_expects, arg, lineno);
		} else if (!strcmp(w, "gen")) {
			rc = cli_errorf("%s:%d: 'gen' lines are physics for tests/helpers/gen_counts.py, "
					"which turns them into counts: run it on this file first", path, lineno);
			goto out;
		} else {
			rc = cli_errorf("%s:%d: unknown statement '%s' (count, node, counts, duration, ghz, "
					"solo_mpki, alone, row, set, expect)", path, lineno, w);
			goto out;
		}
	}
	if (in_case) {
		run_case(&tf, &s, m, &t, o->verbose);
		tcase_release(&t);
	}
	if (!tf.pass && !tf.fail) {
		rc = cli_errorf("%s: no cases", path);
		goto out;
	}
	printf("%s: %zu cases, %zu passed, %zu failed\n", path, tf.pass + tf.fail, tf.pass, tf.fail);
	rc = tf.fail ? 1 : 0;
out:
	if (rc > 1)
		rc = 1;
	tcase_release(&t);
	if (have_setup)
		setup_close(&s);
	model_free(m);
	diags_release(&d);
	free(tf.model);
	free(tf.root);
	for (len = 0; len < tf.n_sets; len++)
		free(tf.sets[len]);
	free(tf.sets);
	free(tf.set_line);
	free(text);
	return rc;
}

int model_test_run(struct model_registry *r, const struct model_eval_opts *o, char *const *files,
		   size_t n)
{
	size_t i;
	int bad = 0;

	if (!n)
		return cli_usage_error(&cmd_model, "'model test' needs at least one cases file");
	for (i = 0; i < n; i++)
		bad |= test_file(r, o, files[i]) != 0;
	if (fflush(stdout))
		return cli_errorf("write failure on standard output: %s", strerror(errno));
	return bad ? 1 : 0;
}
