/* test_platform.c - the platform probe over fixture trees */
#include "test.h"

#include <errno.h>
#include <limits.h>
#include <perfmon/pfmlib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"
#include "util/alloc.h"
#include "util/cpulist.h"
#include "util/sbuf.h"

/*
 * Expected values are the numbers written in tests/data/root/
 * make-platform-fixtures.py (and the captured `local` tree), not program
 * output.
 */

static int probe_tree(struct platform *p, const char *tree)
{
	char rel[128];
	struct vp_err err = { 0, "" };
	int ret;

	snprintf(rel, sizeof(rel), "root/%s", tree);
	ret = platform_probe(p, test_data(rel), &err);
	if (ret)
		test_fail(__FILE__, __LINE__, "probe of '%s' failed: %s", tree, err.msg);
	return ret;
}

/* The compact list form of cl, in a static buffer. */
static const char *fmt_list(const struct cpulist *cl)
{
	static char buf[256];
	struct sbuf sb = SBUF_INIT;

	cpulist_format(cl, &sb);
	snprintf(buf, sizeof(buf), "%s", sbuf_str(&sb));
	sbuf_release(&sb);
	return buf;
}

static const struct pmu_family *fam(const struct platform *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_families; i++)
		if (!strcmp(p->families[i].family, name))
			return &p->families[i];
	return NULL;
}

static int pmu_index(const struct platform *p, const char *name)
{
	int i;

	for (i = 0; i < p->n_pmus; i++)
		if (!strcmp(p->pmus[i].name, name))
			return i;
	return -1;
}

#define KB(x) ((uint64_t)(x) * 1024)

TEST(platform_skx_2s)
{
	struct platform p;
	const struct pmu_info *pi;
	const struct pmu_family *fm;
	int i;

	if (probe_tree(&p, "skx-2s"))
		return;
	/* CPU */
	CHECK(p.cpu.known);
	CHECK_STR(p.cpu.vendor, "GenuineIntel");
	CHECK_INT(p.cpu.family, 6);
	CHECK_INT(p.cpu.model, 0x55);
	CHECK_INT(p.cpu.stepping, 4);
	CHECK_STR(sbuf_str(&p.cpu.model_name), "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz");
	CHECK_STR(p.cpu.arch, "x86_64");
	CHECK_INT(p.cpu.n_cpus_listed, 16);
	CHECK_STR(p.cpu.pfm_pmu, "skx");
	CHECK_STR(sbuf_str(&p.cpu.pfm_active), "");
	CHECK(!p.cpu.flag_hypervisor);
	CHECK(p.cpu.flag_cqm_llc);
	CHECK(p.cpu.flag_cqm_mbm);
	/* hypervisor and role: empty seam file = bit clear; one KVM QEMU process */
	CHECK_INT(p.hv.kind, HV_NONE);
	CHECK_STR(p.hv.signature, "");
	CHECK_STR(p.hv.sys_type, "");
	CHECK_STR(sbuf_str(&p.hv.dmi_vendor), "Supermicro");
	CHECK_STR(sbuf_str(&p.hv.dmi_product), "SYS-6029P-TRT");
	CHECK(!p.hv.xen_dom0);
	CHECK_INT(p.hv.n_qemu, 1);
	CHECK_INT(p.hv.n_qemu_kvm, 1);
	CHECK_INT(p.hv.n_qemu_tcg, 0);
	CHECK_INT(p.hv.role, ROLE_HOST);
	CHECK_CONTAINS(sbuf_str(&p.hv.role_reason), "1 QEMU process (pid 4242)");
	/* topology */
	CHECK(p.topo.known);
	CHECK_INT(p.topo.n_cpus, 16);
	CHECK_STR(fmt_list(&p.topo.online), "0-15");
	CHECK_INT(p.topo.n_packages, 2);
	CHECK_INT(p.topo.n_cores, 8);
	CHECK(p.topo.smt_on);
	CHECK_INT(p.topo.n_cpus_no_ids, 0);
	CHECK_INT(p.topo.max_cpu, 16);
	CHECK_INT(p.topo.cpu_package[5], 1);
	CHECK_INT(p.topo.cpu_package[11], 0);
	CHECK_INT(p.topo.cpu_core[13], 1);   /* 13 = sibling of socket 1 core 1 */
	CHECK_INT(topology_cpu_node(&p.topo, 9), 0);
	CHECK_INT(topology_cpu_node(&p.topo, 12), 1);
	CHECK_INT(topology_cpu_node(&p.topo, 16), -1);
	CHECK(p.topo.numa_sysfs);
	CHECK_INT(p.topo.n_nodes, 2);
	CHECK_INT(p.topo.nodes[0].id, 0);
	CHECK_STR(fmt_list(&p.topo.nodes[0].cpus), "0-3,8-11");
	CHECK_STR(fmt_list(&p.topo.nodes[1].cpus), "4-7,12-15");
	CHECK(p.topo.nodes[0].mem_known);
	CHECK_U64(p.topo.nodes[0].mem_total, KB(98304000));
	CHECK_U64(p.topo.nodes[0].mem_free, KB(90000000));
	CHECK_U64(p.topo.nodes[1].mem_free, KB(91000000));
	CHECK_U64(p.topo.mem_total_sys, KB(196608000));
	CHECK(p.topo.distance != NULL);
	if (p.topo.distance) {
		CHECK_INT(p.topo.distance[0], 10);
		CHECK_INT(p.topo.distance[1], 21);
		CHECK_INT(p.topo.distance[2], 21);
		CHECK_INT(p.topo.distance[3], 10);
	}
	CHECK_INT(p.topo.n_llc, 2);
	if (p.topo.n_llc == 2) {
		CHECK_INT(p.topo.llc[0].level, 3);
		CHECK_U64(p.topo.llc[0].size, KB(28160));
		CHECK_STR(fmt_list(&p.topo.llc[0].cpus), "0-3,8-11");
		CHECK_STR(fmt_list(&p.topo.llc[1].cpus), "4-7,12-15");
	}
	CHECK_STR(sbuf_str(&p.topo.hwloc_note), "");  /* hwloc is asked live only */
	/* PMUs: 8 plain + 20 CHA + 6 IMC + 3 UPI */
	CHECK(p.pmus_known);
	CHECK_INT(p.n_pmus, 37);
	CHECK(p.core_pmu);
	CHECK_STR(p.core_pmu_name, "cpu");
	CHECK_STR(sbuf_str(&p.core_pmu_reason), "");
	CHECK_CONTAINS(sbuf_str(&p.kernel_pmu_line), "Performance Events: PEBS fmt3+, Skylake events");
	CHECK_INT(p.n_families, 11);
	pi = platform_find_pmu(&p, "cpu");
	CHECK(pi && pi->cls == PMU_CORE && pi->type == 4 && pi->cpumask.n == 0);
	pi = platform_find_pmu(&p, "software");
	CHECK(pi && pi->cls == PMU_SOFTWARE && pi->type == 1);
	pi = platform_find_pmu(&p, "tracepoint");
	CHECK(pi && pi->cls == PMU_TRACEPOINT && pi->type == 2);
	pi = platform_find_pmu(&p, "msr");
	CHECK(pi && pi->cls == PMU_OTHER && pi->type == 8);
	pi = platform_find_pmu(&p, "uncore_imc_3");
	CHECK(pi != NULL);
	if (pi) {
		CHECK_INT(pi->cls, PMU_UNCORE);
		CHECK_INT(pi->type, 33);
		CHECK_STR(pi->family, "uncore_imc");
		CHECK_STR(fmt_list(&pi->cpumask), "0,4");
	}
	CHECK(platform_find_pmu(&p, "uncore_imc_6") == NULL);
	pi = platform_find_pmu(&p, "uncore_cha_19");
	CHECK(pi && pi->type == 29);
	/* natural order: uncore_cha_2 before uncore_cha_10 */
	CHECK(pmu_index(&p, "uncore_cha_2") < pmu_index(&p, "uncore_cha_10"));
	fm = fam(&p, "uncore_cha");
	CHECK(fm && fm->n_instances == 20 && fm->cls == PMU_UNCORE);
	fm = fam(&p, "uncore_imc");
	CHECK(fm && fm->n_instances == 6);
	fm = fam(&p, "uncore_upi");
	CHECK(fm && fm->n_instances == 3);
	fm = fam(&p, "cpu");
	CHECK(fm && fm->n_instances == 1 && fm->cls == PMU_CORE);
	for (i = 0; i < p.n_pmus; i++)
		CHECK(p.pmus[i].type > 0);
	/* permissions */
	CHECK(p.perm.known);
	CHECK_INT(p.perm.paranoid, 0);
	CHECK(p.perm.is_root);
	CHECK(p.perm.cap_perfmon);
	CHECK(p.perm.cap_sys_admin);
	CHECK(p.perm.resctrl_supported);
	CHECK(p.perm.resctrl_mounted);
	CHECK(p.perm.resctrl_llc_occupancy);
	CHECK(p.perm.resctrl_mbm_total);
	CHECK(p.perm.resctrl_mbm_local);
	CHECK_STR(sbuf_str(&p.perm.resctrl_features), "llc_occupancy, mbm_total_bytes, mbm_local_bytes");
	CHECK(p.perm.cgroup_v2);
	CHECK_STR(sbuf_str(&p.perm.cgroup_root), "/sys/fs/cgroup");
	CHECK(!p.perm.cgroup_v1);
	platform_release(&p);
}

TEST(platform_zen3_2s)
{
	struct platform p;
	const struct pmu_info *pi;

	if (probe_tree(&p, "zen3-2s"))
		return;
	CHECK_STR(p.cpu.vendor, "AuthenticAMD");
	CHECK_INT(p.cpu.family, 0x19);
	CHECK_INT(p.cpu.model, 0x01);
	CHECK_INT(p.cpu.stepping, 1);
	CHECK_STR(sbuf_str(&p.cpu.model_name), "AMD EPYC 7313 16-Core Processor");
	CHECK_STR(p.cpu.pfm_pmu, "amd64_fam19h_zen3");
	CHECK_INT(p.hv.kind, HV_NONE);
	CHECK_INT(p.hv.role, ROLE_NATIVE);
	CHECK_INT(p.hv.n_qemu, 0);
	CHECK_STR(sbuf_str(&p.hv.dmi_product), "PowerEdge R7525");
	CHECK_INT(p.topo.n_cpus, 16);
	CHECK_INT(p.topo.n_packages, 2);
	CHECK_INT(p.topo.n_cores, 8);
	CHECK(p.topo.smt_on);
	CHECK_INT(p.topo.n_nodes, 2);
	CHECK(p.topo.distance && p.topo.distance[1] == 32 && p.topo.distance[2] == 32 &&
	      p.topo.distance[3] == 10);
	CHECK_U64(p.topo.nodes[1].mem_total, KB(65536000));
	/* two CCXs per socket: four L3 domains, smaller than a socket */
	CHECK_INT(p.topo.n_llc, 4);
	if (p.topo.n_llc == 4) {
		CHECK_STR(fmt_list(&p.topo.llc[0].cpus), "0-1,8-9");
		CHECK_STR(fmt_list(&p.topo.llc[1].cpus), "2-3,10-11");
		CHECK_STR(fmt_list(&p.topo.llc[2].cpus), "4-5,12-13");
		CHECK_STR(fmt_list(&p.topo.llc[3].cpus), "6-7,14-15");
		CHECK_U64(p.topo.llc[3].size, KB(32768));
	}
	CHECK_INT(p.n_pmus, 13);
	CHECK_STR(p.core_pmu_name, "cpu");
	pi = platform_find_pmu(&p, "amd_df");
	CHECK(pi && pi->cls == PMU_UNCORE && pi->type == 12);
	if (pi)
		CHECK_STR(fmt_list(&pi->cpumask), "0,4");
	pi = platform_find_pmu(&p, "amd_l3");
	CHECK(pi && pi->cls == PMU_UNCORE && pi->type == 13);
	if (pi)
		CHECK_STR(fmt_list(&pi->cpumask), "0,2,4,6");
	pi = platform_find_pmu(&p, "amd_iommu_0");
	CHECK(pi && pi->cls == PMU_OTHER);
	if (pi)
		CHECK_STR(pi->family, "amd_iommu");
	pi = platform_find_pmu(&p, "ibs_op");
	CHECK(pi && pi->cls == PMU_OTHER && pi->type == 11);
	CHECK_CONTAINS(sbuf_str(&p.kernel_pmu_line), "Fam17h+ core perfctr");
	CHECK(p.perm.known);
	CHECK_INT(p.perm.paranoid, 2);
	CHECK(!p.perm.is_root);
	CHECK(!p.perm.cap_perfmon);
	CHECK(!p.perm.cap_sys_admin);
	CHECK(p.perm.resctrl_supported);
	CHECK(!p.perm.resctrl_mounted);
	CHECK(!p.perm.resctrl_llc_occupancy);
	CHECK_CONTAINS(sbuf_str(&p.perm.resctrl_reason), "not mounted");
	CHECK(p.perm.cgroup_v2);
	CHECK_STR(sbuf_str(&p.perm.cgroup_root), "/sys/fs/cgroup/unified");
	CHECK(p.perm.cgroup_v1);
	platform_release(&p);
}

TEST(platform_nhm_ep)
{
	struct platform p;
	const struct pmu_info *pi;
	const struct pmu_family *fm;

	if (probe_tree(&p, "nhm-ep"))
		return;
	CHECK_STR(p.cpu.vendor, "GenuineIntel");
	CHECK_INT(p.cpu.family, 6);
	CHECK_INT(p.cpu.model, 0x1a);
	CHECK_INT(p.cpu.stepping, 5);
	CHECK_STR(sbuf_str(&p.cpu.model_name), "Intel(R) Xeon(R) CPU           X5570  @ 2.93GHz");
	CHECK_STR(p.cpu.pfm_pmu, "nhm");
	CHECK_INT(p.hv.role, ROLE_NATIVE);
	CHECK_STR(sbuf_str(&p.hv.dmi_vendor), "HP");
	CHECK_INT(p.topo.n_cpus, 16);
	CHECK_INT(p.topo.n_packages, 2);
	CHECK_INT(p.topo.n_cores, 8);
	CHECK_INT(p.topo.n_llc, 2);
	if (p.topo.n_llc == 2)
		CHECK_U64(p.topo.llc[0].size, KB(8192));
	CHECK_U64(p.topo.nodes[0].mem_total, KB(12582912));
	CHECK_INT(p.n_pmus, 8);
	pi = platform_find_pmu(&p, "uncore");
	CHECK(pi && pi->cls == PMU_UNCORE && pi->type == 6);
	if (pi) {
		CHECK_STR(pi->family, "uncore");
		CHECK_STR(fmt_list(&pi->cpumask), "0,4");
	}
	fm = fam(&p, "uncore");
	CHECK(fm && fm->n_instances == 1);
	CHECK_CONTAINS(sbuf_str(&p.kernel_pmu_line), "Nehalem events");
	CHECK_INT(p.perm.paranoid, 1);
	CHECK(p.perm.is_root);
	CHECK(!p.perm.resctrl_supported);
	CHECK_CONTAINS(sbuf_str(&p.perm.resctrl_reason), "not in /proc/filesystems");
	CHECK_CONTAINS(sbuf_str(&p.perm.resctrl_reason), "cqm_occup_llc");
	CHECK(!p.perm.cgroup_v2);
	CHECK(p.perm.cgroup_v1);
	CHECK_CONTAINS(sbuf_str(&p.perm.cgroup_reason), "no cgroup2 mount");
	platform_release(&p);
}

TEST(platform_kvm_guest_vpmu)
{
	struct platform p;
	int i;

	if (probe_tree(&p, "kvm-guest-vpmu"))
		return;
	CHECK_INT(p.cpu.model, 0x55);
	CHECK_INT(p.cpu.stepping, 7);
	CHECK_STR(p.cpu.pfm_pmu, "clx");
	CHECK(p.cpu.flag_hypervisor);
	CHECK_INT(p.hv.kind, HV_KVM);
	CHECK_STR(p.hv.signature, "KVMKVMKVM");
	CHECK_INT(p.hv.role, ROLE_GUEST);
	CHECK_CONTAINS(sbuf_str(&p.hv.role_reason), "KVMKVMKVM");
	CHECK_STR(sbuf_str(&p.hv.dmi_vendor), "QEMU");
	CHECK_INT(p.topo.n_cpus, 4);
	CHECK_INT(p.topo.n_packages, 1);
	CHECK_INT(p.topo.n_cores, 4);
	CHECK(!p.topo.smt_on);
	CHECK_INT(p.topo.n_nodes, 2);
	CHECK_STR(fmt_list(&p.topo.nodes[1].cpus), "2-3");
	CHECK(p.topo.distance && p.topo.distance[1] == 20);
	CHECK_INT(p.topo.n_llc, 1);
	if (p.topo.n_llc == 1) {
		CHECK_STR(fmt_list(&p.topo.llc[0].cpus), "0-3");
		CHECK_U64(p.topo.llc[0].size, KB(16384));
	}
	CHECK_INT(p.n_pmus, 7);
	CHECK(p.core_pmu);
	for (i = 0; i < p.n_families; i++)
		CHECK(p.families[i].cls != PMU_UNCORE);
	CHECK(!p.perm.resctrl_supported);
	platform_release(&p);
}

TEST(platform_kvm_guest_novpmu)
{
	struct platform p;

	if (probe_tree(&p, "kvm-guest-novpmu"))
		return;
	CHECK_INT(p.cpu.model, 0x6a);
	CHECK_STR(p.cpu.pfm_pmu, "icx");
	CHECK_INT(p.hv.kind, HV_KVM);
	CHECK_INT(p.hv.role, ROLE_GUEST);
	/* no node directory: one node with every CPU and /proc/meminfo's memory */
	CHECK(p.topo.known);
	CHECK(!p.topo.numa_sysfs);
	CHECK_INT(p.topo.n_nodes, 1);
	CHECK_INT(p.topo.nodes[0].id, 0);
	CHECK_STR(fmt_list(&p.topo.nodes[0].cpus), "0-1");
	CHECK(p.topo.nodes[0].mem_known);
	CHECK_U64(p.topo.nodes[0].mem_total, KB(4194304));
	CHECK_INT(topology_cpu_node(&p.topo, 1), 0);
	CHECK_INT(topology_node_index(&p.topo, 0), 0);
	CHECK_INT(topology_node_index(&p.topo, 1), -1);
	CHECK(p.topo.distance == NULL);
	CHECK(p.topo.distance_reason.len);
	CHECK_CONTAINS(sbuf_str(&p.topo.node_note), "kernel without NUMA");
	CHECK_INT(p.n_pmus, 6);
	CHECK(!p.core_pmu);
	CHECK_STR(p.core_pmu_name, "");
	CHECK_CONTAINS(sbuf_str(&p.core_pmu_reason), "PMU not available due to virtualization");
	platform_release(&p);
}

TEST(platform_arm_n1)
{
	struct platform p;
	const struct pmu_info *pi;

	if (probe_tree(&p, "arm-n1"))
		return;
	CHECK(p.cpu.known);
	CHECK_STR(p.cpu.arch, "aarch64");
	CHECK_STR(p.cpu.vendor, "ARM");
	CHECK_INT(p.cpu.family, 0x41);
	CHECK_INT(p.cpu.model, 0xd0c);
	CHECK_INT(p.cpu.stepping, 1);
	CHECK_STR(sbuf_str(&p.cpu.model_name), "Neoverse N1");
	CHECK_INT(p.cpu.n_cpus_listed, 4);
	CHECK_STR(p.cpu.pfm_pmu, "arm_n1");
	CHECK_INT(p.hv.kind, HV_NONE);
	CHECK_INT(p.hv.role, ROLE_NATIVE);
	CHECK(p.core_pmu);
	CHECK_STR(p.core_pmu_name, "armv8_pmuv3_0");
	pi = platform_find_pmu(&p, "armv8_pmuv3_0");
	CHECK(pi && pi->cls == PMU_CORE);
	if (pi)
		CHECK_STR(pi->family, "armv8_pmuv3");
	pi = platform_find_pmu(&p, "arm_cmn_0");
	CHECK(pi && pi->cls == PMU_UNCORE);
	platform_release(&p);
}

TEST(platform_xen_pv_dom0)
{
	struct platform p;

	if (probe_tree(&p, "xen-pv-dom0"))
		return;
	CHECK_INT(p.hv.kind, HV_XEN);
	CHECK_STR(p.hv.signature, "XenVMMXenVMM");
	CHECK_STR(p.hv.sys_type, "xen");
	CHECK_STR(sbuf_str(&p.hv.sys_properties), "xen-3.0-x86_64 hvm-3.0-x86_32 hvm-3.0-x86_64");
	CHECK(p.hv.xen_dom0);
	CHECK_STR(p.hv.xen_caps, "control_d");
	CHECK_INT(p.hv.role, ROLE_HOST);
	CHECK_CONTAINS(sbuf_str(&p.hv.role_reason), "Xen dom0");
	CHECK_STR(p.hv.xen_pmu_mode, "");
	CHECK_CONTAINS(sbuf_str(&p.hv.xen_pmu_reason), "'/sys/hypervisor/pmu/pmu_mode': No such file or directory");
	CHECK(!p.core_pmu);
	CHECK_CONTAINS(sbuf_str(&p.core_pmu_reason), "unsupported p6 CPU model 1 no PMU driver");
	CHECK_INT(p.n_pmus, 3);
	platform_release(&p);
}

TEST(platform_qemu_in_kvm)
{
	struct platform p;

	if (probe_tree(&p, "qemu-in-kvm"))
		return;
	CHECK_INT(p.hv.kind, HV_KVM);
	CHECK_INT(p.hv.n_qemu, 2);
	CHECK_INT(p.hv.n_qemu_tcg, 1);
	CHECK_INT(p.hv.n_qemu_kvm, 1);
	CHECK_INT(p.hv.role, ROLE_HOST);
	CHECK_STR(sbuf_str(&p.hv.role_reason),
		  "2 QEMU processes (pid 777, 778): 1 KVM, 1 TCG; itself a KVM guest");
	platform_release(&p);
}

TEST(platform_pmu_counts)
{
	struct platform p;
	const struct pmu_info *pi;
	const struct pmu_family *fm;

	if (probe_tree(&p, "pmu-count"))
		return;
	CHECK_INT(p.n_pmus, 4);
	pi = platform_find_pmu(&p, "cpu");
	CHECK(pi && pi->n_formats == 5 && pi->n_events == 3);
	pi = platform_find_pmu(&p, "uncore_imc_0");
	CHECK(pi != NULL);
	if (pi) {
		CHECK_INT(pi->n_formats, 2);
		CHECK_INT(pi->n_events, 3);  /* .scale and .unit are attributes, not events */
		CHECK_INT(pi->type, 10);
		CHECK_STR(fmt_list(&pi->cpumask), "0");
	}
	pi = platform_find_pmu(&p, "uncore_imc_2");
	CHECK(pi && pi->type == 12 && pi->cpumask.n == 0 && pi->n_events == 0 && pi->n_formats == 0);
	pi = platform_find_pmu(&p, "uncore_imc_10");
	CHECK(pi && pi->type == -1 && pi->cpumask.n == 0);
	CHECK_INT(pmu_index(&p, "uncore_imc_0"), 1);
	CHECK_INT(pmu_index(&p, "uncore_imc_2"), 2);
	CHECK_INT(pmu_index(&p, "uncore_imc_10"), 3);
	fm = fam(&p, "uncore_imc");
	CHECK(fm && fm->n_instances == 3);
	platform_release(&p);
}

TEST(platform_broken_tree)
{
	struct platform p;

	if (probe_tree(&p, "broken"))
		return;
	CHECK(!p.cpu.known);
	CHECK_CONTAINS(sbuf_str(&p.cpu.reason), "cpu family");
	CHECK_STR(p.cpu.vendor, "GenuineIntel");
	CHECK_INT(p.cpu.family, -1);
	CHECK_INT(p.cpu.model, 85);
	CHECK_STR(p.cpu.pfm_pmu, "");
	CHECK_INT(p.hv.kind, HV_OTHER);
	CHECK_STR(p.hv.signature, "ACMEVISOR123");
	CHECK_INT(p.hv.role, ROLE_GUEST);
	CHECK(p.topo.known);
	CHECK_INT(p.topo.n_cpus, 4);
	CHECK_INT(p.topo.n_cpus_no_ids, 2);  /* cpu2 core_id "x", cpu3 no files */
	CHECK_INT(p.topo.n_packages, 1);
	CHECK_INT(p.topo.n_cores, 2);
	CHECK(!p.topo.smt_on);
	CHECK_INT(p.topo.cpu_core[2], -1);
	CHECK_INT(p.topo.cpu_package[3], -1);
	CHECK_INT(p.topo.n_nodes, 2);
	CHECK(p.topo.nodes[0].mem_known);
	CHECK(!p.topo.nodes[1].mem_known);
	CHECK(p.topo.distance == NULL);
	CHECK_CONTAINS(sbuf_str(&p.topo.distance_reason), "node1/distance");
	CHECK_INT(p.topo.n_llc, 0);
	CHECK(p.topo.llc_reason.len);
	CHECK(!p.pmus_known);
	CHECK_INT(p.n_pmus, 0);
	CHECK(!p.core_pmu);
	CHECK_CONTAINS(sbuf_str(&p.pmus_reason), "cannot open directory '/sys/bus/event_source/devices'");
	CHECK(!strstr(sbuf_str(&p.pmus_reason), "tests/data"));  /* the root is stripped from reasons */
	CHECK_INT(p.perm.paranoid, INT_MIN);
	CHECK_CONTAINS(sbuf_str(&p.perm.paranoid_reason), "expected an integer, found 'high'");
	CHECK(!p.perm.known);
	CHECK_CONTAINS(sbuf_str(&p.perm.reason), "lacks Uid or CapEff");
	CHECK(p.perm.resctrl_supported);
	CHECK(p.perm.resctrl_mounted);
	CHECK_STR(sbuf_str(&p.perm.resctrl_features), "");
	CHECK_CONTAINS(sbuf_str(&p.perm.resctrl_reason), "without L3 monitoring");
	CHECK(!p.perm.cgroup_v2);
	platform_release(&p);
}

/* The captured tree of this machine: a KVM guest on Zen 3 without a PMU, one node. */
TEST(platform_local_capture)
{
	struct platform p;

	if (probe_tree(&p, "local"))
		return;
	CHECK_STR(p.cpu.vendor, "AuthenticAMD");
	CHECK_INT(p.cpu.family, 0x19);
	CHECK_INT(p.cpu.model, 1);
	CHECK_STR(sbuf_str(&p.cpu.model_name), "AMD EPYC");
	CHECK_STR(p.cpu.pfm_pmu, "amd64_fam19h_zen3");
	CHECK(p.cpu.flag_hypervisor);
	CHECK_INT(p.hv.kind, HV_KVM);
	CHECK_INT(p.hv.role, ROLE_GUEST);
	CHECK_INT(p.topo.n_cpus, 2);
	CHECK_INT(p.topo.n_nodes, 1);
	CHECK_STR(fmt_list(&p.topo.nodes[0].cpus), "0-1");
	CHECK(p.topo.distance && p.topo.distance[0] == 10);
	CHECK_INT(p.topo.n_llc, 1);
	if (p.topo.n_llc == 1)
		CHECK_U64(p.topo.llc[0].size, KB(32768));
	CHECK(p.pmus_known);
	CHECK(!p.core_pmu);
	CHECK_CONTAINS(sbuf_str(&p.core_pmu_reason), "PMU not available due to virtualization");
	CHECK(platform_find_pmu(&p, "software") && platform_find_pmu(&p, "tracepoint"));
	CHECK_INT(p.perm.paranoid, 2);
	CHECK(!p.perm.resctrl_supported);
	CHECK(p.perm.cgroup_v2);
	CHECK_STR(sbuf_str(&p.perm.cgroup_root), "/sys/fs/cgroup/unified");
	platform_release(&p);
}

/*
 * Every hypervisor CPUID leaf 0x40000000 signature (EBX, ECX, EDX as the
 * vendors document them: KVM "KVMKVMKVM\0\0\0", Xen "XenVMMXenVMM",
 * Hyper-V "Microsoft Hv", VMware "VMwareVMware", bhyve "bhyve bhyve ",
 * QEMU TCG "TCGTCGTCGTCG"), written raw into the fixture seam of an
 * otherwise empty root: the kind, and the role guest (the hypervisor bit
 * says this OS runs under one, with no QEMU here).
 */
TEST(platform_hypervisor_signatures)
{
	static const struct {
		int line;
		const char raw[13];   /* 12 bytes, as CPUID gives them */
		enum hv_kind kind;
		enum plat_role role;
	} rows[] = {
		{ __LINE__, "KVMKVMKVM\0\0\0", HV_KVM, ROLE_GUEST },
		{ __LINE__, "XenVMMXenVMM", HV_XEN, ROLE_GUEST },
		{ __LINE__, "Microsoft Hv", HV_HYPERV, ROLE_GUEST },
		{ __LINE__, "VMwareVMware", HV_VMWARE, ROLE_GUEST },
		{ __LINE__, "bhyve bhyve ", HV_BHYVE, ROLE_GUEST },
		{ __LINE__, "TCGTCGTCGTCG", HV_TCG, ROLE_GUEST },
		{ __LINE__, "ACRNACRNACRN", HV_OTHER, ROLE_GUEST },
		{ __LINE__, "", HV_NONE, ROLE_NATIVE },      /* hypervisor bit clear */
	};
	char dir[] = "/tmp/vp-test-cpuid-XXXXXX", path[128];
	size_t i;

	if (!mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/.vmmprof-fixture", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.vmmprof-fixture/cpuid-hypervisor", dir);
	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		struct platform p;
		struct vp_err err = { 0, "" };
		FILE *f = fopen(path, "w");

		if (!f) {
			test_fail(__FILE__, rows[i].line, "cannot write %s", path);
			break;
		}
		fwrite(rows[i].raw, 1, rows[i].raw[0] ? 12 : 0, f);
		fputc('\n', f);
		fclose(f);
		CHECK_INT_AT(rows[i].line, platform_probe(&p, dir, &err), 0);
		CHECK_INT_AT(rows[i].line, p.hv.kind, rows[i].kind);
		CHECK_INT_AT(rows[i].line, p.hv.role, rows[i].role);
		platform_release(&p);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/.vmmprof-fixture", dir);
	rmdir(path);
	rmdir(dir);
}

TEST(platform_bad_roots)
{
	struct platform p;
	struct vp_err err = { 0, "" };
	char dir[] = "/tmp/vp-test-empty-XXXXXX";

	CHECK_INT(platform_probe(&p, test_data("root/does-not-exist"), &err), -ENOENT);
	CHECK_CONTAINS(err.msg, "cannot use root directory");
	CHECK_INT(platform_probe(&p, test_data("root/skx-2s/README.md"), &err), -ENOTDIR);
	/* an empty root: the probe succeeds and every section is unknown */
	if (!mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	CHECK_INT(platform_probe(&p, dir, &err), 0);
	CHECK(!p.cpu.known);
	CHECK_CONTAINS(sbuf_str(&p.cpu.reason), "cannot open '/proc/cpuinfo'");
	CHECK(!p.topo.known);
	CHECK(p.topo.reason.len);
	CHECK(!p.pmus_known);
	CHECK(!p.perm.known);
	CHECK_INT(p.perm.paranoid, INT_MIN);
	CHECK_INT(p.hv.kind, HV_UNKNOWN);
	CHECK_INT(p.hv.role, ROLE_UNKNOWN);
	CHECK(!p.hv.known);
	platform_release(&p);
	/* an online file that lists no CPU: topology unknown, not a crash */
	{
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys", dir);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/sys/devices", dir);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/sys/devices/system", dir);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", dir);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", dir);
		f = fopen(path, "w");
		if (f) {
			fputs("\n", f);
			fclose(f);
		}
		CHECK_INT(platform_probe(&p, dir, &err), 0);
		CHECK(!p.topo.known);
		CHECK_CONTAINS(sbuf_str(&p.topo.reason), "no online CPUs");
		platform_release(&p);
		unlink(path);
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", dir);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/sys/devices/system", dir);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/sys/devices", dir);
		rmdir(path);
		snprintf(path, sizeof(path), "%s/sys", dir);
		rmdir(path);
	}
	rmdir(dir);
}

static const struct {
	int line;
	const char *vendor;
	int family, model, stepping;
	const char *pfm;  /* NULL: no table */
} pfm_rows[] = {
	{ __LINE__, "GenuineIntel", 6, 0x1a, 5, "nhm" },
	{ __LINE__, "GenuineIntel", 6, 0x1e, 5, "nhm" },
	{ __LINE__, "GenuineIntel", 6, 0x2e, 6, "nhm_ex" },
	{ __LINE__, "GenuineIntel", 6, 0x2c, 2, "wsm_dp" },
	{ __LINE__, "GenuineIntel", 6, 0x55, 4, "skx" },
	{ __LINE__, "GenuineIntel", 6, 0x55, 5, "clx" },
	{ __LINE__, "GenuineIntel", 6, 0x55, 7, "clx" },
	{ __LINE__, "GenuineIntel", 6, 0x6a, 6, "icx" },
	{ __LINE__, "GenuineIntel", 6, 0x8f, 8, "spr" },
	{ __LINE__, "AuthenticAMD", 0x17, 0x01, 2, "amd64_fam17h_zen1" },
	{ __LINE__, "AuthenticAMD", 0x17, 0x31, 0, "amd64_fam17h_zen2" },
	{ __LINE__, "AuthenticAMD", 0x19, 0x01, 1, "amd64_fam19h_zen3" },
	{ __LINE__, "AuthenticAMD", 0x19, 0x21, 0, "amd64_fam19h_zen3" },
	{ __LINE__, "AuthenticAMD", 0x19, 0x11, 1, "amd64_fam19h_zen4" },
	{ __LINE__, "AuthenticAMD", 0x19, 0x61, 2, "amd64_fam19h_zen4" },
	{ __LINE__, "ARM", 0x41, 0xd0c, 1, "arm_n1" },
	{ __LINE__, "ARM", 0x41, 0xd49, 0, "arm_n2" },
	/* negative rows */
	{ __LINE__, "GenuineIntel", 6, 0x99, 0, NULL },
	{ __LINE__, "GenuineIntel", 15, 0x06, 0, NULL },
	{ __LINE__, "AuthenticAMD", 0x15, 0x01, 0, NULL },
	{ __LINE__, "AuthenticAMD", 6, 0x55, 4, NULL },
	{ __LINE__, "HiSilicon", 0x48, 0xd01, 0, NULL },
	{ __LINE__, "ARM", 0x41, 0xfff, 0, NULL },
};

TEST(platform_pfm_name_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(pfm_rows); i++) {
		const char *got = platform_pfm_name(pfm_rows[i].vendor, pfm_rows[i].family,
						    pfm_rows[i].model, pfm_rows[i].stepping);

		if (!pfm_rows[i].pfm)
			CHECK_AT(pfm_rows[i].line, got == NULL, "expected no table, got '%s'", got);
		else
			CHECK_STR_AT(pfm_rows[i].line, got, pfm_rows[i].pfm);
	}
}

/* Is a table of this name compiled into the linked libpfm4 (active or not)? */
static bool pfm_has(const char *name, bool *any_arm)
{
	pfm_pmu_info_t info;
	bool found = false;
	int i;

	*any_arm = false;
	for (i = 0; i < PFM_PMU_MAX; i++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)i, &info) != PFM_SUCCESS || !info.name)
			continue;
		if (!strncmp(info.name, "arm_", 4))
			*any_arm = true;
		if (!strcmp(info.name, name))
			found = true;
	}
	return found;
}

/*
 * Every name in the model table exists in libpfm4.  pfm_get_pmu_info()
 * lists every compiled table, active or not (what LIBPFM_ENCODE_INACTIVE=1
 * makes usable for encoding), so no environment is needed.
 */
TEST(platform_pfm_names_exist_in_libpfm4)
{
	const struct pfm_map_row *rows;
	int n, i, arm_rows = 0;
	bool any_arm = false;

	CHECK_INT(pfm_initialize(), PFM_SUCCESS);
	rows = platform_pfm_table(&n);
	CHECK(n > 20);
	for (i = 0; i < n; i++) {
		if (!strcmp(rows[i].vendor, "ARM")) {
			arm_rows++;
			continue;
		}
		CHECK_AT(__LINE__, pfm_has(rows[i].pfm, &any_arm), "libpfm4 has no table '%s' (%s)",
			 rows[i].pfm, rows[i].what);
	}
	CHECK(arm_rows > 0);
}

TEST(platform_pfm_arm_names_exist_in_libpfm4)
{
	const struct pfm_map_row *rows;
	int n, i;
	bool any_arm = false;

	pfm_initialize();
	pfm_has("arm_n1", &any_arm);
	if (!any_arm)
		SKIP("this libpfm4 is built for x86: it has no Arm tables to check arm_* names against");
	rows = platform_pfm_table(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].vendor, "ARM"))
			CHECK_AT(__LINE__, pfm_has(rows[i].pfm, &any_arm), "libpfm4 has no table '%s'",
				 rows[i].pfm);
}

/* This machine, live: compare with what the kernel says directly. */
TEST(platform_live)
{
	struct platform p;
	struct vp_err err = { 0, "" };
	bool sys_cpu;

	CHECK_INT(platform_probe(&p, "/", &err), 0);
	CHECK(p.cpu.known);
	CHECK(p.topo.known);
	CHECK_INT(p.topo.n_cpus, sysconf(_SC_NPROCESSORS_ONLN));
	CHECK_CONTAINS(sbuf_str(&p.topo.hwloc_note), "hwloc agrees");
	CHECK_CONTAINS(sbuf_str(&p.cpu.pfm_active), "perf, perf_raw");
	/* where libpfm4 detected a table, the model table must name the same one */
	if (strstr(sbuf_str(&p.cpu.pfm_source), "libpfm4 detection")) {
		const char *t = platform_pfm_name(p.cpu.vendor, p.cpu.family, p.cpu.model,
						  p.cpu.stepping);

		if (t)
			CHECK_STR(t, p.cpu.pfm_pmu);
	}
	sys_cpu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
		  access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
	CHECK_INT(p.core_pmu, sys_cpu);
	if (!p.core_pmu)
		CHECK(p.core_pmu_reason.len);
	CHECK_INT(p.perm.is_root, geteuid() == 0);
	if (p.cpu.flag_hypervisor)
		CHECK(p.hv.kind != HV_NONE && p.hv.kind != HV_UNKNOWN);
	platform_release(&p);
}

TEST(platform_names)
{
	CHECK_STR(hv_kind_name(HV_TCG), "QEMU TCG");
	CHECK_STR(plat_role_name(ROLE_HOST), "host");
	CHECK_STR(pmu_class_name(PMU_TRACEPOINT), "tracepoint");
}

/*
 * A Xen dom0's machine is Xen's: the captured `xl info -n` of the testbed
 * (tests/data/xen-captured/.vmmprof-fixture/xl/info-n.txt) lists pCPU 0 on
 * node 0 and pCPU 1 on node 1, nodes of 1536 and 1535 MiB with 729 and 132
 * MiB free, distances 10/20; dom0's sysfs shows 2 vCPUs on one node.
 */
TEST(platform_xen_topology_from_xl_info)
{
	struct platform p;
	struct vp_err err = { 0, "" };

	if (platform_probe(&p, test_data("xen-captured"), &err)) {
		test_fail(__FILE__, __LINE__, "probe failed: %s", err.msg);
		return;
	}
	CHECK(p.hv.xen_dom0);
	CHECK(p.topo.from_xen);
	CHECK_STR(sbuf_str(&p.hv.xen_info_reason), "");
	CHECK_INT(p.topo.n_cpus, 2);
	CHECK_INT(p.topo.n_nodes, 2);
	CHECK_INT(p.topo.n_packages, 1);
	CHECK_INT(p.topo.n_cores, 2);
	CHECK(!p.topo.smt_on);
	CHECK_STR(fmt_list(&p.topo.nodes[0].cpus), "0");
	CHECK_STR(fmt_list(&p.topo.nodes[1].cpus), "1");
	CHECK_INT(topology_cpu_node(&p.topo, 1), 1);
	CHECK_U64(p.topo.nodes[0].mem_total, 1536ull << 20);
	CHECK_U64(p.topo.nodes[1].mem_total, 1535ull << 20);
	CHECK_U64(p.topo.nodes[0].mem_free, 729ull << 20);
	CHECK_U64(p.topo.nodes[1].mem_free, 132ull << 20);
	CHECK_U64(p.topo.mem_total_sys, 3071ull << 20);
	CHECK(p.topo.distance != NULL);
	if (p.topo.distance) {
		CHECK_INT(p.topo.distance[0], 10);
		CHECK_INT(p.topo.distance[1], 20);
		CHECK_INT(p.topo.distance[2], 20);
		CHECK_INT(p.topo.distance[3], 10);
	}
	CHECK_INT(p.topo.n_llc, 0);
	CHECK_CONTAINS(sbuf_str(&p.topo.llc_reason), "does not list caches");
	/* dom0's own view, kept as dom0's */
	CHECK(p.dom0_topo.known && !p.dom0_topo.from_xen);
	CHECK_INT(p.dom0_topo.n_nodes, 1);
	CHECK_INT(p.dom0_topo.n_cpus, 2);
	CHECK(platform_local_topo(&p) == &p.dom0_topo);
	CHECK_STR(p.hv.xen_version, "4.17.5");
	CHECK_STR(p.hv.xen_scheduler, "credit2");
	CHECK_STR(sbuf_str(&p.hv.xen_cmdline), "dom0_mem=2048M,max:2048M console=com1 com1=115200 noreboot "
		  "loglvl=warning");
	platform_release(&p);
}

/* Hand-written `xl info -n` texts: SMT, two sockets, a missing distance, no topology. */
TEST(platform_xen_info_parse_cases)
{
	static const char smt[] =
		"nr_cpus                : 4\n"
		"threads_per_core       : 2\n"
		"cpu_topology           :\n"
		"cpu:    core    socket     node\n"
		"  0:       0        0        0\n"
		"  1:       0        0        0\n"
		"  2:       0        1        1\n"
		"  3:       0        1        1\n"
		"device topology        :\n"
		"numa_info              :\n"
		"node:    memsize    memfree    distances\n"
		"   0:      4096       1024      10,21\n"
		"   1:      4096       2048      21\n"
		"xen_major              : 4\n";
	struct topology t;
	struct vp_err err = { 0, "" };

	CHECK_INT(platform_xen_info_parse(smt, &t, NULL, &err), 0);
	CHECK_INT(t.n_cpus, 4);
	CHECK_INT(t.n_packages, 2);   /* sockets 0 and 1 */
	CHECK_INT(t.n_cores, 2);      /* (0,0) and (1,0): two threads each */
	CHECK(t.smt_on);
	CHECK_INT(t.n_nodes, 2);
	CHECK_STR(fmt_list(&t.nodes[1].cpus), "2-3");
	CHECK_U64(t.nodes[1].mem_free, 2048ull << 20);
	/* node 1's row lacks its distance to itself: no matrix, and the reason says which */
	CHECK(t.distance == NULL);
	CHECK_CONTAINS(sbuf_str(&t.distance_reason), "node 1 no distance to node 1");
	topology_release(&t);

	CHECK_INT(platform_xen_info_parse("host : x\nnr_cpus : 2\n", &t, NULL, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "no cpu_topology section");
	topology_release(&t);

	/* a node of -5 or a pCPU of -1 is refused with the field, not left out of the machine */
	CHECK_INT(platform_xen_info_parse("cpu_topology           :\n"
					  "cpu:    core    socket     node\n"
					  "  0:       0        0        0\n"
					  "  1:       0        0       -5\n", &t, NULL, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "'xl info -n' cpu_topology: pCPU 1 on node -5 is out of range");
	topology_release(&t);
	CHECK_INT(platform_xen_info_parse("cpu_topology           :\n"
					  "cpu:    core    socket     node\n"
					  " -1:       0        0        0\n", &t, NULL, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "pCPU -1 on node 0 is out of range");
	topology_release(&t);
	CHECK_INT(platform_xen_info_parse("cpu_topology           :\n"
					  "cpu:    core    socket     node\n"
					  "  0:       0        0        0\n"
					  "numa_info              :\n"
					  "node:    memsize    memfree    distances\n"
					  "  -5:      4096       1024      10\n", &t, NULL, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "'xl info -n' numa_info: node -5 is out of range");
	topology_release(&t);
}

TEST(platform_xen_boot_options)
{
	struct platform p;
	struct sbuf v = SBUF_INIT, why = SBUF_INIT;

	memset(&p, 0, sizeof(p));
	sbuf_set(&p.hv.xen_cmdline,
		 "dom0_mem=2048M vpmu=1 psr=cat psr=cmt,cat noreboot tbuf_size=64");
	CHECK(platform_xen_option(&p.hv, "vpmu", &v));
	CHECK_STR(sbuf_str(&v), "1");
	CHECK(platform_xen_option(&p.hv, "psr", &v));
	CHECK_STR(sbuf_str(&v), "cmt,cat");      /* the last one wins, as in Xen */
	CHECK(platform_xen_option(&p.hv, "noreboot", &v));
	CHECK_STR(sbuf_str(&v), "");
	CHECK(!platform_xen_option(&p.hv, "vpm", &v));
	CHECK(!platform_xen_option(&p.hv, "tbuf", NULL));
	/* psr=cmt present: PSR can serve */
	snprintf(p.cpu.vendor, sizeof(p.cpu.vendor), "GenuineIntel");
	p.cpu.known = true;
	CHECK(platform_xen_psr(&p, &why));
	sbuf_set(&p.hv.xen_cmdline, "psr=cat");
	CHECK(!platform_xen_psr(&p, &why));
	CHECK_CONTAINS(sbuf_str(&why), "psr=cmt");

	/* the vPMU modes: each reason names what would change it */
	p.hv.xen_dom0 = true;
	p.topo.from_xen = true;
	p.topo.n_cpus = 8;
	snprintf(p.hv.xen_pmu_mode, sizeof(p.hv.xen_pmu_mode), "self");
	platform_xen_pmu_why(&p, &why);
	CHECK_CONTAINS(sbuf_str(&why), "pmu_mode is 'self'");
	CHECK_CONTAINS(sbuf_str(&why), "echo all > /sys/hypervisor/pmu/pmu_mode");
	CHECK_CONTAINS(sbuf_str(&why), "takes the vPMU from every guest");
	CHECK_CONTAINS(sbuf_str(&why), "vmmprof never switches it");
	CHECK_CONTAINS(sbuf_str(&why), "dom0_max_vcpus=8 dom0_vcpus_pin");
	snprintf(p.hv.xen_pmu_mode, sizeof(p.hv.xen_pmu_mode), "all");
	platform_xen_pmu_why(&p, &why);
	CHECK_CONTAINS(sbuf_str(&why), "dom0_max_vcpus=8 dom0_vcpus_pin");
	CHECK(!strstr(sbuf_str(&why), "does not apportion"));
	/* 'all': dom0 with 2 vCPUs on 8 pCPUs, no dom0_vcpus_pin: not pinned 1:1 */
	sbuf_set(&p.hv.xen_cmdline, "vpmu=1 dom0=pvh,msr-relaxed");
	cpulist_parse(&p.dom0_topo.online, "0-1", NULL);
	platform_xen_pmu_why(&p, &why);
	CHECK_CONTAINS(sbuf_str(&why), "dom0 is not pinned 1:1 (2 vCPU(s) on 8 pCPUs, no dom0_vcpus_pin)");
	CHECK_CONTAINS(sbuf_str(&why), "dom0=msr-relaxed");
	CHECK_CONTAINS(sbuf_str(&why), "a zero count is not evidence");
	/* pinned: 8 vCPUs and the option; no msr-relaxed */
	sbuf_set(&p.hv.xen_cmdline, "vpmu=1 dom0_max_vcpus=8 dom0_vcpus_pin");
	cpulist_release(&p.dom0_topo.online);
	cpulist_parse(&p.dom0_topo.online, "0-7", NULL);
	platform_xen_pmu_why(&p, &why);
	CHECK_CONTAINS(sbuf_str(&why), "dom0 has one vCPU pinned on each of the 8 pCPUs");
	CHECK(!strstr(sbuf_str(&why), "msr-relaxed"));
	CHECK(!strstr(sbuf_str(&why), "does not apportion"));
	cpulist_release(&p.dom0_topo.online);
	p.hv.xen_pmu_mode[0] = '\0';
	sbuf_set(&p.hv.xen_pmu_reason, "Operation not supported");
	platform_xen_pmu_why(&p, &why);
	CHECK_CONTAINS(sbuf_str(&why), "Operation not supported");
	CHECK_CONTAINS(sbuf_str(&why), "add vpmu=1");
	sbuf_release(&v);
	sbuf_release(&why);
	platform_release(&p);
}

/*
 * platform_copy() is deep: the copy keeps every text, topology and PMU
 * after the original is released (ASan sees a use after free otherwise),
 * and a text set on the copy is not the original's.
 */
TEST(platform_copy_is_deep)
{
	struct platform p, c;
	struct vp_err err = { 0, "" };
	char *model_name, *role;
	int n_pmus, n_nodes;

	if (platform_probe(&p, test_data("root/skx-2s"), &err)) {
		CHECK_AT(__LINE__, 0, "%s", err.msg);
		return;
	}
	sbuf_set(&p.hv.xen_cmdline, "vpmu=1");
	platform_copy(&c, &p);
	model_name = xstrdup(sbuf_str(&p.cpu.model_name));
	role = xstrdup(sbuf_str(&p.hv.role_reason));
	n_pmus = p.n_pmus;
	n_nodes = p.topo.n_nodes;
	sbuf_set(&c.hv.xen_cmdline, "psr=cmt");
	CHECK_STR(sbuf_str(&p.hv.xen_cmdline), "vpmu=1");
	platform_release(&p);
	CHECK(strlen(model_name) > 0);
	CHECK_STR(sbuf_str(&c.cpu.model_name), model_name);
	CHECK_STR(sbuf_str(&c.hv.role_reason), role);
	CHECK_STR(sbuf_str(&c.hv.xen_cmdline), "psr=cmt");
	CHECK_INT(c.n_pmus, n_pmus);
	CHECK_INT(c.topo.n_nodes, n_nodes);
	CHECK(n_nodes == 2 && c.topo.nodes[1].cpus.n > 0);
	CHECK(c.n_pmus > 0 && c.pmus[0].name[0]);
	platform_release(&c);
	free(model_name);
	free(role);
}
