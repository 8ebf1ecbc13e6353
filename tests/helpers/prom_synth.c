/* prom_synth.c - prints prom_render() of a synthetic session for t10311 (a real prometheus parses it)
 *
 *   prom_synth VMNAME
 *
 * One session "s1" with model "m1": VM VMNAME (any bytes: the test passes
 * quotes, backslashes and a newline) with two vCPUs on node 0, locality
 * measured (scores 0.25, 0.2, 0.3), llc unavailable, one metric cpu_util.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compose/prom.h"

int main(int argc, char **argv)
{
	struct model_metric met = { .name = "cpu_util" };
	struct model m = { .name = "m1", .metrics = &met, .n_metrics = 1 };
	double metrics[3] = { 0.75, 0.5, 0.25 };
	uint64_t mem[1] = { 1u << 30 };
	struct collect_row rows[3];
	struct collect_frame fr = { .t_ns = 1, .duration = 1.0, .rows = rows, .n_rows = 3 };
	struct prom_view v = { "s1", &m, &fr };
	struct prom_node node = { 0, 8e9, 2e9, 0.5 };
	struct prom_input in = { .host = "synth", .version = "test", .views = &v, .n_views = 1,
				 .nodes = &node, .n_nodes = 1 };
	struct sbuf out = SBUF_INIT;
	size_t i;
	int f;

	if (argc != 2) {
		fprintf(stderr, "usage: prom_synth VMNAME\n");
		return 2;
	}
	m.factors[FACTOR_LOCALITY].bound = true;
	m.factors[FACTOR_LOCALITY].quality = VQ_MEASURED;
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 3; i++) {
		for (f = 0; f < FACTOR_N; f++)
			rows[i].fv[f].score = rows[i].fv[f].cost_cycles = rows[i].fv[f].cost_pct = NAN;
		rows[i].kind = i ? ENT_VCPU : ENT_VM;
		rows[i].index = (int)i - 1;
		rows[i].node = 0;
		rows[i].metrics = &metrics[i];
		rows[i].cycles = 1e9;
		rows[i].remote.v = NAN;
		rows[i].remote.q = VQ_UNAVAILABLE;
		rows[i].fv[FACTOR_LOCALITY].score = i == 0 ? 0.25 : i == 1 ? 0.2 : 0.3;
		rows[i].fv[FACTOR_LOCALITY].cost_cycles = 1e8 * (double)(i + 1);
		rows[i].fv[FACTOR_LOCALITY].cost_pct = 10.0 * (double)(i + 1);
		rows[i].fv[FACTOR_LOCALITY].sev = SEV_OK;
	}
	rows[0].name = argv[1];
	rows[0].mem_node = mem;
	rows[0].n_mem_nodes = 1;
	in.self.start_time_s = 1764460000;
	in.self.scrape_duration_s = NAN;
	prom_render(&out, &in);
	fputs(sbuf_str(&out), stdout);
	sbuf_release(&out);
	return fflush(stdout) ? 1 : 0;
}
