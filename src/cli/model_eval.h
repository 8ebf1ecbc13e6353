/* model_eval.h - `vmmprof model eval` and `model test`: a model on given counts, and scenario files of expected costs */
#ifndef VP_CLI_MODEL_EVAL_H
#define VP_CLI_MODEL_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/registry.h"

struct model_eval_opts {
	const char *root;          /* resolve specs on this tree ("/" default) */
	bool root_given;
	bool json;
	const char *counts;        /* --counts FILE */
	const char *perf_csv;      /* --perf-csv FILE */
	const char *calib;         /* --calib FILE */
	char **sets;               /* --set NAME=VALUE */
	size_t n_sets;
	const char *row;           /* --row vcpu|node */
	double duration_s, ghz;    /* --duration, --ghz: NaN unset */
	bool verbose;              /* test: print each check */
};

/* `model eval MODEL`: exit code. */
int model_eval_run(struct model_registry *r, const struct model_eval_opts *o, const char *model);
/* `model test FILE...`: exit code (1 when a case fails). */
int model_test_run(struct model_registry *r, const struct model_eval_opts *o, char *const *files,
		   size_t n);

#endif
