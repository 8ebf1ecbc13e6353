/* test_cost_invariants.c - the cost stage's invariants on fixed-seed random inputs, and on random counts through every built-in model */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "cost_check.h"
#include "model/model.h"
#include "util/alloc.h"
#include "util/fs.h"

/*
 * The invariants (issue 15): no negative cost; the five costs and the
 * interaction remainder sum to at most the budget, the budget to at most
 * the cycles; a factor without its counts is n/a (with a reason); more
 * remote accesses never lower the locality cost; more co-runner misses
 * never lower LLC contention.  Fixed seeds: the same inputs every run
 * (tests/fuzz/fuzz_cost.c explores further with the same checks).
 */
TEST(cost_invariants_random_rows)
{
	struct cc_src s = { NULL, 0, 0, 0x15cafe };
	double cu[3], cq[3];
	char buf[256];
	int i, bad = 0;

	for (i = 0; i < 20000 && bad < 5; i++) {
		struct cost_calib cc;
		struct cost_in in;
		struct cost_out o;
		const char *why;

		cc_draw(&s, &cc, cu, cq, &in);
		cost_row(&cc, &in, &o);
		why = cc_check(&in, &o, buf, sizeof(buf));
		if (!why)
			why = cc_check_monotone(&cc, &in, &o, buf, sizeof(buf));
		if (why) {
			bad++;
			test_fail(__FILE__, __LINE__, "row %d: %s", i, why);
		}
	}
}

/* The exact case where (n_loc - x_loc) rounds below 0: every DRAM access is an
 * extra miss.  Its IMC cost must not be negative (it was -3e-8 cycles on a zen2
 * scenario of tests/cli/t4120). */
TEST(cost_invariants_all_misses_extra)
{
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double cu[2] = { 0, 1 }, cq[2] = { 0, 100 };
	char buf[256];
	int t;

	memset(&cc, 0, sizeof(cc));
	cc.lat_local = 89;
	cc.lat_remote = 143;
	cc.lat_llc = 20;
	cc.c2c_local = 50;
	cc.c2c_remote = 114;
	cc.peak_bw = 105;
	cc.curve_u = cu;
	cc.curve_q = cq;
	cc.n_curve = 2;
	memset(&in, 0, sizeof(in));
	for (t = 0; t < CT_N; t++)
		in.term[t] = NAN;
	in.ghz = 2.4;
	in.cycles = 2.4e9;
	/* 7468794.67 x 0.2153 extra local misses, solo rate 0: x = n_dram */
	in.term[CT_DRAM_LOCAL] = 1608052.6;
	in.term[CT_DRAM_REMOTE] = 0;
	in.term[CT_LLC_MISS] = 1608052.6;
	in.term[CT_INSTR] = 2.153e8;
	in.solo_mpki = 0;
	cost_node_unknown(&in.local);
	cost_node_unknown(&in.remote);
	in.local.q_ns = 10.2;
	in.local.t_ns = 0;
	cost_row(&cc, &in, &o);
	CHECK_AT(__LINE__, !cc_check(&in, &o, buf, sizeof(buf)), "%s", buf);
	/* with x = n_dram exactly, nothing is left for the IMC or the queue alone */
	CHECK(fabs(o.cost[FACTOR_IMC]) < 1e-3);
	/* llc = x (89 - 20) x 2.4 */
	CHECK(fabs(o.cost[FACTOR_LLC] - 1608052.6 * 69 * 2.4) < 1);
}

/* Random counts bound to every input of every built-in model, through
 * frame_eval_row() and frame_cost(): the row's split keeps the invariants. */
TEST(cost_invariants_every_builtin_model)
{
	struct vp_err err = { 0, "" };
	char **names = NULL;
	size_t n = 0, i, checked = 0;
	char *dir = xstrdup(test_data("../../models"));
	const char *dirs[1] = { dir };
	struct cc_src s = { NULL, 0, 0, 0x24 };

	if (vp_list_dir("/", dir, &names, &n, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]), k;
		struct model *m = NULL;
		struct diags d;
		char *path;
		struct calib cal;
		int round;

		if (len < 7 || strcmp(names[i] + len - 6, ".model"))
			continue;
		path = xasprintf("%s/%s", dir, names[i]);
		diags_init(&d);
		if (model_load(&m, path, dirs, 1, &d, &err)) {
			test_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
			diags_release(&d);
			free(path);
			continue;
		}
		calib_init(&cal);
		calib_set(&cal, CAL_LAT_LOCAL_NS, 89, "");
		calib_set(&cal, CAL_LAT_REMOTE_NS, 143, "");
		calib_set(&cal, CAL_LAT_LLC_NS, 20, "");
		calib_set(&cal, CAL_LAT_C2C_LOCAL_NS, 50, "");
		calib_set(&cal, CAL_LAT_C2C_REMOTE_NS, 114, "");
		calib_set(&cal, CAL_PEAK_BW_GBS, 105, "");
		calib_set(&cal, CAL_BW_KNEE_GBS, 70, "");
		calib_set(&cal, CAL_LAT_LOADED_NS, 180, "");
		for (round = 0; round < 200; round++) {
			struct collect_frame f;
			struct collect_row *r;
			char buf[256];
			struct cost_in in;
			const char *why;

			memset(&f, 0, sizeof(f));
			f.duration = 1;
			f.cpu_mhz = 2400;
			f.rows = xcalloc(1, sizeof(*f.rows));
			f.n_rows = 1;
			f.nodes = xcalloc(1, sizeof(*f.nodes));
			f.n_nodes = 1;
			for (k = 0; k < 2; k++) {
				r = k ? &f.nodes[0] : &f.rows[0];
				r->kind = k ? ENT_NODE : ENT_VCPU;
				r->vm_row = (size_t)-1;
				r->node = 0;
				r->remote.v = NAN;
				r->inputs = xcalloc(m->n_inputs + 1, sizeof(double));
				for (size_t j = 0; j < m->n_inputs; j++)
					r->inputs[j] = cc_val(&s, 3e9, 1);
				frame_eval_row(m, NULL, &cal, f.cpu_mhz, r, f.duration);
			}
			f.rows[0].llc_alone = (signed char)(cc_byte(&s) % 3) - 1;
			f.rows[0].solo_mpki = cc_val(&s, 50, 1);
			frame_cost(m, &cal, &f, NULL);
			r = &f.rows[0];
			memset(&in, 0, sizeof(in));
			memcpy(in.term, r->term, sizeof(in.term));
			in.cycles = r->cycles;
			in.solo_mpki = isfinite(r->solo_mpki) ? r->solo_mpki : r->llc_alone == 1 ? 0 : NAN;
			cost_node_unknown(&in.local);
			cost_node_unknown(&in.remote);
			/* only the sums and signs: frame_cost() chose the node states */
			in.local.q_ns = in.local.t_ns = 0;
			in.remote.q_ns = 0;
			in.solo_mpki = 0;
			in.term[CT_DRAM_REMOTE] = in.term[CT_LLC_MISS] = in.term[CT_INSTR] = 0;
			in.term[CT_CACHE_REMOTE] = 0;
			why = isfinite(r->cycles) && r->cycles > 0 ? cc_check(&in, &r->cost, buf, sizeof(buf)) : NULL;
			if (why)
				test_fail(__FILE__, __LINE__, "model %s, round %d: %s", m->name, round, why);
			collect_frame_release(&f);
			if (why)
				break;
		}
		checked++;
		calib_release(&cal);
		model_free(m);
		diags_release(&d);
		free(path);
	}
	CHECK(checked >= 12);
out:
	vp_free_names(names, n);
	free(dir);
}
