/* test_topcount.c - top's counted factor cells from a collector frame, and their JSON read back */
#include "test.h"

#include <stdlib.h>

#include "collect/collect.h"
#include "model/model.h"
#include "top/topcount.h"
#include "top/toprender.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

/*
 * locality and llc both score the task-clock seconds of the interval
 * (thresholds 0.5/0.9 and 1/2).  Costs: cycles = 3 x task-clock ns, every
 * cycle stalled on DRAM, one remote load per 200 ns of CPU time; with 100 ns
 * local and 200 ns remote latency the stall is all remote loads, and making
 * them local saves (200 - 100) / 200 of it: a locality cost share of 50 %.
 * sharing is unbound.
 */
static const char model_text[] =
	"model tc\n"
	"match software\n"
	"event tclk = task-clock\n"
	"metric cpu_s = tclk / 1e9\n"
	"factor locality\n"
	"    score = cpu_s\n"
	"    warning = 0.5\n"
	"    critical = 0.9\n"
	"    quality = measured\n"
	"    description \"cpu seconds\"\n"
	"factor llc\n"
	"    score = cpu_s\n"
	"    warning = 1\n"
	"    critical = 2\n"
	"    quality = proxy\n"
	"factor sharing unavailable \"not bound here\"\n"
	"factor imc unavailable \"not bound here\"\n"
	"factor queue unavailable \"not bound here\"\n"
	"cycles = tclk * 3\n"
	"metric ghz = 3\n"
	"cost stall_mem = tclk * 3\n"
	"cost stall_l3_miss = tclk * 3\n"
	"cost dram_remote = tclk / 200\n"
	"cost dram_local = 0 * tclk\n";

/* The calibration the costs above are worked out with. */
static void test_cal(struct calib *c)
{
	calib_init(c);
	calib_set(c, CAL_LAT_LOCAL_NS, 100, NULL);
	calib_set(c, CAL_LAT_REMOTE_NS, 200, NULL);
}

static const char *reason(const void *ctx, size_t input)
{
	(void)ctx;
	return input == 0 ? "not counted: test reason" : NULL;
}

static const char *no_reason(const void *ctx, size_t input)
{
	(void)ctx;
	(void)input;
	return NULL;
}

/* A frame row for top's row of entity ent, with task-clock tclk_ns over 1 s. */
static void frame_row(const struct top_state *s, const struct model *m, int ent,
		      struct collect_row *r, double *in, double tclk_ns)
{
	memset(r, 0, sizeof(*r));
	r->kind = s->attrib.ents[ent].kind;
	r->key = s->attrib.ents[ent].key;
	in[0] = tclk_ns;
	r->inputs = in;
	frame_eval_row(m, &s->plat, NULL, NAN, r, 1.0);
}

static void frame_rows_release(struct collect_row *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(r[i].metrics);
}

TEST(top_counted_cells_from_frame)
{
	struct top_state s, back;
	struct model *m = NULL;
	struct model_avail av;
	struct diags dg;
	struct vp_err err = { 0, "" };
	struct collect_frame f;
	struct calib cal;
	struct collect_row rows[3];
	double in[3][1];
	struct sbuf sb = SBUF_INIT;
	struct jv v;
	size_t i, v0 = 0, v1 = 0;

	test_cal(&cal);
	diags_init(&dg);
	CHECK_INT(model_load_text(&m, model_text, "tc.model", NULL, 0, &dg, &err), 0);
	diags_release(&dg);
	if (!m)
		return;
	model_check_inputs(m, NULL, NULL, &av, NULL);
	/* host-qemu: VM "vptest,x" (160 MiB on node 0, 64 MiB on node 1), vCPU 0 on node 0, 1 on node 1 */
	CHECK_INT(top_init(&s, test_data("root/host-qemu"), &err), 0);
	CHECK_INT(top_sample(&s, &err), 0);
	CHECK_INT(s.n_vms, 1);
	CHECK_INT(s.n_vcpus, 2);
	if (s.n_vms != 1 || s.n_vcpus != 2)
		goto out;
	for (i = 0; i < s.n_vcpus; i++)
		*(s.vcpus[i].index == 0 ? &v0 : &v1) = i;

	/* the states a running collector of this model gives */
	s.cnt.m = m;
	s.cnt.on = true;
	sbuf_setf(&s.cnt.model, "tc");
	sbuf_setf(&s.cnt.model_why, "chosen with -m");
	top_count_describe(&s, &av);
	CHECK_INT(s.cnt.state[FACTOR_LOCALITY], TOP_F_COUNTED);
	CHECK_INT(s.cnt.state[FACTOR_LLC], TOP_F_COUNTED);
	CHECK_INT(s.cnt.state[FACTOR_SHARING], TOP_F_UNAVAILABLE);
	CHECK_CONTAINS(sbuf_str(&s.cnt.status), "counters: model 'tc' (chosen with -m); counted: locality "
				     "(measured), llc (proxy); estimated: none; unavailable: sharing, "
				     "imc, queue");
	CHECK_CONTAINS(sbuf_str(&s.factor_why[FACTOR_SHARING]), "not bound here");

	/* vCPU 0: 0.6 s of task-clock; vCPU 1: not counted; the VM: absent from the frame */
	memset(&f, 0, sizeof(f));
	f.duration = 1.0;
	f.rows = rows;
	f.n_rows = 2;
	frame_row(&s, m, s.vcpus[v0].ent, &rows[0], in[0], 0.6e9);
	frame_row(&s, m, s.vcpus[v1].ent, &rows[1], in[1], NAN);
	frame_cost(m, &cal, &f, NULL);
	top_apply_frame(&s, m, &av, &f, reason, NULL);

	/* vCPU 0: counted, 0.6 >= 0.5 warns for locality, < 1 is ok for llc; cost share 50 % */
	CHECK_INT(s.vcpus[v0].factor[FACTOR_LOCALITY].src, TOP_SRC_MODEL);
	CHECK_NEAR(s.vcpus[v0].factor[FACTOR_LOCALITY].q.v, 0.6, 1e-12);
	CHECK_INT(s.vcpus[v0].factor[FACTOR_LOCALITY].q.q, VQ_MEASURED);
	CHECK_INT(s.vcpus[v0].factor[FACTOR_LOCALITY].sev, SEV_WARNING);
	CHECK_NEAR(s.vcpus[v0].factor[FACTOR_LOCALITY].cost_pct, 50, 1e-9);
	CHECK_INT(s.vcpus[v0].factor[FACTOR_LLC].q.q, VQ_PROXY);
	CHECK_INT(s.vcpus[v0].factor[FACTOR_LLC].sev, SEV_OK);
	CHECK_NAN(s.vcpus[v0].factor[FACTOR_LLC].cost_pct);
	CHECK_NAN(s.vcpus[v0].factor[FACTOR_SHARING].q.v);
	/* vCPU 1: LOCAL keeps the placement estimate (64 of 224 MiB local on node 1: 5/7 remote) */
	CHECK_INT(s.vcpus[v1].factor[FACTOR_LOCALITY].src, TOP_SRC_PLACEMENT);
	CHECK_NEAR(s.vcpus[v1].factor[FACTOR_LOCALITY].q.v, 160.0 / 224, 1e-9);
	CHECK_INT(s.vcpus[v1].factor[FACTOR_LOCALITY].q.q, VQ_ESTIMATE);
	/* ... and LLC, which has no software figure, says which input is missing and why */
	CHECK_NAN(s.vcpus[v1].factor[FACTOR_LLC].q.v);
	CHECK_INT(s.vcpus[v1].factor[FACTOR_LLC].src, TOP_SRC_NONE);
	CHECK_CONTAINS(s.vcpus[v1].factor[FACTOR_LLC].q.why, "model 'tc': event 'tclk' unavailable: "
							      "not counted: test reason");
	/* the VM is not in the frame: not counted yet */
	CHECK_NAN(s.vms[0].factor[FACTOR_LLC].q.v);
	CHECK_CONTAINS(s.vms[0].factor[FACTOR_LLC].q.why, "not counted yet");
	CHECK_INT(s.vms[0].factor[FACTOR_LOCALITY].src, TOP_SRC_PLACEMENT);

	/* the cells as text: score sN, letter, cost share, severity mark (vp_factor_cell) */
	top_render_text(&s, &sb);
	CHECK_CONTAINS(sbuf_str(&sb), " s0.6/50.0%! ");
	CHECK_CONTAINS(sbuf_str(&sb), " s0.6p ");
	CHECK_CONTAINS(sbuf_str(&sb), "LOCAL counted: model 'tc' (measured): cpu seconds");
	/* one reason for three factors: said once, as footnote [1] */
	CHECK_CONTAINS(sbuf_str(&sb), "\nSHARE n/a: [1]\nIMC n/a: [1]\nQUEUE n/a: [1]\n"
				      "[1] model 'tc': not bound here\n");

	/* the JSON line read back (the remote client): the same cells and counters */
	sbuf_reset(&sb);
	top_render_json(&s, s.t_ns, &sb);
	CHECK_INT(jv_parse(&v, sbuf_str(&sb), sb.len, "top", &err), 0);
	top_init_remote(&back);
	CHECK_INT(top_from_json(&back, &v, &err), 0);
	CHECK_INT(back.n_vcpus, 2);
	for (i = 0; i < back.n_vcpus && back.n_vcpus == 2; i++) {
		const struct top_cell *a = s.vcpus[i].factor, *b = back.vcpus[i].factor;
		int k;

		for (k = 0; k < TOP_NFACTORS; k++) {
			CHECK_NEAR(b[k].q.v, a[k].q.v, 1e-9);
			CHECK_INT(b[k].q.q, a[k].q.q);
			CHECK_INT(b[k].src, a[k].src);
			CHECK_INT(b[k].sev, a[k].sev);
			CHECK_NEAR(b[k].cost_pct, a[k].cost_pct, 1e-9);
			CHECK_STR(b[k].q.why, a[k].q.why);
		}
	}
	CHECK(back.cnt.on);
	CHECK_STR(sbuf_str(&back.cnt.model), "tc");
	CHECK_STR(sbuf_str(&back.cnt.status), sbuf_str(&s.cnt.status));
	CHECK_INT(back.cnt.state[FACTOR_LLC], TOP_F_COUNTED);
	CHECK_INT(back.cnt.state[FACTOR_QUEUE], TOP_F_UNAVAILABLE);
	top_release(&back);
	jv_release(&v);

	/* the next frame counts vCPU 1 too: its cells turn to the model's */
	frame_rows_release(rows, 2);
	CHECK_INT(top_sample(&s, &err), 0);
	for (i = 0; i < s.n_vcpus; i++)
		*(s.vcpus[i].index == 0 ? &v0 : &v1) = i;
	frame_row(&s, m, s.vcpus[v0].ent, &rows[0], in[0], 0.95e9);
	frame_row(&s, m, s.vcpus[v1].ent, &rows[1], in[1], 0.1e9);
	frame_row(&s, m, s.vms[0].ent, &rows[2], in[2], 1.05e9);
	f.n_rows = 3;
	frame_cost(m, &cal, &f, NULL);
	top_apply_frame(&s, m, &av, &f, no_reason, NULL);
	CHECK_INT(s.vcpus[v0].factor[FACTOR_LOCALITY].sev, SEV_CRITICAL);
	CHECK_INT(s.vcpus[v1].factor[FACTOR_LOCALITY].src, TOP_SRC_MODEL);
	CHECK_NEAR(s.vcpus[v1].factor[FACTOR_LOCALITY].q.v, 0.1, 1e-12);
	CHECK_INT(s.vcpus[v1].factor[FACTOR_LOCALITY].sev, SEV_OK);
	CHECK_NEAR(s.vms[0].factor[FACTOR_LLC].q.v, 1.05, 1e-12);
	CHECK_INT(s.vms[0].factor[FACTOR_LLC].sev, SEV_WARNING);
	frame_rows_release(rows, 3);

	/* counting off: the software figures again, with the reason in every n/a */
	top_count_off(&s, "--no-counters was given");
	CHECK_INT(s.cnt.state[FACTOR_LOCALITY], TOP_F_ESTIMATED);
	CHECK_INT(s.cnt.state[FACTOR_LLC], TOP_F_UNAVAILABLE);
	CHECK_CONTAINS(sbuf_str(&s.cnt.status), "counters: off (--no-counters was given)");
	CHECK_INT(top_sample(&s, &err), 0);
	CHECK_INT(s.vcpus[0].factor[FACTOR_LOCALITY].src, TOP_SRC_PLACEMENT);
out:
	sbuf_release(&sb);
	top_release(&s);
	model_avail_release(m, &av);
	model_free(m);
	calib_release(&cal);
}
