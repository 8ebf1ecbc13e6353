/* test_model.c - the model file language: errors with positions, includes, evaluation */
#include "test.h"

#include <stdlib.h>

#include "model/model.h"
#include "model/swsource.h"
#include "util/alloc.h"
#include "util/fs.h"

/*
 * Every file in tests/data/models/bad/ starts with
 *   # expect: LINE:COL: part of the message
 * and must fail with that first error.
 */
TEST(model_bad_files)
{
	char **names = NULL;
	size_t n = 0, i, checked = 0;
	struct vp_err err;
	const char *dir = test_data("models/bad");
	char *d = xstrdup(dir);

	CHECK_INT(vp_list_dir(NULL, d, &names, &n, &err), 0);
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", d, names[i]), *text = NULL, *nl;
		struct diags dg;
		struct model *m = NULL;
		int line = 0, col = 0, off = 0, ret;
		const char *want;

		if (vp_read_file(NULL, path, &text, NULL, &err) ||
		    sscanf(text, "# expect: %d:%d: %n", &line, &col, &off) != 2 || !off) {
			test_fail(__FILE__, __LINE__, "%s: no '# expect: L:C: message' line", path);
			goto next;
		}
		want = text + off;
		nl = strchr(text + off, '\n');
		if (nl)
			*nl = '\0';
		diags_init(&dg);
		ret = model_load(&m, path, NULL, 0, &dg, &err);
		CHECK_AT(__LINE__, ret == VP_EPARSE, "%s: loaded (ret %d), expected an error", path, ret);
		if (dg.n_errors) {
			size_t k = 0;

			while (dg.v[k].warning)
				k++;
			CHECK_AT(__LINE__, dg.v[k].line == line && dg.v[k].col == col,
				 "%s: error at %d:%d, expected %d:%d (%s)", names[i], dg.v[k].line,
				 dg.v[k].col, line, col, dg.v[k].msg);
			CHECK_AT(__LINE__, strstr(dg.v[k].msg, want), "%s: message '%s', expected '%s'",
				 names[i], dg.v[k].msg, want);
			/* the rendered error names the file and shows a caret */
			CHECK_AT(__LINE__, strstr(err.msg, ".model:") && strstr(err.msg, "^"),
				 "%s: rendered '%s'", names[i], err.msg);
			checked++;
		}
		model_free(m);
		diags_release(&dg);
next:
		free(text);
		free(path);
	}
	CHECK(checked >= 30);
	vp_free_names(names, n);
	free(d);
}

static struct model *load_example(struct diags *dg)
{
	struct model *m = NULL;
	struct vp_err err;
	char *path = xstrdup(test_data("models/good/example.model"));

	diags_init(dg);
	if (model_load(&m, path, NULL, 0, dg, &err))
		test_fail(__FILE__, __LINE__, "example.model: %s", err.msg);
	free(path);
	return m;
}

TEST(model_example_structure)
{
	struct diags dg;
	struct model *m = load_example(&dg);

	if (!m)
		return;
	CHECK_STR(m->name, "example");
	CHECK_STR(m->desc, "a two-socket Intel server, by hand");
	CHECK_INT(m->n_matches, 2);
	CHECK_INT(m->matches[0].kind, MATCH_CPU);
	CHECK_STR(m->matches[0].vendor, "GenuineIntel");
	CHECK_INT(m->matches[0].family, 6);
	CHECK_INT(m->matches[0].n_models, 1);
	CHECK_INT(m->matches[0].models[0][0], 0x55);
	CHECK_INT(m->matches[1].kind, MATCH_PMU);
	CHECK_INT(m->matches[1].n_pmus, 2);
	CHECK_STR(m->matches[1].pmus[1], "clx");
	/* 3 from base.model (its match rules are not inherited) + 7 */
	CHECK_INT(m->n_inputs, 10);
	CHECK_INT(m->n_metrics, 8);
	CHECK_INT(m->n_includes, 1);
	CHECK_STR(m->includes[0], "base");
	CHECK(model_find_input(m, "cas_rd") >= 0 && m->inputs[model_find_input(m, "cas_rd")].optional);
	CHECK_STR(m->inputs[model_find_input(m, "cas_rd")].spec, "uncore_imc/event=0x04,umask=0x03/");
	CHECK_INT(m->inputs[model_find_input(m, "spread")].kind, INPUT_SOURCE);
	CHECK_STR(m->inputs[model_find_input(m, "rem_dram")].desc, "loads served by remote DRAM");
	CHECK_STR(m->metrics[model_find_metric(m, "mem_bw")].unit, "GB/s");
	/* factors: the example's own bindings replace base.model's, queue stays unavailable */
	CHECK_INT(m->factors[FACTOR_LOCALITY].quality, VQ_MEASURED);
	CHECK_INT(m->factors[FACTOR_IMC].quality, VQ_APPORTIONED);
	CHECK_INT(m->factors[FACTOR_QUEUE].quality, VQ_UNAVAILABLE);
	CHECK_STR(m->factors[FACTOR_QUEUE].reason, "no queue occupancy events in this example");
	CHECK_STR(m->factors[FACTOR_LOCALITY].desc, "remote DRAM share of L3-miss loads");
	CHECK_NEAR(m->factors[FACTOR_LOCALITY].warning, 0.2, 0);
	/* every metric comes after the metrics it reads */
	{
		size_t i, pos_ipc = 99, pos_busy = 99, pos_bw = 99, pos_util = 99;

		for (i = 0; i < m->n_metrics; i++) {
			const char *nm = m->metrics[m->order[i]].name;

			if (!strcmp(nm, "ipc")) pos_ipc = i;
			if (!strcmp(nm, "busy")) pos_busy = i;
			if (!strcmp(nm, "mem_bw")) pos_bw = i;
			if (!strcmp(nm, "bw_util")) pos_util = i;
		}
		CHECK(pos_ipc < pos_busy);
		CHECK(pos_bw < pos_util);
	}
	model_free(m);
	diags_release(&dg);
}

static void set_input(const struct model *m, double *in, const char *name, double v)
{
	int i = model_find_input(m, name);

	CHECK_AT(__LINE__, i >= 0, "no input '%s'", name);
	if (i >= 0)
		in[i] = v;
}

/*
 * Recorded counts of one 2-second interval, and results computed by hand
 * from the formulas in example.model and base.model.
 */
TEST(model_example_eval)
{
	struct diags dg;
	struct model *m = load_example(&dg);
	double in[16], met[16];
	struct factor_value fv[FACTOR_N];
	struct expr_env env;
	struct model_avail av;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	if (!m)
		return;
	for (i = 0; i < 16; i++)
		in[i] = NAN;
	set_input(m, in, "cyc", 2e9);
	set_input(m, in, "instr", 1e9);
	set_input(m, in, "tclk", 1e9);       /* ns of CPU time: 2 GHz */
	set_input(m, in, "rem_dram", 1e6);
	set_input(m, in, "loc_dram", 3e6);
	set_input(m, in, "llc_miss", 4e6);
	set_input(m, in, "hitm", 2e6);
	set_input(m, in, "cas_rd", 1e9);
	set_input(m, in, "cas_wr", 0.5e9);
	expr_env_init(&env);
	env.inputs = in;
	env.n_inputs = m->n_inputs;
	env.duration = 2;
	env.cal[CAL_LAT_LOCAL_NS] = 90;
	env.cal[CAL_LAT_REMOTE_NS] = 140;
	env.cal[CAL_LAT_C2C_REMOTE_NS] = 120;
	env.cal[CAL_PEAK_BW_GBS] = 100;
	model_eval(m, &env, met, fv);
	CHECK_NEAR(met[model_find_metric(m, "ipc")], 0.5, 1e-12);
	CHECK_NEAR(met[model_find_metric(m, "ghz")], 2, 1e-12);
	CHECK_NEAR(met[model_find_metric(m, "remote_frac")], 0.25, 1e-12);
	CHECK_NEAR(met[model_find_metric(m, "llc_mpki")], 4, 1e-12);
	CHECK_NEAR(met[model_find_metric(m, "hitm_pki")], 2, 1e-12);
	/* (1e9 + 0.5e9) lines * 64 B / 2 s = 48 GB/s, against a 100 GB/s peak */
	CHECK_NEAR(met[model_find_metric(m, "mem_bw")], 48, 1e-9);
	CHECK_NEAR(met[model_find_metric(m, "bw_util")], 0.48, 1e-12);
	CHECK_NEAR(met[model_find_metric(m, "busy")], 0, 0); /* ipc 0.5 is not < 0.5 */
	/* locality: 0.25 >= warning 0.2 */
	CHECK_NEAR(fv[FACTOR_LOCALITY].score, 0.25, 1e-12);
	CHECK_INT(fv[FACTOR_LOCALITY].sev, SEV_WARNING);
	CHECK_INT(fv[FACTOR_LLC].sev, SEV_OK);
	CHECK_INT(fv[FACTOR_SHARING].sev, SEV_WARNING);
	/* the costs are the cost stage's (test_cost.c): the model gives its terms */
	CHECK_NAN(fv[FACTOR_LOCALITY].cost_cycles);
	CHECK_NEAR(expr_eval(m->cost_term[CT_DRAM_REMOTE], &env), 1e6, 0);
	CHECK_NEAR(expr_eval(m->cost_term[CT_DRAM_LOCAL], &env), 3e6, 0);
	CHECK_NEAR(expr_eval(m->cost_term[CT_CACHE_REMOTE], &env), 2e6, 0);
	CHECK_NEAR(expr_eval(m->cost_term[CT_NODE_BW_GBS], &env), 48, 1e-9);
	CHECK(!m->cost_term[CT_STALL_MEM]);
	CHECK_INT(fv[FACTOR_IMC].sev, SEV_OK);
	CHECK_NAN(fv[FACTOR_QUEUE].score);
	CHECK_INT(fv[FACTOR_QUEUE].sev, SEV_NA);

	/* no calibration: the costs are n/a, and say why */
	for (i = 0; i < CAL_N; i++)
		env.cal[i] = NAN;
	model_eval(m, &env, met, fv);
	CHECK_NEAR(fv[FACTOR_LOCALITY].score, 0.25, 1e-12);
	CHECK_NAN(met[model_find_metric(m, "bw_util")]);
	model_check_inputs(m, NULL, NULL, &av, NULL);
	model_nan_reason(m, &av, m->factors[FACTOR_IMC].score, &env, &sb);
	CHECK_STR(sbuf_str(&sb), "needs calibration value cal.peak_bw_gbs (run 'vmmprof calibrate')");
	model_avail_release(m, &av);

	/* division by zero: nothing counted gives n/a, not 0 */
	set_input(m, in, "cyc", 0);
	model_eval(m, &env, met, fv);
	CHECK_NEAR(met[model_find_metric(m, "ipc")], 0, 0);  /* d_ratio(x, 0) is 0 by definition */
	CHECK_NAN(fv[FACTOR_QUEUE].score);                   /* 1 / ipc = 1 / 0 */
	sbuf_release(&sb);
	model_free(m);
	diags_release(&dg);
}

/* A resolver that knows a fixed set of events, as a fixture machine would. */
static int fake_check(void *ctx, const struct model_input *in, char **reason)
{
	static const char *const known[] = {
		"cycles", "instructions", "task-clock", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM",
		"MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM",
	};
	struct vp_err err;
	size_t i;
	int ret;

	(void)ctx;
	if (in->kind == INPUT_SOURCE) {
		ret = swsource_check(in->spec, &err);
		if (ret)
			*reason = xstrdup(err.msg);
		return ret;
	}
	for (i = 0; i < VP_ARRAY_SIZE(known); i++)
		if (!strcmp(in->spec, known[i]))
			return 0;
	if (!strncmp(in->spec, "uncore_", 7)) {
		*reason = xasprintf("no PMU '%.*s' on this machine", (int)strcspn(in->spec, "/"),
				    in->spec);
		return VP_EUNSUPP;
	}
	*reason = xasprintf("unknown event '%s'", in->spec);
	return VP_ENOTFOUND;
}

TEST(model_check_inputs)
{
	struct diags dg, cd;
	struct model *m = load_example(&dg);
	struct model_avail av;
	int errors;
	size_t i, warnings = 0;

	if (!m)
		return;
	diags_init(&cd);
	errors = model_check_inputs(m, fake_check, NULL, &av, &cd);
	/* LONGEST_LAT_CACHE:MISS is unknown to the fake machine: one error, at its spec */
	CHECK_INT(errors, 1);
	for (i = 0; i < cd.n; i++) {
		if (cd.v[i].warning) {
			warnings++;
			continue;
		}
		CHECK_INT(cd.v[i].line, 12);
		CHECK_INT(cd.v[i].col, 18);
		CHECK_CONTAINS(cd.v[i].msg, "event 'llc_miss': unknown event 'LONGEST_LAT_CACHE:MISS'");
	}
	/* cas_rd, cas_wr absent (optional), spread absent outside the collector (optional) */
	CHECK_INT(warnings, 3);
	CHECK(!av.metric_ok[model_find_metric(m, "mem_bw")]);
	CHECK_CONTAINS(av.metric_reason[model_find_metric(m, "mem_bw")],
		       "event 'cas_rd' unavailable: no PMU 'uncore_imc' on this machine");
	CHECK(!av.metric_ok[model_find_metric(m, "bw_util")]);
	CHECK(av.metric_ok[model_find_metric(m, "remote_frac")]);
	CHECK(av.factor_ok[FACTOR_LOCALITY]);
	CHECK(!av.factor_ok[FACTOR_IMC]);
	CHECK_CONTAINS(av.factor_reason[FACTOR_IMC], "event 'cas_rd' unavailable");
	CHECK(!av.factor_ok[FACTOR_QUEUE]);
	CHECK_STR(av.factor_reason[FACTOR_QUEUE], "no queue occupancy events in this example");
	model_avail_release(m, &av);
	diags_release(&cd);
	model_free(m);
	diags_release(&dg);
}

/* has_event() lets a metric fall back when an optional event is missing. */
TEST(model_has_event_fallback)
{
	static const char text[] =
		"model f\n"
		"event a = cycles\n"
		"event u = uncore_imc/event=0x04/ optional\n"
		"metric x = u if has_event(u) else a / 2\n"
		"factor locality\n  score = x\n  warning = 1\n  critical = 2\n  quality = proxy\n"
		"factor llc unavailable \"x\"\nfactor sharing unavailable \"x\"\n"
		"factor imc unavailable \"x\"\nfactor queue unavailable \"x\"\n";
	struct diags dg;
	struct model *m = NULL;
	struct model_avail av;
	struct vp_err err;
	double in[2] = { 10, NAN }, met[1];
	struct factor_value fv[FACTOR_N];
	struct expr_env env;

	diags_init(&dg);
	CHECK_INT(model_load_text(&m, text, "f.model", NULL, 0, &dg, &err), 0);
	if (!m)
		return;
	model_check_inputs(m, fake_check, NULL, &av, NULL);
	CHECK(!av.input_ok[1]);
	CHECK(av.metric_ok[0]);
	CHECK(av.factor_ok[FACTOR_LOCALITY]);
	expr_env_init(&env);
	env.inputs = in;
	env.n_inputs = 2;
	model_eval(m, &env, met, fv);
	CHECK_NEAR(met[0], 5, 0);
	CHECK_INT(fv[FACTOR_LOCALITY].sev, SEV_CRITICAL);
	in[1] = 0.5;
	model_eval(m, &env, met, fv);
	CHECK_NEAR(met[0], 0.5, 0);
	CHECK_INT(fv[FACTOR_LOCALITY].sev, SEV_OK);
	model_avail_release(m, &av);
	model_free(m);
	diags_release(&dg);
}

/* Several errors in one file are all reported, each on its own line. */
TEST(model_error_recovery)
{
	static const char text[] =
		"model r\n"
		"metric a = 1 +\n"
		"metric b = zz\n"
		"event c = cycles bogus\n"
		"factor nope\n";
	struct diags dg;
	struct model *m = NULL;
	struct vp_err err;

	diags_init(&dg);
	CHECK_INT(model_load_text(&m, text, "r.model", NULL, 0, &dg, &err), VP_EPARSE);
	CHECK(dg.n_errors >= 3);
	if (dg.n_errors >= 3) {
		CHECK_INT(dg.v[0].line, 2);
		CHECK_INT(dg.v[1].line, 4);
		CHECK_INT(dg.v[2].line, 5);
	}
	CHECK_CONTAINS(err.msg, "r.model:2:15: error: unterminated expression");
	model_free(m);
	diags_release(&dg);
}

TEST(model_unreadable_file)
{
	struct diags dg;
	struct model *m = NULL;
	struct vp_err err;

	diags_init(&dg);
	CHECK_INT(model_load(&m, "/nonexistent/x.model", NULL, 0, &dg, &err), VP_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "cannot read model '/nonexistent/x.model'");
	diags_release(&dg);
}

TEST(swsource_names)
{
	struct vp_err err;

	CHECK_INT(swsource_check("placement.spread", &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "computed per VM and vCPU by diagnose, top, record and the daemon");
	CHECK_CONTAINS(err.msg, "stat -m has no vCPU rows");
	CHECK_INT(swsource_check("numastat.bogus", &err), VP_ENOTFOUND);
	CHECK_STR(err.msg, "unknown source 'numastat.bogus'");
}

/* numastat and vmstat sources read through a root: other_node summed over nodes */
TEST(swsource_read_fixture)
{
	struct vp_err err;
	double v;
	char *root = xstrdup(test_data("root/host-qemu"));

	/* node0 other_node 12000 + node1 other_node 23000 */
	CHECK_INT(swsource_read(root, "numastat.other_node", &v, &err), 0);
	CHECK_NEAR(v, 35000, 0);
	CHECK_INT(swsource_read(root, "vmstat.numa_hint_faults", &v, &err), 0);
	CHECK_NEAR(v, 800, 0);
	CHECK_INT(swsource_read(root, "placement.spread", &v, &err), VP_EUNSUPP);
	CHECK_NAN(v);
	free(root);
}

/* Every built-in model loads, binds all five factors, and names real sources. */
TEST(model_builtins_parse)
{
	char *dir = xstrdup(test_data("../../models"));
	char **names = NULL;
	size_t n = 0, i, loaded = 0;
	struct vp_err err;

	CHECK_INT(vp_list_dir(NULL, dir, &names, &n, &err), 0);
	for (i = 0; i < n; i++) {
		char *path;
		struct diags dg;
		struct model *m = NULL;
		struct model_avail av;
		size_t k;
		int f;

		if (!strstr(names[i], ".model"))
			continue;
		path = xasprintf("%s/%s", dir, names[i]);
		diags_init(&dg);
		if (model_load(&m, path, NULL, 0, &dg, &err)) {
			test_fail(__FILE__, __LINE__, "%s", err.msg);
		} else {
			loaded++;
			CHECK_AT(__LINE__, m->n_matches >= 1, "%s: no match rule", names[i]);
			for (f = 0; f < FACTOR_N; f++)
				CHECK_AT(__LINE__, m->factors[f].bound, "%s: factor %d", names[i], f);
			for (k = 0; k < m->n_inputs; k++)
				if (m->inputs[k].kind == INPUT_SOURCE)
					CHECK_AT(__LINE__, swsource_find(m->inputs[k].spec),
						 "%s: unknown source '%s'", names[i], m->inputs[k].spec);
			/* with every input present, every bound factor can be computed */
			model_check_inputs(m, NULL, NULL, &av, NULL);
			for (f = 0; f < FACTOR_N; f++)
				CHECK_AT(__LINE__, av.factor_ok[f] ||
					 m->factors[f].quality == VQ_UNAVAILABLE,
					 "%s: factor %d not computable: %s", names[i], f,
					 av.factor_reason[f]);
			model_avail_release(m, &av);
			model_free(m);
		}
		diags_release(&dg);
		free(path);
	}
	CHECK(loaded >= 12);
	vp_free_names(names, n);
	free(dir);
}

/* `node` and `home` after an event's spec: home implies node; a source takes neither. */
TEST(model_node_and_home_keywords)
{
	static const char text[] =
		"model k\n"
		"event r = cpu-clock node\n"
		"event h = uncore_imc/event=0x04/ optional home \"CAS\"\n"
		"event p = task-clock\n"
		"factor locality unavailable \"x\"\nfactor llc unavailable \"x\"\n"
		"factor sharing unavailable \"x\"\nfactor imc unavailable \"x\"\n"
		"factor queue unavailable \"x\"\n";
	static const char bad[] =
		"model b\nsource s = numastat.local_node home\n";
	struct diags dg;
	struct model *m = NULL;
	struct vp_err err;

	diags_init(&dg);
	CHECK_INT(model_load_text(&m, text, "k.model", NULL, 0, &dg, &err), 0);
	if (m && m->n_inputs == 3) {
		CHECK(m->inputs[0].per_node && !m->inputs[0].home);
		CHECK(m->inputs[1].per_node && m->inputs[1].home && m->inputs[1].optional);
		CHECK_STR(m->inputs[1].desc, "CAS");
		CHECK(!m->inputs[2].per_node && !m->inputs[2].home);
	}
	model_free(m);
	m = NULL;
	diags_release(&dg);
	diags_init(&dg);
	CHECK_INT(model_load_text(&m, bad, "b.model", NULL, 0, &dg, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "b.model:2:");
	model_free(m);
	diags_release(&dg);
}
