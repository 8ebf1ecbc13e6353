/* verify.c - the judge of `vmmprof verify`'s checks and their table: pure functions of counts */
#include "analysis/verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/jsonread.h"
#include "util/table.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double verify_median(const double *v, int n)
{
	double s[VERIFY_MAX_RUNS];

	if (n <= 0)
		return NAN;
	if (n > VERIFY_MAX_RUNS)
		n = VERIFY_MAX_RUNS;
	memcpy(s, v, (size_t)n * sizeof(double));
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* max - min of the first n values; NaN for n = 0. */
static double spread(const double *v, int n)
{
	double lo = INFINITY, hi = -INFINITY;
	int i;

	if (n <= 0)
		return NAN;
	for (i = 0; i < n && i < VERIFY_MAX_RUNS; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	return hi - lo;
}

static bool all_finite(const double *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

static bool all_zero(const double *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] != 0)
			return false;
	return n > 0;
}

static void skip(struct verify_check *c, const char *why)
{
	c->verdict = VV_SKIP;
	snprintf(c->why, sizeof(c->why), "%s", why);
}

void verify_judge(struct verify_check *c)
{
	char buf[VERIFY_TEXT];
	double mc;

	c->measured = NAN;
	c->margin = NAN;
	c->why[0] = '\0';
	if (c->skip[0]) {
		skip(c, c->skip);
		return;
	}
	if (c->n_treat < 1 || c->n_treat > VERIFY_MAX_RUNS ||
	    c->n_control < 0 || c->n_control > VERIFY_MAX_RUNS) {
		skip(c, "no run to judge");
		return;
	}
	if (!all_finite(c->treat, c->n_treat) || !all_finite(c->control, c->n_control)) {
		skip(c, "a run was not counted (n/a): no verdict on missing values");
		return;
	}
	if (c->kind == VK_HARDWARE && all_zero(c->treat, c->n_treat) &&
	    isfinite(c->companion) && c->companion > 0) {
		snprintf(buf, sizeof(buf),
			 "suspect zero: counted 0 in every run beside %s = %.0f "
			 "(an emulated or partial PMU), not a measurement",
			 c->companion_name ? c->companion_name : "its companion count",
			 c->companion);
		skip(c, buf);
		return;
	}
	if (c->expect != VX_AT_LEAST && c->n_control < 2) {
		skip(c, "fewer than 2 control runs: no spread to take a margin from");
		return;
	}
	mc = verify_median(c->control, c->n_control);
	switch (c->expect) {
	case VX_RISE:
		/* the control's own spread is how far it moves without the factor */
		c->measured = verify_median(c->treat, c->n_treat) - mc;
		c->margin = spread(c->control, c->n_control);
		if (c->measured > c->margin) {
			c->verdict = VV_PASS;
			snprintf(c->why, sizeof(c->why), "rose by more than the control runs' spread");
		} else {
			c->verdict = VV_FAIL;
			snprintf(c->why, sizeof(c->why), "did not rise beyond the control runs' spread");
		}
		return;
	case VX_EXACT:
		/* both sides' spread: a count that is exact has none */
		c->measured = verify_median(c->treat, c->n_treat) - mc;
		c->margin = spread(c->control, c->n_control) + spread(c->treat, c->n_treat);
		if (fabs(c->measured - c->expected) <= c->margin) {
			c->verdict = VV_PASS;
			snprintf(c->why, sizeof(c->why), "%s", c->margin == 0 ? "exact" :
				 "within the runs' spread");
		} else {
			c->verdict = VV_FAIL;
			snprintf(c->why, sizeof(c->why), "off by %.0f, beyond the runs' spread",
				 c->measured - c->expected);
		}
		return;
	case VX_AT_LEAST:
		c->measured = verify_median(c->treat, c->n_treat);
		c->margin = c->n_treat > 1 ? spread(c->treat, c->n_treat) : 0;
		if (c->measured >= c->expected - c->margin) {
			c->verdict = VV_PASS;
			snprintf(c->why, sizeof(c->why), "at or above the floor");
		} else {
			c->verdict = VV_FAIL;
			snprintf(c->why, sizeof(c->why), "below the floor by more than the runs' spread");
		}
		return;
	}
	skip(c, "unknown expectation");
}

const char *verify_verdict_name(enum verify_verdict v)
{
	return v == VV_PASS ? "pass" : v == VV_FAIL ? "FAIL" : "skipped";
}

const char *verify_kind_name(enum verify_kind k)
{
	return k == VK_HARDWARE ? "hardware" : k == VK_SOFTWARE ? "software" : "placement";
}

void verify_tally(const struct verify_check *c, size_t n, int *pass, int *fail, int *skp)
{
	size_t i;

	*pass = *fail = *skp = 0;
	for (i = 0; i < n; i++)
		(c[i].verdict == VV_PASS ? pass : c[i].verdict == VV_FAIL ? fail : skp)[0]++;
}

static void fmt_num(char *out, size_t size, double v, const char *unit)
{
	if (!isfinite(v))
		snprintf(out, size, "n/a");
	else if (fabs(v) >= 1000 || v == floor(v))
		snprintf(out, size, "%.0f%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
	else
		snprintf(out, size, "%.3g%s%s", v, unit && *unit ? " " : "", unit ? unit : "");
}

static void expected_text(const struct verify_check *c, char *out, size_t size)
{
	char n[64];

	fmt_num(n, sizeof(n), c->expected, c->unit);
	switch (c->expect) {
	case VX_RISE:
		snprintf(out, size, "rises vs control");
		return;
	case VX_EXACT:
		snprintf(out, size, "+%s exactly", n);
		return;
	case VX_AT_LEAST:
		snprintf(out, size, ">= %s", n);
		return;
	}
	snprintf(out, size, "?");
}

void verify_text(const struct verify_machine *m, const struct verify_check *c, size_t n,
		 struct sbuf *out)
{
	static const char *const titles[] = { "FACTOR", "CHECK", "KIND", "EXPECTED", "MEASURED",
					      "MARGIN", "VERDICT" };
	struct table t;
	char e[96], v[64], g[64];
	int pass, fail, skp, hw = 0, hw_skip = 0, fhw = 0, fhw_skip = 0;
	size_t i;

	sbuf_addf(out, "machine: %s, %s %s, %s; %d CPUs, %d NUMA node%s, %d package%s\n",
		  m->host, m->arch, m->kernel, m->cpu, m->n_cpus, m->n_nodes,
		  m->n_nodes == 1 ? "" : "s", m->n_packages, m->n_packages == 1 ? "" : "s");
	sbuf_addf(out, "hypervisor: %s; core PMU: %s; model: %s\n\n", m->hypervisor, m->core_pmu,
		  m->model);
	table_init(&t, 7, titles);
	for (i = 0; i < n; i++) {
		table_row(&t);
		table_cell(&t, "%s", c[i].factor);
		table_cell(&t, "%s", c[i].name);
		table_cell(&t, "%s", verify_kind_name(c[i].kind));
		expected_text(&c[i], e, sizeof(e));
		table_cell(&t, "%s", e);
		if (c[i].verdict == VV_SKIP) {
			table_cell(&t, "-");
			table_cell(&t, "-");
			table_cell(&t, "skipped: %s", c[i].why);
		} else {
			fmt_num(v, sizeof(v), c[i].measured, c[i].unit);
			table_cell(&t, "%s%s", c[i].expect == VX_AT_LEAST || c[i].measured < 0 ? "" : "+",
				   v);
			fmt_num(g, sizeof(g), c[i].margin, "");
			table_cell(&t, "%s%s", isfinite(c[i].margin) ? "±" : "", g);
			table_cell(&t, "%s (%s)", verify_verdict_name(c[i].verdict), c[i].why);
		}
		if (c[i].kind == VK_HARDWARE) {
			hw++;
			hw_skip += c[i].verdict == VV_SKIP;
			if (strcmp(c[i].factor, "counting")) {
				fhw++;
				fhw_skip += c[i].verdict == VV_SKIP;
			}
		}
	}
	table_render(&t, out, 0, true);
	table_release(&t);
	sbuf_addstr(out, "\nhow each was provoked:\n");
	for (i = 0; i < n; i++)
		if (c[i].note[0])
			sbuf_addf(out, "  %s, %s: %s\n", c[i].factor, c[i].name, c[i].note);
	verify_tally(c, n, &pass, &fail, &skp);
	sbuf_addf(out, "\nverdict: %d passed, %d failed, %d skipped", pass, fail, skp);
	if (fail)
		sbuf_addstr(out, ": a factor did not move the way the physics says (see FAIL)");
	else if (hw && hw_skip == hw)
		sbuf_addstr(out, ": no hardware check ran here, only the software and placement "
				 "ones; the factors' counts and costs are unverified on this machine");
	else if (fhw && fhw_skip == fhw)
		sbuf_addstr(out, ": the counting ran, but every factor check was skipped: no factor's "
				 "counts or costs are verified on this machine");
	else if (!pass)
		sbuf_addstr(out, ": nothing was verified");
	sbuf_addch(out, '\n');
}

void verify_json(const struct verify_machine *m, const struct verify_check *c, size_t n,
		 struct sbuf *out)
{
	struct jw w;
	int pass, fail, skp, i;
	size_t k;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_key(&w, "machine");
	jw_obj_begin(&w);
	jw_kstr(&w, "host", m->host);
	jw_kstr(&w, "kernel", m->kernel);
	jw_kstr(&w, "arch", m->arch);
	jw_kstr(&w, "cpu", m->cpu);
	jw_kint(&w, "cpus", m->n_cpus);
	jw_kint(&w, "nodes", m->n_nodes);
	jw_kint(&w, "packages", m->n_packages);
	jw_kstr(&w, "hypervisor", m->hypervisor);
	jw_kstr(&w, "core_pmu", m->core_pmu);
	jw_kstr(&w, "model", m->model);
	jw_kstr(&w, "when", m->when);
	jw_kstr(&w, "vmmprof", m->version);
	jw_obj_end(&w);
	jw_key(&w, "checks");
	jw_arr_begin(&w);
	for (k = 0; k < n; k++) {
		const struct verify_check *x = &c[k];

		jw_obj_begin(&w);
		jw_kstr(&w, "factor", x->factor);
		jw_kstr(&w, "check", x->name);
		jw_kstr(&w, "kind", verify_kind_name(x->kind));
		jw_kstr(&w, "expect", x->expect == VX_RISE ? "rise" :
				      x->expect == VX_EXACT ? "exact" : "at_least");
		jw_kdouble(&w, "expected", x->expect == VX_RISE ? NAN : x->expected);
		jw_kstr(&w, "unit", x->unit ? x->unit : "");
		jw_kstr(&w, "verdict", x->verdict == VV_PASS ? "pass" :
				       x->verdict == VV_FAIL ? "fail" : "skipped");
		jw_kstr(&w, "why", x->why);
		jw_kdouble(&w, "measured", x->measured);
		jw_kdouble(&w, "margin", x->margin);
		jw_key(&w, "control");
		jw_arr_begin(&w);
		for (i = 0; x->verdict != VV_SKIP && i < x->n_control; i++)
			jw_double(&w, x->control[i]);
		jw_arr_end(&w);
		jw_key(&w, "treatment");
		jw_arr_begin(&w);
		for (i = 0; x->verdict != VV_SKIP && i < x->n_treat; i++)
			jw_double(&w, x->treat[i]);
		jw_arr_end(&w);
		jw_kdouble(&w, "companion", x->companion);
		jw_kstr(&w, "companion_name", x->companion_name);
		jw_kstr(&w, "provoked", x->note);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	verify_tally(c, n, &pass, &fail, &skp);
	jw_key(&w, "verdict");
	jw_obj_begin(&w);
	jw_kint(&w, "passed", pass);
	jw_kint(&w, "failed", fail);
	jw_kint(&w, "skipped", skp);
	jw_obj_end(&w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

static void copy_str(char *dst, size_t size, const char *s)
{
	snprintf(dst, size, "%s", s ? s : "");
}

static int runs_of(const struct jv *arr, double *v, int *n)
{
	size_t i;

	*n = 0;
	if (!arr)
		return 0;
	if (arr->type != JV_ARR || arr->n > VERIFY_MAX_RUNS)
		return -1;
	for (i = 0; i < arr->n; i++)
		v[(*n)++] = arr->items[i].type == JV_NUM ? arr->items[i].num : NAN;
	return 0;
}

static const char *expect_name(int i)
{
	static const char *const n[] = { "rise", "exact", "at_least" };

	return i >= 0 && i < 3 ? n[i] : NULL;
}

static const char *kind_name(int i)
{
	return verify_kind_name((enum verify_kind)i);
}

int verify_from_json(const struct jv *doc, struct verify_machine *m, struct verify_check *c,
		     size_t max, size_t *n, struct vp_err *err)
{
	const struct jv *mj = jv_get(doc, "machine"), *cs = jv_arr(doc, "checks");
	size_t i;

	*n = 0;
	memset(m, 0, sizeof(*m));
	if (!mj || mj->type != JV_OBJ || !cs)
		return vp_err_set(err, VP_EFORMAT, "not a 'vmmprof verify' result: no %s",
				  !mj || mj->type != JV_OBJ ? "'machine' object" : "'checks' array");
	copy_str(m->host, sizeof(m->host), jv_str(mj, "host"));
	copy_str(m->kernel, sizeof(m->kernel), jv_str(mj, "kernel"));
	copy_str(m->arch, sizeof(m->arch), jv_str(mj, "arch"));
	copy_str(m->cpu, sizeof(m->cpu), jv_str(mj, "cpu"));
	m->n_cpus = (int)jv_num(mj, "cpus");
	m->n_nodes = (int)jv_num(mj, "nodes");
	m->n_packages = (int)jv_num(mj, "packages");
	copy_str(m->hypervisor, sizeof(m->hypervisor), jv_str(mj, "hypervisor"));
	copy_str(m->core_pmu, sizeof(m->core_pmu), jv_str(mj, "core_pmu"));
	copy_str(m->model, sizeof(m->model), jv_str(mj, "model"));
	copy_str(m->when, sizeof(m->when), jv_str(mj, "when"));
	copy_str(m->version, sizeof(m->version), jv_str(mj, "vmmprof"));
	for (i = 0; i < cs->n && *n < max; i++) {
		const struct jv *o = &cs->items[i];
		struct verify_check *x = &c[*n];
		const char *verdict = jv_str(o, "verdict");
		int kind = jv_enum(jv_str(o, "kind"), 3, kind_name);
		int expect = jv_enum(jv_str(o, "expect"), 3, expect_name);

		memset(x, 0, sizeof(*x));
		x->factor = jv_str(o, "factor");
		x->name = jv_str(o, "check");
		x->unit = jv_str(o, "unit");
		if (!x->factor || !x->name || kind < 0 || expect < 0 || !verdict)
			return vp_err_set(err, VP_EFORMAT, "check %zu (line %d): a factor, check, "
					  "kind, expect and verdict are needed", i + 1, o->line);
		x->kind = (enum verify_kind)kind;
		x->expect = (enum verify_expect)expect;
		x->expected = jv_num(o, "expected");
		x->companion = jv_num(o, "companion");
		x->companion_name = jv_str(o, "companion_name");
		copy_str(x->note, sizeof(x->note), jv_str(o, "provoked"));
		if (runs_of(jv_get(o, "control"), x->control, &x->n_control) ||
		    runs_of(jv_get(o, "treatment"), x->treat, &x->n_treat))
			return vp_err_set(err, VP_EFORMAT, "check %zu (line %d): 'control' and "
					  "'treatment' are arrays of at most %d runs", i + 1, o->line,
					  VERIFY_MAX_RUNS);
		if (!strcmp(verdict, "skipped"))
			copy_str(x->skip, sizeof(x->skip), jv_str(o, "why"));
		if (!strcmp(verdict, "skipped") && !x->skip[0])
			copy_str(x->skip, sizeof(x->skip), "skipped (no reason saved)");
		verify_judge(x);
		(*n)++;
	}
	return 0;
}
