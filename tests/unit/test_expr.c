/* test_expr.c - the formula language: a table of values and errors */
#include "test.h"

#include <stdlib.h>

#include "model/expr.h"
#include "util/alloc.h"

/* Inputs a=2 b=3 z=0 n=NaN, metric m=10; #num_cpus=4 #num_nodes=2
 * #num_packages=2 #smt_on=1, duration=0.5, cal.lat_local_ns=80 and the
 * other calibration values unknown. */
static const char *const in_names[] = { "a", "b", "z", "n" };
static const double in_vals[] = { 2, 3, 0, NAN };
static const double metric_vals[] = { 10 };

static int lookup(void *ctx, const char *name, int *id)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < VP_ARRAY_SIZE(in_names); i++)
		if (!strcmp(name, in_names[i])) {
			*id = (int)i;
			return EX_INPUT;
		}
	if (!strcmp(name, "m")) {
		*id = 0;
		return EX_METRIC;
	}
	return -1;
}

static void test_env(struct expr_env *env)
{
	expr_env_init(env);
	env->inputs = in_vals;
	env->n_inputs = VP_ARRAY_SIZE(in_vals);
	env->metrics = metric_vals;
	env->n_metrics = 1;
	env->consts[EC_NUM_CPUS] = 4;
	env->consts[EC_NUM_NODES] = 2;
	env->consts[EC_NUM_PACKAGES] = 2;
	env->consts[EC_SMT_ON] = 1;
	env->duration = 0.5;
	env->cal[CAL_LAT_LOCAL_NS] = 80;
}

#define ERR NAN /* placeholder value for rows that must fail */

static const struct {
	int line;
	const char *text;
	double want;       /* NaN: expect NaN (when err is NULL) */
	const char *err;   /* expected message part, NULL when it must parse */
	int col;           /* column of the error */
} rows[] = {
	/* numbers */
	{ __LINE__, "42", 42, NULL, 0 },
	{ __LINE__, "1.5", 1.5, NULL, 0 },
	{ __LINE__, ".25", 0.25, NULL, 0 },
	{ __LINE__, "2e3", 2000, NULL, 0 },
	{ __LINE__, "2.5E-1", 0.25, NULL, 0 },
	{ __LINE__, "0x10", 16, NULL, 0 },
	{ __LINE__, "0X1f", 31, NULL, 0 },
	{ __LINE__, "0x20000000000000", 9007199254740992.0, NULL, 0 },
	/* precedence and associativity */
	{ __LINE__, "1 + 2 * 3", 7, NULL, 0 },
	{ __LINE__, "(1 + 2) * 3", 9, NULL, 0 },
	{ __LINE__, "10 - 4 - 3", 3, NULL, 0 },
	{ __LINE__, "10 - (4 - 3)", 9, NULL, 0 },
	{ __LINE__, "64 / 4 / 2", 8, NULL, 0 },
	{ __LINE__, "64 / (4 / 2)", 32, NULL, 0 },
	{ __LINE__, "2 * 3 + 4 * 5", 26, NULL, 0 },
	{ __LINE__, "1 + 6 / 3 - 1", 2, NULL, 0 },
	{ __LINE__, "-2 * 3", -6, NULL, 0 },
	{ __LINE__, "- -2", 2, NULL, 0 },
	{ __LINE__, "-(1 + 2)", -3, NULL, 0 },
	{ __LINE__, "2 - -3", 5, NULL, 0 },
	{ __LINE__, "+4", 4, NULL, 0 },
	{ __LINE__, "1 + 2 < 4", 1, NULL, 0 },
	{ __LINE__, "1 < 2 == 1", 1, NULL, 0 },
	/* comparisons */
	{ __LINE__, "2 < 3", 1, NULL, 0 },
	{ __LINE__, "3 < 3", 0, NULL, 0 },
	{ __LINE__, "3 <= 3", 1, NULL, 0 },
	{ __LINE__, "4 > 3", 1, NULL, 0 },
	{ __LINE__, "3 >= 4", 0, NULL, 0 },
	{ __LINE__, "a == 2", 1, NULL, 0 },
	{ __LINE__, "a != 2", 0, NULL, 0 },
	{ __LINE__, "n < 1", NAN, NULL, 0 },
	/* if / else */
	{ __LINE__, "1 if a > b else 2", 2, NULL, 0 },
	{ __LINE__, "1 if a < b else 2", 1, NULL, 0 },
	{ __LINE__, "1 if z else 2 if a else 3", 2, NULL, 0 },
	{ __LINE__, "1 if z else 2 if z else 3", 3, NULL, 0 },
	{ __LINE__, "a + 1 if 1 else 0", 3, NULL, 0 },
	{ __LINE__, "n if 0 else 5", 5, NULL, 0 },
	{ __LINE__, "5 if n else 6", NAN, NULL, 0 },
	{ __LINE__, "(1 if a else 2) * 10", 10, NULL, 0 },
	/* functions */
	{ __LINE__, "min(a, b)", 2, NULL, 0 },
	{ __LINE__, "max(a, b)", 3, NULL, 0 },
	{ __LINE__, "max(min(1, 2), min(3, 0))", 1, NULL, 0 },
	{ __LINE__, "min(a, n)", NAN, NULL, 0 },
	{ __LINE__, "d_ratio(a, b)", 2.0 / 3.0, NULL, 0 },
	{ __LINE__, "d_ratio(a, z)", 0, NULL, 0 },
	{ __LINE__, "d_ratio(0, 0)", 0, NULL, 0 },
	{ __LINE__, "d_ratio(n, b)", NAN, NULL, 0 },
	{ __LINE__, "d_ratio(a, n)", NAN, NULL, 0 },
	{ __LINE__, "has_event(a)", 1, NULL, 0 },
	{ __LINE__, "has_event(n)", 0, NULL, 0 },
	{ __LINE__, "a if has_event(a) else b", 2, NULL, 0 },
	{ __LINE__, "n if has_event(n) else b", 3, NULL, 0 },
	/* division by zero and NaN propagation */
	{ __LINE__, "a / z", NAN, NULL, 0 },
	{ __LINE__, "1 / 0", NAN, NULL, 0 },
	{ __LINE__, "0 / 0", NAN, NULL, 0 },
	{ __LINE__, "n + 1", NAN, NULL, 0 },
	{ __LINE__, "1 - n", NAN, NULL, 0 },
	{ __LINE__, "n * 0", NAN, NULL, 0 },
	{ __LINE__, "-n", NAN, NULL, 0 },
	{ __LINE__, "(a / z) * 0", NAN, NULL, 0 },
	/* names, constants, duration, calibration */
	{ __LINE__, "a * b + m", 16, NULL, 0 },
	{ __LINE__, "#num_cpus", 4, NULL, 0 },
	{ __LINE__, "#num_nodes * #num_packages", 4, NULL, 0 },
	{ __LINE__, "#smt_on", 1, NULL, 0 },
	{ __LINE__, "a / duration", 4, NULL, 0 },
	{ __LINE__, "duration_time", 0.5, NULL, 0 },
	{ __LINE__, "cal.lat_local_ns * 2", 160, NULL, 0 },
	{ __LINE__, "cal.lat_remote_ns - cal.lat_local_ns", NAN, NULL, 0 },
	{ __LINE__, "cal.queue_depth", NAN, NULL, 0 },
	{ __LINE__, "(a\n + b)", 5, NULL, 0 },
	{ __LINE__, "a + \\\n b", 5, NULL, 0 },
	{ __LINE__, "a + b # a trailing comment", 5, NULL, 0 },
	/* errors, each with its column */
	{ __LINE__, "x + 1", ERR, "unknown metric 'x'", 1 },
	{ __LINE__, "a + y", ERR, "unknown metric 'y'", 5 },
	{ __LINE__, "#num_cores", ERR, "unknown constant '#num_cores'", 1 },
	{ __LINE__, "cal.lat_far_ns", ERR, "unknown calibration value", 1 },
	{ __LINE__, "foo(1, 2)", ERR, "unknown function 'foo'", 1 },
	{ __LINE__, "min(1)", ERR, "min() takes 2 arguments, found 1", 1 },
	{ __LINE__, "max(1, 2, 3)", ERR, "max() takes 2 arguments, found more", 1 },
	{ __LINE__, "has_event(m)", ERR, "has_event() needs an event", 11 },
	{ __LINE__, "1 +", ERR, "unterminated expression", 4 },
	{ __LINE__, "(1 + 2", ERR, "'(' is never closed", 1 },
	{ __LINE__, "min(1, 2", ERR, "'(' is never closed", 4 },
	{ __LINE__, "1 + 2)", ERR, "unexpected ')'", 6 },
	{ __LINE__, "1 2", ERR, "unexpected number '2'", 3 },
	{ __LINE__, "* 2", ERR, "expected a number, name or '('", 1 },
	{ __LINE__, "1 if a", ERR, "expected 'else'", 7 },
	{ __LINE__, "if a else b", ERR, "expected an operand", 1 },
	{ __LINE__, "1e999", ERR, "number out of range '1e999'", 1 },
	{ __LINE__, "2 * 1e-999", ERR, "number out of range", 5 },
	{ __LINE__, "0x20000000000001", ERR, "number out of range", 1 },
	{ __LINE__, "0xfffffffffffffffff", ERR, "number out of range", 1 },
	{ __LINE__, "1.2.3", ERR, "bad number '1.2.3'", 1 },
	{ __LINE__, "12abc", ERR, "bad number '12abc'", 1 },
	{ __LINE__, "0x", ERR, "bad number '0x'", 1 },
	{ __LINE__, "1e", ERR, "bad number '1e'", 1 },
	{ __LINE__, "a $ b", ERR, "unexpected character '$'", 3 },
	{ __LINE__, "a ! b", ERR, "unexpected character '!'", 3 },
	{ __LINE__, "", ERR, "unterminated expression", 1 },
};

TEST(expr_table)
{
	size_t i;
	struct expr_env env;

	test_env(&env);
	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		struct diags d;
		struct expr *e;
		int line = rows[i].line;
		double v;

		diags_init(&d);
		e = expr_parse_text(rows[i].text, "f", &d);
		if (e && expr_resolve(e, lookup, NULL, &d, rows[i].text)) {
			expr_free(e);
			e = NULL;
		}
		if (rows[i].err) {
			CHECK_AT(line, !e, "'%s' parsed but must fail", rows[i].text);
			CHECK_AT(line, d.n_errors >= 1, "'%s': no diagnostic", rows[i].text);
			if (d.n >= 1) {
				CHECK_AT(line, strstr(d.v[0].msg, rows[i].err),
					 "'%s': message '%s', expected '%s'", rows[i].text,
					 d.v[0].msg, rows[i].err);
				CHECK_INT_AT(line, d.v[0].col, rows[i].col);
			}
		} else {
			CHECK_AT(line, e != NULL, "'%s' failed: %s", rows[i].text,
				 d.n ? d.v[0].msg : "?");
			if (e) {
				v = expr_eval(e, &env);
				CHECK_NEAR_AT(line, v, rows[i].want, 1e-12);
				/* folding must not change the value */
				expr_fold(e);
				CHECK_NEAR_AT(line, expr_eval(e, &env), rows[i].want, 1e-12);
			}
		}
		expr_free(e);
		diags_release(&d);
	}
	CHECK(VP_ARRAY_SIZE(rows) >= 60);
}

/* Folding: a literal-only formula becomes one number; names stay. */
TEST(expr_fold)
{
	struct diags d;
	struct expr *e;
	struct sbuf sb = SBUF_INIT;

	diags_init(&d);
	e = expr_parse_text("(2 + 3) * a / (10 - 5) + (0 if 1 > 2 else b)", "f", &d);
	CHECK(e != NULL);
	CHECK_INT(expr_resolve(e, lookup, NULL, &d, NULL), 0);
	expr_fold(e);
	expr_format(e, &sb);
	CHECK_STR(sbuf_str(&sb), "5 * a / 5 + b");
	expr_free(e);
	sbuf_reset(&sb);
	e = expr_parse_text("1 / 0 + a", "f", &d);
	expr_resolve(e, lookup, NULL, &d, NULL);
	expr_fold(e);
	CHECK_INT(e->a->k, EX_NUM);
	CHECK_NAN(e->a->num);
	expr_free(e);
	sbuf_release(&sb);
	diags_release(&d);
}

/* Formatting keeps the meaning: format, reparse, same value. */
TEST(expr_format_roundtrip)
{
	static const char *const texts[] = {
		"a - (b - 1)", "a / (b / 2)", "-(a + b)", "(1 if a else 2) + 3",
		"1 if a else 2 if b else 3", "d_ratio(a + 1, b) * 100", "(a < b) == 1",
		"-a * -b", "min(max(a, b), 2.5e-3)", "has_event(n) * 7",
	};
	struct expr_env env;
	size_t i;

	test_env(&env);
	for (i = 0; i < VP_ARRAY_SIZE(texts); i++) {
		struct diags d;
		struct sbuf sb = SBUF_INIT;
		struct expr *e, *back;

		diags_init(&d);
		e = expr_parse_text(texts[i], "f", &d);
		expr_resolve(e, lookup, NULL, &d, NULL);
		expr_format(e, &sb);
		back = expr_parse_text(sbuf_str(&sb), "f", &d);
		CHECK(back != NULL);
		if (back) {
			expr_resolve(back, lookup, NULL, &d, NULL);
			CHECK_NEAR(expr_eval(back, &env), expr_eval(e, &env), 1e-12);
		}
		expr_free(e);
		expr_free(back);
		sbuf_release(&sb);
		diags_release(&d);
	}
}

/* A compiler-style message: file:line:col, the line, a caret. */
TEST(expr_diag_caret)
{
	struct diags d;
	struct sbuf sb = SBUF_INIT;
	struct expr *e;

	diags_init(&d);
	e = expr_parse_text("a +\t(b * )", "x.model", &d);
	CHECK(!e);
	CHECK_INT(d.n, 1);
	diag_format(&d.v[0], &sb);
	CHECK_STR(sbuf_str(&sb), "x.model:1:10: error: expected a number, name or '(', "
		  "found ')'\n    1 | a +\t(b * )\n      |    \t     ^\n");
	sbuf_release(&sb);
	diags_release(&d);
}

/* Hostile nesting is refused, not a stack overflow. */
TEST(expr_depth_limit)
{
	struct diags d;
	struct sbuf sb = SBUF_INIT;
	int i;

	for (i = 0; i < 5000; i++)
		sbuf_addch(&sb, '(');
	diags_init(&d);
	CHECK(!expr_parse_text(sbuf_str(&sb), "f", &d));
	CHECK(d.n >= 1 && strstr(d.v[0].msg, "nested too deeply"));
	diags_release(&d);
	sbuf_reset(&sb);
	for (i = 0; i < 5000; i++)
		sbuf_addch(&sb, '-');
	sbuf_addch(&sb, '1');
	diags_init(&d);
	CHECK(!expr_parse_text(sbuf_str(&sb), "f", &d));
	diags_release(&d);
	sbuf_release(&sb);
}
