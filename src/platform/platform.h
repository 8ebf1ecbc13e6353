/* platform.h - what this machine is: CPU, hypervisor, topology, PMUs, permissions */
#ifndef VP_PLATFORM_H
#define VP_PLATFORM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cpulist.h"
#include "util/err.h"
#include "util/sbuf.h"

/*
 * The platform probe fills one struct platform from a root directory
 * ("/" live, a fixture tree in tests).  Every section has a `known` flag and,
 * when false, a reason; a missing file never fails the whole probe.
 */

/*
 * Text from outside (reasons built from error messages with paths, DMI and
 * cpuinfo strings, Xen's boot options, the kernel's PMU line) is held in
 * sbufs, whole: "" when never set, freed by platform_release(), copied by
 * platform_copy().  A char array is left only where its text is bounded:
 * PLAT_NAME (a directory entry), a CPUID string, a kernel token; each says so.
 * PLAT_STR is the size of a bounded working buffer.
 */
#define PLAT_STR 128
/* A name that is a sysfs directory entry (a PMU, a format field): at most
 * NAME_MAX bytes, so it is held whole, never cut. */
#define PLAT_NAME (NAME_MAX + 1)

enum hv_kind {
	HV_NONE = 0,  /* no hypervisor signature: bare metal (or hidden) */
	HV_KVM,
	HV_XEN,
	HV_HYPERV,
	HV_VMWARE,
	HV_BHYVE,
	HV_TCG,       /* QEMU software emulation ("TCGTCGTCGTCG") */
	HV_OTHER,
	HV_UNKNOWN,   /* could not tell */
};

enum plat_role {
	ROLE_UNKNOWN = 0,
	ROLE_NATIVE,  /* bare metal, no guests */
	ROLE_GUEST,   /* we run inside a VM */
	ROLE_HOST,    /* QEMU guests run here, or Xen dom0 */
};

enum pmu_class {
	PMU_CORE,        /* the CPU's core PMU ("cpu", "cpu_core", "armv8_pmuv3_0") */
	PMU_UNCORE,      /* uncore_*, amd_df, amd_l3, amd_umc_*, arm_cmn ... */
	PMU_SOFTWARE,    /* "software" */
	PMU_TRACEPOINT,  /* "tracepoint" */
	PMU_OTHER,       /* breakpoint, kprobe, uprobe, msr, power ... */
};

struct cpu_identity {
	bool known;
	struct sbuf reason;        /* when !known */
	char vendor[32];           /* "GenuineIntel", "AuthenticAMD", "ARM": a CPUID vendor (12 bytes) or a name of cpu.c's */
	int family, model, stepping; /* x86: display family/model; Arm: family = implementer, model = part, stepping = revision */
	struct sbuf model_name;
	char arch[16];             /* "x86_64", "aarch64": cpu.c's literals only */
	char pfm_pmu[64];          /* libpfm4 name of the detected core PMU ("skx", "amd64_fam19h_zen3"), "" if none;
	                            * every name in libpfm4's table fits (test_platform: pfm names) */
	struct sbuf pfm_desc;      /* libpfm4's description of it */
	struct sbuf pfm_source;    /* how pfm_pmu was found: libpfm4 detection, the model table, or why none */
	struct sbuf pfm_active;    /* live only: libpfm4's active PMUs ("perf, perf_raw"), "" otherwise */
	int n_cpus_listed;         /* "processor" entries in cpuinfo */
	bool flag_hypervisor;      /* cpuinfo flags hold "hypervisor" (CPUID.1:ECX[31]) */
	bool flag_cqm_llc;         /* cpuinfo flags: cqm_occup_llc (RDT LLC occupancy monitoring) */
	bool flag_cqm_mbm;         /* cpuinfo flags: cqm_mbm_total or cqm_mbm_local */
};

struct hypervisor {
	enum hv_kind kind;
	char signature[16];        /* CPUID 0x40000000 vendor string (12 bytes), "" when none */
	char sys_type[32];         /* /sys/hypervisor/type ("xen"), "" when absent: the kernel's token */
	struct sbuf dmi_vendor;    /* /sys/class/dmi/id/sys_vendor */
	struct sbuf dmi_product;   /* /sys/class/dmi/id/product_name */
	bool xen_dom0;             /* /proc/xen/capabilities holds "control_d" */
	char xen_pmu_mode[32];     /* /sys/hypervisor/pmu/pmu_mode, "" when unreadable: off, self, hv, all */
	struct sbuf xen_pmu_reason; /* why pmu_mode could not be read */
	enum plat_role role;
	struct sbuf role_reason;   /* evidence: "3 QEMU processes", "CPUID hypervisor bit" */
	int n_qemu;                /* QEMU processes found under /proc */
	bool known;                /* some hypervisor evidence could be read */
	struct sbuf reason;        /* when !known */
	struct sbuf signature_source; /* "cpuid", the fixture seam file, or why there is none */
	struct sbuf sys_properties; /* /sys/hypervisor/properties/capabilities, "" when absent */
	char xen_caps[64];         /* /proc/xen/capabilities, "" when absent: "control_d" or nothing */
	int n_qemu_kvm;            /* of n_qemu: run with KVM acceleration (cmdline) */
	int n_qemu_tcg;            /* of n_qemu: run with TCG (cmdline) */
	/* a Xen dom0: what `xl info -n` says of the hypervisor ("" when it could not be read) */
	char xen_version[32];      /* xen_version: "4.17.5": two numbers and Xen's extraversion (16 bytes) */
	char xen_scheduler[32];    /* xen_scheduler: "credit2": a name of Xen's schedulers */
	struct sbuf xen_cmdline;   /* xen_commandline: Xen's boot options (vpmu=, psr=, tbuf_size=) */
	struct sbuf xen_info_reason; /* dom0 only: why `xl info -n` could not be read, "" when read */
};

struct numa_node {
	int id;
	struct cpulist cpus;
	uint64_t mem_total;        /* bytes, from node meminfo */
	uint64_t mem_free;         /* bytes */
	bool mem_known;
};

struct cache_domain {          /* one last-level cache */
	int id;
	int level;                 /* 3 normally */
	uint64_t size;             /* bytes */
	struct cpulist cpus;
};

struct topology {
	bool known;
	struct sbuf reason;
	int n_cpus;                /* online CPUs */
	int n_packages;
	int n_cores;
	bool smt_on;
	struct cpulist online;
	int *cpu_package;          /* indexed by CPU id up to max_cpu, -1 if offline */
	int *cpu_node;             /* ditto: NUMA node of each CPU */
	int *cpu_core;             /* ditto: core id (SMT siblings share it) */
	int max_cpu;               /* size of the arrays above */
	int n_nodes;
	struct numa_node *nodes;   /* n_nodes, ascending id */
	int *distance;             /* n_nodes * n_nodes, row-major by node index; NULL if unknown */
	int n_llc;
	struct cache_domain *llc;  /* n_llc */
	uint64_t mem_total_sys;    /* /proc/meminfo MemTotal in bytes, 0 unknown */
	bool numa_sysfs;           /* /sys/devices/system/node exists (false: one node assumed) */
	struct sbuf node_note;     /* how nodes were found, or why they are assumed */
	struct sbuf distance_reason; /* when distance is NULL */
	struct sbuf llc_reason;    /* when n_llc is 0 */
	struct sbuf hwloc_note;    /* live: hwloc's view compared with sysfs; "" for fixture roots */
	int n_cpus_no_ids;         /* online CPUs whose package or core id is unreadable (then smt_on is a guess) */
	bool from_xen;             /* the machine's pCPUs and nodes from Xen (xl info -n), not this kernel's sysfs */
};

struct pmu_info {
	char name[PLAT_NAME];      /* sysfs directory name: "uncore_imc_0" */
	char family[PLAT_NAME];    /* instance-stripped: "uncore_imc" (same as name when single) */
	enum pmu_class cls;
	int type;                  /* /type, -1 unknown */
	struct cpulist cpumask;    /* /cpumask (uncore: one CPU per socket); empty if none */
	int n_events;              /* aliases under events/ */
	int n_formats;             /* fields under format/ */
};

struct pmu_family {            /* instances grouped: uncore_imc x 6 */
	char family[PLAT_NAME];
	enum pmu_class cls;
	int n_instances;
};

struct perm_info {
	bool known;
	int paranoid;              /* /proc/sys/kernel/perf_event_paranoid, INT_MIN unknown */
	bool is_root;              /* effective uid 0 */
	bool cap_perfmon;          /* CAP_PERFMON (or CAP_SYS_ADMIN) effective */
	bool cap_sys_admin;
	bool resctrl_supported;    /* "resctrl" in /proc/filesystems or /sys/fs/resctrl exists */
	bool resctrl_mounted;      /* /sys/fs/resctrl/info exists */
	bool resctrl_llc_occupancy;/* mon_features list these */
	bool resctrl_mbm_total;
	bool resctrl_mbm_local;
	struct sbuf resctrl_reason;
	bool cgroup_v2;            /* unified hierarchy available */
	struct sbuf cgroup_root;   /* "/sys/fs/cgroup" or "/sys/fs/cgroup/unified" */
	struct sbuf reason;        /* when !known (status unreadable) */
	struct sbuf paranoid_reason; /* when paranoid is INT_MIN */
	bool cgroup_v1;            /* some v1 controller hierarchy is mounted */
	struct sbuf cgroup_reason; /* when !cgroup_v2 */
	struct sbuf resctrl_features; /* mon_features, comma-separated, "" when none */
};

struct platform {
	char root[4096];           /* the root directory probed: PATH_MAX, a longer one is refused */
	struct cpu_identity cpu;
	struct hypervisor hv;
	struct topology topo;      /* the machine's: on a Xen dom0 Xen's (topo.from_xen) when xl could say */
	struct topology dom0_topo; /* topo.from_xen only: dom0's own view (its vCPUs and nodes, sysfs) */
	struct pmu_info *pmus;     /* every device under /sys/bus/event_source/devices */
	int n_pmus;
	struct pmu_family *families;
	int n_families;
	bool core_pmu;             /* a core PMU is present */
	struct sbuf core_pmu_reason; /* when absent: e.g. the kernel's "PMU not available due to virtualization" */
	char core_pmu_name[PLAT_NAME]; /* sysfs name of the first core PMU, "" when none */
	struct sbuf kernel_pmu_line; /* the kernel's "Performance Events: ..." line when found, "" otherwise */
	bool pmus_known;           /* the devices directory could be listed */
	struct sbuf pmus_reason;   /* when !pmus_known */
	struct perm_info perm;
};

/*
 * Probe the machine seen through root (NULL or "/" for this machine).
 * Fills *p (caller-owned storage; release with platform_release()).  Returns
 * a negative code only when root itself is unusable; every unreadable part
 * is recorded in the struct as unknown with its reason.
 */
int platform_probe(struct platform *p, const char *root, struct vp_err *err);
/* Free what *p holds (its sbufs, topologies, PMUs) and zero it; a zeroed struct is a no-op. */
void platform_release(struct platform *p);
/*
 * A deep copy of src into *dst (caller-owned storage, overwritten; release
 * with platform_release()): nothing in *dst points into src.
 */
void platform_copy(struct platform *dst, const struct platform *src);
/* The same for one topology (topology_release()). */
void topology_copy(struct topology *dst, const struct topology *src);

const char *hv_kind_name(enum hv_kind k);     /* "KVM", "Xen", "none" ... */
const char *plat_role_name(enum plat_role r); /* "host", "guest", "native", "unknown" */
const char *pmu_class_name(enum pmu_class c); /* "core", "uncore", ... */

/*
 * The libpfm4 core PMU table name for a CPU, from the model table in
 * cpu.c (used for fixture roots, and live when libpfm4 detects nothing):
 * "skx", "amd64_fam19h_zen3", "arm_n1" ...  NULL when no row matches.
 * For Arm, family is the implementer and model the part number.
 */
const char *platform_pfm_name(const char *vendor, int family, int model, int stepping);

/* One row of that table, for tests that check every name against libpfm4. */
struct pfm_map_row {
	const char *vendor;        /* "GenuineIntel", "AuthenticAMD", "ARM" */
	int family;                /* Arm: implementer */
	int model_lo, model_hi;    /* inclusive range; Arm: part */
	int stepping_lo, stepping_hi; /* inclusive; 0..15 when any */
	const char *pfm;           /* libpfm4 PMU name */
	const char *what;          /* "Skylake-SP" ... */
};
/* The rows (static storage) and their number. */
const struct pfm_map_row *platform_pfm_table(int *n);

/* The PMU named name, or NULL. */
const struct pmu_info *platform_find_pmu(const struct platform *p, const char *name);
/*
 * The CPUs this kernel schedules on (where perf and tracepoints count):
 * dom0's own vCPUs when topo is Xen's, else topo itself.
 */
const struct topology *platform_local_topo(const struct platform *p);

/*
 * Parse `xl info -n` (or `xl info`, which has no topology): *t gets Xen's
 * pCPUs (cpu_topology: core, socket, node), nodes with their memory
 * (numa_info: memsize, memfree in MiB) and distances; *h gets xen_version,
 * xen_scheduler and xen_commandline.  t is caller-owned storage, released
 * with topology_release().  VP_EPARSE when there is no cpu_topology section.
 */
int platform_xen_info_parse(const char *text, struct topology *t, struct hypervisor *h,
			    struct vp_err *err);
void topology_release(struct topology *t);

/*
 * A Xen boot option in hv.xen_cmdline ("vpmu", "psr", "tbuf_size"): true
 * when present, its value ("" for a bare flag) the whole text of val (may be NULL).
 */
bool platform_xen_option(const struct hypervisor *h, const char *name, struct sbuf *val);
/*
 * Why a Xen dom0 cannot count hardware events per domain, naming the boot
 * option or `pmu_mode` that would change it (docs/xen.md): the whole text of buf.
 * true when it can: pmu_mode 'all' and dom0 pinned 1:1 (buf says so).
 */
bool platform_xen_pmu_why(const struct platform *p, struct sbuf *buf);
/*
 * Whether Xen's PSR monitoring (xl psr-cmt-*) can serve: psr=cmt on Xen's
 * command line.  why (its whole text) gets the evidence, or what would enable it.
 */
bool platform_xen_psr(const struct platform *p, struct sbuf *why);
/*
 * On a Xen dom0, what would let factor f (an enum factor_id) be measured
 * per domain there: Xen PSR (psr=cmt), the vPMU (vpmu=1, pmu_mode 'all',
 * dom0 pinned 1:1) or nothing reachable from dom0 (the uncore); one line
 * appended to buf.  false (nothing appended) off a dom0 and for locality, whose reason
 * depends on what the model computes (the coverage table says it).
 */
bool platform_xen_factor_why(const struct platform *p, int f, struct sbuf *buf);

/* Index of node id in topo.nodes, or -1. */
int topology_node_index(const struct topology *t, int node_id);
/* NUMA node of CPU cpu, or -1. */
int topology_cpu_node(const struct topology *t, int cpu);

#endif
