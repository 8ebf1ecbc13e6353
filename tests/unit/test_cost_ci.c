/* test_cost_ci.c - cost intervals on synthetic samples, worked by hand */
#include "test.h"

#include <math.h>
#include <string.h>

#include "collect/cost_ci.h"
#include "model/model.h"

/*
 * The bootstrap is random; its generator is seeded (ctx.seed), and the
 * bounds below hold for any seed with overwhelming probability, as each
 * case says.
 */
static struct cost_ci_ctx ctx(double running)
{
	struct cost_ci_ctx c = { running, "exact", true, 1000, 7 };

	return c;
}

/* Every sample 10: every resample's mean is 10, whatever the seed or the widening. */
TEST(cost_ci_constant_samples)
{
	double v[4] = { 10, 10, 10, 10 };
	struct cost_ci_ctx c = ctx(0.25);
	struct cost_ci ci;

	cost_ci_compute(v, 4, &c, &ci);
	CHECK_INT((int)ci.n, 4);
	CHECK_NEAR(ci.value, 10, 1e-12);
	CHECK_NEAR(ci.lo, 10, 1e-12);
	CHECK_NEAR(ci.hi, 10, 1e-12);
	CHECK_NEAR(ci.half, 0, 1e-12);
	CHECK_NEAR(ci.widen, 2, 1e-12);          /* 1 / sqrt(0.25) */
	CHECK(!ci.holds_zero);
}

/*
 * Samples 0 and 20: a resample of two is {0,0}, {0,20} or {20,20}, means
 * 0, 10, 20 with chances 1/4, 1/2, 1/4.  The 2.5th percentile of 1000 is 0
 * unless fewer than 25 of 1000 draws are 0 (expected 250: chance below
 * 1e-80), the 97.5th is 20 likewise: [0, 20], which holds 0.
 */
TEST(cost_ci_two_samples_hold_zero)
{
	double v[2] = { 0, 20 };
	struct cost_ci_ctx c = ctx(NAN);
	struct cost_ci ci;

	cost_ci_compute(v, 2, &c, &ci);
	CHECK_NEAR(ci.value, 10, 1e-12);
	CHECK_NEAR(ci.lo, 0, 1e-12);
	CHECK_NEAR(ci.hi, 20, 1e-12);
	CHECK_NEAR(ci.half, 10, 1e-12);
	CHECK(ci.holds_zero);
}

/*
 * Ten samples, five 16 and five 20: a resample's mean is 16 + 0.4 k with
 * k ~ Binomial(10, 1/2).  P(k <= 1) = 11/1024 (1.1 %), P(k <= 2) = 56/1024
 * (5.5 %), so the 2.5th percentile is k = 2 (16.8); k = 1 or 3 (16.4,
 * 17.2) only if 1000 draws stray far from those shares (expected 11 and
 * 55 draws against the 25th: chance below 1e-6).  Symmetrically hi in
 * [18.8, 19.6].  Counted half the time (running 0.25 would be a quarter):
 * half-widths x 1/sqrt(0.25) = 2 about the mean 18.
 */
TEST(cost_ci_spread_and_multiplexing)
{
	double v[10] = { 16, 20, 16, 20, 16, 20, 16, 20, 16, 20 };
	struct cost_ci_ctx c = ctx(1.0);
	struct cost_ci a, b;

	cost_ci_compute(v, 10, &c, &a);
	CHECK_NEAR(a.value, 18, 1e-12);
	CHECK(a.lo >= 16.4 - 1e-9 && a.lo <= 17.2 + 1e-9);
	CHECK(a.hi >= 18.8 - 1e-9 && a.hi <= 19.6 + 1e-9);
	CHECK_NEAR(a.widen, 1, 1e-12);
	CHECK(!a.holds_zero);
	c.running = 0.25;
	cost_ci_compute(v, 10, &c, &b);         /* the same seed: the same resamples */
	CHECK_NEAR(b.value, 18, 1e-12);
	CHECK_NEAR(18 - b.lo, 2 * (18 - a.lo), 1e-9);
	CHECK_NEAR(b.hi - 18, 2 * (a.hi - 18), 1e-9);
	CHECK(b.lo >= 14.8 - 1e-9 && b.lo <= 16.4 + 1e-9);
}

/* A cost never goes below 0: widened past it, the interval stops at 0 and holds it. */
TEST(cost_ci_clamped_at_zero)
{
	double v[10] = { 1, 3, 1, 3, 1, 3, 1, 3, 1, 3 };
	struct cost_ci_ctx c = ctx(0.01);       /* widened x10: 2 - 10 x (2 - lo) < 0 */
	struct cost_ci ci;

	cost_ci_compute(v, 10, &c, &ci);
	CHECK_NEAR(ci.value, 2, 1e-12);
	CHECK_NEAR(ci.lo, 0, 1e-12);
	CHECK(ci.holds_zero);
}

/* One finite sample: a value, no interval; none: n/a. */
TEST(cost_ci_too_few)
{
	double v[3] = { NAN, 5, NAN }, w[2] = { NAN, NAN };
	struct cost_ci_ctx c = ctx(NAN);
	struct cost_ci ci;

	cost_ci_compute(v, 3, &c, &ci);
	CHECK_INT((int)ci.n, 1);
	CHECK_NEAR(ci.value, 5, 1e-12);
	CHECK(isnan(ci.lo) && isnan(ci.hi) && !ci.holds_zero);
	cost_ci_compute(w, 2, &c, &ci);
	CHECK_INT((int)ci.n, 0);
	CHECK(isnan(ci.value));
}

/* The lowest running share of the frame's events; an uncounted one (NaN) is left out. */
TEST(cost_ci_running_share)
{
	struct collect_scaling sc[3] = { { NULL, 0, 1, 1, 100 }, { NULL, 1, 1, 0.5, 50 },
					 { NULL, 2, 0, 0, NAN } };
	struct collect_frame f = { 0 };
	struct cost_ci_set s = { 0 };
	struct collect_row r[2];
	struct sbuf out = SBUF_INIT;
	struct cost_ci_ctx c = ctx(NAN);
	const struct cost_ci *ci;
	int i, k;

	f.scaling = sc;
	f.n_scaling = 3;
	CHECK_NEAR(cost_ci_running(&f), 0.5, 1e-12);
	f.n_scaling = 0;
	CHECK(isnan(cost_ci_running(&f)));

	/* two VMs over two samples: web's llc 0 then 20 (holds 0), db's locality 18 twice */
	memset(r, 0, sizeof(r));
	r[0].kind = r[1].kind = ENT_VM;
	r[0].name = (char *)"web";
	r[1].name = (char *)"db";
	f.rows = r;
	f.n_rows = 2;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < FACTOR_N; i++)
			r[0].fv[i].cost_pct = r[1].fv[i].cost_pct = NAN;
		r[0].fv[FACTOR_LLC].cost_pct = k ? 20 : 0;
		r[1].fv[FACTOR_LOCALITY].cost_pct = 18;
		cost_ci_add(&s, &f);
	}
	c.calibrated = false;
	c.running = 0.5;
	cost_ci_finish(&s, &c);
	ci = cost_ci_find(&s, "web", FACTOR_LLC);
	CHECK(ci && ci->holds_zero);
	CHECK(cost_ci_find(&s, "web", FACTOR_IMC) == NULL);
	cost_ci_text(&s, &out);
	CHECK_CONTAINS(sbuf_str(&out), "  db: locality 18.0 % ±0.0\n");
	CHECK_CONTAINS(sbuf_str(&out), "(holds 0)");
	CHECK_CONTAINS(sbuf_str(&out), "events counted 50 % of the time at worst; each factor "
		       "widened by 1/sqrt of its own events' share: locality x1.41, llc x1.41");
	CHECK_CONTAINS(sbuf_str(&out), "no calibration");
	{
		/* what the remote client reads back prints the same text */
		struct sbuf js = SBUF_INIT, again = SBUF_INIT;
		struct cost_ci_set back;
		struct jw w;
		struct jv doc;
		struct vp_err err = { 0, "" };

		jw_init(&w, &js, false);
		cost_ci_json(&s, &w);
		CHECK_INT(jv_parse(&doc, js.buf, js.len, "ci", &err), 0);
		CHECK_INT(cost_ci_from_json(&back, &doc), 0);
		cost_ci_text(&back, &again);
		CHECK_STR(sbuf_str(&again), sbuf_str(&out));
		ci = cost_ci_find(&back, "web", FACTOR_LLC);
		CHECK(ci && ci->holds_zero && ci->n == 2);
		cost_ci_release(&back);
		jv_release(&doc);
		CHECK_INT(cost_ci_from_json(&back, NULL), -1);
		cost_ci_release(&back);
		sbuf_release(&js);
		sbuf_release(&again);
	}
	sbuf_release(&out);
	cost_ci_release(&s);
}

/*
 * Each factor is widened by the running share of its own events (the cost
 * terms docs/method.md's split reads for it, and the cycles), not by the
 * lowest over all events: here the in-socket HITM count (read by sharing
 * alone) ran 25 % of the time and the tracker count (queue alone) 50 %,
 * everything else all the time.  So sharing is widened x2 (1/sqrt(0.25)),
 * queue x1.41, locality, llc and imc not at all.  Samples 10 and 20 of each
 * factor: mean 15, bootstrap [10, 20] (means 10, 15, 20 with chances 1/4,
 * 1/2, 1/4); widened x2: [5, 25]; x sqrt 2: 15 -+ 7.07.
 */
TEST(cost_ci_widening_per_factor)
{
	static const char text[] =
		"model w\n"
		"event cyc = cycles\nevent instr = instructions\nevent loc = r01d3\n"
		"event rem = r02d3\nevent llcm = r412e\nevent hl = r04d2\nevent trk = r0136\n"
		"metric tlat = trk / 2\n"
		"cycles = cyc\n"
		"cost dram_local = loc\ncost dram_remote = rem\ncost llc_miss = llcm\n"
		"cost instr = instr\ncost hitm_local = hl\ncost tracker_ns = tlat\n"
		"factor locality unavailable \"t\"\nfactor llc unavailable \"t\"\n"
		"factor sharing unavailable \"t\"\nfactor imc unavailable \"t\"\n"
		"factor queue unavailable \"t\"\n";
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	struct collect_scaling sc[7];
	struct collect_frame f = { 0 };
	struct collect_row r;
	struct cost_ci_set s = { 0 };
	struct cost_ci_ctx c = ctx(NAN);
	static const char *const names[7] = { "cyc", "instr", "loc", "rem", "llcm", "hl", "trk" };
	const struct cost_ci *ci;
	int i, k;

	diags_init(&d);
	CHECK_INT(model_load_text(&m, text, "/nonexistent/w.model", NULL, 0, &d, &err), 0);
	diags_release(&d);
	if (!m)
		return;
	for (i = 0; i < 7; i++) {
		int in = model_find_input(m, names[i]);

		CHECK(in >= 0);
		sc[i].event = NULL;
		sc[i].input = (size_t)in;
		sc[i].enabled_s = 1;
		sc[i].running_pct = !strcmp(names[i], "hl") ? 25 : !strcmp(names[i], "trk") ? 50 : 100;
		sc[i].running_s = sc[i].running_pct / 100;
	}
	f.scaling = sc;
	f.n_scaling = 7;
	CHECK_NEAR(cost_ci_running(&f), 0.25, 1e-12);
	CHECK_NEAR(cost_ci_running_factor(m, &f, FACTOR_LOCALITY), 1, 1e-12);
	CHECK_NEAR(cost_ci_running_factor(m, &f, FACTOR_LLC), 1, 1e-12);
	CHECK_NEAR(cost_ci_running_factor(m, &f, FACTOR_SHARING), 0.25, 1e-12);
	CHECK_NEAR(cost_ci_running_factor(m, &f, FACTOR_IMC), 1, 1e-12);
	CHECK_NEAR(cost_ci_running_factor(m, &f, FACTOR_QUEUE), 0.5, 1e-12);

	cost_ci_ctx_running(&c, m, &f);
	memset(&r, 0, sizeof(r));
	r.kind = ENT_VM;
	r.name = (char *)"vm";
	f.rows = &r;
	f.n_rows = 1;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < FACTOR_N; i++)
			r.fv[i].cost_pct = k ? 20 : 10;
		cost_ci_add(&s, &f);
	}
	cost_ci_finish(&s, &c);
	ci = cost_ci_find(&s, "vm", FACTOR_LOCALITY);
	CHECK(ci && fabs(ci->widen - 1) < 1e-12 && fabs(ci->lo - 10) < 1e-12 && fabs(ci->hi - 20) < 1e-12);
	ci = cost_ci_find(&s, "vm", FACTOR_SHARING);
	CHECK(ci && fabs(ci->widen - 2) < 1e-12 && fabs(ci->lo - 5) < 1e-12 && fabs(ci->hi - 25) < 1e-12);
	ci = cost_ci_find(&s, "vm", FACTOR_QUEUE);
	CHECK(ci && fabs(ci->widen - sqrt(2)) < 1e-12 && fabs(ci->half - 5 * sqrt(2)) < 1e-9);
	cost_ci_release(&s);
	model_free(m);
}

/* A daemon's session keeps the newest max_s samples: 0, 10, 20 with max_s 2 are 10 and 20. */
TEST(cost_ci_keeps_the_newest_samples)
{
	struct collect_frame f = { 0 };
	struct collect_row r;
	struct cost_ci_set s = { 0 };
	struct cost_ci_ctx c = ctx(NAN);
	const struct cost_ci *ci;
	int i, k;

	memset(&r, 0, sizeof(r));
	r.kind = ENT_VM;
	r.name = (char *)"vm";
	f.rows = &r;
	f.n_rows = 1;
	s.max_s = 2;
	for (k = 0; k < 3; k++) {
		for (i = 0; i < FACTOR_N; i++)
			r.fv[i].cost_pct = 10.0 * k;
		cost_ci_add(&s, &f);
	}
	CHECK_INT((int)s.n_s, 2);
	cost_ci_finish(&s, &c);
	ci = cost_ci_find(&s, "vm", FACTOR_LLC);
	CHECK(ci && ci->n == 2 && fabs(ci->value - 15) < 1e-12 && fabs(ci->lo - 10) < 1e-12 &&
	      fabs(ci->hi - 20) < 1e-12);
	cost_ci_release(&s);
}

/*
 * vCPUs and nodes have intervals too, and each finding gets its own.  VM
 * "web", vCPU 0 on node 0 (1e9 cycles), vCPU 1 on node 1 (3e9 cycles), two
 * samples.  vCPU 0's llc cost is 1e8 then 3e8 cycles (10 %, 30 %); vCPU 1's
 * is 3e8 both times (10 %).  Node 0 holds vCPU 0 alone: 10 %, 30 %; node 1
 * vCPU 1 alone: 10 %, 10 %.  With vCPU 1 moved to node 0 in a third case,
 * node 0's cost is the cycle-weighted (1e8 + 3e8) / 4e9 = 10 %, then
 * (3e8 + 3e8) / 4e9 = 15 %.  Two samples a and b: a resample's mean is a,
 * (a + b) / 2 or b (chances 1/4, 1/2, 1/4), so the 95 % interval is [a, b]
 * unless fewer than 25 of 1000 draws are all-a (expected 250: chance below
 * 1e-80); equal samples give [a, a].
 */
static void two_vcpu_frame(struct collect_frame *f, struct collect_row *r, int k, int node1)
{
	int i, j;

	memset(f, 0, sizeof(*f));
	memset(r, 0, 3 * sizeof(*r));
	r[0].kind = ENT_VM;
	r[0].name = (char *)"web";
	for (j = 1; j < 3; j++) {
		r[j].kind = ENT_VCPU;
		r[j].vm_row = 0;
		r[j].index = j - 1;
	}
	r[1].node = 0;
	r[1].cycles = 1e9;
	r[2].node = node1;
	r[2].cycles = 3e9;
	for (j = 0; j < 3; j++)
		for (i = 0; i < FACTOR_N; i++)
			r[j].fv[i].cost_cycles = r[j].fv[i].cost_pct = NAN;
	r[1].fv[FACTOR_LLC].cost_cycles = k ? 3e8 : 1e8;
	r[2].fv[FACTOR_LLC].cost_cycles = 3e8;
	r[1].fv[FACTOR_LLC].cost_pct = 100 * r[1].fv[FACTOR_LLC].cost_cycles / 1e9;
	r[2].fv[FACTOR_LLC].cost_pct = 10;
	f->rows = r;
	f->n_rows = 3;
}

TEST(cost_ci_vcpus_and_nodes)
{
	struct collect_frame f;
	struct collect_row r[3];
	struct cost_ci_set s = { 0 }, t = { 0 };
	struct cost_ci_ctx c = ctx(NAN);
	const struct cost_ci *ci;
	struct diag_vm vm = { 0 };
	struct diag_vcpu vc[2];
	struct diag_node nd[2];
	struct diag_input in;
	struct diag_bottleneck b[4];
	struct diag_result res;
	struct sbuf out = SBUF_INIT;
	struct jv doc;
	struct vp_err err;
	int k;

	for (k = 0; k < 2; k++) {
		two_vcpu_frame(&f, r, k, 1);
		cost_ci_add(&s, &f);
	}
	cost_ci_finish(&s, &c);
	ci = cost_ci_find_vcpu(&s, "web", 0, FACTOR_LLC);
	CHECK(ci && fabs(ci->value - 20) < 1e-9 && fabs(ci->lo - 10) < 1e-9 &&
	      fabs(ci->hi - 30) < 1e-9 && !ci->holds_zero);
	ci = cost_ci_find_vcpu(&s, "web", 1, FACTOR_LLC);
	CHECK(ci && fabs(ci->lo - 10) < 1e-9 && fabs(ci->hi - 10) < 1e-9);
	ci = cost_ci_find_node(&s, 0, FACTOR_LLC);
	CHECK(ci && fabs(ci->lo - 10) < 1e-9 && fabs(ci->hi - 30) < 1e-9);
	ci = cost_ci_find_node(&s, 1, FACTOR_LLC);
	CHECK(ci && fabs(ci->value - 10) < 1e-9 && fabs(ci->hi - 10) < 1e-9);
	CHECK(cost_ci_find_node(&s, 1, FACTOR_IMC) == NULL);
	CHECK(cost_ci_find_node(&s, 2, FACTOR_LLC) == NULL);
	/* a vCPU set is not a VM: "web" vCPU 0 is not found as VM "web"'s llc of 20 */
	CHECK(cost_ci_find(&s, "web", FACTOR_LLC) == NULL);

	/* the findings: vCPU 0's llc, node 0's llc, node 1's imc (no interval), cpu */
	memset(&in, 0, sizeof(in));
	memset(vc, 0, sizeof(vc));
	vm.name = "web";
	vc[0].index = 0;
	vc[1].index = 1;
	diag_node_init(&nd[0], 0, "0", 1);
	diag_node_init(&nd[1], 1, "1", 1);
	in.vms = &vm;
	in.n_vms = 1;
	in.vcpus = vc;
	in.n_vcpus = 2;
	in.nodes = nd;
	in.n_nodes = 2;
	memset(&res, 0, sizeof(res));
	memset(b, 0, sizeof(b));
	b[0].scope = DIAG_VCPU;
	b[0].entity = 0;
	b[0].factor = FACTOR_LLC;
	b[1].scope = DIAG_NODE;
	b[1].entity = 0;
	b[1].factor = FACTOR_LLC;
	b[2].scope = DIAG_NODE;
	b[2].entity = 1;
	b[2].factor = FACTOR_IMC;
	b[3].scope = DIAG_VCPU;
	b[3].entity = 1;
	b[3].factor = DIAG_FACTOR_CPU;
	res.b = b;
	res.n_b = 4;
	cost_ci_attach(&s, &in, &res);
	CHECK(fabs(b[0].ci_lo - 10) < 1e-9 && fabs(b[0].ci_hi - 30) < 1e-9);
	CHECK(fabs(b[1].ci_lo - 10) < 1e-9 && fabs(b[1].ci_hi - 30) < 1e-9);
	CHECK(isnan(b[2].ci_lo) && isnan(b[2].ci_hi));
	CHECK(isnan(b[3].ci_lo));

	/* --json and back: the same intervals */
	{
		struct jw w;

		jw_init(&w, &out, false);
		cost_ci_json(&s, &w);
	}
	CHECK_INT(jv_parse(&doc, sbuf_str(&out), out.len, "ci", &err), 0);
	CHECK(cost_ci_from_json(&t, &doc) == 0);
	ci = cost_ci_find_node(&t, 0, FACTOR_LLC);
	CHECK(ci && fabs(ci->lo - 10) < 1e-9 && fabs(ci->hi - 30) < 1e-9);
	ci = cost_ci_find_vcpu(&t, "web", 1, FACTOR_LLC);
	CHECK(ci && fabs(ci->lo - 10) < 1e-9 && fabs(ci->hi - 10) < 1e-9);
	cost_ci_release(&t);
	jv_release(&doc);
	cost_ci_release(&s);

	/* vCPU 1 on node 0 too: node 0 is cycle-weighted, 10 % then 15 % */
	for (k = 0; k < 2; k++) {
		two_vcpu_frame(&f, r, k, 0);
		cost_ci_add(&s, &f);
	}
	cost_ci_finish(&s, &c);
	ci = cost_ci_find_node(&s, 0, FACTOR_LLC);
	CHECK(ci && fabs(ci->value - 12.5) < 1e-9 && fabs(ci->lo - 10) < 1e-9 &&
	      fabs(ci->hi - 15) < 1e-9);
	CHECK(cost_ci_find_node(&s, 1, FACTOR_LLC) == NULL);
	/* the daemon's set: VMs and nodes only */
	cost_ci_release(&s);
	s.skip_vcpus = true;
	two_vcpu_frame(&f, r, 0, 1);
	cost_ci_add(&s, &f);
	cost_ci_add(&s, &f);
	cost_ci_finish(&s, &c);
	CHECK(cost_ci_find_vcpu(&s, "web", 0, FACTOR_LLC) == NULL);
	CHECK(cost_ci_find_node(&s, 0, FACTOR_LLC) != NULL);
	cost_ci_release(&s);
	sbuf_release(&out);
}

/*
 * One node cost for /metrics, diagnose and the intervals (issue 16/24):
 * frame_node_cost() divides by the cycles of the threads that have the
 * cost only.  Both vCPUs on node 0: vCPU 0 1e9 cycles, llc 3e8; vCPU 1 3e9
 * cycles, llc 3e8.  Both known: (3e8 + 3e8) / (1e9 + 3e9) = 15 %.  vCPU
 * 1's llc unknown: 3e8 / 1e9 = 30 %, vCPU 1 (3e9 cycles) left out -- not
 * 3e8 / 4e9 = 7.5 %, which would count its unknown cost as none.  imc: no
 * vCPU has it, NaN, both (4e9 cycles) left out.  vCPU 1 with its cost but
 * no cycles: in the cost sum (6e8), not in the share (30 %), not left out.
 */
TEST(frame_node_cost_over_the_costed_threads)
{
	struct collect_frame f;
	struct collect_row r[3];
	struct frame_node_cost nc[FACTOR_N];
	double pct[FACTOR_N];

	two_vcpu_frame(&f, r, 1, 0);
	frame_node_cost(NULL, &f, 0, nc);
	CHECK_NEAR(nc[FACTOR_LLC].pct, 15, 1e-9);
	CHECK_INT(nc[FACTOR_LLC].n_threads, 2);
	CHECK_INT(nc[FACTOR_LLC].left_out, 0);
	CHECK(isnan(nc[FACTOR_IMC].pct) && isnan(nc[FACTOR_IMC].cost_cycles));
	CHECK_INT(nc[FACTOR_IMC].left_out, 2);
	CHECK_NEAR(nc[FACTOR_IMC].left_out_cycles, 4e9, 1);
	CHECK_INT(nc[FACTOR_IMC].q, VQ_UNAVAILABLE);

	r[2].fv[FACTOR_LLC].cost_cycles = NAN;
	frame_node_cost(NULL, &f, 0, nc);
	CHECK_NEAR(nc[FACTOR_LLC].pct, 30, 1e-9);
	CHECK_NEAR(nc[FACTOR_LLC].cost_cycles, 3e8, 1);
	CHECK_NEAR(nc[FACTOR_LLC].cycles, 1e9, 1);
	CHECK_INT(nc[FACTOR_LLC].n_threads, 1);
	CHECK_INT(nc[FACTOR_LLC].left_out, 1);
	CHECK_NEAR(nc[FACTOR_LLC].left_out_cycles, 3e9, 1);
	CHECK_INT(nc[FACTOR_LLC].q, VQ_MEASURED);
	/* the pct-only form diagnose's intervals read is the same number */
	frame_node_cost_pct(&f, 0, pct);
	CHECK_NEAR(pct[FACTOR_LLC], 30, 1e-9);
	CHECK(isnan(pct[FACTOR_IMC]));

	r[2].fv[FACTOR_LLC].cost_cycles = 3e8;
	r[2].cycles = NAN;
	frame_node_cost(NULL, &f, 0, nc);
	CHECK_NEAR(nc[FACTOR_LLC].pct, 30, 1e-9);
	CHECK_NEAR(nc[FACTOR_LLC].cost_cycles, 6e8, 1);
	CHECK_INT(nc[FACTOR_LLC].left_out, 0);
	/* node 1: nobody ran there */
	frame_node_cost(NULL, &f, 1, nc);
	CHECK(isnan(nc[FACTOR_LLC].pct) && nc[FACTOR_LLC].left_out == 0);
}
