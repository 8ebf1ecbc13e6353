/* test_hv.c - unit tests for src/hv: KVM/QEMU, Xen, guest and native adapters on fixture trees */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "hv/cache.h"
#include "hv/hv.h"
#include "hv/kvm.h"
#include "hv/xen.h"
#include "util/alloc.h"
#include "util/timeutil.h"
#include "util/fs.h"
#include "util/sbuf.h"
#include "util/timeutil.h"

/* A platform with only the topology the adapters use: 4 CPUs, 0-1 on node 0, 2-3 on node 1. */
static int fixture_cpu_node[4] = { 0, 0, 1, 1 };

static void fake_platform(struct platform *p)
{
	memset(p, 0, sizeof(*p));
	p->topo.known = true;
	p->topo.max_cpu = 4;
	p->topo.cpu_node = fixture_cpu_node;
}

static void scan(const char *fixture, struct hv_vm_list *l, struct platform *p)
{
	static char root[4096];
	struct hv_ctx ctx;
	struct vp_err err = { 0, "" };

	snprintf(root, sizeof(root), "%s", test_data(fixture));
	fake_platform(p);
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	ctx.plat = p;
	ctx.exec = NULL;
	ctx.xen_numa = NULL;
	memset(l, 0, sizeof(*l));
	CHECK_INT(hv_scan_vms(&ctx, l, &err), 0);
	if (err.code)
		test_fail(__FILE__, __LINE__, "scan: %s", err.msg);
}

static const char *fmt_list(const struct cpulist *cl)
{
	static struct sbuf sb;

	sbuf_reset(&sb);
	cpulist_format(cl, &sb);
	return sbuf_str(&sb);
}

static double ticks(double t)
{
	return t / (double)sysconf(_SC_CLK_TCK);
}

TEST(kvm_libvirt_cgroup_v2)
{
	struct hv_vm_list l;
	struct platform p;
	const struct hv_vm *vm;

	scan("root/host-libvirt-v2", &l, &p);
	CHECK_INT(l.n, 2);
	vm = hv_vm_list_find(&l, "web1");
	CHECK(vm != NULL);
	if (!vm)
		goto out;
	CHECK_INT(vm->adapter, HVA_KVM);
	CHECK_INT(vm->pid, 1000);
	CHECK_STR(vm->name_source, "cmdline");
	CHECK_STR(vm->accel, "kvm");
	CHECK_STR(vm->cgroup, "/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope");
	CHECK_INT(vm->cgroup_version, 2);
	CHECK_STR(vm->cgroup_dir, "/sys/fs/cgroup/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope");
	CHECK_INT(vm->n_vcpus, 2);
	if (vm->n_vcpus == 2) {
		CHECK_INT(vm->vcpus[0].index, 0);
		CHECK_INT(vm->vcpus[0].tid, 1002);
		CHECK_INT(vm->vcpus[0].cpu, 1);
		CHECK_INT(vm->vcpus[0].node, 0);
		CHECK_STR(fmt_list(&vm->vcpus[0].affinity), "0-1");
		CHECK_NEAR(vm->vcpus[0].cpu_time_s, ticks(1500), 1e-9);
		CHECK_U64(vm->vcpus[0].run_ns, 15000000000ull);
		CHECK_STR(vm->vcpus[0].cgroup,
			  "/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope/libvirt/vcpu0");
		CHECK_STR(vm->vcpus[0].comm, "CPU 0/KVM");
		CHECK_INT(vm->vcpus[1].tid, 1003);
		CHECK_INT(vm->vcpus[1].cpu, 2);
		CHECK_INT(vm->vcpus[1].node, 1);
		CHECK_STR(fmt_list(&vm->vcpus[1].affinity), "2-3");
	}
	CHECK_INT(vm->n_other, 2);
	if (vm->n_other == 2) {
		CHECK_INT(vm->other_tids[0], 1000);
		CHECK_INT(vm->other_tids[1], 1001);
	}
	/* the 1 GiB rw-p anonymous mapping: 196608 + 65536 pages of 4 KiB */
	CHECK_INT(vm->n_mem_nodes, 2);
	if (vm->n_mem_nodes == 2) {
		CHECK_U64(vm->mem_node[0], 196608ull * 4096);
		CHECK_U64(vm->mem_node[1], 65536ull * 4096);
	}
	CHECK_U64(vm->mem_size, 1ull << 30);

	vm = hv_vm_list_find(&l, "db-2");
	CHECK(vm != NULL);
	if (!vm)
		goto out;
	CHECK_STR(vm->accel, "kvm");
	CHECK_INT(vm->n_vcpus, 1);
	if (vm->n_vcpus == 1)
		CHECK_INT(vm->vcpus[0].node, 1);
	/* 200 huge pages of 2 MiB, all on node 1, in a 512 MiB hugetlbfs mapping */
	CHECK_INT(vm->n_mem_nodes, 2);
	if (vm->n_mem_nodes == 2) {
		CHECK_U64(vm->mem_node[0], 0);
		CHECK_U64(vm->mem_node[1], 200ull << 21);
	}
	CHECK_U64(vm->mem_size, 512ull << 20);
out:
	hv_vm_list_release(&l);
}

TEST(kvm_libvirt_cgroup_v1_debugfs)
{
	struct hv_vm_list l;
	struct platform p;
	const struct hv_vm *vm;

	scan("root/host-libvirt-v1", &l, &p);
	CHECK_INT(l.n, 1);
	vm = hv_vm_list_find(&l, "app");
	CHECK(vm != NULL);
	if (!vm)
		goto out;
	CHECK_STR(vm->name_source, "libvirt cgroup");
	CHECK_INT(vm->pid, 3000);
	CHECK_INT(vm->cgroup_version, 1);
	CHECK_STR(vm->cgroup, "/machine/qemu-1-app.libvirt-qemu");
	CHECK_STR(vm->cgroup_dir, "/sys/fs/cgroup/perf_event/machine/qemu-1-app.libvirt-qemu");
	CHECK_CONTAINS(vm->vcpu_reason, "debugfs");
	CHECK_INT(vm->n_vcpus, 2);
	if (vm->n_vcpus == 2) {
		CHECK_INT(vm->vcpus[0].tid, 3003);
		CHECK_INT(vm->vcpus[0].node, 0);
		CHECK_STR(fmt_list(&vm->vcpus[0].affinity), "0");
		CHECK_INT(vm->vcpus[1].tid, 3004);
		CHECK_INT(vm->vcpus[1].cpu, 2);
		CHECK_INT(vm->vcpus[1].node, 1);
		CHECK_STR(vm->vcpus[1].cgroup, "/machine/qemu-1-app.libvirt-qemu/vcpu1");
	}
	CHECK_INT(vm->n_other, 2);
	CHECK_STR(vm->accel, "kvm");
	/* memfd backend, 2 GiB, half on each node */
	CHECK_U64(vm->mem_size, 2ull << 30);
	CHECK_INT(vm->n_mem_nodes, 2);
	if (vm->n_mem_nodes == 2) {
		CHECK_U64(vm->mem_node[0], 1ull << 30);
		CHECK_U64(vm->mem_node[1], 1ull << 30);
	}
out:
	hv_vm_list_release(&l);
}

TEST(kvm_plain_qemu_tcg)
{
	struct hv_vm_list l;
	struct platform p;
	const struct hv_vm *vm;

	scan("root/host-qemu", &l, &p);
	CHECK_INT(l.n, 1);
	vm = l.n ? &l.vms[0] : NULL;
	if (!vm)
		goto out;
	CHECK_STR(vm->name, "vptest,x"); /* ",," is QEMU's escaped comma */
	CHECK_STR(vm->accel, "tcg");
	CHECK_STR(vm->cgroup, "/user.slice/user-0.slice/session-1.scope");
	CHECK_STR(vm->cgroup_dir, "/sys/fs/cgroup/user.slice/user-0.slice/session-1.scope");
	CHECK_INT(vm->n_vcpus, 2);
	if (vm->n_vcpus == 2) {
		CHECK_INT(vm->vcpus[0].tid, 4002);
		CHECK_STR(vm->vcpus[0].comm, "CPU 0/TCG");
		CHECK_INT(vm->vcpus[0].node, 0);
		CHECK_INT(vm->vcpus[1].tid, 4003);
		CHECK_INT(vm->vcpus[1].cpu, 3);
		CHECK_INT(vm->vcpus[1].node, 1);
		CHECK(vm->vcpus[1].cgroup == NULL); /* same cgroup as the VM */
		CHECK_NEAR(vm->vcpus[0].cpu_time_s, ticks(2500), 1e-9);
	}
	CHECK_U64(vm->mem_size, 256ull << 20);
	if (vm->n_mem_nodes == 2) {
		CHECK_U64(vm->mem_node[0], 160ull << 20);
		CHECK_U64(vm->mem_node[1], 64ull << 20);
	}
	CHECK_U64(hv_vm_mem_total(vm), 224ull << 20);
out:
	hv_vm_list_release(&l);
}

static const struct {
	int line;
	const char *in;
	const char *name; /* NULL: none */
} name_rows[] = {
	{ __LINE__, "guest=web1,debug-threads=on", "web1" },
	{ __LINE__, "debug-threads=on,guest=web1", "web1" },
	{ __LINE__, "web1", "web1" },
	{ __LINE__, "web1,process=qemu-web1", "web1" },
	{ __LINE__, "a,,b,debug-threads=on", "a,b" },
	{ __LINE__, "guest=", NULL },
	{ __LINE__, "process=x", NULL },
	{ __LINE__, "", NULL },
};

TEST(kvm_name_option_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(name_rows); i++) {
		char *n = kvm_name_from_opt(name_rows[i].in);

		if (name_rows[i].name)
			CHECK_STR_AT(name_rows[i].line, n, name_rows[i].name);
		else
			CHECK_AT(name_rows[i].line, !n, "got '%s'", n);
		free(n);
	}
}

static const struct {
	int line;
	const char *path;
	const char *name;
	const char *vm_cgroup;
} cg_rows[] = {
	{ __LINE__, "/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope/libvirt/vcpu0", "web1",
	  "/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope" },
	{ __LINE__, "/machine.slice/machine-qemu\\x2d12\\x2ddb\\x2d2.scope/libvirt/emulator", "db-2",
	  "/machine.slice/machine-qemu\\x2d12\\x2ddb\\x2d2.scope" },
	{ __LINE__, "/machine.slice/machine-qemu\\x2dold.scope/emulator", "old",
	  "/machine.slice/machine-qemu\\x2dold.scope" },
	{ __LINE__, "/machine/qemu-3-app.libvirt-qemu/vcpu1", "app", "/machine/qemu-3-app.libvirt-qemu" },
	{ __LINE__, "/machine/qemu-3-app.libvirt-qemu/iothread1", "app", "/machine/qemu-3-app.libvirt-qemu" },
	{ __LINE__, "/machine/vm9.libvirt-qemu", "vm9", "/machine/vm9.libvirt-qemu" },
	{ __LINE__, "/user.slice/session-1.scope", NULL, "/user.slice/session-1.scope" },
	{ __LINE__, "/machine.slice/machine-lxc\\x2d1\\x2dct.scope", NULL,
	  "/machine.slice/machine-lxc\\x2d1\\x2dct.scope" },
	{ __LINE__, "/vcpu0", NULL, "/" },
};

TEST(kvm_cgroup_name_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(cg_rows); i++) {
		char *vmcg = kvm_vm_cgroup(cg_rows[i].path);
		char *n = kvm_name_from_cgroup(vmcg);

		CHECK_STR_AT(cg_rows[i].line, vmcg, cg_rows[i].vm_cgroup);
		if (cg_rows[i].name)
			CHECK_STR_AT(cg_rows[i].line, n, cg_rows[i].name);
		else
			CHECK_AT(cg_rows[i].line, !n, "got '%s'", n);
		free(n);
		free(vmcg);
	}
	CHECK(kvm_is_qemu("/usr/bin/qemu-system-aarch64", NULL));
	CHECK(kvm_is_qemu("/usr/libexec/qemu-kvm", "qemu-kvm"));
	CHECK(kvm_is_qemu("/proc/self/exe", "qemu-system-x86"));
	CHECK(!kvm_is_qemu("/usr/bin/qemu-img", "qemu-img"));
	CHECK(!kvm_is_qemu("/bin/bash", "bash"));
}

TEST(xen_dom0_from_captured_xl)
{
	struct hv_vm_list l;
	struct platform p;
	const struct hv_vm *vm;

	scan("root/xen-dom0", &l, &p);
	CHECK_INT(l.n, 3);
	vm = hv_vm_list_find(&l, "Domain-0");
	CHECK(vm && vm->dom0 && vm->domid == 0);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm != NULL);
	if (!vm)
		goto out;
	CHECK_INT(vm->adapter, HVA_XEN);
	CHECK_INT(vm->domid, 1);
	CHECK_INT(vm->pid, -1);
	CHECK_STR(vm->uuid, "b1f1a3e5-27f2-4d1b-8f0e-1f2e3d4c5b6a");
	CHECK_STR(vm->accel, "pv");
	CHECK_U64(vm->mem_size, 131072ull * 1024);
	CHECK_STR(fmt_list(&vm->node_affinity), "0");
	CHECK_INT(vm->n_mem_nodes, 0); /* no vNUMA: per-node memory unknown */
	CHECK_INT(vm->n_vcpus, 2);
	if (vm->n_vcpus == 2) {
		CHECK_INT(vm->vcpus[0].cpu, 1);
		CHECK_INT(vm->vcpus[0].node, 0); /* from xl info -n, not dom0's /sys */
		CHECK_STR(vm->vcpus[0].state, "-b-");
		CHECK_NEAR(vm->vcpus[0].cpu_time_s, 2.5, 1e-12);
		CHECK(vm->vcpus[0].affinity_all);
		CHECK_STR(fmt_list(&vm->vcpus[0].soft_affinity), "0-1");
		CHECK_INT(vm->vcpus[1].cpu, 0);
		CHECK_STR(fmt_list(&vm->vcpus[1].affinity), "0");
		CHECK(vm->vcpus[1].soft_all);
		CHECK_INT(vm->vcpus[1].tid, -1);
	}
	vm = hv_vm_list_find(&l, "numa vm");
	CHECK(vm != NULL);
	if (!vm)
		goto out;
	CHECK_INT(vm->domid, 3);
	CHECK_INT(vm->n_vcpus, 4);
	if (vm->n_vcpus == 4) {
		CHECK_INT(vm->vcpus[0].cpu, 2);
		CHECK_INT(vm->vcpus[0].node, 1);
		CHECK_INT(vm->vcpus[2].cpu, -1); /* paused: no pCPU */
		CHECK_INT(vm->vcpus[2].node, -1);
		CHECK_STR(vm->vcpus[2].state, "--p");
		CHECK_INT(vm->vcpus[3].node, 0);
	}
	CHECK_INT(vm->n_mem_nodes, 2);
	if (vm->n_mem_nodes == 2) {
		CHECK_U64(vm->mem_node[0], 262144ull * 1024);
		CHECK_U64(vm->mem_node[1], 262144ull * 1024);
	}
out:
	hv_vm_list_release(&l);
}

/* max_vcpus beyond any Xen guest (fuzz_xl's timeout input): 4,096 vCPUs, indices
 * 0..4095 in order, each unplaced (CPU and node -1), made in one allocation; and
 * vcpu-list still appends a vCPU list -l did not name. */
TEST(xen_list_l_caps_vcpus)
{
	struct hv_vm_list l = { 0 };
	struct vp_err err = { 0, "" };
	size_t i, bad = 0;

	CHECK_INT(xen_parse_list_l("[{\"domid\": 3, \"config\": {\"b_info\": "
				   "{\"max_vcpus\": 7777777774}}}, {\"domid\": 4, \"config\": "
				   "{\"b_info\": {\"max_vcpus\": 2}}}]", &l, &err), 0);
	CHECK_INT(l.n, 2);
	CHECK_INT(l.vms[0].n_vcpus, 4096);
	for (i = 0; i < l.vms[0].n_vcpus; i++)
		bad += l.vms[0].vcpus[i].index != (int)i || l.vms[0].vcpus[i].cpu != -1 ||
		       l.vms[0].vcpus[i].node != -1;
	CHECK_INT(bad, 0);
	CHECK_INT(l.vms[1].n_vcpus, 2);
	CHECK_INT(xen_parse_vcpu_list("dom4  4  7  1  -b-  1.0  all / all\n", &l, 0, NULL, 0, &err), 0);
	CHECK_INT(l.vms[1].n_vcpus, 3);
	CHECK_INT(l.vms[1].vcpus[2].index, 7);
	CHECK_INT(l.vms[1].vcpus[2].cpu, 1);
	hv_vm_list_release(&l);
}

TEST(xen_parsers_reject_garbage)
{
	struct hv_vm_list l = { 0 };
	struct vp_err err = { 0, "" };
	int *map = NULL, n = 0;

	CHECK_INT(xen_parse_list_l("[{\"domid\": 1,", &l, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "xl list -l");
	CHECK_INT(xen_parse_list_l("(domain (domid 1))", &l, &err), VP_EUNSUPP);
	CHECK_INT(xen_parse_list_l("{}", &l, &err), VP_EPARSE);
	CHECK_INT(xen_parse_list_l("[]", &l, &err), 0);
	CHECK_INT(l.n, 0);
	CHECK_INT(xen_parse_list_l("[{\"domid\": 5, \"config\": {\"b_info\": {\"max_vcpus\": 1}}}]", &l, &err), 0);
	CHECK_INT(l.n, 1);
	CHECK_STR(l.vms[0].name, "dom5");
	CHECK_INT(xen_parse_vcpu_list("dom5  x  0  1  -b-  1.0  all / all\n", &l, 0, NULL, 0, &err),
		  VP_EPARSE);
	CHECK_INT(xen_parse_vcpu_list("Name ID VCPU CPU State Time(s) Affinity (Hard / Soft)\n"
				      "dom5  5  0  1  -b-  1.0  all / all\n", &l, 0, NULL, 0, &err), 0);
	CHECK_INT(l.vms[0].vcpus[0].cpu, 1);
	CHECK_INT(l.vms[0].vcpus[0].node, -1);
	hv_vm_list_release(&l);
	CHECK_INT(xen_parse_info_topology("nr_cpus : 2\n", &map, &n, NULL), VP_ENOTFOUND);
	free(map);
}

/* Negative or absurd indices in xl's outputs are refused, naming the output and the field,
 * never kept as a vCPU index, pCPU or node (a node of -5 indexed arrays by it). */
TEST(xen_parsers_refuse_out_of_range)
{
	static const char topo[] =
		"cpu_topology           :\n"
		"cpu:    core    socket     node\n"
		"  0:       0        0        0\n"
		"  1:       0        0       %s\n"
		"numa_info              :\n";
	struct hv_vm_list l = { 0 };
	struct vp_err err = { 0, "" };
	int *map = NULL, n = 0;
	char text[512];

	CHECK_INT(xen_parse_list_l("[{\"domid\": 5, \"config\": {\"b_info\": {\"max_vcpus\": 1}}}]",
				   &l, &err), 0);
	/* vCPU -5, vCPU 4096 (one above the cap), pCPU -5, pCPU 65536 (CPULIST_MAX) */
	CHECK_INT(xen_parse_vcpu_list("dom5  5  -5  1  -b-  1.0  all / all\n", &l, 0, NULL, 0, &err),
		  VP_EPARSE);
	CHECK_CONTAINS(err.msg, "'xl vcpu-list' line 1: vCPU -5 of domain 5 is out of range");
	CHECK_INT(xen_parse_vcpu_list("Name ID VCPU CPU State Time(s) Affinity (Hard / Soft)\n"
				      "dom5  5  4096  1  -b-  1.0  all / all\n", &l, 0, NULL, 0, &err),
		  VP_EPARSE);
	CHECK_CONTAINS(err.msg, "line 2: vCPU 4096");
	CHECK_INT(xen_parse_vcpu_list("dom5  5  0  -5  -b-  1.0  all / all\n", &l, 0, NULL, 0, &err),
		  VP_EPARSE);
	CHECK_CONTAINS(err.msg, "'xl vcpu-list' line 1: pCPU -5 of domain 5 vCPU 0 is out of range");
	CHECK_INT(xen_parse_vcpu_list("dom5  5  0  65536  -b-  1.0  all / all\n", &l, 0, NULL, 0,
				      &err), VP_EPARSE);
	/* nothing of the refused lines was kept */
	CHECK_INT(l.vms[0].n_vcpus, 1);
	CHECK_INT(l.vms[0].vcpus[0].index, 0);
	CHECK_INT(l.vms[0].vcpus[0].cpu, -1);
	/* the largest accepted: vCPU 4095 on pCPU 65535; "-" (not running) stays -1 */
	CHECK_INT(xen_parse_vcpu_list("dom5  5  4095  65535  -b-  1.0  all / all\n"
				      "dom5  5  0  -  --p  1.0  all / all\n", &l, 0, NULL, 0, &err), 0);
	CHECK_INT(l.vms[0].vcpus[1].index, 4095);
	CHECK_INT(l.vms[0].vcpus[1].cpu, 65535);
	CHECK_INT(l.vms[0].vcpus[0].cpu, -1);
	hv_vm_list_release(&l);

	/* xl info -n: node -5, node 4096, and pCPU -1 refused; node 4095 kept */
	snprintf(text, sizeof(text), topo, "-5");
	CHECK_INT(xen_parse_info_topology(text, &map, &n, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "'xl info -n' cpu_topology: node -5 of pCPU 1 is out of range");
	CHECK(map == NULL);
	CHECK_INT(n, 0);
	snprintf(text, sizeof(text), topo, "4096");
	CHECK_INT(xen_parse_info_topology(text, &map, &n, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "node 4096");
	CHECK_INT(xen_parse_info_topology("cpu_topology :\n -1: 0 0 0\n", &map, &n, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "'xl info -n' cpu_topology: pCPU -1 is out of range");
	snprintf(text, sizeof(text), topo, "4095");
	CHECK_INT(xen_parse_info_topology(text, &map, &n, &err), 0);
	CHECK_INT(n, 2);
	if (map)
		CHECK_INT(map[1], 4095);
	free(map);
}

/* A dmesg text from tests/data/xen-dmesg/, read whole. */
static char *dmesg_file(const char *name)
{
	char *path = xasprintf("%s/xen-dmesg/%s", test_data_dir(), name), *text = NULL;

	if (vp_read_file(NULL, path, &text, NULL, NULL))
		test_fail(__FILE__, __LINE__, "cannot read '%s'", path);
	free(path);
	return text;
}

static const struct xen_numa_dom *dump_dom(const struct xen_numa_dump *d, int domid)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->doms[i].domid == domid)
			return &d->doms[i];
	return NULL;
}

TEST(xen_numa_dump_parse)
{
	/* expected pages are the dump lines' own numbers, read by hand */
	static const struct {
		int line;
		const char *file;
		int want_nodes, ret, n_dumps;
		bool cut;
		size_t n;
		int domid;               /* one domain checked per row; -1 none */
		bool complete;
		unsigned long long node0, node1, total;
		int absent;              /* a domid that must not be there; -1 none */
	} rows[] = {
		/* the last of two dumps, not the first; domain 2 vanished in between */
		{ __LINE__, "two-dumps.txt", 2, 0, 2, false, 3, 0, true, 201989, 322299, 524288, 2 },
		{ __LINE__, "two-dumps.txt", 2, 0, 2, false, 3, 1, true, 16384, 16384, 32768, 2 },
		/* vNUMA layout lines after the Node lines are not nodes */
		{ __LINE__, "two-dumps.txt", 0, 0, 2, false, 3, 3, true, 65600, 65472, 131072, -1 },
		/* the %pd format of later Xen with console timestamps */
		{ __LINE__, "pd-timestamps.txt", 2, 0, 1, false, 3, 0, true, 262144, 262144, 524288, -1 },
		{ __LINE__, "pd-timestamps.txt", 2, 0, 1, false, 3, 1, true, 8192, 24576, 32768, -1 },
		{ __LINE__, "pd-timestamps.txt", 2, 0, 1, false, 3, 3, true, 131072, 0, 131072, -1 },
		/* the ring wrapped: no header, the orphan Node line is not domain 0's */
		{ __LINE__, "wrapped.txt", 2, 0, 0, true, 2, 1, true, 20000, 12768, 32768, 0 },
		{ __LINE__, "wrapped.txt", 2, 0, 0, true, 2, 3, true, 65536, 65536, 131072, 0 },
		/* read while Xen wrote it: the last domain lacks a node */
		{ __LINE__, "cut-end.txt", 2, 0, 1, false, 2, 1, false, 16384, 0, 32768, -1 },
		{ __LINE__, "cut-end.txt", 0, 0, 1, false, 2, 1, false, 16384, 0, 32768, -1 },
		{ __LINE__, "cut-end.txt", 2, 0, 1, false, 2, 0, true, 201989, 322299, 524288, -1 },
		{ __LINE__, "no-dump.txt", 2, VP_ENOTFOUND, 0, true, 0, -1, false, 0, 0, 0, -1 },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		struct xen_numa_dump d;
		struct vp_err err = { 0, "" };
		char *text = dmesg_file(rows[i].file);
		const struct xen_numa_dom *dd;
		int line = rows[i].line;

		CHECK_INT_AT(line, xen_parse_numa_dump(text, rows[i].want_nodes, &d, &err), rows[i].ret);
		CHECK_INT_AT(line, d.n_dumps, rows[i].n_dumps);
		CHECK_INT_AT(line, d.cut, rows[i].cut);
		CHECK_U64_AT(line, d.n, rows[i].n);
		if (rows[i].domid >= 0) {
			dd = dump_dom(&d, rows[i].domid);
			CHECK_AT(line, dd != NULL, "domain %d not in the dump", rows[i].domid);
			if (dd) {
				CHECK_INT_AT(line, dd->complete, rows[i].complete);
				CHECK_U64_AT(line, dd->total_pages, rows[i].total);
				CHECK_AT(line, dd->n_nodes >= 1, "no nodes");
				if (dd->n_nodes >= 1)
					CHECK_U64_AT(line, dd->pages[0], rows[i].node0);
				if (dd->n_nodes >= 2)
					CHECK_U64_AT(line, dd->pages[1], rows[i].node1);
			}
		}
		if (rows[i].absent >= 0)
			CHECK_AT(line, !dump_dom(&d, rows[i].absent), "domain %d listed", rows[i].absent);
		if (rows[i].ret)
			CHECK_CONTAINS(err.msg, "Memory location");
		xen_numa_dump_release(&d);
		free(text);
	}
}

TEST(xen_numa_dump_lines)
{
	/* one line each, after a header: which ones count */
	static const struct {
		int line;
		const char *text;
		size_t n;                /* domains */
		int n_lines;             /* Node lines of the first */
	} rows[] = {
		{ __LINE__, "Domain 4 (total: 10):\n    Node 0: 10\n", 1, 1 },
		{ __LINE__, "d4 (total: 10):\n    Node 0: 10\n", 1, 1 },
		{ __LINE__, "Domain 4 (total: 10):\nNode 0: 10\n", 1, 0 },           /* not indented */
		{ __LINE__, "Domain 4 (total: 10):\n    Node 4096: 10\n", 1, 0 },    /* no such node id */
		{ __LINE__, "Domain 4 (total: 10):\n    Node 0: x\n", 1, 0 },
		{ __LINE__, "Domain 32752 (total: 10):\n    Node 0: 10\n", 0, 0 },   /* DOMID_IO & co */
		{ __LINE__, "d4 (total: 10)\n    Node 0: 10\n", 0, 0 },              /* no colon */
		{ __LINE__, "dom4 (total: 10):\n    Node 0: 10\n", 0, 0 },
		{ __LINE__, "(d4) Domain 5 (total: 10):\n    Node 0: 10\n", 0, 0 },  /* a guest's console */
		{ __LINE__, "(XEN) [   12.345678] Domain 4 (total: 10):\n(XEN)     Node 0: 10", 1, 1 },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		struct xen_numa_dump d;
		char *text = xasprintf("Memory location of each domain:\n%s", rows[i].text);
		int ret = xen_parse_numa_dump(text, 0, &d, NULL);

		CHECK_INT_AT(rows[i].line, ret, rows[i].n ? 0 : VP_ENOTFOUND);
		CHECK_U64_AT(rows[i].line, d.n, rows[i].n);
		if (d.n)
			CHECK_INT_AT(rows[i].line, d.doms[0].n_lines, rows[i].n_lines);
		xen_numa_dump_release(&d);
		free(text);
	}
}

/* A runner for the dump tests: xl dmesg from a file, xl debug-keys counted, the rest from the fixture root. */
struct dump_runner {
	const char *dmesg;      /* file under xen-dmesg/ */
	int keys;               /* xl debug-keys calls */
	bool keys_fail;
};

static int dump_run(void *arg, const char *root, const char *const *argv, char **out,
		    struct vp_err *err)
{
	struct dump_runner *r = arg;
	struct hv_ctx plain = { root, NULL, NULL, NULL };

	if (argv[1] && !strcmp(argv[1], "debug-keys")) {
		r->keys++;
		if (r->keys_fail)
			return vp_err_set(err, VP_EUNSUPP, "'xl debug-keys' failed (status 1)");
		*out = xstrdup("");
		return 0;
	}
	if (argv[1] && !strcmp(argv[1], "dmesg")) {
		CHECK(!argv[2]); /* never -c: that would clear the admin's log */
		*out = dmesg_file(r->dmesg);
		return 0;
	}
	return hv_run(&plain, argv, out, err);
}

/* hv_xen_scan() of the xen-dom0 fixture through runner ex, with xn and cache c (may be NULL). */
static void exec_scan(const struct hv_exec *ex, struct hv_xen_numa *xn, struct hv_cache *c,
		      struct hv_vm_list *l)
{
	static char root[4096];
	struct platform p;
	struct hv_ctx ctx;
	struct vp_err err = { 0, "" };

	snprintf(root, sizeof(root), "%s", test_data("root/xen-dom0"));
	fake_platform(&p);
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	ctx.plat = &p;
	ctx.exec = ex;
	ctx.xen_numa = xn;
	ctx.cache = c;
	memset(l, 0, sizeof(*l));
	CHECK_INT(hv_xen_scan(&ctx, l, &err), 0);
}

static void dump_scan(struct dump_runner *r, struct hv_xen_numa *xn, struct hv_vm_list *l)
{
	struct hv_exec ex = { dump_run, r };

	exec_scan(&ex, xn, NULL, l);
}

/* xl through a counter: calls per subcommand; vcpu-list's text replaced when set */
struct count_runner {
	int vcpu, list_l, list_n, info;
	const char *vcpu_text;
};

static int count_run(void *arg, const char *root, const char *const *argv, char **out,
		     struct vp_err *err)
{
	struct count_runner *r = arg;
	struct hv_ctx plain = { root, NULL, NULL, NULL };

	if (!strcmp(argv[1], "vcpu-list")) {
		r->vcpu++;
		if (r->vcpu_text) {
			*out = xstrdup(r->vcpu_text);
			return 0;
		}
	} else if (!strcmp(argv[1], "list")) {
		if (argv[2] && !strcmp(argv[2], "-n"))
			r->list_n++;
		else
			r->list_l++;
	} else if (!strcmp(argv[1], "info")) {
		r->info++;
	}
	return hv_run(&plain, argv, out, err);
}

static void count_scan(struct count_runner *r, struct hv_cache *c, struct hv_vm_list *l)
{
	struct hv_exec ex = { count_run, r };

	exec_scan(&ex, NULL, c, l);
}

/*
 * A periodic caller's scans (issue 18: four xl calls a scan took minutes in
 * the daemon under TCG): one xl call, vcpu-list, while its domains and vCPUs
 * stay the same; list -l and list -n again when they change or every
 * slow_ns; info -n every slow_ns, or taken from the caller that read it
 * later (top's memfree).  Without caching (a fixture tree): four each time.
 */
TEST(xen_scan_cache_xl_calls)
{
	struct hv_cache_opts o;
	struct hv_cache *c;
	struct count_runner r = { 0, 0, 0, 0, NULL };
	struct hv_vm_list l;
	const struct hv_vm *vm;
	char *text = NULL;
	uint64_t t;

	memset(&o, 0, sizeof(o));
	o.slow_ns = 3600ull * 1000000000;
	c = hv_cache_new_opts(&o);
	count_scan(&r, c, &l);
	CHECK_INT(r.vcpu + r.list_l + r.list_n + r.info, 4);
	CHECK_INT(l.n, 3);
	hv_vm_list_release(&l);
	/* the same domains and vCPUs: vcpu-list alone, and the same answer */
	count_scan(&r, c, &l);
	CHECK_INT(r.vcpu, 2);
	CHECK_INT(r.list_l + r.list_n + r.info, 3);
	CHECK_INT(l.n, 3);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_vcpus == 2 && vm->vcpus[1].cpu == 0 && vm->vcpus[0].node == 0);
	CHECK(vm && vm->mem_size == 131072ull * 1024);
	hv_vm_list_release(&l);
	/* a vCPU moved: still vcpu-list alone, and the move is seen */
	r.vcpu_text = "Name ID VCPU CPU State Time(s) Affinity (Hard / Soft)\n"
		      "Domain-0 0 0 0 r-- 52.1 all / all\n"
		      "Domain-0 0 1 1 -b- 33.7 all / all\n"
		      "guest1 1 0 1 -b- 2.5 all / 0-1\n"
		      "guest1 1 1 1 r-- 3.0 all / all\n"
		      "numa vm 3 0 2 -b- 1.0 2-3 / all\n"
		      "numa vm 3 1 3 -b- 1.5 2-3 / all\n"
		      "numa vm 3 2 - --p 0.0 all / all\n"
		      "numa vm 3 3 0 -b- 0.2 0-1 / all\n";
	count_scan(&r, c, &l);
	CHECK_INT(r.vcpu, 3);
	CHECK_INT(r.list_l + r.list_n + r.info, 3);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_vcpus == 2 && vm->vcpus[1].cpu == 1);
	hv_vm_list_release(&l);
	/* a domain gone from vcpu-list: list -l and list -n again (a stale domain never stays) */
	r.vcpu_text = "Domain-0 0 0 0 r-- 52.1 all / all\n"
		      "Domain-0 0 1 1 -b- 33.7 all / all\n"
		      "guest1 1 0 1 -b- 2.5 all / 0-1\n"
		      "guest1 1 1 1 r-- 3.0 all / all\n";
	count_scan(&r, c, &l);
	CHECK_INT(r.vcpu, 4);
	CHECK_INT(r.list_l, 2);
	CHECK_INT(r.list_n, 2);
	CHECK_INT(r.info, 1);
	hv_vm_list_release(&l);
	/* top's node rows: the scan's copy when read since (a root without xl's outputs
	 * proves nothing was run), else xl now (there: it fails), kept for the scans */
	CHECK_INT(hv_xen_info_n(c, "/nonexistent-vmmprof-root", 0, &text, NULL), 0);
	CHECK(text && strstr(text, "cpu_topology"));
	free(text);
	text = NULL;
	t = vp_now_ns();
	CHECK(hv_xen_info_n(c, "/nonexistent-vmmprof-root", t, &text, NULL) != 0);
	CHECK_INT(hv_xen_info_n(c, test_data("root/xen-dom0"), t, &text, NULL), 0);
	free(text);
	count_scan(&r, c, &l);
	hv_vm_list_release(&l);
	CHECK_INT(r.info, 1); /* the scan took top's copy */
	hv_cache_free(c);
	/* slow_ns passed (1 ns): all four again, each scan */
	o.slow_ns = 1;
	c = hv_cache_new_opts(&o);
	memset(&r, 0, sizeof(r));
	count_scan(&r, c, &l);
	hv_vm_list_release(&l);
	count_scan(&r, c, &l);
	hv_vm_list_release(&l);
	CHECK_INT(r.vcpu + r.list_l + r.list_n + r.info, 8);
	hv_cache_free(c);
	/* no cache: four each time */
	memset(&r, 0, sizeof(r));
	count_scan(&r, NULL, &l);
	hv_vm_list_release(&l);
	CHECK_INT(r.vcpu + r.list_l + r.list_n + r.info, 4);
}

TEST(xen_numa_dump_scan)
{
	struct dump_runner r = { "two-dumps.txt", 0, false };
	struct hv_xen_numa xn = { 3600ull * 1000000000, 0 };
	struct hv_vm_list l;
	const struct hv_vm *vm;

	/* without the opt-in: nothing run, and the reason says how */
	dump_scan(&r, NULL, &l);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 0);
	if (vm)
		CHECK_CONTAINS(vm->mem_reason, "--xen-numa-dump");
	CHECK_INT(r.keys, 0);
	hv_vm_list_release(&l);

	/* the newest dump, in bytes (4 KiB pages); the dump wins over the vNUMA config */
	dump_scan(&r, &xn, &l);
	CHECK_INT(r.keys, 1);
	CHECK(xn.last_ns != 0);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 2);
	if (vm && vm->n_mem_nodes == 2) {
		CHECK_U64(vm->mem_node[0], 16384ull * 4096);
		CHECK_U64(vm->mem_node[1], 16384ull * 4096);
		CHECK_U64(hv_vm_mem_total(vm), vm->mem_size); /* 128 MiB both ways */
		CHECK_CONTAINS(vm->mem_reason, "xl dmesg");
	}
	vm = hv_vm_list_find(&l, "numa vm");
	CHECK(vm && vm->n_mem_nodes == 2);
	if (vm && vm->n_mem_nodes == 2) {
		CHECK_U64(vm->mem_node[0], 65600ull * 4096);
		CHECK_U64(vm->mem_node[1], 65472ull * 4096);
	}
	vm = hv_vm_list_find(&l, "Domain-0");
	CHECK(vm && vm->n_mem_nodes == 2 && vm->mem_node[1] == 322299ull * 4096);
	hv_vm_list_release(&l);

	/* within every_ns: the ring is read again, Xen is not asked again */
	dump_scan(&r, &xn, &l);
	CHECK_INT(r.keys, 1);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 2);
	hv_vm_list_release(&l);
	xn.every_ns = 0;
	dump_scan(&r, &xn, &l);
	CHECK_INT(r.keys, 2);
	hv_vm_list_release(&l);

	/* the ring wrapped: Domain-0's entry is lost, the others are whole */
	r.dmesg = "wrapped.txt";
	dump_scan(&r, &xn, &l);
	vm = hv_vm_list_find(&l, "Domain-0");
	CHECK(vm && vm->n_mem_nodes == 0);
	if (vm)
		CHECK_CONTAINS(vm->mem_reason, "console ring wrapped");
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 2 && vm->mem_node[0] == 20000ull * 4096);
	hv_vm_list_release(&l);

	/* cut short: guest1 unknown and says why; numa vm (not dumped) keeps its vNUMA config */
	r.dmesg = "cut-end.txt";
	dump_scan(&r, &xn, &l);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 0);
	if (vm)
		CHECK_CONTAINS(vm->mem_reason, "cut short");
	vm = hv_vm_list_find(&l, "numa vm");
	CHECK(vm && vm->n_mem_nodes == 2 && vm->mem_node[0] == 262144ull * 1024);
	if (vm)
		CHECK_CONTAINS(vm->mem_reason, "vNUMA");
	hv_vm_list_release(&l);

	/* a domain created after the dump */
	r.dmesg = "pd-timestamps.txt";
	dump_scan(&r, &xn, &l);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 2 && vm->mem_node[1] == 24576ull * 4096);
	hv_vm_list_release(&l);

	/* no dump in the ring, and xl debug-keys refused */
	r.dmesg = "no-dump.txt";
	dump_scan(&r, &xn, &l);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 0);
	if (vm)
		CHECK_CONTAINS(vm->mem_reason, "Memory location");
	hv_vm_list_release(&l);
	r.keys_fail = true;
	r.dmesg = "two-dumps.txt";
	dump_scan(&r, &xn, &l);
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm && vm->n_mem_nodes == 0);
	if (vm)
		CHECK_CONTAINS(vm->mem_reason, "cannot ask Xen");
	hv_vm_list_release(&l);
}

TEST(xen_node_affinity_from_list_n)
{
	static const char text[] =
		"Name                                        ID   Mem VCPUs\tState\tTime(s) NODE Affinity\n"
		"Domain-0                                     0  2048     2     r-----     159.2 all\n"
		"my vm                                        1   128     2     -b----      54.7 1\n"
		"x                                            3   512     4     -b----       1.0 0,2-3\n"
		"bad                                          x   128     2     r-----       1.0 1\n"
		"gone                                         9   128     2     r-----       1.0 0\n";
	struct hv_vm_list l = { 0 };
	int i;

	for (i = 0; i < 3; i++)
		hv_vm_list_add(&l, HVA_XEN)->domid = i == 2 ? 3 : i;
	CHECK_INT(xen_parse_list_n(text, &l, 0, 2), 0);
	CHECK_STR(fmt_list(&l.vms[0].node_affinity), "0-1"); /* "all" of xl info's 2 nodes */
	CHECK_STR(fmt_list(&l.vms[1].node_affinity), "1");    /* a name with a space */
	CHECK_STR(fmt_list(&l.vms[2].node_affinity), "0,2-3");
	hv_vm_list_release(&l);
	/* "all" of an unknown number of nodes: left unknown */
	hv_vm_list_add(&l, HVA_XEN)->domid = 0;
	CHECK_INT(xen_parse_list_n(text, &l, 0, 0), 0);
	CHECK_INT(l.vms[0].node_affinity.n, 0);
	hv_vm_list_release(&l);
}

TEST(guest_view_from_platform)
{
	struct hv_vm_list l = { 0 };
	struct platform p;
	struct hv_ctx ctx = { test_data("root/guest"), &p, NULL, NULL };
	struct numa_node nodes[2];
	int cpu_node[2] = { 0, 1 };
	char root[4096];

	snprintf(root, sizeof(root), "%s", test_data("root/guest"));
	ctx.root = root;
	memset(&p, 0, sizeof(p));
	memset(nodes, 0, sizeof(nodes));
	p.topo.known = true;
	p.topo.max_cpu = 2;
	p.topo.cpu_node = cpu_node;
	cpulist_init(&p.topo.online);
	cpulist_add(&p.topo.online, 0);
	cpulist_add(&p.topo.online, 1);
	nodes[0].id = 0;
	nodes[0].mem_known = true;
	nodes[0].mem_total = 262144ull * 1024;
	nodes[0].mem_free = 131072ull * 1024;
	nodes[1].id = 1;
	nodes[1].mem_known = true;
	nodes[1].mem_total = 262144ull * 1024;
	nodes[1].mem_free = 196608ull * 1024;
	p.topo.nodes = nodes;
	p.topo.n_nodes = 2;
	p.hv.kind = HV_KVM;
	p.core_pmu = false;
	CHECK_INT(hv_guest_scan(&ctx, &l, NULL), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.vms[0].name, "vmguest");
		CHECK_STR(l.vms[0].hypervisor, "KVM");
		CHECK_INT(l.vms[0].vpmu, 0);
		CHECK_INT(l.vms[0].n_vcpus, 2);
		CHECK_INT(l.vms[0].vcpus[1].node, 1);
		CHECK_U64(l.vms[0].mem_node[0], 131072ull * 1024);
		CHECK_U64(l.vms[0].mem_node[1], 65536ull * 1024);
	}
	hv_vm_list_release(&l);
	cpulist_release(&p.topo.online);
	p.topo.known = false;
	CHECK_INT(hv_guest_scan(&ctx, &l, NULL), VP_EUNSUPP);
	hv_vm_list_release(&l);
}

TEST(native_processes_and_threads)
{
	struct hv_vm_list l = { 0 };
	struct platform p;
	char root[4096];
	struct hv_ctx ctx = { NULL, &p, NULL, NULL };
	int pid = 4000;

	snprintf(root, sizeof(root), "%s", test_data("root/host-qemu"));
	ctx.root = root;
	fake_platform(&p);
	CHECK_INT(hv_native_scan(&ctx, &pid, 1, &l, NULL), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.vms[0].name, "qemu-system-x86");
		CHECK_INT(l.vms[0].n_vcpus, 4);
		/* every resident page: binary 1031 + 32768 + 8192 + 16384 + 10 on node 0 */
		CHECK_U64(l.vms[0].mem_node[0], (1031ull + 32768 + 8192 + 16384 + 10) * 4096);
		CHECK_U64(l.vms[0].mem_node[1], (16384ull + 4096) * 4096);
	}
	hv_vm_list_release(&l);
	CHECK_INT(hv_native_scan(&ctx, NULL, 0, &l, NULL), 0);
	CHECK_INT(l.n, 2); /* bash and QEMU */
	hv_vm_list_release(&l);
}

/*
 * libvirt's files on the fixtures (tests/data/root/README.md): web1 has its
 * configuration in etc/libvirt/qemu and a status with <numatune> in
 * restrictive mode; db-2 only a status without <numatune> (strict, the
 * default); host-qemu has no libvirt directory at all: unknown.
 */
TEST(kvm_libvirt_domain_persistence_and_mode)
{
	static const struct {
		int line;
		const char *fixture, *name;
		int persistent, restrictive;
	} rows[] = {
		{ __LINE__, "root/host-libvirt-v2", "web1", 1, 1 },
		{ __LINE__, "root/host-libvirt-v2", "db-2", 0, 0 },
		{ __LINE__, "root/host-libvirt-v2", "gone", 0, -1 },
		{ __LINE__, "root/host-libvirt-v2", "../web1", -1, -1 },
		{ __LINE__, "root/host-qemu", "vptest,x", -1, -1 },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		char root[4096];
		int p, r;

		snprintf(root, sizeof(root), "%s", test_data(rows[i].fixture));
		kvm_libvirt_domain(root, rows[i].name, &p, &r);
		CHECK_INT_AT(rows[i].line, p, rows[i].persistent);
		CHECK_INT_AT(rows[i].line, r, rows[i].restrictive);
	}
}

/*
 * --xen-psr: a runner that records every xl call.  Domain 1 is attached
 * by someone else already (its attach fails): it is read but not detached;
 * domains 0 and 3 are attached, read and detached, after the reads.
 */
struct psr_runner {
	char log[1024];
};

static int psr_run(void *arg, const char *root, const char *const *argv, char **out,
		   struct vp_err *err)
{
	struct psr_runner *r = arg;
	struct hv_ctx plain = { root, NULL, NULL, NULL };
	if (argv[1] && !strncmp(argv[1], "psr-", 4)) {
		snprintf(r->log + strlen(r->log), sizeof(r->log) - strlen(r->log), "%s%s%s;",
			 argv[1] + 4, argv[2] ? " " : "", argv[2] ? argv[2] : "");
		if (!strcmp(argv[1], "psr-hwinfo")) {
			*out = xstrdup("Cache Monitoring Technology (CMT):\nEnabled         : 1\n"
				       "Total RMID      : 63\nSupported monitor types:\ncache-occupancy\n");
			return 0;
		}
		if (!strcmp(argv[1], "psr-cmt-attach") && !strcmp(argv[2], "1"))
			return vp_err_set(err, VP_EUNSUPP, "'xl psr-cmt-attach' failed (status 1)");
		if (!strcmp(argv[1], "psr-cmt-show")) {
			*out = xstrdup("Total RMID: 63\nName ID Socket 0\nguest1 1 100 KB\n");
			return 0;
		}
		*out = xstrdup("");
		return 0;
	}
	return hv_run(&plain, argv, out, err);
}

TEST(xen_psr_attaches_reads_and_detaches_its_own)
{
	static char root[4096];
	struct psr_runner r = { "" };
	struct hv_exec ex = { psr_run, &r };
	struct platform p;
	struct hv_ctx ctx;
	struct hv_vm_list l;
	struct vp_err err = { 0, "" };
	const struct hv_vm *vm;

	snprintf(root, sizeof(root), "%s", test_data("root/xen-dom0"));
	fake_platform(&p);
	sbuf_set(&p.hv.xen_cmdline, "psr=cmt");
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	ctx.plat = &p;
	ctx.exec = &ex;
	ctx.xen_psr = true;
	memset(&l, 0, sizeof(l));
	CHECK_INT(hv_xen_scan(&ctx, &l, &err), 0);
	/* only cache-occupancy is supported: no bandwidth read */
	CHECK_STR(r.log, "hwinfo;cmt-attach 0;cmt-attach 1;cmt-attach 3;cmt-show cache-occupancy;"
		  "cmt-detach 0;cmt-detach 3;");
	vm = hv_vm_list_find(&l, "guest1");
	CHECK(vm != NULL);
	if (vm) {
		CHECK_NEAR(vm->psr_llc_bytes, 100.0 * 1024, 0);
		CHECK_NAN(vm->psr_mbm_bps);
		CHECK_CONTAINS(vm->psr_reason, "not attached by vmmprof");
	}
	hv_vm_list_release(&l);

	/* no psr=cmt: no xl psr command at all */
	r.log[0] = '\0';
	sbuf_reset(&p.hv.xen_cmdline);
	sbuf_set(&p.hv.xen_cmdline, "dom0_mem=2048M");
	memset(&l, 0, sizeof(l));
	CHECK_INT(hv_xen_scan(&ctx, &l, &err), 0);
	CHECK_STR(r.log, "");
	vm = hv_vm_list_find(&l, "guest1");
	if (vm)
		CHECK_CONTAINS(vm->psr_reason, "psr=cmt");
	hv_vm_list_release(&l);
	sbuf_release(&p.hv.xen_cmdline);
}

/*
 * The periodic views' PSR (hv_xen_psr): hwinfo once, each domain attached
 * once (at the first scan that sees it), read at every scan, and at the end
 * detached exactly the domains vmmprof attached (not domain 1, whose attach
 * failed: someone else holds it).
 */
TEST(xen_psr_run_attaches_once_and_detaches_at_the_end)
{
	static char root[4096];
	struct psr_runner r = { "" };
	struct hv_exec ex = { psr_run, &r };
	struct platform p;
	struct hv_ctx ctx;
	struct hv_vm_list l;
	struct vp_err err = { 0, "" };
	const struct hv_vm *vm;
	const int *ids;
	int scan;

	snprintf(root, sizeof(root), "%s", test_data("root/xen-dom0"));
	fake_platform(&p);
	sbuf_set(&p.hv.xen_cmdline, "psr=cmt");
	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	ctx.plat = &p;
	ctx.exec = &ex;
	ctx.xen_psr_run = hv_xen_psr_new();
	for (scan = 0; scan < 2; scan++) {
		memset(&l, 0, sizeof(l));
		CHECK_INT(hv_xen_scan(&ctx, &l, &err), 0);
		vm = hv_vm_list_find(&l, "guest1");
		CHECK(vm != NULL);
		if (vm)
			CHECK_NEAR(vm->psr_llc_bytes, 100.0 * 1024, 0);
		hv_vm_list_release(&l);
	}
	CHECK_STR(r.log, "hwinfo;cmt-attach 0;cmt-attach 1;cmt-attach 3;cmt-show cache-occupancy;"
		  "cmt-show cache-occupancy;");
	CHECK_INT((int)hv_xen_psr_attached(ctx.xen_psr_run, &ids), 2);
	r.log[0] = '\0';
	hv_xen_psr_stop(ctx.xen_psr_run, &ctx);
	CHECK_STR(r.log, "cmt-detach 0;cmt-detach 3;");
	sbuf_release(&p.hv.xen_cmdline);
}

/* libvirt's domain state from its status XML, for the pid it names (libvirt's format). */
TEST(kvm_libvirt_paused_from_domstatus)
{
	static const struct {
		int line;
		const char *xml;
		int pid, want;
		const char *what;
	} rows[] = {
		{ __LINE__, "<domstatus state='paused' reason='user' pid='7'>\n<domain/>", 7, 1,
		  "libvirt domain state 'paused' (user)" },
		{ __LINE__, "<domstatus state='running' reason='booted' pid='7'>", 7, 0,
		  "libvirt domain state 'running' (booted)" },
		{ __LINE__, "<domstatus state=\"pmsuspended\" pid=\"7\">", 7, 1,
		  "libvirt domain state 'pmsuspended'" },
		/* another incarnation's status (a stale file): not this process's state */
		{ __LINE__, "<domstatus state='paused' reason='user' pid='8'>", 7, -1, "" },
		{ __LINE__, "<domain type='kvm'>", 7, -1, "" },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		char what[96] = "";

		if (kvm_libvirt_paused(rows[i].xml, rows[i].pid, what, sizeof(what)) != rows[i].want)
			test_fail(__FILE__, rows[i].line, "state of '%s'", rows[i].xml);
		CHECK_STR(what, rows[i].what);
	}
}

/*
 * The names users know: Nova's <nova:name> in the domain's metadata (the
 * layout of a Nova domain XML, namespace 1.1), with XML entities decoded;
 * KubeVirt's NAMESPACE_VMI domain name under a kubepods cgroup.
 */
TEST(kvm_vm_alias_nova_kubevirt)
{
	static const char nova[] =
		"<domstatus state='running' reason='booted' pid='7'>\n"
		"  <domain type='kvm' id='5'>\n    <name>instance-0000000e</name>\n"
		"    <uuid>ff91d2dc-69a1-43ef-abde-c9e4e9a0305b</uuid>\n    <metadata>\n"
		"      <nova:instance xmlns:nova=\"http://openstack.org/xmlns/libvirt/nova/1.1\">\n"
		"        <nova:package version=\"25.1.0\"/>\n"
		"        <nova:name>web &amp; db&#39;s &lt;1&gt;</nova:name>\n"
		"        <nova:namespaced/>\n"
		"      </nova:instance>\n    </metadata>\n  </domain>\n</domstatus>\n";
	char *src, *a;

	a = kvm_xml_text(nova, "uuid");
	CHECK_STR(a, "ff91d2dc-69a1-43ef-abde-c9e4e9a0305b");
	free(a);
	/* "<nova:name>" is not "<nova:namespaced/>", nor "<name>" */
	a = kvm_vm_alias("instance-0000000e", nova, "/machine.slice/machine-qemu.scope", &src);
	CHECK_STR(a, "web & db's <1>");
	CHECK(src && strstr(src, "Nova"));
	free(a);
	free(src);
	CHECK(kvm_xml_text(nova, "nova:flavor") == NULL);
	CHECK(kvm_xml_text("<a><nova:name>  </nova:name></a>", "nova:name") == NULL);
	CHECK(kvm_xml_text("<a><nova:name/></a>", "nova:name") == NULL);
	CHECK(kvm_xml_text("<a><nova:name>x", "nova:name") == NULL); /* not closed */
	/* the same name twice is no alias */
	CHECK(kvm_vm_alias("web", "<nova:name>web</nova:name>", NULL, &src) == NULL && !src);

	/* KubeVirt: namespace "default", VMI "vmi-fedora" (split at the first '_') */
	a = kvm_vm_alias("default_vmi_fedora", NULL,
			 "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
			 "cri-containerd-0a.scope", &src);
	CHECK_STR(a, "vmi_fedora");
	CHECK_STR(src, "KubeVirt VMI in namespace default");
	free(a);
	free(src);
	/* the same name outside a pod, or with no namespace part: no alias */
	CHECK(kvm_vm_alias("default_vmi", NULL, "/machine.slice/x.scope", &src) == NULL && !src);
	CHECK(kvm_vm_alias("_vmi", NULL, "/kubepods/x", &src) == NULL && !src);
	CHECK(kvm_vm_alias("web1", NULL, "/kubepods/x", &src) == NULL && !src);
}

/* The QMP socket a command line names, in QEMU's two spellings. */
TEST(kvm_qmp_socket_from_cmdline)
{
	char *a[] = { "qemu-system-x86_64", "-name", "g", "-qmp", "unix:/run/q.sock,server=on,wait=off" };
	char *b[] = { "qemu", "-chardev", "socket,id=mon0,path=/tmp/m.sock,server=on,wait=off",
		      "-mon", "chardev=mon0,mode=control" };
	char *c[] = { "qemu", "-chardev", "socket,id=mon0,path=/tmp/m.sock,server=on", "-mon",
		      "chardev=mon0,mode=readline" };
	char *d[] = { "qemu", "-chardev", "socket,id=mon,path=/tmp/x.sock,server=on", "-mon",
		      "chardev=mon0,mode=control" };
	char *p;

	p = kvm_qmp_socket(a, VP_ARRAY_SIZE(a));
	CHECK_STR(p ? p : "(null)", "/run/q.sock");
	free(p);
	p = kvm_qmp_socket(b, VP_ARRAY_SIZE(b));
	CHECK_STR(p ? p : "(null)", "/tmp/m.sock");
	free(p);
	/* a human monitor is not QMP; another chardev's id is not this one */
	CHECK(!kvm_qmp_socket(c, VP_ARRAY_SIZE(c)));
	CHECK(!kvm_qmp_socket(d, VP_ARRAY_SIZE(d)));
}

/* A paused domain from xl list's State column ("--p---": xl pause), as xl prints it. */
TEST(xen_paused_from_list_n)
{
	static const char text[] =
		"Name                                        ID   Mem VCPUs\tState\tTime(s) NODE Affinity\n"
		"Domain-0                                     0  2048     2     r-----     159.2 all\n"
		"run                                          1   128     2     -b----      54.7 1\n"
		"held                                         2   128     1     --p---       3.0 0\n";
	struct hv_vm_list l = { 0 };
	int i;

	for (i = 0; i < 3; i++)
		hv_vm_list_add(&l, HVA_XEN)->domid = i;
	/* not in the listing: not known */
	hv_vm_list_add(&l, HVA_XEN)->domid = 7;
	CHECK_INT(xen_parse_list_n(text, &l, 0, 2), 0);
	CHECK_INT(l.vms[0].paused, 0);
	CHECK_INT(l.vms[1].paused, 0);
	CHECK_INT(l.vms[2].paused, 1);
	CHECK_STR(l.vms[2].state_source, "xl list state '--p---'");
	CHECK_INT(l.vms[3].paused, -1);
	hv_vm_list_release(&l);
}

/* libvirt's domain XML (formatdomain.html, "IOThreads Allocation"): ids from
 * <iothreadids> when present, else 1..N from <iothreads>N</iothreads>. */
TEST(kvm_libvirt_iothreads_from_status)
{
	int ids[4] = { 0 };

	CHECK_INT(kvm_libvirt_iothreads_xml("<domain><iothreads>2</iothreads>"
					    "<iothreadids><iothread id='1'/><iothread id=\"5\" "
					    "thread_pool_min='2'/></iothreadids></domain>", ids, 4), 2);
	CHECK_INT(ids[0], 1);
	CHECK_INT(ids[1], 5);
	CHECK_INT(kvm_libvirt_iothreads_xml("<domain><iothreads>3</iothreads></domain>", ids, 4), 3);
	CHECK_INT(ids[2], 3);
	CHECK_INT(kvm_libvirt_iothreads_xml("<domain><iothreads>9</iothreads></domain>", ids, 4), 4);
	CHECK_INT(kvm_libvirt_iothreads_xml("<domain><vcpu>2</vcpu></domain>", ids, 4), 0);
}

/*
 * A vCPU's pin in a domain's XML (libvirt's formatdomain: <vcpupin vcpu
 * cpuset> in <cputune> per vCPU, else <vcpu cpuset> for all): vCPU 1 has
 * its own, vCPU 10 too (not vCPU 1's: "10" is not "1"), vCPU 0 takes
 * <vcpu>'s; <vcpus> (the per-vCPU state list) is not <vcpu>; no pin: NULL.
 */
TEST(libvirt_vcpupin_from_xml)
{
	static const char xml[] =
		"<domain><vcpu placement='static' cpuset='0-3'>12</vcpu>"
		"<vcpus><vcpu id='0' enabled='yes'/></vcpus>"
		"<cputune><vcpupin vcpu=\"10\" cpuset=\"5-6\"/><vcpupin vcpu='1' cpuset='2'/>"
		"</cputune></domain>";
	static const char bare[] =
		"<domain><vcpus><vcpu id='0' cpuset='7'/></vcpus><vcpu placement='static'>2</vcpu>"
		"</domain>";
	char *c;

	c = kvm_libvirt_vcpupin_xml(xml, 1);
	CHECK_STR(c ? c : "(null)", "2");
	free(c);
	c = kvm_libvirt_vcpupin_xml(xml, 10);
	CHECK_STR(c ? c : "(null)", "5-6");
	free(c);
	c = kvm_libvirt_vcpupin_xml(xml, 0);
	CHECK_STR(c ? c : "(null)", "0-3");
	free(c);
	c = kvm_libvirt_vcpupin_xml(bare, 0);
	CHECK(c == NULL);
	free(c);
	c = kvm_libvirt_vcpupin_xml("<domain><vcpus/><vcpu cpuset='1'>2</vcpu></domain>", 1);
	CHECK_STR(c ? c : "(null)", "1");
	free(c);
}

/* Write text into ROOT/path (the copy of a fixture a test changes). */
static void put_file(const char *root, const char *path, const char *text)
{
	char *full = xasprintf("%s%s", root, path);
	FILE *f = fopen(full, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(full);
}

static int cached_scan(const char *root, struct platform *p, struct hv_cache *c, uint64_t *seen,
		       struct hv_vm_list *l)
{
	struct hv_ctx ctx;
	struct vp_err err = { 0, "" };

	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	ctx.plat = p;
	memset(l, 0, sizeof(*l));
	return hv_scan_vms_shared(&ctx, c, seen, l, &err);
}

/* A CPU source for the scan cache: every thread on cpu (-1: not known); scans begun. */
struct fake_cpu_src {
	int begun;
	int cpu;
};

static void fake_cpu_begin(void *arg)
{
	((struct fake_cpu_src *)arg)->begun++;
}

static int fake_cpu_of(void *arg, int tid)
{
	return tid > 0 ? ((struct fake_cpu_src *)arg)->cpu : -1;
}

/*
 * The scan cache (issue 22) on a copy of host-qemu that the test changes
 * between scans: what is read at every scan (a vCPU's stat), what waits for
 * its slower clock (affinity, numa_maps), a vCPU thread gone, a scan shared
 * by two consumers but never given twice to one, and no cache (all zero
 * clocks, as on a fixture tree) reading everything again.
 */
TEST(kvm_scan_cache_clocks)
{
	char tmpl[] = "/tmp/vp-hvcache.XXXXXX", *root = mkdtemp(tmpl), *cmd;
	struct hv_cache_opts o = { 3000000000ull, 10000000000ull, 10000000000ull, 100,
				   2000000000ull, 250000000ull, false };
	struct hv_cache_opts ko = { 3000000000ull, 10000000000ull, 10000000000ull, 100,
				    2000000000ull, 250000000ull, true };
	struct hv_cache *c = hv_cache_new_opts(&o), *none = hv_cache_new(root);
	struct platform p;
	struct hv_vm_list l;
	uint64_t seen = 0, other = 0, none_seen = 0;
	const char *vcpu1 = "4003 (CPU 1/TCG) S 1 4003 4003 0 -1 4194560 0 0 0 0 1000 0 0 0 20 0 4 0 "
			    "5000 1642369024 9234 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 %d "
			    "0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	char line[400];

	CHECK(root != NULL);
	if (!root)
		return;
	cmd = xasprintf("cp -r '%s'/. '%s'", test_data("root/host-qemu"), root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	fake_platform(&p);

	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1 && l.vms[0].n_vcpus == 2) {
		CHECK_INT(l.vms[0].vcpus[1].cpu, 3);
		CHECK_STR(fmt_list(&l.vms[0].vcpus[1].affinity), "0-3");
		CHECK_U64(hv_vm_mem_total(&l.vms[0]), 224ull << 20);
		/* one VM, 1/100 of a core: a read of 100 ms or less keeps the 10 s */
		CHECK(strstr(l.vms[0].mem_reason, "re-read every 10 s at the least, all VMs' reads "
			      "1 % of a core at most (now 10 s)") != NULL);
	}
	hv_vm_list_release(&l);

	/* vCPU 1 moved to CPU 1 and was pinned there; the guest RAM mapping went */
	snprintf(line, sizeof(line), vcpu1, 1);
	put_file(root, "/proc/4000/task/4003/stat", line);
	put_file(root, "/proc/4000/task/4003/status", "Name:\tCPU 1/TCG\nCpus_allowed_list:\t1\n");
	put_file(root, "/proc/4000/numa_maps", "");

	/* another consumer right after: the same scan, copied (CPU 3, as scanned) */
	CHECK_INT(cached_scan(root, &p, c, &other, &l), 0);
	if (l.n == 1 && l.vms[0].n_vcpus == 2)
		CHECK_INT(l.vms[0].vcpus[1].cpu, 3);
	hv_vm_list_release(&l);

	/* the first again: never the same scan twice, so it reads stat (CPU 1, node 0), but
	   affinity and numa_maps wait for their clocks (10 s) */
	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1 && l.vms[0].n_vcpus == 2) {
		CHECK_INT(l.vms[0].vcpus[1].cpu, 1);
		CHECK_INT(l.vms[0].vcpus[1].node, 0);
		CHECK_STR(fmt_list(&l.vms[0].vcpus[1].affinity), "0-3");
		CHECK_U64(hv_vm_mem_total(&l.vms[0]), 224ull << 20);
	}
	hv_vm_list_release(&l);

	/* a sole consumer's scans are not copied once share_keep_ns (300 ms) has passed
	   alone; another consumer then makes its own scan, and is shared with from then on */
	{
		struct hv_cache_opts so = { 3000000000ull, 10000000000ull, 10000000000ull, 100,
					    2000000000ull, 5000000000ull, false, 0, 300000000ull };
		struct hv_cache *sc = hv_cache_new_opts(&so);
		uint64_t a = 0, b = 0;

		CHECK_INT(cached_scan(root, &p, sc, &a, &l), 0);  /* the first: kept */
		hv_vm_list_release(&l);
		usleep(350000);
		CHECK_INT(cached_scan(root, &p, sc, &a, &l), 0);  /* alone 350 ms: not kept */
		hv_vm_list_release(&l);
		snprintf(line, sizeof(line), vcpu1, 2);
		put_file(root, "/proc/4000/task/4003/stat", line);
		CHECK_INT(cached_scan(root, &p, sc, &b, &l), 0);  /* its own scan: CPU 2 */
		if (l.n == 1 && l.vms[0].n_vcpus == 2)
			CHECK_INT(l.vms[0].vcpus[1].cpu, 2);
		hv_vm_list_release(&l);
		snprintf(line, sizeof(line), vcpu1, 3);
		put_file(root, "/proc/4000/task/4003/stat", line);
		CHECK_INT(cached_scan(root, &p, sc, &a, &l), 0);  /* b's, kept: CPU 2, not 3 */
		if (l.n == 1 && l.vms[0].n_vcpus == 2)
			CHECK_INT(l.vms[0].vcpus[1].cpu, 2);
		hv_vm_list_release(&l);
		hv_cache_free(sc);
		snprintf(line, sizeof(line), vcpu1, 1);
		put_file(root, "/proc/4000/task/4003/stat", line);
	}

	/* all-zero clocks (hv_cache_new() on a fixture tree): everything read again */
	CHECK_INT(cached_scan(root, &p, none, &none_seen, &l), 0);
	if (l.n == 1 && l.vms[0].n_vcpus == 2) {
		CHECK_INT(l.vms[0].vcpus[1].cpu, 1);
		CHECK_STR(fmt_list(&l.vms[0].vcpus[1].affinity), "1");
		CHECK_U64(hv_vm_mem_total(&l.vms[0]), 0);
		CHECK(strstr(l.vms[0].mem_reason, "re-read") == NULL);
	}
	hv_vm_list_release(&l);

	/* descriptors kept open (keep_fds, as on a live root): each scan reads stat again
	   through them, so the move to CPU 2 written since is seen */
	{
		struct hv_cache *kept = hv_cache_new_opts(&ko);
		uint64_t kept_seen = 0;

		CHECK_INT(cached_scan(root, &p, kept, &kept_seen, &l), 0);
		if (l.n == 1 && l.vms[0].n_vcpus == 2)
			CHECK_INT(l.vms[0].vcpus[1].cpu, 1);
		hv_vm_list_release(&l);
		snprintf(line, sizeof(line), vcpu1, 2);
		put_file(root, "/proc/4000/task/4003/stat", line);
		CHECK_INT(cached_scan(root, &p, kept, &kept_seen, &l), 0);
		CHECK_INT(l.n, 1);
		if (l.n == 1 && l.vms[0].n_vcpus == 2)
			CHECK_INT(l.vms[0].vcpus[1].cpu, 2);
		hv_vm_list_release(&l);
		/* stat and schedstat of 2 vCPUs, and the leader's stat from the second scan on */
		CHECK_INT((int)kept->n_fds, 5);
		hv_cache_free(kept);
	}

	/* a CPU source (the context-switch recorder, hv_cache_set_cpu_source()) with stat_ns:
	   the first two scans read stat and schedstat (two reads: the rates); the next takes
	   the CPU from the source and leaves stat (its state and CPU time as read) and
	   schedstat for their 10 s clock, the run time and run-queue wait advanced at the
	   rates of the two reads (run 3e9 ns and wait 1e6 ns between them: 3000 to 1) and
	   saying so (sched_window_ns); a source that does not know the thread means both are
	   read again: the first such scan advances at the new rates (not a scan after the
	   last read), the next by exactly what schedstat says */
	{
		struct hv_cache_opts so = ko;
		struct hv_cache *sc;
		struct fake_cpu_src fs = { 0, 3 };
		struct hv_cpu_source src = { fake_cpu_begin, fake_cpu_of, &fs };
		uint64_t sc_seen = 0, run[4] = { 0 }, wait[4] = { 0 };

		so.stat_ns = 10000000000ull;
		sc = hv_cache_new_opts(&so);
		hv_cache_set_cpu_source(sc, &src);
		put_file(root, "/proc/4000/task/4003/schedstat", "10000000000 5000000 900\n");
		CHECK_INT(cached_scan(root, &p, sc, &sc_seen, &l), 0);
		if (l.n == 1 && l.vms[0].n_vcpus == 2) {
			CHECK_INT(l.vms[0].vcpus[1].cpu, 2);   /* stat, as written above */
			CHECK_NEAR(l.vms[0].vcpus[1].cpu_time_s, 1000.0 / 100, 1e-9); /* 1000 ticks */
			CHECK_U64(l.vms[0].vcpus[1].sched_window_ns, 0);
			run[0] = l.vms[0].vcpus[1].run_ns;
			wait[0] = l.vms[0].vcpus[1].wait_ns;
		}
		hv_vm_list_release(&l);
		/* the second read: exactly schedstat's change */
		usleep(20000);
		put_file(root, "/proc/4000/task/4003/schedstat", "13000000000 6000000 950\n");
		CHECK_INT(cached_scan(root, &p, sc, &sc_seen, &l), 0);
		if (l.n == 1 && l.vms[0].n_vcpus == 2) {
			CHECK_INT(l.vms[0].vcpus[1].cpu, 2);   /* stat again */
			CHECK_U64(l.vms[0].vcpus[1].sched_window_ns, 0);
			run[1] = l.vms[0].vcpus[1].run_ns;
			wait[1] = l.vms[0].vcpus[1].wait_ns;
			CHECK_U64(run[1] - run[0], 3000000000ull);
			CHECK_U64(wait[1] - wait[0], 1000000ull);
		}
		hv_vm_list_release(&l);
		usleep(20000);
		/* not read at the next scan: 2e10 more run time and no wait would show */
		put_file(root, "/proc/4000/task/4003/schedstat", "33000000000 6000000 999\n");
		/* it moves to CPU 1 and runs 1000 ticks more: stat says so, but is not read */
		put_file(root, "/proc/4000/task/4003/stat",
			 "4003 (CPU 1/TCG) R 1 4003 4003 0 -1 4194560 0 0 0 0 2000 0 0 0 20 0 4 0 "
			 "5000 1642369024 9234 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 "
			 "0 0 0 0 0 0 0 0 0 0 0 0 0\n");
		CHECK_INT(cached_scan(root, &p, sc, &sc_seen, &l), 0);
		CHECK_INT(fs.begun, 3);                      /* once a scan */
		if (l.n == 1 && l.vms[0].n_vcpus == 2) {
			CHECK_INT(l.vms[0].vcpus[1].cpu, 3);   /* the source's */
			CHECK_INT(l.vms[0].vcpus[1].node, 1);   /* CPU 3: node 1 (fixture_cpu_node) */
			CHECK_STR(l.vms[0].vcpus[1].comm, "CPU 1/TCG");
			CHECK_STR(l.vms[0].vcpus[1].state, "S");
			CHECK_NEAR(l.vms[0].vcpus[1].cpu_time_s, 10.0, 1e-9);
			CHECK(l.vms[0].vcpus[1].have_run_ns);
			/* advanced at the rates of the two reads, the window between them */
			CHECK(l.vms[0].vcpus[1].sched_window_ns >= 20000000ull);
			run[2] = l.vms[0].vcpus[1].run_ns;
			wait[2] = l.vms[0].vcpus[1].wait_ns;
			CHECK(wait[2] > wait[1]);
			if (wait[2] > wait[1])
				CHECK_NEAR((double)(run[2] - run[1]) / (double)(wait[2] - wait[1]),
					   3000, 30);
		}
		hv_vm_list_release(&l);
		fs.cpu = -1;                                 /* the source does not know it */
		CHECK_INT(cached_scan(root, &p, sc, &sc_seen, &l), 0);
		if (l.n == 1 && l.vms[0].n_vcpus == 2) {
			CHECK_INT(l.vms[0].vcpus[1].cpu, 1);
			CHECK_STR(l.vms[0].vcpus[1].state, "R");
			CHECK_NEAR(l.vms[0].vcpus[1].cpu_time_s, 20.0, 1e-9);
			/* read again: the new rates (2e10 ns run, no wait since the last read) */
			CHECK(l.vms[0].vcpus[1].sched_window_ns > 0);
			run[3] = l.vms[0].vcpus[1].run_ns;
			wait[3] = l.vms[0].vcpus[1].wait_ns;
			CHECK(run[3] > run[2]);
			CHECK_U64(wait[3], wait[2]);
		}
		hv_vm_list_release(&l);
		put_file(root, "/proc/4000/task/4003/schedstat", "34000000000 7000000 1000\n");
		CHECK_INT(cached_scan(root, &p, sc, &sc_seen, &l), 0);
		if (l.n == 1 && l.vms[0].n_vcpus == 2) {
			CHECK_U64(l.vms[0].vcpus[1].sched_window_ns, 0);
			CHECK_U64(l.vms[0].vcpus[1].run_ns - run[3], 1000000000ull);
			CHECK_U64(l.vms[0].vcpus[1].wait_ns - wait[3], 1000000ull);
		}
		hv_vm_list_release(&l);
		hv_cache_free(sc);
	}

	/* vCPU 1's thread exits: gone from the next scan, though the thread count says nothing */
	cmd = xasprintf("rm -r '%s/proc/4000/task/4003'", root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_INT(l.vms[0].n_vcpus, 1);
		if (l.vms[0].n_vcpus)
			CHECK_INT(l.vms[0].vcpus[0].tid, 4002);
	}
	hv_vm_list_release(&l);

	/* the process exits: no VM */
	cmd = xasprintf("rm -r '%s/proc/4000'", root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	CHECK_INT(l.n, 0);
	hv_vm_list_release(&l);

	hv_cache_free(c);
	hv_cache_free(none);
	cmd = xasprintf("rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
}

/*
 * A vCPU thread's cgroup on its own clock (slow_ns 200 ms here): every slow_ns
 * while its process is young (3 x slow_ns), then every 6 x slow_ns (1.2 s), and
 * at the next slow_ns when its VM's cgroup moved.  The thread is moved to a
 * vcpu1 cgroup of its own (as libvirt does) after the process is no longer
 * young: not seen 0.7 s after the first scan, seen after 1.4 s.
 */
TEST(kvm_scan_cache_cgroup_clock)
{
	char tmpl[] = "/tmp/vp-hvcg.XXXXXX", *root = mkdtemp(tmpl), *cmd;
	struct hv_cache_opts o = { 3000000000ull, 200000000ull, 10000000000ull, 100,
				   2000000000ull, 0, false };
	struct hv_cache *c = hv_cache_new_opts(&o);
	struct platform p;
	struct hv_vm_list l;
	uint64_t seen = 0, t0;
	const char *own = "0::/user.slice/user-0.slice/session-1.scope/vcpu1\n";

	CHECK(root != NULL);
	if (!root)
		return;
	cmd = xasprintf("cp -r '%s'/. '%s'", test_data("root/host-qemu"), root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	fake_platform(&p);
	t0 = vp_now_ns();
	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	if (l.n == 1 && l.vms[0].n_vcpus == 2)
		CHECK(l.vms[0].vcpus[1].cgroup == NULL); /* its VM's */
	hv_vm_list_release(&l);
	put_file(root, "/proc/4000/task/4003/cgroup", own);
	usleep(700000);
	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	/* 0.7 s: affinity is read again (slow_ns), the cgroup waits for 1.2 s */
	if (vp_now_ns() - t0 < 1200000000ull && l.n == 1 && l.vms[0].n_vcpus == 2)
		CHECK(l.vms[0].vcpus[1].cgroup == NULL);
	hv_vm_list_release(&l);
	usleep(700000);
	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	if (l.n == 1 && l.vms[0].n_vcpus == 2) {
		CHECK(l.vms[0].vcpus[1].cgroup != NULL);
		if (l.vms[0].vcpus[1].cgroup)
			CHECK_STR(l.vms[0].vcpus[1].cgroup,
				  "/user.slice/user-0.slice/session-1.scope/vcpu1");
	}
	hv_vm_list_release(&l);
	/* the VM moves (and the thread with it, into the VM's cgroup): read at the next
	   slow_ns, not 1.2 s later */
	put_file(root, "/proc/4000/cgroup", "0::/machine.slice/other.scope\n");
	put_file(root, "/proc/4000/task/4000/cgroup", "0::/machine.slice/other.scope\n");
	put_file(root, "/proc/4000/task/4003/cgroup", "0::/machine.slice/other.scope\n");
	usleep(250000);
	CHECK_INT(cached_scan(root, &p, c, &seen, &l), 0);
	if (l.n == 1 && l.vms[0].n_vcpus == 2) {
		CHECK_STR(l.vms[0].cgroup, "/machine.slice/other.scope");
		CHECK(l.vms[0].vcpus[1].cgroup == NULL);
	}
	hv_vm_list_release(&l);
	hv_cache_free(c);
	cmd = xasprintf("rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
}

/*
 * The IOThread of a QEMU process by its thread's name (QEMU's "IO " and the
 * object id, libvirt's "iothread" and the id), in a tree made here: pid 4000
 * has its main thread, a vCPU, IOThread 1 (4010), IOThread 1234 (4011), a
 * thread whose name only starts like IOThread 2's ("IO iothread23", 4012),
 * and two threads both named "IO iothread5".  Ids from 10000 do not fit the
 * kernel's 15 bytes (12345 would read as 1234): not looked up.
 */
TEST(kvm_qemu_iothread_by_thread_name)
{
	char tmpl[] = "/tmp/vp-iothread.XXXXXX", *root = mkdtemp(tmpl), *cmd;
	static const struct {
		int tid;
		const char *comm;
	} threads[] = {
		{ 4000, "qemu-system-x86" }, { 4003, "CPU 0/KVM" }, { 4010, "IO iothread1" },
		{ 4011, "IO iothread1234" }, { 4012, "IO iothread23" }, { 4013, "IO iothread5" },
		{ 4014, "IO iothread5" },
	};
	size_t i;

	CHECK(root != NULL);
	if (!root)
		return;
	for (i = 0; i < VP_ARRAY_SIZE(threads); i++) {
		char path[256];
		FILE *f;

		snprintf(path, sizeof(path), "mkdir -p '%s/proc/4000/task/%d'", root, threads[i].tid);
		CHECK_INT(system(path), 0);
		snprintf(path, sizeof(path), "%s/proc/4000/task/%d/comm", root, threads[i].tid);
		f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fprintf(f, "%s\n", threads[i].comm);
			fclose(f);
		}
	}
	CHECK_INT(kvm_qemu_iothread_tid(root, 4000, 1), 4010);
	CHECK_INT(kvm_qemu_iothread_tid(root, 4000, 1234), 4011);
	CHECK_INT(kvm_qemu_iothread_tid(root, 4000, 2), -1);      /* only 23 is there */
	CHECK_INT(kvm_qemu_iothread_tid(root, 4000, 3), -1);      /* none */
	CHECK_INT(kvm_qemu_iothread_tid(root, 4000, 5), -1);      /* two: which is not known */
	CHECK_INT(kvm_qemu_iothread_tid(root, 4000, 12345), -1);  /* would read as 1234 */
	CHECK_INT(kvm_qemu_iothread_tid(root, 4001, 1), -1);      /* no such process */
	CHECK_INT(kvm_qemu_iothread_tid(root, -1, 1), -1);
	cmd = xasprintf("rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
	free(cmd);
}

/*
 * VFIO passthrough in a QEMU command line, in the forms QEMU's -device takes
 * (docs/system/devices/vfio... and libvirt's JSON -device since QEMU 6):
 * "vfio-pci,host=0000:03:00.0", the short "host=03:00.0" (PCI domain 0000),
 * "sysfsdev=/sys/bus/pci/devices/DDDD:BB:SS.F", "driver=vfio-pci,..." and
 * '{"driver":"vfio-pci","host":"..."}'.  Other devices and an address that is
 * not one (slot > 0x1f, function > 7) are not passthrough devices.
 */
TEST(kvm_vfio_devices_from_cmdline)
{
	char *argv[] = {
		"qemu-system-x86_64", "-device", "vfio-pci,host=0000:03:00.0,id=nic0",
		"-device", "virtio-net-pci,netdev=n0,host=0000:09:00.0",
		"-device", "vfio-pci,host=81:00.1",
		"-device", "vfio-pci,sysfsdev=/sys/bus/pci/devices/0001:c2:1f.7/",
		"-device", "driver=vfio-pci,host=0000:04:00.0",
		"-device", "{\"driver\":\"vfio-pci\",\"host\":\"0000:5e:00.0\",\"id\":\"hostdev0\"}",
		"-device", "{\"driver\":\"virtio-blk-pci\",\"host\":\"0000:5f:00.0\"}",
		"-device", "vfio-pci,host=0000:03:20.0",
		"-device", "vfio-pci,host=0000:03:00.8",
		"-device", "vfio-pcie,host=0000:07:00.0",
	};
	size_t n = 0, i;
	char **a = kvm_vfio_from_cmdline(argv, sizeof(argv) / sizeof(argv[0]), &n);

	CHECK_INT(n, 5);
	if (n == 5) {
		CHECK_STR(a[0], "0000:03:00.0");
		CHECK_STR(a[1], "0000:81:00.1");
		CHECK_STR(a[2], "0001:c2:1f.7");
		CHECK_STR(a[3], "0000:04:00.0");
		CHECK_STR(a[4], "0000:5e:00.0");
	}
	for (i = 0; i < n; i++)
		free(a[i]);
	free(a);
	a = kvm_vfio_from_cmdline(argv, 1, &n);
	CHECK_INT(n, 0);
	CHECK(a == NULL);
}

/*
 * Virtual NUMA nodes from a command line, written by hand in the two forms:
 * libvirt's (JSON -object, host-nodes as an array, size in bytes; its cells
 * in another order than their ids) and QEMU's own options (size with a unit,
 * host-nodes as a range, cpus= twice).  A -numa dist and a backend no node
 * names are not nodes.
 */
TEST(kvm_vnuma_nodes_from_cmdline)
{
	char *argv[] = {
		"qemu-system-x86_64",
		"-object", "{\"qom-type\":\"memory-backend-ram\",\"id\":\"ram-node1\","
			   "\"size\":536870912,\"host-nodes\":[1],\"policy\":\"bind\"}",
		"-numa", "node,nodeid=1,cpus=2-3,memdev=ram-node1",
		"-object", "memory-backend-memfd,id=ram-node0,size=1G,host-nodes=0-1,policy=interleave",
		"-numa", "node,nodeid=0,cpus=0,cpus=4,memdev=ram-node0",
		"-numa", "dist,src=0,dst=1,val=21",
		"-object", "memory-backend-ram,id=other,size=64M,host-nodes=3,policy=bind",
		"-numa", "node,nodeid=2,mem=256",
	};
	size_t n = 0;
	struct hv_vnode *v = kvm_vnuma_from_cmdline(argv, sizeof(argv) / sizeof(argv[0]), &n);
	struct sbuf sb = SBUF_INIT;

	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_INT(v[0].id, 0);
		cpulist_format(&v[0].vcpus, &sb);
		CHECK_STR(sbuf_str(&sb), "0,4");
		CHECK_STR(v[0].memdev, "ram-node0");
		CHECK(v[0].size == 1073741824ull);
		CHECK_STR(v[0].policy, "interleave");
		sbuf_reset(&sb);
		cpulist_format(&v[0].host_nodes, &sb);
		CHECK_STR(sbuf_str(&sb), "0-1");
		CHECK_INT(v[1].id, 1);
		sbuf_reset(&sb);
		cpulist_format(&v[1].vcpus, &sb);
		CHECK_STR(sbuf_str(&sb), "2-3");
		CHECK(v[1].size == 536870912ull);
		CHECK_STR(v[1].policy, "bind");
		CHECK_INT((int)v[1].host_nodes.n, 1);
		CHECK_INT(v[1].host_nodes.n ? v[1].host_nodes.ids[0] : -1, 1);
		CHECK(v[1].mem_node == NULL);
		/* legacy mem=: MiB, no backend, no binding */
		CHECK_INT(v[2].id, 2);
		CHECK(v[2].memdev == NULL);
		CHECK(v[2].size == 256ull << 20);
		CHECK_STR(v[2].policy, "default");
		CHECK_INT((int)v[2].vcpus.n, 0);
	}
	sbuf_release(&sb);
	hv_vnodes_free(v, n);
	v = kvm_vnuma_from_cmdline(argv, 3, &n);
	CHECK_INT(n, 0);
	CHECK(v == NULL);
}
