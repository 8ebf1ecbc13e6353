/* test_frame_json.c - unit tests for src/collect/frame_json: the daemon's frame JSON, written by hand */
#include "test.h"

#include <stdlib.h>

#include "collect/frame_json.h"
#include "platform/platform.h"
#include "compose/frame_text.h"
#include "util/jsonread.h"
#include "util/table.h"
#include "util/alloc.h"

static const char model_text[] =
	"model fj\n"
	"event tclk = task-clock\n"
	"metric cpu_util = tclk / (duration * 1e9)\n"
	"metric half = cpu_util / 2\n"
	"factor locality\n  score = cpu_util\n  warning = 1\n  critical = 2\n  quality = proxy\n"
	"factor llc unavailable \"no llc events\"\nfactor sharing unavailable \"s\"\n"
	"factor imc unavailable \"i\"\nfactor queue unavailable \"q\"\n";

/* A model from text; NULL (and a failed check) when it does not load. */
static struct model *load_model(const char *text, const char *name)
{
	struct model *m = NULL;
	struct diags dg;
	struct vp_err err = { 0, "" };

	diags_init(&dg);
	CHECK_INT(model_load_text(&m, text, name, NULL, 0, &dg, &err), 0);
	diags_release(&dg);
	return m;
}

/*
 * A VM row and its vCPU row; the expected line is written out by hand from
 * docs/api.md: NaN is null, unavailable factors carry their reason, integers
 * without a fraction, -1 placement as null.
 */
TEST(frame_json_by_hand)
{
	struct model *m = NULL;
	struct collect_frame f;
	struct collect_row rows[2];
	struct collect_scaling sc[1];
	double met0[2] = { 0.5, 0.25 }, met1[2] = { 0.5, NAN };
	struct frame_meta meta = { "s7", 12, 1764470000.5, NULL };
	struct sbuf sb = SBUF_INIT;
	struct jw w;
	int k;

	m = load_model(model_text, "fj.model");
	if (!m)
		return;
	memset(&f, 0, sizeof(f));
	memset(rows, 0, sizeof(rows));
	f.duration = 2;
	f.rows = rows;
	f.n_rows = 2;
	f.scaling = sc;
	f.n_scaling = 1;
	sc[0].event = (char *)"task-clock";
	sc[0].running_pct = 62.5;
	sbuf_set(&f.notes, "note \"x\"");
	rows[0].kind = ENT_VM;
	rows[0].key = (char *)"vm:kvm:1234";
	rows[0].name = (char *)"web1";
	rows[0].pid = 1234;
	rows[0].domid = -1;
	rows[0].metrics = met0;
	rows[1].kind = ENT_VCPU;
	rows[1].key = (char *)"vcpu:kvm:1234:0";
	rows[1].vm_row = 0;
	rows[1].index = 0;
	rows[1].tid = 1240;
	rows[1].cpu = 1;
	rows[1].sched_window_s = 5; /* its run-queue wait a mean over 5 s */
	rows[1].node = -1;
	rows[1].metrics = met1;
	rows[0].cycles = 3e9;
	rows[1].cycles = NAN;
	for (k = 0; k < FACTOR_N; k++) {
		rows[0].fv[k].score = rows[0].fv[k].cost_cycles = rows[0].fv[k].cost_pct = NAN;
		rows[1].fv[k] = rows[0].fv[k];
	}
	rows[0].fv[FACTOR_LOCALITY].score = 0.5;
	rows[0].fv[FACTOR_LOCALITY].cost_cycles = 1.5e9;
	rows[0].fv[FACTOR_LOCALITY].cost_pct = 4;
	/* an unavailable factor's numbers are null whatever the row holds */
	rows[1].fv[FACTOR_LLC].score = 3;

	jw_init(&w, &sb, false);
	frame_json_write(&w, &meta, m, &f);
#define UNAV(name, why) "\"" name "\":{\"score\":null,\"cost_cycles\":null,\"cost_pct\":null," \
	"\"quality\":\"unavailable\",\"reason\":\"" why "\"}"
#define REST UNAV("llc", "no llc events") "," UNAV("sharing", "s") "," UNAV("imc", "i") "," \
	UNAV("queue", "q")
/* a row the cost stage did not split: every figure null, never 0 */
#define NOCOSTS ",\"costs\":{\"anchor\":\"none\",\"budget_cycles\":null,\"remainder_cycles\":null," \
	"\"base_cycles\":null,\"llc_base_cycles\":null,\"mlp\":null,\"suspect\":false," \
	"\"anchor_why\":null}"
/* a row with neither score nor cost: unavailable in this interval, as report, top and
 * /metrics say of it (not the model's "proxy"), with why */
#define NOCOST ",\"cost_why\":\"no cost was computed for this row\""
#define NOVALUE ",\"reason\":\"no score and no cost for this row in the interval\""
	CHECK_STR(sbuf_str(&sb),
		  "{\"schema\":\"vmmprof-frame/1\",\"session\":\"s7\",\"seq\":12,"
		  "\"time\":1764470000.5,\"duration\":2,\"model\":\"fj\",\"rows\":["
		  "{\"kind\":\"vm\",\"key\":\"vm:kvm:1234\",\"name\":\"web1\",\"pid\":1234,"
		  "\"domid\":-1,\"vm_row\":0,\"started\":null,\"state\":\"running\",\"cycles\":3000000000,"
		  "\"metrics\":{\"cpu_util\":0.5,\"half\":0.25},"
		  "\"factors\":{\"locality\":{\"score\":0.5,\"cost_cycles\":1500000000,"
		  "\"cost_pct\":4,\"quality\":\"proxy\",\"cost_quality\":\"measured\"}," REST "}"
		  NOCOSTS "},"
		  "{\"kind\":\"vcpu\",\"key\":\"vcpu:kvm:1234:0\",\"vm_row\":0,\"started\":null,\"state\":\"running\",\"index\":0,"
		  "\"tid\":1240,\"cpu\":1,\"node\":null,\"sched_window_s\":5,\"cycles\":null,"
		  "\"metrics\":{\"cpu_util\":0.5,\"half\":null},"
		  "\"factors\":{\"locality\":{\"score\":null,\"cost_cycles\":null,"
		  "\"cost_pct\":null,\"quality\":\"unavailable\"" NOVALUE "}," REST "}" NOCOSTS "}],"
		  "\"scaling\":[{\"event\":\"task-clock\",\"running_pct\":62.5}],"
		  "\"notes\":\"note \\\"x\\\"\"}");

	/* the factor the machine cannot evaluate becomes unavailable with avail's reason */
	{
		struct model_avail av;
		char why[] = "task-clock not counted";

		memset(&av, 0, sizeof(av));
		for (k = 0; k < FACTOR_N; k++)
			av.factor_ok[k] = k != FACTOR_LOCALITY;
		av.factor_reason[FACTOR_LOCALITY] = why;
		meta.av = &av;
		sbuf_reset(&sb);
		jw_init(&w, &sb, false);
		frame_json_write(&w, &meta, m, &f);
		CHECK_CONTAINS(sbuf_str(&sb), "\"factors\":{" UNAV("locality", "task-clock not counted")
			       "," REST "}" NOCOSTS "}");
	}
	sbuf_release(&sb);
	model_free(m);
	sbuf_release(&f.notes);  /* f's rows are the test's own */
}

/*
 * Per-node inputs (docs/method.md, "Per-socket counts"): a model whose
 * 'clk' is counted per node.  On the vCPU row (apportioned) the metrics that
 * read clk ('bw' and, through it, 'bw2') are listed as apportioned and the
 * factor scored on bw is labelled apportioned although the model says
 * measured; 'busy' reads the per-thread task-clock only.  The node row
 * carries its own counts, labelled measured (not split).  Written by hand.
 */
TEST(frame_json_node_rows_and_apportioned)
{
	static const char text[] =
		"model nj\nevent clk = cpu-clock node\nevent tclk = task-clock\n"
		"metric bw = clk / duration\nmetric bw2 = bw * 2\nmetric busy = tclk / duration\n"
		"factor imc\n  score = bw\n  warning = 1\n  critical = 2\n  quality = measured\n"
		"factor locality unavailable \"l\"\nfactor llc unavailable \"c\"\n"
		"factor sharing unavailable \"s\"\nfactor queue unavailable \"q\"\n";
	struct model *m = NULL;
	struct collect_frame f;
	struct collect_row rows[1], nodes[1];
	double met[3] = { 4, 8, 0.5 }, nmet[3] = { 16, 32, NAN };
	bool node_input[2] = { true, false };
	struct frame_meta meta = { "s1", 1, 10, NULL };
	struct sbuf sb = SBUF_INIT;
	struct jw w;
	int k;

	m = load_model(text, "nj.model");
	if (!m)
		return;
	CHECK(m->inputs[0].per_node);
	CHECK(!m->inputs[1].per_node);
	memset(&f, 0, sizeof(f));
	memset(rows, 0, sizeof(rows));
	memset(nodes, 0, sizeof(nodes));
	frame_mark_node_inputs(m, node_input, &f);
	CHECK(f.metric_node && f.metric_node[0] && f.metric_node[1] && !f.metric_node[2]);
	CHECK(f.factor_node[FACTOR_IMC]);
	CHECK(!f.factor_node[FACTOR_LOCALITY]);
	f.duration = 1;
	f.rows = rows;
	f.n_rows = 1;
	f.nodes = nodes;
	f.n_nodes = 1;
	rows[0].kind = ENT_PROCESS;
	rows[0].key = (char *)"proc:1";
	rows[0].name = (char *)"p";
	rows[0].pid = 1;
	rows[0].domid = -1;
	rows[0].metrics = met;
	rows[0].cycles = NAN;
	rows[0].apportioned = true;
	nodes[0].kind = ENT_NODE;
	nodes[0].key = (char *)"node:0";
	nodes[0].node = 0;
	nodes[0].metrics = nmet;
	nodes[0].cycles = NAN;
	for (k = 0; k < FACTOR_N; k++) {
		rows[0].fv[k].score = rows[0].fv[k].cost_cycles = rows[0].fv[k].cost_pct = NAN;
		nodes[0].fv[k] = rows[0].fv[k];
	}
	rows[0].fv[FACTOR_IMC].score = 4;
	nodes[0].fv[FACTOR_IMC].score = 16;
	jw_init(&w, &sb, false);
	frame_json_write(&w, &meta, m, &f);
#define NJ_REST UNAV("llc", "c") "," UNAV("sharing", "s")
	CHECK_STR(sbuf_str(&sb),
		  "{\"schema\":\"vmmprof-frame/1\",\"session\":\"s1\",\"seq\":1,\"time\":10,"
		  "\"duration\":1,\"model\":\"nj\",\"rows\":["
		  "{\"kind\":\"process\",\"key\":\"proc:1\",\"name\":\"p\",\"pid\":1,\"domid\":-1,"
		  "\"vm_row\":0,\"started\":null,\"state\":\"running\",\"cycles\":null,\"metrics\":{\"bw\":4,\"bw2\":8,\"busy\":0.5},"
		  "\"apportioned\":[\"bw\",\"bw2\"],"
		  "\"factors\":{" UNAV("locality", "l") "," NJ_REST ",\"imc\":{\"score\":4,"
		  "\"cost_cycles\":null,\"cost_pct\":null,\"quality\":\"apportioned\"" NOCOST "}," UNAV("queue", "q")
		  "}" NOCOSTS "}],"
		  "\"nodes\":[{\"kind\":\"node\",\"key\":\"node:0\",\"node\":0,\"quality\":\"measured\","
		  "\"cycles\":null,\"metrics\":{\"bw\":16,\"bw2\":32,\"busy\":null},"
		  "\"factors\":{" UNAV("locality", "l") "," NJ_REST ",\"imc\":{\"score\":16,"
		  "\"cost_cycles\":null,\"cost_pct\":null,\"quality\":\"measured\"" NOCOST "}," UNAV("queue", "q")
		  "}" NOCOSTS "}],"
		  "\"scaling\":[],\"notes\":null}");
	free(f.node_input);
	free(f.metric_node);
	sbuf_release(&sb);
	model_free(m);
}

/*
 * The diagnosis's node view from a frame's node rows: the model's mem_bw on
 * each node's counts is the node's bandwidth, queue_full_frac its queue
 * saturation; a node whose counts are a split package's share is labelled
 * apportioned, and its note says so.  Node 1 has no node row: n/a, never 0.
 */
TEST(frame_diag_input_node_view)
{
	static const char text[] =
		"model nv\nevent cas = uncore_imc/event=0x04,umask=0x03/ optional\n"
		"event full = uncore/event=0x00,umask=0x01/ optional\n"
		"metric mem_bw [GB/s] = cas * 64 / duration / 1e9\n"
		"metric queue_full_frac = full / 1e9\n"
		"factor imc\n  score = mem_bw\n  warning = 1\n  critical = 2\n  quality = apportioned\n"
		"factor locality unavailable \"l\"\nfactor llc unavailable \"c\"\n"
		"factor sharing unavailable \"s\"\nfactor queue unavailable \"q\"\n";
	struct model *m = NULL;
	struct vp_err err = { 0, "" };
	struct topology topo;
	struct numa_node nn[2];
	struct collect_frame f;
	struct collect_row nodes[2];
	struct diag_input in;
	struct diag_result res;
	double met0[2] = { 80, 0.15 }, met2[2] = { 20, NAN };
	bool ok[FACTOR_N] = { false, false, false, true, false };

	m = load_model(text, "nv.model");
	if (!m)
		return;
	memset(&topo, 0, sizeof(topo));
	memset(nn, 0, sizeof(nn));
	nn[0].id = 0;
	nn[1].id = 2; /* node ids need not be contiguous */
	cpulist_parse(&nn[0].cpus, "0-1", NULL);
	cpulist_parse(&nn[1].cpus, "2-3", NULL);
	topo.n_nodes = 2;
	topo.nodes = nn;
	memset(&f, 0, sizeof(f));
	memset(nodes, 0, sizeof(nodes));
	f.duration = 1;
	f.nodes = nodes;
	f.n_nodes = 1;
	nodes[0].kind = ENT_NODE;
	nodes[0].node = 2;
	nodes[0].metrics = met2;
	nodes[0].apportioned = true;
	frame_diag_input(m, ok, &topo, NULL, &f, &in);
	CHECK_INT((int)in.n_nodes, 2);
	CHECK_NAN(in.nodes[0].bw_gbs);
	CHECK_INT(in.nodes[0].bw_quality, VQ_UNAVAILABLE);
	CHECK_NEAR(in.nodes[1].bw_gbs, 20, 0);
	CHECK_INT(in.nodes[1].bw_quality, VQ_APPORTIONED);
	CHECK_NAN(in.nodes[1].queue_full_frac);
	CHECK_INT(diagnose(&in, &res, &err), 0);
	CHECK_CONTAINS(res.node_notes[1], "20.00 GB/s");
	CHECK_CONTAINS(res.node_notes[1], "apportioned");
	CHECK_CONTAINS(res.node_notes[0], "bandwidth n/a");
	diag_result_release(&res);
	collect_diag_release(&in);
	/* a node of its own: measured, with its queue saturation */
	nodes[0].node = 0;
	nodes[0].metrics = met0;
	nodes[0].apportioned = false;
	frame_diag_input(m, ok, &topo, NULL, &f, &in);
	CHECK_NEAR(in.nodes[0].bw_gbs, 80, 0);
	CHECK_INT(in.nodes[0].bw_quality, VQ_MEASURED);
	CHECK_NEAR(in.nodes[0].queue_full_frac, 0.15, 0);
	CHECK_NAN(in.nodes[1].bw_gbs);
	collect_diag_release(&in);
	cpulist_release(&nn[0].cpus);
	cpulist_release(&nn[1].cpus);
	model_free(m);
}

/*
 * CPU contention reaches the diagnosis whatever the model reads.  A model
 * with no sched.* sources: a KVM vCPU's own schedstat over the run (the
 * collector's, on its row) ran 300 ms and waited 700 ms: 700 / 1000 = 70 %.
 * A vCPU of the guest vmmprof runs in takes its CPU's /proc/stat over the
 * 2 s run: CPU 0 busy 90 % of which 30 % stolen ran (0.9 - 0.3) x 2 s =
 * 1.2 s and waited 0.3 x 2 s = 0.6 s: 0.6 / 1.8 = 33.3 %, a critical finding
 * (from 20 %); CPU 1 busy 50 %, 2 % stolen: 0.04 / (0.96 + 0.04) = 4 %, none.
 * A thread in view inside the guest, last on CPU 0, ran 400 ms and waited
 * 100 ms (schedstat): CPU 0 ran 0.9 - 0.3 = 0.6 of the time and lost 0.3,
 * so its share is 400 x 0.3 / 0.6 = 200 ms stolen: (100 + 200) / (400 +
 * 100 + 200) = 42.86 %, apportioned, medium confidence.
 * (One frame holds all three kinds only to test the paths at once.)
 */
TEST(frame_diag_input_cpu_contention_sources)
{
	static const char text[] =
		"model st\nevent tclk = task-clock\nmetric u = tclk\n"
		"factor locality unavailable \"l\"\nfactor llc unavailable \"c\"\n"
		"factor sharing unavailable \"s\"\nfactor imc unavailable \"i\"\n"
		"factor queue unavailable \"q\"\n";
	struct model *m = NULL;
	struct vp_err err = { 0, "" };
	struct topology topo;
	struct collect_frame f;
	struct collect_row rows[7];
	struct diag_input in;
	struct diag_result res;
	double busy[3] = { 0.9, 0.5, 0.8 }, steal[3] = { 0.3, 0.02, 0 }, met[7][1];
	double inp[7][1];
	bool ok[FACTOR_N] = { false, false, false, false, false };
	size_t i;

	m = load_model(text, "st.model");
	if (!m)
		return;
	memset(&topo, 0, sizeof(topo));
	memset(&f, 0, sizeof(f));
	memset(rows, 0, sizeof(rows));
	f.duration = 2;
	f.rows = rows;
	f.n_rows = 7;
	f.host_read = true;
	f.cpu_busy = busy;
	f.cpu_steal = steal;
	f.n_cpu_stat = 3;
	for (i = 0; i < 7; i++) {
		met[i][0] = inp[i][0] = NAN;
		rows[i].metrics = met[i];
		rows[i].inputs = inp[i];
		rows[i].sched_run_ns = rows[i].sched_wait_ns = NAN;
		rows[i].domid = -1;
		rows[i].node = -1;
		for (int k = 0; k < FACTOR_N; k++)
			rows[i].fv[k].score = rows[i].fv[k].cost_cycles = NAN;
	}
	rows[0].kind = rows[3].kind = ENT_VM;
	rows[0].adapter = rows[1].adapter = rows[2].adapter = HVA_GUEST;
	rows[0].name = (char *)"g";
	rows[3].adapter = rows[4].adapter = HVA_KVM;
	rows[3].name = (char *)"web1";
	rows[3].pid = 1234;
	for (i = 1; i < 5; i++) {
		if (i == 3)
			continue;
		rows[i].kind = ENT_VCPU;
		rows[i].vm_row = i < 3 ? 0 : 3;
		rows[i].tid = i < 3 ? -1 : 1300;
	}
	rows[1].index = rows[1].cpu = 0;
	rows[2].index = rows[2].cpu = 1;
	rows[4].index = 0;
	rows[4].cpu = 2;
	rows[4].sched_run_ns = 300e6;
	rows[4].sched_wait_ns = 700e6;
	rows[5].kind = ENT_PROCESS;
	rows[5].adapter = rows[6].adapter = HVA_NATIVE;
	rows[5].name = (char *)"p";
	rows[5].pid = 500;
	rows[6].kind = ENT_THREAD;
	rows[6].vm_row = 5;
	rows[6].tid = 501;
	rows[6].index = rows[6].cpu = 0;
	rows[6].sched_run_ns = 400e6;
	rows[6].sched_wait_ns = 100e6;
	frame_diag_input(m, ok, &topo, NULL, &f, &in);
	CHECK_INT((int)in.n_vcpus, 4);
	CHECK_NEAR(in.vcpus[3].steal_ns, 200e6, 1);
	CHECK(!in.vcpus[3].wait_steal);
	CHECK_NEAR(in.vcpus[0].run_ns, 1.2e9, 1);
	CHECK_NEAR(in.vcpus[0].wait_ns, 0.6e9, 1);
	CHECK(in.vcpus[0].wait_steal);
	CHECK_NEAR(in.vcpus[1].wait_ns, 0.04e9, 1);
	CHECK(!in.vcpus[2].wait_steal);
	CHECK_NEAR(in.vcpus[2].wait_ns, 700e6, 0);
	CHECK_INT(diagnose(&in, &res, &err), 0);
	CHECK_NEAR(res.vcpu_wait_pct[0], 100.0 / 3, 1e-9);
	CHECK_NEAR(res.vcpu_wait_pct[1], 4.0, 1e-9);
	CHECK_NEAR(res.vcpu_wait_pct[2], 70.0, 1e-9);
	CHECK_NEAR(res.vcpu_wait_pct[3], 300.0 / 7, 1e-9);
	CHECK_INT((int)res.n_b, 3);
	if (res.n_b == 3) {
		CHECK_INT((int)res.b[0].entity, 2);
		CHECK_INT(res.b[0].quality, VQ_MEASURED);
		CHECK_INT((int)res.b[1].entity, 3);
		CHECK_INT(res.b[1].quality, VQ_APPORTIONED);
		CHECK_INT(res.b[1].confidence, CONF_MEDIUM);
		CHECK_CONTAINS(res.b[1].evidence, "about 200 ms more");
		CHECK_INT((int)res.b[2].entity, 0);
		CHECK_INT((int)res.b[2].factor, (int)DIAG_FACTOR_CPU);
		CHECK_INT(res.b[2].sev, SEV_CRITICAL);
		CHECK_INT(res.b[2].quality, VQ_MEASURED);
		CHECK_CONTAINS(res.b[2].evidence, "steal time");
		CHECK_CONTAINS(res.b[0].evidence, "schedstat");
	}
	diag_result_release(&res);
	/* without the steal column (an older /proc/stat, a sample frame) the guest's is n/a */
	collect_diag_release(&in);
	f.cpu_steal = NULL;
	frame_diag_input(m, ok, &topo, NULL, &f, &in);
	CHECK_NAN(in.vcpus[0].wait_ns);
	CHECK(!in.vcpus[0].wait_steal);
	CHECK_NEAR(in.vcpus[3].steal_ns, 0, 0);
	collect_diag_release(&in);
	model_free(m);
}

/*
 * Busy vCPUs on SMT siblings, the cores from the skx-2s fixture's sysfs
 * (CPU n and n + 8 are one core; node 0 = CPUs 0-3 and 8-11, one LLC).
 * Over a 1 s run: a's vCPU ran 0.9 s on CPU 1 and b's 0.8 s on CPU 9, its
 * sibling (two VMs, both >= 50 %): both are findings, and b's (the later)
 * moves to node 0's first free core, CPU 0 (CPUs 0 and 8 ran 5 %, under
 * 10 %).  c's vCPU ran 0.6 s on CPU 10 while CPU 2, its sibling, ran 70 %
 * with nothing in view: a host hog; core 0 is now given, core 3 (CPUs 3
 * and 11, 2 % each) is free: CPU 3.  With CPU 11 at 30 % no core is left
 * for c: its finding stays, with no advice.  No vCPU waited: no CPU
 * contention, and the SMT findings carry no cost (low confidence).
 */
TEST(frame_diag_input_smt_siblings_on_skx)
{
	static const char text[] =
		"model st\nevent tclk = task-clock\nmetric u = tclk\n"
		"factor locality unavailable \"l\"\nfactor llc unavailable \"c\"\n"
		"factor sharing unavailable \"s\"\nfactor imc unavailable \"i\"\n"
		"factor queue unavailable \"q\"\n";
	static const char *names[3] = { "a", "b", "c" };
	static const int cpus[3] = { 1, 9, 10 };
	static const double run[3] = { 0.9e9, 0.8e9, 0.6e9 };
	struct model *m = NULL;
	struct vp_err err = { 0, "" };
	struct platform plat;
	struct collect_frame f;
	struct collect_row rows[6];
	struct diag_input in;
	struct diag_result res;
	double busy[16], met[6][1], inp[6][1];
	bool ok[FACTOR_N] = { false, false, false, false, false };
	size_t i, n_smt;
	int round;

	m = load_model(text, "st.model");
	if (!m)
		return;
	if (platform_probe(&plat, test_data("root/skx-2s"), &err)) {
		CHECK_STR(err.msg, "");
		model_free(m);
		return;
	}
	for (round = 0; round < 2; round++) {
		memset(&f, 0, sizeof(f));
		memset(rows, 0, sizeof(rows));
		for (i = 0; i < 16; i++)
			busy[i] = 0.0;
		busy[0] = busy[8] = 0.05;
		busy[1] = 0.9;
		busy[9] = 0.8;
		busy[10] = 0.6;
		busy[2] = 0.7;
		busy[3] = 0.02;
		busy[11] = round ? 0.3 : 0.02;
		f.duration = 1;
		f.rows = rows;
		f.n_rows = 6;
		f.host_read = true;
		f.cpu_busy = busy;
		f.n_cpu_stat = 16;
		for (i = 0; i < 6; i++) {
			struct collect_row *r = &rows[i];

			met[i][0] = inp[i][0] = NAN;
			r->metrics = met[i];
			r->inputs = inp[i];
			r->adapter = HVA_KVM;
			r->domid = -1;
			r->pid = 100 * (int)(i / 2 + 1);
			for (int k = 0; k < FACTOR_N; k++)
				r->fv[k].score = r->fv[k].cost_cycles = NAN;
			if (i % 2 == 0) {
				r->kind = ENT_VM;
				r->name = (char *)names[i / 2];
				r->tid = r->cpu = r->node = r->index = -1;
				r->sched_run_ns = r->sched_wait_ns = NAN;
				continue;
			}
			r->kind = ENT_VCPU;
			r->vm_row = i - 1;
			r->tid = r->pid + 1;
			r->cpu = cpus[i / 2];
			r->node = 0;
			r->sched_run_ns = run[i / 2];
			r->sched_wait_ns = 0;
		}
		frame_diag_input(m, ok, &plat.topo, NULL, &f, &in);
		CHECK_INT((int)in.n_cpus, 16);
		if (in.n_cpus == 16) {
			CHECK_INT(in.cpus[1].core, in.cpus[9].core);
			CHECK(in.cpus[1].core != in.cpus[2].core);
			CHECK_INT(in.cpus[9].node, 0);
		}
		CHECK_INT(diagnose(&in, &res, &err), 0);
		CHECK_INT((int)res.n_b, 3);
		for (i = 0; i < res.n_b && i < 3; i++) {
			CHECK_INT((int)res.b[i].entity, (int)i);
			CHECK_INT((int)res.b[i].factor, (int)DIAG_FACTOR_CPU);
			CHECK_NAN(res.b[i].cost_pct);
			CHECK_INT(res.b[i].confidence, CONF_LOW);
		}
		if (res.n_b == 3) {
			CHECK_CONTAINS(res.b[0].evidence, "ran 90% of the run on CPU 1 while its SMT "
				       "sibling CPU 9 ran a vCPU of another VM 80%");
			CHECK_CONTAINS(res.b[2].evidence, "CPU 2 ran other work (not in view) 70%");
		}
		for (i = n_smt = 0; i < res.n_a; i++) {
			const struct diag_advice *a = &res.a[i];

			CHECK_STR(a->rule, "separate-smt");
			CHECK_NAN(a->gain_pct);
			CHECK(!a->conflict);
			if (n_smt == 0) {
				CHECK_STR(in.vms[a->vm].name, "b");
				CHECK_INT(a->to_cpu, 0);
				CHECK_STR(a->command, "taskset -pc 0 201\n");
			} else {
				CHECK_STR(in.vms[a->vm].name, "c");
				CHECK_INT(a->to_cpu, 3);
				CHECK_STR(a->command, "taskset -pc 3 301\n");
			}
			n_smt++;
		}
		CHECK_INT((int)n_smt, round ? 1 : 2);
		diag_result_release(&res);
		collect_diag_release(&in);
	}
	platform_release(&plat);
	model_free(m);
}

/*
 * #row_nodes: 1 on a node row, #num_nodes on any other, so that one
 * bw_util formula is a node's use of its own peak on a node row and a
 * share of the machine's on a VM row.  4 nodes, peak 10 GB/s per node,
 * 5 GB/s counted: node row 5 / 10 = 0.5, VM row 5 / 40 = 0.125.
 */
TEST(frame_row_nodes_constant)
{
	static const char text[] =
		"model rn\n"
		"event bw = task-clock\n"
		"metric bw_util = bw / (cal.peak_bw_gbs * #row_nodes)\n"
		"factor locality unavailable \"l\"\nfactor llc unavailable \"c\"\n"
		"factor sharing unavailable \"s\"\nfactor imc unavailable \"i\"\n"
		"factor queue unavailable \"q\"\n";
	static const enum ent_kind kinds[] = { ENT_NODE, ENT_VM, ENT_VCPU };
	static const double want[] = { 0.5, 0.125, 0.125 };
	struct model *m = NULL;
	struct platform plat;
	struct calib cal;
	size_t i;

	m = load_model(text, "rn.model");
	if (!m)
		return;
	memset(&plat, 0, sizeof(plat));
	plat.topo.known = true;
	plat.topo.n_nodes = 4;
	calib_init(&cal);
	cal.val[CAL_PEAK_BW_GBS] = 10;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct collect_row r;
		double in[1] = { 5 };

		memset(&r, 0, sizeof(r));
		r.kind = kinds[i];
		r.inputs = in;
		frame_eval_row(m, &plat, &cal, NAN, &r, 1.0);
		CHECK_NEAR(r.metrics[0], want[i], 1e-12);
		free(r.metrics);
	}
	calib_release(&cal);
	model_free(m);
}

/*
 * A frame read back from its JSON (the remote client's timeline): the node
 * rows come back with their node, split label and factor scores, and the
 * timeline prints them after the entity rows; a node row without a node is
 * refused, naming the row.
 */
TEST(frame_from_json_node_rows)
{
	static const char good[] =
		"{\"duration\":0.5,\"time\":2,\"rows\":[{\"kind\":\"vm\",\"name\":\"web\",\"vm_row\":0,"
		"\"cycles\":1e9,\"factors\":{\"imc\":{\"score\":0.2,\"quality\":\"apportioned\"}}}],"
		"\"nodes\":[{\"kind\":\"node\",\"key\":\"node:0\",\"node\":0,\"quality\":\"measured\","
		"\"cycles\":null,\"factors\":{\"imc\":{\"score\":0.75,\"quality\":\"measured\"}}},"
		"{\"kind\":\"node\",\"key\":\"node:3\",\"node\":3,\"quality\":\"apportioned\","
		"\"cycles\":null,\"factors\":{\"imc\":{\"score\":0.25,\"quality\":\"measured\"}}}]}";
	static const char bad[] =
		"{\"duration\":0.5,\"rows\":[],\"nodes\":[{\"kind\":\"node\",\"quality\":\"measured\"}]}";
	static const char mtext[] =
		"model fn\nevent bw = task-clock\n"
		"factor imc\n  score = bw\n  warning = 1\n  critical = 2\n  quality = measured\n"
		"factor locality unavailable \"l\"\nfactor llc unavailable \"c\"\n"
		"factor sharing unavailable \"s\"\nfactor queue unavailable \"q\"\n";
	struct model *m = NULL;
	struct vp_err err = { 0, "" };
	struct collect_frame f;
	struct jv v;
	struct table t;
	struct sbuf sb = SBUF_INIT;
	bool unav[FACTOR_N];

	m = load_model(mtext, "fn.model");
	if (!m)
		return;
	CHECK_INT(jv_parse(&v, good, strlen(good), "good", &err), 0);
	CHECK_INT(frame_from_json(&v, &f, unav, &err), 0);
	jv_release(&v);
	CHECK_INT((int)f.n_rows, 1);
	CHECK_INT((int)f.n_nodes, 2);
	if (f.n_nodes == 2) {
		CHECK_INT(f.nodes[0].kind, ENT_NODE);
		CHECK_INT(f.nodes[0].node, 0);
		CHECK(!f.nodes[0].apportioned);
		CHECK_NEAR(f.nodes[0].fv[FACTOR_IMC].score, 0.75, 0);
		CHECK_INT(f.nodes[1].node, 3);
		CHECK(f.nodes[1].apportioned);
		CHECK_NEAR(f.nodes[1].fv[FACTOR_IMC].score, 0.25, 0);
		CHECK_NAN(f.nodes[1].cycles);
	}
	CHECK(!unav[FACTOR_IMC]);
	frame_text_table(&t);
	frame_text_rows(&t, &f, 0.5, m);
	table_render(&t, &sb, 2, true);
	/* the columns: t(s) entity node cycles locality llc sharing imc queue */
	CHECK_CONTAINS(sbuf_str(&sb), "web");
	CHECK_CONTAINS(sbuf_str(&sb), "node 0");
	CHECK_CONTAINS(sbuf_str(&sb), "node 3 (split)");
	CHECK_CONTAINS(sbuf_str(&sb), "s0.75");
	CHECK_CONTAINS(sbuf_str(&sb), "s0.25");
	table_release(&t);
	sbuf_release(&sb);
	collect_frame_release(&f);

	CHECK_INT(jv_parse(&v, bad, strlen(bad), "bad", &err), 0);
	CHECK_INT(frame_from_json(&v, &f, unav, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "frame node row 0 has no node");
	jv_release(&v);
	model_free(m);
}
