/* test_hv.c - unit tests for src/hv: KVM/QEMU, Xen, guest and native adapters on fixture trees */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "hv/hv.h"
#include "hv/kvm.h"
#include "hv/xen.h"
#include "util/alloc.h"
#include "util/sbuf.h"

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
	ctx.root = root;
	ctx.plat = p;
	ctx.exec = NULL;
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

TEST(guest_view_from_platform)
{
	struct hv_vm_list l = { 0 };
	struct platform p;
	struct hv_ctx ctx = { test_data("root/guest"), &p, NULL };
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
	struct hv_ctx ctx = { NULL, &p, NULL };
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
