/* test_diag_render.c - diagnose --json read back renders the same text as the structs it came from */
#include "test.h"

#include <stdlib.h>

#include "compose/diag_render.h"
#include "util/jsonread.h"

/*
 * Two nodes (ids 0 and 2, CPUs "0-3" and "4-7"); a libvirt VM "web" with
 * vCPUs 0 and 3 and a native process "db" with thread 1.  web vCPU 0 runs on
 * node 0 with its memory mostly on node 2: locality costs 40 % of its 1e9
 * cycles, a bottleneck the advice acts on; db's thread 1 loses 20 % to
 * sharing (a proxy).  llc is unavailable in the
 * model; imc is a score without a cost on the VM rows (the "sN" column).
 */
TEST(diag_render_json_round_trip)
{
	struct diag_node nodes[2];
	double mem_web[2] = { 0.1, 0.9 }, mem_db[2] = { 1.0, 0.0 };
	/* the bytes behind mem_web, by node id (1 MiB on node 0, 9 MiB on node 2) */
	uint64_t bytes_web[3] = { 1u << 20, 0, 9u << 20 };
	struct diag_vm vms[2];
	struct diag_vcpu vcpus[3];
	struct diag_input in = { 0 };
	struct diag_result r;
	struct model m = { .name = "m1" };
	struct model_avail av = { 0 };
	struct collect_row rows[2];
	struct collect_frame fr = { 0 };
	const char *reasons[1] = { NULL };
	struct dview dv = { 0 };
	struct dview_json dj;
	struct sbuf json = SBUF_INIT, t1 = SBUF_INIT, t2 = SBUF_INIT;
	struct vp_err err;
	struct jv doc;
	size_t i;
	int f;

	memset(vms, 0, sizeof(vms));
	memset(vcpus, 0, sizeof(vcpus));
	memset(rows, 0, sizeof(rows));
	vms[0] = (struct diag_vm){ "web", HVA_KVM, true, 100, -1, mem_web, true, { 0 }, { 0 } };
	vms[1] = (struct diag_vm){ "db", HVA_NATIVE, false, 200, -1, mem_db, true, { 0 }, { 0 } };
	/* --resctrl on node 2: 3 MiB held, 0.5 GB/s (0.25 local); node 0 without values */
	diag_node_init(&nodes[0], 0, "0-3", 4);
	diag_node_init(&nodes[1], 2, "4-7", 4);
	nodes[1].bw_gbs = 30.0;
	nodes[1].peak_gbs = 40.0;
	nodes[1].bw_quality = VQ_APPORTIONED;
	nodes[1].rdt = nodes[0].rdt = true;
	nodes[1].rdt_llc_bytes = 3 << 20;
	nodes[1].rdt_mbm_gbs = 0.5;
	nodes[1].rdt_mbm_local_gbs = 0.25;
	nodes[0].rdt_llc_bytes = nodes[0].rdt_mbm_gbs = nodes[0].rdt_mbm_local_gbs = NAN;
	nodes[0].rdt_why = "no L3 of its own";
	/* node 0's locality: web vCPU 0 4e8 of 1e9 cycles = 40 %; db thread 1 ran there too
	 * (1e9 cycles) without a locality cost: left out, half the node's cycles */
	nodes[0].cost_pct[FACTOR_LOCALITY] = 40;
	nodes[0].cost_left_out[FACTOR_LOCALITY] = 1;
	nodes[0].cost_left_out_share[FACTOR_LOCALITY] = 0.5;
	vms[0].mem_node = bytes_web;
	vms[0].n_mem_nodes = 3;
	vms[0].mem_reason = "numa_maps \"anon\"";
	vms[1].mem_reason = "no numa_maps";
	for (i = 0; i < 3; i++) {
		vcpus[i].cycles = 1e9;
		vcpus[i].mem_stall_cycles = NAN;
		vcpus[i].remote_frac = NAN;
		vcpus[i].mem_intensity = NAN;
		for (f = 0; f < FACTOR_N; f++) {
			vcpus[i].f[f].cost_cycles = NAN;
			vcpus[i].f[f].score = NAN;
			vcpus[i].f[f].quality = VQ_UNAVAILABLE;
		}
	}
	vcpus[0] = (struct diag_vcpu){ .vm = 0, .index = 0, .tid = 10, .node = 0, .cycles = 1e9,
				       .mem_stall_cycles = 5e8, .remote_frac = 0.9, .mem_intensity = 1,
				       .f = { [FACTOR_LOCALITY] = { 4e8, 0.9, SEV_CRITICAL, VQ_MEASURED,
								    "remote 90 %" } } };
	for (f = 1; f < FACTOR_N; f++) {
		vcpus[0].f[f].cost_cycles = NAN;
		vcpus[0].f[f].score = NAN;
		vcpus[0].f[f].quality = VQ_UNAVAILABLE;
	}
	vcpus[1].vm = 0;
	vcpus[1].index = 3;
	vcpus[1].node = 2;
	vcpus[2].vm = 1;
	vcpus[2].index = 1;
	vcpus[2].node = 0;
	/* db's thread 1: sharing (a proxy) costs 20 % of its cycles */
	vcpus[2].f[FACTOR_SHARING] = (struct diag_factor_in){ 2e8, 0.5, SEV_WARNING, VQ_PROXY, "hitm" };
	for (i = 0; i < 2; i++)
		for (f = 0; f < FACTOR_N; f++) {
			vms[i].score[f] = NAN;
			rows[i].fv[f].score = rows[i].fv[f].cost_cycles = rows[i].fv[f].cost_pct = NAN;
		}
	vms[0].score[FACTOR_IMC] = rows[0].fv[FACTOR_IMC].score = 0.75;
	rows[0].kind = ENT_VM;
	rows[1].kind = ENT_PROCESS;
	in.vms = vms;
	in.n_vms = 2;
	in.vcpus = vcpus;
	in.n_vcpus = 3;
	in.nodes = nodes;
	in.n_nodes = 2;
	in.lat_local_loaded_ns = in.lat_remote_idle_ns = NAN;
	diag_params_default(&in.params);
	CHECK_INT(diagnose(&in, &r, &err), 0);

	m.factors[FACTOR_LOCALITY] = (struct model_factor){ .bound = true, .quality = VQ_MEASURED };
	m.factors[FACTOR_LLC] = (struct model_factor){ .bound = true, .quality = VQ_UNAVAILABLE,
						       .reason = (char *)"no \"LLC\" here\\" };
	m.factors[FACTOR_IMC] = (struct model_factor){ .bound = true, .quality = VQ_APPORTIONED };
	m.factors[FACTOR_SHARING].quality = VQ_PROXY;
	for (f = 0; f < FACTOR_N; f++)
		av.factor_ok[f] = f != FACTOR_QUEUE;
	av.factor_reason[FACTOR_QUEUE] = (char *)"no uncore PMU";
	fr.rows = rows;
	fr.n_rows = 2;
	fr.duration = 5;
	sbuf_set(&fr.notes, "a note");
	dv = (struct dview){ &m, &av, reasons, 3, &fr, &in, &r, "no calibration", NULL };

	diag_render_text(&dv, "HEAD\n", &t1);
	diag_render_json(&dv, &json);
	CHECK_INT(jv_parse(&doc, json.buf, json.len, "json", &err), 0);
	CHECK_INT(dview_from_json(&dj, &doc, &err), 0);
	diag_render_text(&dj.dv, "HEAD\n", &t2);
	CHECK_STR(sbuf_str(&t2), sbuf_str(&t1));
	/* the scenario reaches every part of the text (so the comparison means something) */
	CHECK(r.n_b >= 1 && r.n_a >= 1);
	CHECK(strstr(sbuf_str(&t1), "web vCPU 0") != NULL);
	CHECK(strstr(sbuf_str(&t1), "db thread 1") != NULL);
	CHECK(strstr(sbuf_str(&t1), "s0.75a") != NULL);
	CHECK(strstr(sbuf_str(&t1), "node 2 (CPUs 4-7)") != NULL);
	CHECK(strstr(sbuf_str(&t1), "llc       no \"LLC\" here\\") != NULL);
	CHECK(strstr(sbuf_str(&t1), "queue     no uncore PMU") != NULL);
	CHECK(strstr(sbuf_str(&t1), "  web  node 0 1.0 MiB, node 1 0.0 MiB, node 2 9.0 MiB "
				    "(numa_maps \"anon\")\n") != NULL);
	CHECK(strstr(sbuf_str(&t1), "  db   n/a (no numa_maps)\n") != NULL);
	CHECK(strstr(sbuf_str(&t1), "    resctrl, the VMs' groups on its L3: LLC occupancy 3.0 MiB, "
				    "memory traffic 0.5 GB/s (local 0.25 GB/s)\n") != NULL);
	CHECK(strstr(sbuf_str(&t1), "    resctrl, the VMs' groups on its L3: LLC occupancy n/a, "
				    "memory traffic n/a (local n/a); n/a: no L3 of its own\n") != NULL);
	CHECK(strstr(sbuf_str(&json), "\"mem_node_bytes\": {\n          \"0\": 1048576,") != NULL);
	CHECK(strstr(sbuf_str(&t1), "\n  node 0 locality: over the threads that have the cost; 1 thread "
				    "without it left out (50% of the node's cycles)\n") != NULL);

	dview_json_release(&dj);
	jv_release(&doc);
	diag_result_release(&r);
	sbuf_release(&fr.notes);  /* fr's rows are the test's own */
	sbuf_release(&json);
	sbuf_release(&t1);
	sbuf_release(&t2);
}

TEST(diag_render_json_rejects)
{
	static const struct {
		int line;
		const char *text;
	} rows[] = {
		{ __LINE__, "{}" },
		{ __LINE__, "{\"model\":\"m\"}" },
		{ __LINE__, "{\"model\":\"m\",\"diagnosis\":{\"vms\":[],\"nodes\":[],\"bottlenecks\":[],\"advice\":[{}],"
			    "\"x\":1},\"bad\":[{\"scope\":\"vm\"}]}" },
		/* a bottleneck naming a VM the document does not list */
		{ __LINE__, "{\"model\":\"m\",\"diagnosis\":{\"vms\":[],\"nodes\":[],\"advice\":[],"
			    "\"bottlenecks\":[{\"scope\":\"vm\",\"vm\":\"x\",\"factor\":\"llc\"}]}}" },
		{ __LINE__, "{\"model\":\"m\",\"diagnosis\":{\"vms\":[{\"vm\":\"a\"}],\"nodes\":[],\"advice\":[],"
			    "\"bottlenecks\":[]}}" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct dview_json dj;
		struct vp_err err;
		struct jv doc;
		int ret;

		CHECK_INT_AT(rows[i].line, jv_parse(&doc, rows[i].text, strlen(rows[i].text), "t", &err), 0);
		ret = dview_from_json(&dj, &doc, &err);
		/* row 3 is well-formed (an advice with nothing in it): it reads */
		if (i == 2)
			CHECK_INT_AT(rows[i].line, ret, 0);
		else
			CHECK_INT_AT(rows[i].line, ret, VP_EFORMAT);
		dview_json_release(&dj);
		jv_release(&doc);
	}
}

/*
 * No text is cut (issue 24): two libvirt VMs of 64 vCPUs each with 90-byte
 * names share node 0 (CPUs 0-63) and lose 15 % and 25 % of their cycles to
 * LLC contention while node 1 (CPUs 64-127) hosts none: "spread" moves the
 * lighter one, a vcpupin line per vCPU (64 x ~130 bytes, far past the 512
 * bytes the command field used to hold) and its memory after them.  Every
 * line must be in the advice, in the text and in the JSON read back.
 */
TEST(diag_advice_of_64_vcpu_vms_with_long_names_is_whole)
{
	enum { NV = 64 };
	static const char light[] = "tenant-0042-analytics-warehouse-production-replica-"
				    "eu-west-frankfurt-zone-b-light";
	static const char heavy[] = "tenant-0042-analytics-warehouse-production-replica-"
				    "eu-west-frankfurt-zone-b-heavy";
	struct diag_node nodes[2] = { { 0, "0-63", 64, NAN, NAN, NAN, VQ_UNAVAILABLE },
				      { 1, "64-127", 64, NAN, NAN, NAN, VQ_UNAVAILABLE } };
	double mem[2][2] = { { 1.0, 0.0 }, { 1.0, 0.0 } };
	struct diag_vm vms[2];
	struct diag_vcpu *vcpus = calloc(2 * NV, sizeof(*vcpus));
	struct diag_input in = { 0 };
	struct diag_result r;
	struct model m = { .name = "m" };
	struct model_avail av = { 0 };
	struct collect_row rows[2];
	struct collect_frame fr = { 0 };
	const char *reasons[1] = { NULL };
	struct dview dv;
	struct dview_json dj;
	struct sbuf json = SBUF_INIT, t1 = SBUF_INIT, t2 = SBUF_INIT, line = SBUF_INIT;
	const struct diag_advice *a = NULL;
	struct vp_err err;
	struct jv doc;
	size_t i;
	int f;

	memset(vms, 0, sizeof(vms));
	memset(rows, 0, sizeof(rows));
	vms[0] = (struct diag_vm){ light, HVA_KVM, true, 100, -1, mem[0], false, { 0 }, { 0 } };
	vms[1] = (struct diag_vm){ heavy, HVA_KVM, true, 200, -1, mem[1], false, { 0 }, { 0 } };
	for (i = 0; i < 2 * NV; i++) {
		struct diag_vcpu *v = &vcpus[i];

		v->vm = i / NV;
		v->index = (int)(i % NV);
		v->tid = 1000 + (int)i;
		v->node = 0;
		v->cycles = 1e9;
		v->mem_stall_cycles = 5e8;
		v->remote_frac = v->mem_intensity = NAN;
		for (f = 0; f < FACTOR_N; f++) {
			v->f[f].cost_cycles = v->f[f].score = NAN;
			v->f[f].quality = VQ_UNAVAILABLE;
		}
		v->f[FACTOR_LLC].cost_cycles = v->vm == 0 ? 1.5e8 : 2.5e8;
		v->f[FACTOR_LLC].quality = VQ_MEASURED;
	}
	for (i = 0; i < 2; i++) {
		rows[i].kind = ENT_VM;
		for (f = 0; f < FACTOR_N; f++)
			rows[i].fv[f].score = rows[i].fv[f].cost_cycles = rows[i].fv[f].cost_pct = NAN;
	}
	in.vms = vms;
	in.n_vms = 2;
	in.vcpus = vcpus;
	in.n_vcpus = 2 * NV;
	in.nodes = nodes;
	in.n_nodes = 2;
	in.lat_local_loaded_ns = in.lat_remote_idle_ns = NAN;
	diag_params_default(&in.params);
	CHECK_INT(diagnose(&in, &r, &err), 0);
	for (i = 0; i < r.n_a; i++)
		if (!strcmp(r.a[i].rule, "spread"))
			a = &r.a[i];
	CHECK(a != NULL);
	if (!a)
		goto out;
	CHECK_STR(vms[a->vm].name, light);
	CHECK_CONTAINS(a->action, light);
	CHECK(strlen(a->command) > 64 * 100);

	m.factors[FACTOR_LLC] = (struct model_factor){ .bound = true, .quality = VQ_MEASURED };
	for (f = 0; f < FACTOR_N; f++)
		av.factor_ok[f] = true;
	fr.rows = rows;
	fr.n_rows = 2;
	fr.duration = 5;
	dv = (struct dview){ &m, &av, reasons, 2 * NV, &fr, &in, &r, "none", NULL };
	diag_render_text(&dv, "", &t1);
	diag_render_json(&dv, &json);
	CHECK_INT(jv_parse(&doc, json.buf, json.len, "json", &err), 0);
	CHECK_INT(dview_from_json(&dj, &doc, &err), 0);
	diag_render_text(&dj.dv, "", &t2);
	CHECK_STR(sbuf_str(&t2), sbuf_str(&t1));
	/* each vCPU's pin, in the advice and as a line of the text */
	for (i = 0; i < NV; i++) {
		sbuf_reset(&line);
		sbuf_addf(&line, "virsh vcpupin %s %zu 64-127 ", light, i);
		CHECK_CONTAINS(a->command, sbuf_str(&line));
		sbuf_reset(&line);
		sbuf_addf(&line, "\n       virsh vcpupin %s %zu 64-127 ", light, i);
		CHECK_CONTAINS(sbuf_str(&t1), sbuf_str(&line));
	}
	/* the bottleneck table names each vCPU whole */
	sbuf_reset(&line);
	sbuf_addf(&line, "  %s vCPU 63  llc", heavy);
	CHECK_CONTAINS(sbuf_str(&t1), sbuf_str(&line));
	/* and the memory move after them, the last line */
	CHECK_CONTAINS(a->command, "\nmigratepages 100 0 1\n");
	CHECK_CONTAINS(sbuf_str(&t1), "\n       migratepages 100 0 1\n");
	CHECK_CONTAINS(sbuf_str(&json), "migratepages 100 0 1\\n");
	dview_json_release(&dj);
	jv_release(&doc);
out:
	diag_result_release(&r);
	sbuf_release(&json);
	sbuf_release(&t1);
	sbuf_release(&t2);
	sbuf_release(&line);
	free(vcpus);
}
