/* fuzz_model.c - libFuzzer harness for the model file parser and the formula parser */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/expr.h"
#include "model/model.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A formula that parses must print to text that parses to the same value. */
static void roundtrip(const struct expr *e)
{
	struct sbuf sb = SBUF_INIT;
	struct diags d;
	struct expr *back;
	struct expr_env env;
	double a, b;

	expr_env_init(&env);
	expr_format(e, &sb);
	diags_init(&d);
	back = expr_parse_text(sbuf_str(&sb), "fmt", &d);
	if (!back)
		abort();
	a = expr_eval(e, &env);
	b = expr_eval(back, &env);
	if (!(a == b || (isnan(a) && isnan(b))))
		abort();
	expr_free(back);
	diags_release(&d);
	sbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct diags d;
	struct model *m = NULL;
	struct model_avail av;
	struct vp_err err;
	struct expr *e;
	size_t i;

	/* as a whole model file (includes are looked up nowhere but next to it) */
	diags_init(&d);
	if (model_load_text(&m, s, "/nonexistent/fuzz.model", NULL, 0, &d, &err) == 0) {
		double *in = xcalloc(m->n_inputs + 1, sizeof(double));
		double *met = xcalloc(m->n_metrics + 1, sizeof(double));
		struct factor_value fv[FACTOR_N];
		struct expr_env env;

		model_check_inputs(m, NULL, NULL, &av, NULL);
		model_avail_release(m, &av);
		expr_env_init(&env);
		env.inputs = in;
		env.n_inputs = m->n_inputs;
		model_eval(m, &env, met, fv);
		free(in);
		free(met);
		model_free(m);
	} else {
		struct sbuf sb = SBUF_INIT;

		/* every diagnostic renders */
		for (i = 0; i < d.n; i++)
			diag_format(&d.v[i], &sb);
		sbuf_release(&sb);
	}
	diags_release(&d);
	/* as one formula (names unresolved are fine: they evaluate to NaN) */
	diags_init(&d);
	e = expr_parse_text(s, "fuzz", &d);
	if (e) {
		roundtrip(e);
		expr_fold(e);
		roundtrip(e);
		expr_free(e);
	}
	diags_release(&d);
	free(s);
	return 0;
}
