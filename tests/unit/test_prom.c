/* test_prom.c - Prometheus exposition: label escaping, NaN omitted, node aggregates, by hand */
#include "test.h"

#include <stdlib.h>

#include "compose/prom.h"
#include "util/sbuf.h"

TEST(prom_escape_label_table)
{
	static const struct {
		int line;
		const char *in, *want;
	} rows[] = {
		{ __LINE__, "web1", "web1" },
		{ __LINE__, "", "" },
		{ __LINE__, "a\"b", "a\\\"b" },
		{ __LINE__, "a\\b", "a\\\\b" },
		{ __LINE__, "a\nb", "a\\nb" },
		{ __LINE__, "\\\"\n", "\\\\\\\"\\n" },
		/* a tab and UTF-8 pass through unchanged (the format escapes only these three) */
		{ __LINE__, "a\tb\xc3\xa9", "a\tb\xc3\xa9" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sbuf sb = SBUF_INIT;

		prom_escape_label(&sb, rows[i].in);
		CHECK_STR_AT(rows[i].line, sbuf_str(&sb), rows[i].want);
		sbuf_release(&sb);
	}
}

/* Labels of the rows of the frame below, as the text format writes them. */
#define VM "vm=\"we\\\"b\\\\1\\nx\""
#define TAIL "model=\"m1\",session=\"s1\",host=\"h1\""
#define L_VM "{level=\"vm\"," VM "," TAIL
#define L_C0 "{level=\"vcpu\"," VM ",vcpu=\"0\",node=\"0\"," TAIL
#define L_C1 "{level=\"vcpu\"," VM ",vcpu=\"1\",node=\"0\"," TAIL
#define L_C2 "{level=\"vcpu\"," VM ",vcpu=\"2\"," TAIL
#define L_N0 "{level=\"node\",node=\"0\"," TAIL

static const char want[] =
	"# HELP vmmprof_factor_score Factor score of the session's last interval (higher is worse; "
	"the model's thresholds apply), per VM and vCPU\n"
	"# TYPE vmmprof_factor_score gauge\n"
	"vmmprof_factor_score" L_VM ",factor=\"locality\"} 0.25\n"
	"vmmprof_factor_score" L_C0 ",factor=\"locality\"} 0.2\n"
	"vmmprof_factor_score" L_C0 ",factor=\"imc\"} 0.5\n"
	"vmmprof_factor_score" L_C1 ",factor=\"locality\"} 0.3\n"
	"# HELP vmmprof_factor_severity Factor severity from the model's thresholds: 0 ok, 1 warning, "
	"2 critical\n"
	"# TYPE vmmprof_factor_severity gauge\n"
	"vmmprof_factor_severity" L_VM ",factor=\"locality\"} 0\n"
	"vmmprof_factor_severity" L_C0 ",factor=\"locality\"} 1\n"
	"vmmprof_factor_severity" L_C0 ",factor=\"imc\"} 2\n"
	"vmmprof_factor_severity" L_C1 ",factor=\"locality\"} 0\n"
	"# HELP vmmprof_factor_cost_pct Stall cost of the factor in percent of the entity's cycles, "
	"per VM, vCPU and node (a node: its vCPUs' costs over their cycles); label quality: measured "
	"(split of counted stall cycles), apportioned (node counts shared out), estimate (count x "
	"latency, no stall count); an n/a cost has no sample, a '# n/a' comment says why\n"
	"# TYPE vmmprof_factor_cost_pct gauge\n"
	"vmmprof_factor_cost_pct" L_VM ",factor=\"locality\",quality=\"measured\"} 10\n"
	"vmmprof_factor_cost_pct" L_C0 ",factor=\"locality\",quality=\"measured\"} 10\n"
	"vmmprof_factor_cost_pct" L_C0 ",factor=\"imc\",quality=\"measured\"} 5\n"
	"vmmprof_factor_cost_pct" L_C1 ",factor=\"locality\",quality=\"estimate\"} 10\n"
	/* node 0: (6e8 + 4e8) / (6e9 + 4e9); imc only vCPU 0 has it: 3e8 / 6e9 = 5 %, not
	 * 3e8 / 1e10 = 3 % (vCPU 1's imc cost is unknown, not 0): vCPU 1 is left out, said */
	"vmmprof_factor_cost_pct" L_N0 ",factor=\"locality\",quality=\"estimate\"} 10\n"
	"vmmprof_factor_cost_pct" L_N0 ",factor=\"imc\",quality=\"measured\"} 5\n"
	"# left out vmmprof_factor_cost_pct" L_N0 ",factor=\"imc\",quality=\"measured\"}: 1 thread "
	"that ran on the node without this cost (4e+09 cycles; the cost is over the other 1 "
	"thread's 6e+09 cycles)\n"
	"# HELP vmmprof_factor_cost_cycles_per_second Stall cycles per second the factor costs, per "
	"VM, vCPU and node; quality and n/a as for vmmprof_factor_cost_pct\n"
	"# TYPE vmmprof_factor_cost_cycles_per_second gauge\n"
	/* costs over the 2 s frame */
	"vmmprof_factor_cost_cycles_per_second" L_VM ",factor=\"locality\",quality=\"measured\"} 500000000\n"
	"vmmprof_factor_cost_cycles_per_second" L_C0 ",factor=\"locality\",quality=\"measured\"} 300000000\n"
	"vmmprof_factor_cost_cycles_per_second" L_C0 ",factor=\"imc\",quality=\"measured\"} 150000000\n"
	"vmmprof_factor_cost_cycles_per_second" L_C1 ",factor=\"locality\",quality=\"estimate\"} 200000000\n"
	"vmmprof_factor_cost_cycles_per_second" L_N0 ",factor=\"locality\",quality=\"estimate\"} 500000000\n"
	"vmmprof_factor_cost_cycles_per_second" L_N0 ",factor=\"imc\",quality=\"measured\"} 150000000\n"
	"# left out vmmprof_factor_cost_cycles_per_second" L_N0 ",factor=\"imc\",quality=\"measured\"}: "
	"1 thread that ran on the node without this cost (4e+09 cycles; the cost is over the other "
	"1 thread's 6e+09 cycles)\n"
	"# HELP vmmprof_factor_quality 1 for the factor's quality label (measured, apportioned, proxy, "
	"unavailable); an unavailable factor has no score or cost sample\n"
	"# TYPE vmmprof_factor_quality gauge\n"
	"vmmprof_factor_quality" L_VM ",factor=\"locality\",quality=\"measured\"} 1\n"
	"vmmprof_factor_quality" L_VM ",factor=\"llc\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_VM ",factor=\"sharing\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_VM ",factor=\"imc\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_VM ",factor=\"queue\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C0 ",factor=\"locality\",quality=\"measured\"} 1\n"
	"vmmprof_factor_quality" L_C0 ",factor=\"llc\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C0 ",factor=\"sharing\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C0 ",factor=\"imc\",quality=\"apportioned\"} 1\n"
	"vmmprof_factor_quality" L_C0 ",factor=\"queue\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C1 ",factor=\"locality\",quality=\"measured\"} 1\n"
	"vmmprof_factor_quality" L_C1 ",factor=\"llc\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C1 ",factor=\"sharing\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C1 ",factor=\"imc\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C1 ",factor=\"queue\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C2 ",factor=\"locality\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C2 ",factor=\"llc\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C2 ",factor=\"sharing\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C2 ",factor=\"imc\",quality=\"unavailable\"} 1\n"
	"vmmprof_factor_quality" L_C2 ",factor=\"queue\",quality=\"unavailable\"} 1\n"
	"# HELP vmmprof_cycles_per_second Cycles per second the entity ran (quality proxy: task-clock "
	"times the CPU clock)\n"
	"# TYPE vmmprof_cycles_per_second gauge\n"
	"vmmprof_cycles_per_second" L_VM ",quality=\"measured\"} 5000000000\n"
	"vmmprof_cycles_per_second" L_C0 ",quality=\"measured\"} 3000000000\n"
	"vmmprof_cycles_per_second" L_C1 ",quality=\"proxy\"} 2000000000\n"
	"vmmprof_cycles_per_second" L_N0 "} 5000000000\n"
	"# HELP vmmprof_remote_ratio Share of the entity's memory accesses expected to go to a remote "
	"node, 0..1\n"
	"# TYPE vmmprof_remote_ratio gauge\n"
	"vmmprof_remote_ratio" L_VM ",quality=\"estimate\"} 0.3\n"
	"vmmprof_remote_ratio" L_C1 ",quality=\"estimate\"} 0.25\n"
	"# HELP vmmprof_metric A metric of the session's model (vmmprof model show MODEL names its "
	"unit)\n"
	"# TYPE vmmprof_metric gauge\n"
	"vmmprof_metric" L_VM ",metric=\"cpu_util\"} 0.75\n"
	"vmmprof_metric" L_C0 ",metric=\"cpu_util\"} 0.5\n"
	"# HELP vmmprof_vm_memory_bytes Resident memory of the VM on each NUMA node\n"
	"# TYPE vmmprof_vm_memory_bytes gauge\n"
	"vmmprof_vm_memory_bytes" L_VM ",node=\"0\"} 1073741824\n"
	"vmmprof_vm_memory_bytes" L_VM ",node=\"1\"} 0\n"
	"# HELP vmmprof_frame_duration_seconds Length of the interval the session's last frame covers\n"
	"# TYPE vmmprof_frame_duration_seconds gauge\n"
	"vmmprof_frame_duration_seconds{" TAIL "} 2\n"
	"# HELP vmmprof_frame_timestamp_seconds Unix time at the end of the session's last frame\n"
	"# TYPE vmmprof_frame_timestamp_seconds gauge\n"
	"vmmprof_frame_timestamp_seconds{" TAIL "} 1764470000.5\n"
	"# HELP vmmprof_node_memory_total_bytes Memory of the NUMA node\n"
	"# TYPE vmmprof_node_memory_total_bytes gauge\n"
	"vmmprof_node_memory_total_bytes{node=\"0\",host=\"h1\"} 8000000000\n"
	"# HELP vmmprof_node_memory_used_bytes Memory in use on the NUMA node\n"
	"# TYPE vmmprof_node_memory_used_bytes gauge\n"
	"vmmprof_node_memory_used_bytes{node=\"0\",host=\"h1\"} 2000000000\n"
	"# HELP vmmprof_node_cpu_busy_ratio Mean busy share of the node's CPUs over the last "
	"interval, 0..1\n"
	"# TYPE vmmprof_node_cpu_busy_ratio gauge\n"
	"vmmprof_node_cpu_busy_ratio{node=\"0\",host=\"h1\"} 0.5\n"
	"# HELP vmmprof_build_info 1, with the vmmprof version as a label\n"
	"# TYPE vmmprof_build_info gauge\n"
	"vmmprof_build_info{host=\"h1\",version=\"9.9\"} 1\n"
	"# HELP vmmprof_daemon_start_time_seconds Unix time the daemon started\n"
	"# TYPE vmmprof_daemon_start_time_seconds gauge\n"
	"vmmprof_daemon_start_time_seconds{host=\"h1\"} 1764460000\n"
	"# HELP vmmprof_daemon_sessions Sessions running\n"
	"# TYPE vmmprof_daemon_sessions gauge\n"
	"vmmprof_daemon_sessions{host=\"h1\"} 1\n"
	"# HELP vmmprof_daemon_clients Streaming (server-sent events) clients connected\n"
	"# TYPE vmmprof_daemon_clients gauge\n"
	"vmmprof_daemon_clients{host=\"h1\"} 2\n"
	"# HELP vmmprof_daemon_requests_total HTTP requests served\n"
	"# TYPE vmmprof_daemon_requests_total counter\n"
	"vmmprof_daemon_requests_total{host=\"h1\"} 10\n"
	"# HELP vmmprof_collector_events_open Distinct counter events open in the shared collector\n"
	"# TYPE vmmprof_collector_events_open gauge\n"
	"vmmprof_collector_events_open{host=\"h1\"} 3\n"
	"# HELP vmmprof_collector_events_failed Counter events sessions asked for that could not be "
	"opened\n"
	"# TYPE vmmprof_collector_events_failed gauge\n"
	"vmmprof_collector_events_failed{host=\"h1\"} 0\n"
	"# HELP vmmprof_collector_targets Threads (vCPUs) the collector counts\n"
	"# TYPE vmmprof_collector_targets gauge\n"
	"vmmprof_collector_targets{host=\"h1\"} 3\n"
	"# HELP vmmprof_scrape_duration_seconds Time the previous /metrics rendering took\n"
	"# TYPE vmmprof_scrape_duration_seconds gauge\n";

/* text without its "# n/a " comment lines (heap) */
static char *strip_na(const char *s)
{
	char *o = calloc(1, strlen(s) + 1), *w = o;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);

		if (strncmp(s, "# n/a ", 6)) {
			memcpy(w, s, len);
			w += len;
		}
		s += len;
	}
	return o;
}

static void nan_factors(struct collect_row *r)
{
	int f;

	for (f = 0; f < FACTOR_N; f++) {
		r->fv[f].score = r->fv[f].cost_cycles = r->fv[f].cost_pct = NAN;
		r->fv[f].sev = SEV_NA;
	}
}

static void set_factor(struct collect_row *r, enum factor_id f, double score, double cost,
		       double pct, enum severity sev)
{
	r->fv[f].score = score;
	r->fv[f].cost_cycles = cost;
	r->fv[f].cost_pct = pct;
	r->fv[f].sev = sev;
}

TEST(prom_render_by_hand)
{
	struct model_metric met = { .name = "cpu_util" };
	struct model m = { .name = "m1", .metrics = &met, .n_metrics = 1 };
	uint64_t mem[2] = { 1073741824ull, 0 };
	double metrics[4] = { 0.75, 0.5, NAN, NAN };
	struct collect_row rows[4];
	struct collect_frame fr = { 0 };
	struct prom_view v = { "s1", &m, &fr };
	struct prom_node nodes[2] = { { 0, 8e9, 2e9, 0.5 }, { 1, NAN, NAN, NAN } };
	struct prom_input in = { .host = "h1", .version = "9.9", .views = &v, .n_views = 1,
				 .nodes = nodes, .n_nodes = 2 };
	struct sbuf out = SBUF_INIT;
	char *got;
	size_t i, at;

	m.factors[FACTOR_LOCALITY].bound = true;
	m.factors[FACTOR_LOCALITY].quality = VQ_MEASURED;
	m.factors[FACTOR_SHARING].bound = true;
	m.factors[FACTOR_SHARING].quality = VQ_UNAVAILABLE;
	m.factors[FACTOR_IMC].bound = true;
	m.factors[FACTOR_IMC].quality = VQ_APPORTIONED;
	/* llc and queue are not bound at all */

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 4; i++) {
		nan_factors(&rows[i]);
		rows[i].kind = i ? ENT_VCPU : ENT_VM;
		rows[i].vm_row = 0;
		rows[i].metrics = &metrics[i];
		rows[i].index = (int)i - 1;
		rows[i].node = i == 3 ? -1 : 0;
		rows[i].remote.v = NAN;
		rows[i].remote.q = VQ_UNAVAILABLE;
	}
	rows[0].name = (char *)"we\"b\\1\nx";
	rows[0].mem_node = mem;
	rows[0].n_mem_nodes = 2;
	rows[0].cycles = 1e10;
	rows[0].remote.v = 0.3;
	rows[0].remote.q = VQ_ESTIMATE;
	set_factor(&rows[0], FACTOR_LOCALITY, 0.25, 1e9, 10, SEV_OK);
	rows[1].cycles = 6e9;
	set_factor(&rows[1], FACTOR_LOCALITY, 0.2, 6e8, 10, SEV_WARNING);
	set_factor(&rows[1], FACTOR_IMC, 0.5, 3e8, 5, SEV_CRITICAL);
	rows[2].cycles = 4e9;
	rows[2].cycles_proxy = true;
	rows[2].cost.anchor = ANCHOR_ESTIMATED;  /* no stall count: its cost is an estimate */
	rows[2].remote.v = 0.25;
	rows[2].remote.q = VQ_ESTIMATE;
	set_factor(&rows[2], FACTOR_LOCALITY, 0.3, 4e8, 10, SEV_OK);
	rows[3].cycles = NAN;

	fr.t_ns = 1764470000500000000ull;
	fr.duration = 2.0;
	fr.rows = rows;
	fr.n_rows = 4;
	in.self.start_time_s = 1764460000;
	in.self.sessions = 1;
	in.self.clients = 2;
	in.self.events_open = 3;
	in.self.targets = 3;
	in.self.requests_total = 10;
	in.self.scrape_duration_s = NAN;

	prom_render(&out, &in);
	/* the n/a comments are prom_render_cost_na's; here the samples, without them */
	got = strip_na(sbuf_str(&out));
	/* the first differing line makes a readable failure */
	for (at = 0; want[at] && got[at] == want[at]; at++)
		;
	if (strcmp(got, want)) {
		size_t ls = at;

		while (ls > 0 && want[ls - 1] != '\n')
			ls--;
		test_fail(__FILE__, __LINE__, "differs at byte %zu:\n  got:  %.160s\n  want: %.160s", at,
			  got + ls, want + ls);
	}
	free(got);
	sbuf_release(&out);
}

TEST(prom_render_empty)
{
	struct prom_input in = { 0 };
	struct sbuf out = SBUF_INIT;

	in.self.start_time_s = NAN;
	in.self.scrape_duration_s = 0.0125;
	prom_render(&out, &in);
	/* no host: no label set at all; every family still has HELP and TYPE */
	CHECK(strstr(sbuf_str(&out), "\nvmmprof_daemon_sessions 0\n") != NULL);
	CHECK(strstr(sbuf_str(&out), "\nvmmprof_scrape_duration_seconds 0.0125\n") != NULL);
	CHECK(strstr(sbuf_str(&out), "vmmprof_build_info{version=\"unknown\"} 1\n") != NULL);
	CHECK(strstr(sbuf_str(&out), "# TYPE vmmprof_factor_score gauge\n# HELP") != NULL);
	CHECK(strstr(sbuf_str(&out), "start_time_seconds 1") == NULL);
	sbuf_release(&out);
}

/*
 * Per-node inputs: the VM's 'bw' reads a per-node count, so its sample is
 * labelled apportioned (and the imc factor scored on it, which the model
 * calls measured); 'busy' is its own count.  The node row exports what
 * the node's counts give (bw, not busy), labelled measured.
 */
TEST(prom_render_node_rows)
{
	struct model_metric met[2] = { { .name = "bw" }, { .name = "busy" } };
	struct model m = { .name = "m2", .metrics = met, .n_metrics = 2 };
	double vm_met[2] = { 4, 0.5 }, node_met[2] = { 16, NAN };
	bool metric_node[2] = { true, false };
	struct collect_row row, node;
	struct collect_frame fr = { 0 };
	struct prom_view v = { "s2", &m, &fr };
	struct prom_input in = { .host = "h", .version = "1", .views = &v, .n_views = 1 };
	struct sbuf out = SBUF_INIT;

	m.factors[FACTOR_IMC].bound = true;
	m.factors[FACTOR_IMC].quality = VQ_MEASURED;
	memset(&row, 0, sizeof(row));
	memset(&node, 0, sizeof(node));
	nan_factors(&row);
	nan_factors(&node);
	row.kind = ENT_VM;
	row.name = (char *)"v";
	row.metrics = vm_met;
	row.cycles = NAN;
	row.remote.v = NAN;
	row.apportioned = true;
	set_factor(&row, FACTOR_IMC, 4, NAN, NAN, SEV_CRITICAL);
	node.kind = ENT_NODE;
	node.node = 0;
	node.metrics = node_met;
	fr.duration = 1;
	fr.rows = &row;
	fr.n_rows = 1;
	fr.nodes = &node;
	fr.n_nodes = 1;
	fr.metric_node = metric_node;
	fr.factor_node[FACTOR_IMC] = true;
	in.self.start_time_s = NAN;
	in.self.scrape_duration_s = NAN;
	prom_render(&out, &in);
	CHECK_CONTAINS(sbuf_str(&out), "vmmprof_metric{level=\"vm\",vm=\"v\",model=\"m2\",session=\"s2\","
		       "host=\"h\",metric=\"bw\",quality=\"apportioned\"} 4\n");
	CHECK_CONTAINS(sbuf_str(&out), "vmmprof_metric{level=\"vm\",vm=\"v\",model=\"m2\",session=\"s2\","
		       "host=\"h\",metric=\"busy\"} 0.5\n");
	CHECK_CONTAINS(sbuf_str(&out), "vmmprof_metric{level=\"node\",node=\"0\",model=\"m2\","
		       "session=\"s2\",host=\"h\",metric=\"bw\",quality=\"measured\"} 16\n");
	CHECK(!strstr(sbuf_str(&out), "metric=\"busy\",quality"));
	CHECK_CONTAINS(sbuf_str(&out), "factor=\"imc\",quality=\"apportioned\"} 1\n");
	sbuf_release(&out);
}

/*
 * Costs carry their quality, and an n/a cost has no sample but a comment
 * with its reason (the text format ignores '#' lines that are not HELP or
 * TYPE).  One VM row whose counts are node shares (apportioned), and one of
 * its vCPUs, on node 1, with a measured stall split:
 *   locality  VM: n/a, the cost stage's reason; vCPU 2e8 cycles in a 1 s frame
 *   llc       not bound by the model
 *   sharing   declared unavailable, its reason on two lines
 *   imc       VM: 3e8 cycles, apportioned; no cycles, so no percent
 *   queue     VM: n/a, the anchor's reason
 */
TEST(prom_render_cost_na)
{
	struct model m = { .name = "m3" };
	struct collect_row rows[2];
	struct collect_frame fr = { 0 };
	struct prom_view v = { "s3", &m, &fr };
	struct prom_input in = { .host = "h", .version = "1", .views = &v, .n_views = 1 };
	struct sbuf out = SBUF_INIT;
	const char *o;

#define V3 "{level=\"vm\",vm=\"v\",model=\"m3\",session=\"s3\",host=\"h\","
#define C3 "{level=\"vcpu\",vm=\"v\",vcpu=\"0\",node=\"1\",model=\"m3\",session=\"s3\",host=\"h\","
#define N3 "{level=\"node\",node=\"1\",model=\"m3\",session=\"s3\",host=\"h\","
	m.factors[FACTOR_LOCALITY].bound = true;
	m.factors[FACTOR_LOCALITY].quality = VQ_MEASURED;
	m.factors[FACTOR_SHARING].bound = true;
	m.factors[FACTOR_SHARING].quality = VQ_UNAVAILABLE;
	m.factors[FACTOR_SHARING].reason = (char *)"no HITM event\non this CPU";
	m.factors[FACTOR_IMC].bound = true;
	m.factors[FACTOR_IMC].quality = VQ_MEASURED;
	m.factors[FACTOR_QUEUE].bound = true;
	m.factors[FACTOR_QUEUE].quality = VQ_PROXY;
	memset(rows, 0, sizeof(rows));
	nan_factors(&rows[0]);
	nan_factors(&rows[1]);
	rows[0].kind = ENT_VM;
	rows[0].name = (char *)"v";
	rows[0].cycles = NAN;
	rows[0].remote.v = NAN;
	rows[0].apportioned = true;
	rows[0].cost.anchor = ANCHOR_MEASURED;
	rows[0].cost.why[FACTOR_LOCALITY] = "no remote DRAM count";
	rows[0].cost.anchor_why = "no memory-bound stall count";
	rows[0].fv[FACTOR_IMC].cost_cycles = 3e8;
	rows[1].kind = ENT_VCPU;
	rows[1].vm_row = 0;
	rows[1].index = 0;
	rows[1].node = 1;
	rows[1].cycles = NAN;
	rows[1].remote.v = NAN;
	rows[1].cost.anchor = ANCHOR_MEASURED;
	rows[1].fv[FACTOR_LOCALITY].cost_cycles = 2e8;
	fr.duration = 1;
	fr.rows = rows;
	fr.n_rows = 2;
	in.self.start_time_s = NAN;
	in.self.scrape_duration_s = NAN;
	prom_render(&out, &in);
	o = sbuf_str(&out);
	CHECK_CONTAINS(o, "\n# n/a vmmprof_factor_cost_pct" V3 "factor=\"locality\"}: "
		       "no remote DRAM count\n");
	CHECK_CONTAINS(o, "\n# n/a vmmprof_factor_cost_pct" V3 "factor=\"llc\"}: "
		       "the model binds no such factor\n");
	CHECK_CONTAINS(o, "\n# n/a vmmprof_factor_cost_cycles_per_second" V3 "factor=\"sharing\"}: "
		       "no HITM event on this CPU\n");
	CHECK_CONTAINS(o, "\nvmmprof_factor_cost_cycles_per_second" V3 "factor=\"imc\","
		       "quality=\"apportioned\"} 300000000\n");
	CHECK_CONTAINS(o, "\n# n/a vmmprof_factor_cost_pct" V3 "factor=\"imc\"}: "
		       "the entity's cycles are unknown, so no share of them\n");
	CHECK_CONTAINS(o, "\n# n/a vmmprof_factor_cost_pct" V3 "factor=\"queue\"}: "
		       "no memory-bound stall count\n");
	/* the vCPU's own row is not apportioned: its split of counted stalls is measured */
	CHECK_CONTAINS(o, "\nvmmprof_factor_cost_cycles_per_second" C3 "factor=\"locality\","
		       "quality=\"measured\"} 200000000\n");
	CHECK_CONTAINS(o, "\nvmmprof_factor_cost_cycles_per_second" N3 "factor=\"locality\","
		       "quality=\"measured\"} 200000000\n");
	CHECK_CONTAINS(o, "\n# n/a vmmprof_factor_cost_pct" N3 "factor=\"locality\"}: "
		       "no vCPU that ran on the node has both this cost and its cycles\n");
	CHECK_CONTAINS(o, "\n# n/a vmmprof_factor_cost_cycles_per_second" N3 "factor=\"queue\"}: "
		       "no vCPU that ran on the node has this cost\n");
	/* never a NaN, never a cost sample without its quality */
	CHECK(!strstr(o, "NaN"));
	for (; (o = strstr(o, "\nvmmprof_factor_cost_")) != NULL; o++) {
		const char *eol = strchr(o + 1, '\n');
		const char *q = strstr(o, "quality=\"");

		CHECK(q && eol && q < eol);
	}
	sbuf_release(&out);
#undef V3
#undef C3
#undef N3
}
