/* test_attrib.c - unit tests for src/analysis/attrib: residency, placement estimate, apportioning, entities ending */
#include "test.h"

#include <stdlib.h>

#include "analysis/attrib.h"
#include "source/schedtrace.h"
#include "util/alloc.h"

static int two_nodes_cpu_node[4] = { 0, 0, 1, 1 };

static void two_node_topology(struct topology *t, struct numa_node nodes[2])
{
	memset(t, 0, sizeof(*t));
	memset(nodes, 0, 2 * sizeof(*nodes));
	t->known = true;
	t->max_cpu = 4;
	t->cpu_node = two_nodes_cpu_node;
	nodes[0].id = 0;
	nodes[1].id = 1;
	cpulist_add(&nodes[0].cpus, 0);
	cpulist_add(&nodes[0].cpus, 1);
	cpulist_add(&nodes[1].cpus, 2);
	cpulist_add(&nodes[1].cpus, 3);
	t->nodes = nodes;
	t->n_nodes = 2;
}

static struct hv_vm *vm_add(struct hv_vm_list *l, int pid, const char *name, uint64_t m0, uint64_t m1)
{
	struct hv_vm *vm = hv_vm_list_add(l, HVA_KVM);

	vm->pid = pid;
	vm->name = xstrdup(name);
	vm->n_mem_nodes = 2;
	vm->mem_node = xcalloc(2, sizeof(uint64_t));
	vm->mem_node[0] = m0;
	vm->mem_node[1] = m1;
	return vm;
}

static void vcpu_add(struct hv_vm *vm, int index, int tid, double t, int node)
{
	struct hv_vcpu *v = hv_vm_add_vcpu(vm);

	v->index = index;
	v->tid = tid;
	v->cpu_time_s = t;
	v->node = node;
	v->cpu = node * 2;
}

/* One scan of the update sequence: times and nodes per step (see the test). */
static void step(struct attrib *a, uint64_t t_ns, double a0, int n0, double a1, int n1,
		 bool with_b, double b0, int nb)
{
	struct hv_vm_list l = { 0 };
	struct hv_vm *vm = vm_add(&l, 10, "A", 3ull << 30, 1ull << 30);

	vcpu_add(vm, 0, 11, a0, n0);
	vcpu_add(vm, 1, 12, a1, n1);
	if (with_b) {
		vm = vm_add(&l, 20, "B", 1ull << 30, 1ull << 30);
		vcpu_add(vm, 0, 21, b0, nb);
	}
	attrib_update(a, &l, t_ns);
	hv_vm_list_release(&l);
}

TEST(attrib_residency_estimate_apportion_and_end)
{
	struct topology t;
	struct numa_node nodes[2];
	struct attrib a;
	struct qval q;
	int va, v0, v1, vb, vb0;

	two_node_topology(&t, nodes);
	attrib_init(&a, &t);
	CHECK_INT(a.n_nodes, 2);
	CHECK_INT(a.n, 7); /* host, 2 nodes, 4 CPUs */
	CHECK(attrib_find(&a, "cpu:3") >= 0);
	CHECK_INT(a.ents[attrib_find(&a, "cpu:3")].node, 1);

	/* 1: A's vCPU0 on node 0, vCPU1 on node 1; memory 3 GiB on node 0, 1 GiB on node 1 */
	step(&a, 1000000000ull, 10.0, 0, 5.0, 1, true, 0.0, 1);
	va = attrib_find(&a, "vm:kvm:10:A");
	v0 = attrib_find(&a, "vm:kvm:10:A:t11");
	v1 = attrib_find(&a, "vm:kvm:10:A:t12");
	CHECK(va >= 0 && v0 >= 0 && v1 >= 0);
	if (va < 0 || v0 < 0 || v1 < 0)
		goto out;
	/* no run time yet: placement decides; vCPU0 expects 1 - 3/4 remote */
	CHECK_NEAR(attrib_residency(&a, v0, 0), 1.0, 1e-12);
	CHECK_NEAR(a.ents[v0].remote_frac.v, 0.25, 1e-12);
	CHECK_INT(a.ents[v0].remote_frac.q, VQ_ESTIMATE);
	CHECK_NEAR(a.ents[v1].remote_frac.v, 0.75, 1e-12);
	CHECK_NEAR(a.ents[va].remote_frac.v, 0.5 * 0.25 + 0.5 * 0.75, 1e-12);
	CHECK_NAN(a.ents[v0].interval_run_s);

	/* 2: vCPU0 +0.6 s on node 0; vCPU1 moved to node 0, +0.2 s; B +0.5 s on node 1 */
	step(&a, 2000000000ull, 10.6, 0, 5.2, 0, true, 0.5, 1);
	/* 3: vCPU0 moved to node 1, +0.4 s; vCPU1 +0.4 s on node 0; B moved to node 0, +0.8 s */
	step(&a, 3000000000ull, 11.0, 1, 5.6, 0, true, 1.3, 0);
	CHECK_NEAR(a.ents[v0].run_s, 1.0, 1e-9);
	CHECK_NEAR(a.ents[v0].interval_run_s, 0.4, 1e-9);
	CHECK_NEAR(attrib_residency(&a, v0, 0), 0.6, 1e-9);
	CHECK_NEAR(attrib_residency(&a, v0, 1), 0.4, 1e-9);
	/* 0.6 x (1 - 0.75) + 0.4 x (1 - 0.25) */
	CHECK_NEAR(a.ents[v0].remote_frac.v, 0.45, 1e-9);
	CHECK_NEAR(a.ents[v1].remote_frac.v, 0.25, 1e-9);
	/* A ran 1.2 s on node 0 and 0.4 s on node 1: 0.75 x 0.25 + 0.25 x 0.75 */
	CHECK_NEAR(attrib_residency(&a, va, 0), 0.75, 1e-9);
	CHECK_NEAR(a.ents[va].remote_frac.v, 0.375, 1e-9);

	/* last interval on node 0: A 0.4 s, B 0.8 s -> A gets a third */
	vb = attrib_find(&a, "vm:kvm:20:B");
	CHECK(vb >= 0);
	q = attrib_apportion(&a, va, 0, 300.0);
	CHECK_INT(q.q, VQ_APPORTIONED);
	CHECK_NEAR(q.v, 100.0, 1e-9);
	CHECK_NEAR(attrib_apportion(&a, vb, 0, 300.0).v, 200.0, 1e-9);
	CHECK_NEAR(attrib_apportion(&a, va, 1, 50.0).v, 50.0, 1e-9);
	CHECK_INT(attrib_apportion(&a, va, 1, NAN).q, VQ_UNAVAILABLE);

	/* 4: B is gone: its series end at this update, A goes on */
	vb0 = attrib_find(&a, "vm:kvm:20:B:t21");
	step(&a, 4000000000ull, 11.5, 1, 6.0, 0, false, 0, 0);
	CHECK(!a.ents[vb].alive);
	CHECK_U64(a.ents[vb].ended_ns, 4000000000ull);
	CHECK(vb0 >= 0 && !a.ents[vb0].alive);
	CHECK_INT(attrib_find(&a, "vm:kvm:20:B"), -1);
	CHECK(a.ents[va].alive);
	CHECK_INT(a.ents[va].ended_ns, 0);
	CHECK_U64(a.prev_ns, 3000000000ull);
	/* node 1 in the last interval: only A (vCPU0 +0.5 s) ran there */
	CHECK_NEAR(attrib_apportion(&a, va, 1, 80.0).v, 80.0, 1e-9);
	CHECK_INT(attrib_apportion(&a, va, 0, 0).q, VQ_APPORTIONED);
out:
	attrib_release(&a);
	cpulist_release(&nodes[0].cpus);
	cpulist_release(&nodes[1].cpus);
}

TEST(attrib_estimate_unavailable_with_reason)
{
	struct attrib a;
	struct hv_vm_list l = { 0 };
	struct hv_vm *vm = hv_vm_list_add(&l, HVA_KVM);
	int v;

	attrib_init(&a, NULL);
	CHECK_INT(a.n_nodes, 1);
	vm->pid = 5;
	vm->name = xstrdup("x");
	vcpu_add(vm, 0, 6, 1.0, -1);
	attrib_update(&a, &l, 1);
	v = attrib_find(&a, "vm:kvm:5:x:t6");
	CHECK(v >= 0);
	if (v >= 0) {
		CHECK_INT(a.ents[v].remote_frac.q, VQ_UNAVAILABLE);
		CHECK_NAN(a.ents[v].remote_frac.v);
		CHECK_STR(a.ents[v].remote_frac.why, "memory per node unknown");
	}
	hv_vm_list_release(&l);
	attrib_release(&a);
	CHECK_STR(vp_quality_name(VQ_ESTIMATE), "estimate");
	CHECK_STR(vp_quality_name(VQ_APPORTIONED), "apportioned");
}

TEST(attrib_xen_fixture_estimate)
{
	struct platform p;
	struct hv_vm_list l = { 0 };
	struct hv_ctx ctx = { NULL, NULL, NULL };
	struct attrib a;
	char root[4096];
	int v;

	snprintf(root, sizeof(root), "%s", test_data("root/xen-dom0"));
	CHECK_INT(platform_probe(&p, root, NULL), 0);
	ctx.root = root;
	ctx.plat = &p;
	CHECK_INT(hv_scan_vms(&ctx, &l, NULL), 0);
	attrib_init(&a, &p.topo);
	attrib_update(&a, &l, 1);
	/* dom0's /sys shows one node; xl shows pCPUs on two: the tree grows */
	CHECK_INT(a.n_nodes, 2);
	v = attrib_find(&a, "vm:xen:3:v0");
	CHECK(v >= 0);
	if (v >= 0) { /* on node 1, memory half on each node */
		CHECK_NEAR(a.ents[v].remote_frac.v, 0.5, 1e-12);
	}
	v = attrib_find(&a, "vm:xen:1:v0");
	CHECK(v >= 0);
	if (v >= 0) /* no vNUMA: memory per node unknown */
		CHECK_INT(a.ents[v].remote_frac.q, VQ_UNAVAILABLE);
	attrib_release(&a);
	hv_vm_list_release(&l);
	platform_release(&p);
}

/*
 * Exact residency: vCPU 0 of A (thread 11) runs 3 s on CPU 0 (node 0), then
 * 1 s on CPU 2 (node 1), and is sampled on node 0.  Sampling would charge
 * all 4 s to node 0 (where it is at the update); the tracer charges 3 s and
 * 1 s, and the placement estimate follows: A's memory is 3/4 on node 0, so
 * remote = 3/4 x 1/4 + 1/4 x 3/4 = 0.375 (sampling: 1 x 1/4 = 0.25).
 */
TEST(attrib_exact_residency_from_switch_records)
{
	struct topology t;
	struct numa_node nodes[2];
	struct attrib a;
	struct schedtrace *st = schedtrace_new_offline(3);
	const uint64_t s = 1000000000ull;
	int v0, v1;

	two_node_topology(&t, nodes);
	attrib_init(&a, &t);
	attrib_use_schedtrace(&a, st, &t);
	step(&a, 1 * s, 0.0, 0, 0.0, 0, false, 0, 0);   /* watches threads 11 and 12 */
	schedtrace_switch(st, 0, 1 * s, 0, 11);          /* on CPU 0 at 1 s */
	schedtrace_switch(st, 0, 4 * s, 11, 0);          /* off at 4 s: 3 s on node 0 */
	schedtrace_switch(st, 2, 4 * s, 0, 11);          /* on CPU 2 at 4 s */
	schedtrace_switch(st, 2, 5 * s, 11, 0);          /* off at 5 s: 1 s on node 1 */
	step(&a, 5 * s, 4.0, 0, 0.0, 0, false, 0, 0);
	v0 = attrib_find(&a, "vm:kvm:10:A:t11");
	v1 = attrib_find(&a, "vm:kvm:10:A:t12");
	CHECK(v0 >= 0 && v1 >= 0);
	CHECK(a.ents[v0].residency_exact);
	CHECK_NEAR(a.ents[v0].node_run_s[0], 3.0, 1e-9);
	CHECK_NEAR(a.ents[v0].node_run_s[1], 1.0, 1e-9);
	CHECK_NEAR(a.ents[v0].interval_node_run_s[1], 1.0, 1e-9);
	CHECK_NEAR(attrib_residency(&a, v0, 1), 0.25, 1e-9);
	CHECK_NEAR(a.ents[v0].remote_frac.v, 0.375, 1e-9);
	/* a thread the tracer watches but that never ran: exact, with no time */
	CHECK(a.ents[v1].residency_exact);
	CHECK_NEAR(a.ents[v1].node_run_s[0] + a.ents[v1].node_run_s[1], 0.0, 1e-12);
	/* a second interval: 2 s more on CPU 3 (node 1) */
	schedtrace_switch(st, 3, 6 * s, 0, 11);
	schedtrace_switch(st, 3, 8 * s, 11, 0);
	step(&a, 8 * s, 6.0, 1, 0.0, 0, false, 0, 0);
	CHECK_NEAR(a.ents[v0].interval_node_run_s[0], 0.0, 1e-9);
	CHECK_NEAR(a.ents[v0].interval_node_run_s[1], 2.0, 1e-9);
	CHECK_NEAR(attrib_residency(&a, v0, 1), 0.5, 1e-9);
	attrib_release(&a);
	schedtrace_free(st);
	cpulist_release(&nodes[0].cpus);
	cpulist_release(&nodes[1].cpus);
}

/*
 * Apportioning per-node counts (docs/method.md, "Per-socket counts"), two
 * nodes and three vCPUs, run seconds by hand:
 *            node 0   node 1
 *   vCPU 0    0.6      0
 *   vCPU 1    0.2      0.3
 *   vCPU 2    0        0.5
 *   busy      1.6      0.8     (every task on the node)
 * By run time: node 0's part is 0.8 / 1.6 = 0.5 (the rest stays with the
 * host's other tasks), shared 0.6 : 0.2 -> 0.375, 0.125; node 1's part is
 * 0.8 / 0.8 = 1, shared 0.3 : 0.5 -> 0.375, 0.625.  Node counts 1000 and
 * 400 then give vCPU 0 375, vCPU 1 125 + 150 = 275, vCPU 2 250: 900 of the
 * 1400, the other 500 is node 0's unattributed half.
 * By DRAM accesses 100, 300, 50 charged to nodes by residency: node 0
 * weights 100 x 0.6/0.6 = 100 and 300 x 0.2/0.5 = 120, so 0.5 x 100/220 and
 * 0.5 x 120/220; node 1 weights 300 x 0.3/0.5 = 180 and 50: 180/230, 50/230.
 */
TEST(attrib_node_shares_by_hand)
{
	static const double run[3 * 2] = { 0.6, 0, 0.2, 0.3, 0, 0.5 };
	static const double busy[2] = { 1.6, 0.8 };
	static const double act[3] = { 100, 300, 50 };
	static const double counts[2] = { 1000, 400 };
	static const struct {
		int line;
		const double *act, *busy;
		int guessed;
		double share[6];
	} rows[] = {
		{ __LINE__, NULL, busy, 0, { 0.375, 0, 0.125, 0.375, 0, 0.625 } },
		{ __LINE__, act, busy, 0, { 0.5 * 100 / 220, 0, 0.5 * 120 / 220, 180.0 / 230, 0,
					    50.0 / 230 } },
		/* busy unknown: the vCPUs share each node's whole count */
		{ __LINE__, NULL, NULL, 2, { 0.75, 0, 0.25, 0.375, 0, 0.625 } },
	};
	double share[6], v[3];
	size_t i, k;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK_INT_AT(rows[i].line, attrib_node_shares(run, rows[i].act, rows[i].busy, 3, 2,
							       share), rows[i].guessed);
		for (k = 0; k < 6; k++)
			CHECK_NEAR_AT(rows[i].line, share[k], rows[i].share[k], 1e-12);
	}
	/* the per-vCPU values the collector writes: counts x shares, summed over nodes */
	attrib_node_shares(run, NULL, busy, 3, 2, share);
	for (k = 0; k < 3; k++)
		v[k] = counts[0] * share[k * 2] + counts[1] * share[k * 2 + 1];
	CHECK_NEAR(v[0], 375, 1e-9);
	CHECK_NEAR(v[1], 275, 1e-9);
	CHECK_NEAR(v[2], 250, 1e-9);

	/* negative rows: busy below the vCPUs' run time caps the part at 1; an
	 * unknown residency is NaN, not 0; an unknown activity falls back to run time */
	{
		const double low[2] = { 0.4, NAN };
		const double run2[3 * 2] = { 0.6, 0, NAN, NAN, 0, 0.5 };
		const double act2[3] = { 100, NAN, 50 };

		CHECK_INT(attrib_node_shares(run, NULL, low, 3, 2, share), 1);
		CHECK_NEAR(share[0] + share[2] + share[4], 1.0, 1e-12);
		attrib_node_shares(run2, act2, busy, 3, 2, share);
		CHECK_NAN(share[2]);
		CHECK_NAN(share[3]);
		CHECK_NEAR(share[0], 0.6 / 1.6, 1e-12);
		CHECK_NEAR(share[5], 0.5 / 0.8, 1e-12);
		attrib_node_shares(run, act2, busy, 3, 2, share);
		CHECK_NEAR(share[0], 0.375, 1e-12); /* vCPU 1's activity unknown: by run time */
	}
}

/*
 * Home-side counts (an IMC): two vCPUs of a VM run on node 0 only (0.5 s
 * and 0.3 s), its memory is all on node 1; node 0 was busy 1.0 s, node 1
 * 0.4 s (other tasks).  By residency they would take 0.8 of node 0's IMC
 * count; by where their memory is, node 0's IMC saw none of their traffic
 * and node 1's saw 0.8 s of their run time against 0.4 s of the others':
 *     part[1] = 0.8 / (0.8 + 0.4) = 2/3
 *     v0: 2/3 * 0.5 / 0.8 = 5/12,  v1: 2/3 * 0.3 / 0.8 = 1/4
 * With counts 1000 (node 0) and 600 (node 1): v0 250, v1 150, where
 * residency gives 500 and 300 of node 0's.
 */
TEST(attrib_node_shares_home_by_hand)
{
	static const double run[2 * 2] = { 0.5, 0, 0.3, 0 };
	static const double busy[2] = { 1.0, 0.4 };
	static const double remote[2 * 2] = { 0, 64, 0, 64 };   /* MiB per node */
	static const double counts[2] = { 1000, 600 };
	double share[4], v0, v1;

	CHECK_INT(attrib_node_shares_mem(run, NULL, remote, busy, 2, 2, share), 0);
	CHECK_NEAR(share[0], 0, 1e-12);
	CHECK_NEAR(share[2], 0, 1e-12);
	CHECK_NEAR(share[1], 5.0 / 12, 1e-12);
	CHECK_NEAR(share[3], 0.25, 1e-12);
	v0 = counts[0] * share[0] + counts[1] * share[1];
	v1 = counts[0] * share[2] + counts[1] * share[3];
	CHECK_NEAR(v0, 250, 1e-9);
	CHECK_NEAR(v1, 150, 1e-9);
	/* activity weights 100 and 300 split the same part 1:3 */
	{
		static const double act[2] = { 100, 300 };

		attrib_node_shares_mem(run, act, remote, busy, 2, 2, share);
		CHECK_NEAR(share[1], 2.0 / 3 * 0.25, 1e-12);
		CHECK_NEAR(share[3], 2.0 / 3 * 0.75, 1e-12);
	}
	/* memory unknown (NaN row) or NULL: taken to be where it runs, i.e. residency */
	{
		static const double unknown[2 * 2] = { NAN, NAN, NAN, NAN };
		double by_run[4];

		attrib_node_shares(run, NULL, busy, 2, 2, by_run);
		attrib_node_shares_mem(run, NULL, unknown, busy, 2, 2, share);
		for (int k = 0; k < 4; k++)
			CHECK_NEAR_AT(__LINE__, share[k], by_run[k], 1e-12);
		CHECK_NEAR(by_run[0], 0.5, 1e-12);
		CHECK_NEAR(by_run[2], 0.3, 1e-12);
	}
	/* half the memory local: node 0 gets half the traffic (here 0.4 of 1.0 busy,
	 * others 0.2: part 0.4 / 0.6), node 1 the other half (0.4 against 0.4) */
	{
		static const double half[2 * 2] = { 1, 1, 1, 1 };

		attrib_node_shares_mem(run, NULL, half, busy, 2, 2, share);
		CHECK_NEAR(share[0], 0.4 / 0.6 * 0.25 / 0.4, 1e-12);
		CHECK_NEAR(share[1], 0.5 * 0.25 / 0.4, 1e-12);
	}
	/* a vCPU whose run time is unknown somewhere: NaN on every node */
	{
		static const double run2[2 * 2] = { 0.5, 0, NAN, 0 };

		attrib_node_shares_mem(run2, NULL, remote, busy, 2, 2, share);
		CHECK_NAN(share[2]);
		CHECK_NAN(share[3]);
		CHECK_NEAR(share[1], 0.5 / 0.9, 1e-12);
	}
}

/*
 * A vCPU's key, written by hand: "vm:kvm:PID:NAME:tTID" under KVM (its thread),
 * "vm:xen:DOMID:vINDEX" under Xen; attrib_find_vcpu() finds the entity by it
 * without formatting into the heap, and a name too long for its stack buffer
 * (300 bytes) still gives the whole key and finds it.
 */
TEST(attrib_vcpu_keys_and_lookup)
{
	struct attrib a;
	struct topology t;
	struct numa_node nodes[2];
	struct hv_vm_list l = { 0 };
	struct hv_vm *vm, *x, *lng;
	char name[301], *k, *want;

	two_node_topology(&t, nodes);
	attrib_init(&a, &t);
	vm = vm_add(&l, 10, "A", 1, 1);
	vcpu_add(vm, 3, 11, 1.0, 0);
	x = hv_vm_list_add(&l, HVA_XEN);
	x->domid = 7;
	x->name = xstrdup("dom");
	vcpu_add(x, 2, -1, 1.0, 0);
	memset(name, 'n', 300);
	name[300] = '\0';
	lng = vm_add(&l, 30, name, 1, 1);
	vcpu_add(lng, 0, 31, 1.0, 0);
	attrib_update(&a, &l, 1000000000ull);

	k = attrib_vcpu_key(vm, &vm->vcpus[0]);
	CHECK_STR(k, "vm:kvm:10:A:t11");
	CHECK(attrib_find_vcpu(&a, vm, &vm->vcpus[0]) >= 0);
	CHECK_INT(attrib_find_vcpu(&a, vm, &vm->vcpus[0]), attrib_find(&a, k));
	free(k);
	k = attrib_vcpu_key(x, &x->vcpus[0]);
	CHECK_STR(k, "vm:xen:7:v2");
	CHECK_INT(attrib_find_vcpu(&a, x, &x->vcpus[0]), attrib_find(&a, k));
	CHECK(attrib_find(&a, k) >= 0);
	free(k);
	k = attrib_vcpu_key(lng, &lng->vcpus[0]);
	want = xasprintf("vm:kvm:30:%s:t31", name);
	CHECK_STR(k, want);
	CHECK(attrib_find_vcpu(&a, lng, &lng->vcpus[0]) >= 0);
	CHECK_INT(attrib_find_vcpu(&a, lng, &lng->vcpus[0]), attrib_find(&a, want));
	free(want);
	free(k);
	vm->vcpus[0].tid = 12; /* a thread it has not seen */
	CHECK_INT(attrib_find_vcpu(&a, vm, &vm->vcpus[0]), -1);
	hv_vm_list_release(&l);
	attrib_release(&a);
	cpulist_release(&nodes[0].cpus);
	cpulist_release(&nodes[1].cpus);
}
