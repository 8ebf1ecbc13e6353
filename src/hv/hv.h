/* hv.h - hypervisor adapters: the VMs (or processes) of a host with their vCPUs (or threads) */
#ifndef VP_HV_H
#define VP_HV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"
#include "util/cpulist.h"
#include "util/err.h"

/*
 * Every adapter fills the same structs, so attribution, `list vms` and `top`
 * never ask which hypervisor they are looking at.  All reading goes through
 * ctx->root; a fact an adapter cannot know is marked (-1, NaN, NULL) and,
 * where a user would ask, given a reason.
 */

enum hv_adapter_id {
	HVA_KVM,       /* QEMU processes (KVM or TCG), with or without libvirt */
	HVA_XEN,       /* Xen domains seen from dom0 through xl */
	HVA_GUEST,     /* this machine is a VM: itself, as its virtual CPUs and nodes */
	HVA_NATIVE,    /* bare-metal processes and their threads */
};

struct hv_vcpu {
	int index;                 /* vCPU number (thread: its position), -1 unknown */
	int tid;                   /* host thread id; -1 under Xen */
	int cpu;                   /* CPU it runs on or last ran on, -1 unknown */
	int node;                  /* NUMA node of cpu, -1 unknown */
	struct cpulist affinity;   /* hard affinity (Cpus_allowed_list, xl "Hard") */
	struct cpulist soft_affinity; /* Xen soft affinity; empty elsewhere */
	bool affinity_all;         /* xl printed "all" */
	bool soft_all;
	char state[8];             /* task state letter, or xl's "r--"/"-b-"/"--p" */
	double cpu_time_s;         /* CPU time consumed (utime + stime; xl Time(s)), NaN unknown */
	uint64_t run_ns;           /* schedstat run time when read, 0 otherwise */
	uint64_t wait_ns;          /* schedstat run-queue wait, with run_ns */
	bool have_run_ns;
	uint64_t sched_window_ns;  /* 0: run_ns and wait_ns were read at this scan (their change
				      since the previous scan is exact); else they were not: both
				      advanced at their mean rates over this window, the last
				      two reads of schedstat (hv_cache_opts.stat_ns: KVM with a
				      CPU source reads it every 5 s) */
	char *cgroup;              /* the vCPU's own cgroup (libvirt .../vcpuN), NULL none */
	char *comm;                /* thread name ("CPU 0/KVM"), NULL under Xen */
	/* NUMA hinting faults (kernel NUMA balancing), filled by vms_scan(), not the adapters */
	double *fault_share;       /* per node id, shares summing to 1; NULL: see fault_why */
	int n_fault_nodes;
	int fault_pref_node;       /* the kernel's numa_preferred_nid; -1 none or unknown */
	char *fault_why;           /* why fault_share is NULL; NULL when known or not read */
	/* Xen with hv_ctx.xen_trace: seconds run on each pCPU during the trace (by pCPU id) */
	double *trace_pcpu_s;      /* NULL: not traced (the VM's trace_reason says why) */
	int n_trace_pcpus;
	bool ended;                /* the collector's mark: gone since its previous scan of a VM
				      still there (its last interval is shown once); adapters
				      leave it false */
};

/* A PCI device passed through to a guest (VFIO): its DMA and interrupts come from its node. */
struct hv_pcidev {
	char *addr;                /* "0000:03:00.0" */
	char *kind;                /* from its sysfs class (PCI base class names): "network
				      controller", "storage controller", "display controller",
				      "processing accelerator", else "PCI device" */
	int node;                  /* its sysfs numa_node; -1 when the platform does not say */
};

/*
 * A thread beside the vCPUs that moves the VM's I/O (KVM): where it runs
 * decides which node the guest's virtqueues, the data it copies and the
 * notifications to the vCPUs cross.
 */
enum hv_io_kind {
	HV_IO_MAIN,                /* QEMU's main loop, the thread whose id is the pid (libvirt's
				      emulator thread; also its I/O without IOThreads) */
	HV_IO_IOTHREAD,            /* an IOThread (-object iothread,id=X): QEMU names it "IO X" */
	HV_IO_VHOST,               /* a vhost worker (vhost-net, vhost-scsi) of this QEMU, named
				      "vhost-PID": a kernel thread before Linux 6.4, a thread of
				      the QEMU process from 6.4 on */
};

struct hv_iothread {
	enum hv_io_kind kind;
	int tid;                   /* its thread id (a vhost kernel thread: its own pid) */
	int id;                    /* IOThread: N of libvirt's "iothreadN" (virsh iothreadpin's
				      number); -1 otherwise or another id */
	char *name;                /* its thread name ("IO iothread1", "vhost-4242") */
	int cpu;                   /* CPU it runs on or last ran on, -1 unknown */
	int node;                  /* that CPU's node, -1 unknown */
	struct cpulist affinity;   /* Cpus_allowed_list; empty unknown */
	double cpu_time_s;         /* CPU time consumed, NaN unknown */
};

/*
 * A virtual NUMA node of a KVM guest (QEMU -numa node,...,memdev=ID with its
 * -object memory-backend-*,id=ID; libvirt writes its <numa> cells so).
 */
struct hv_vnode {
	int id;                    /* the guest's node id (nodeid=) */
	struct cpulist vcpus;      /* its vCPU indices (cpus=) */
	char *memdev;              /* the memory backend's id; NULL none (legacy mem=, or no memory) */
	uint64_t size;             /* the backend's size in bytes; 0 unknown */
	char *policy;              /* the backend's policy= ("bind", "preferred", "interleave"),
				      "default" when it sets none */
	struct cpulist host_nodes; /* its host-nodes=; empty: none given */
	uint64_t *mem_node;        /* its resident bytes per host node id (numa_maps, the mapping
				      of the backend's size): NULL when not identified */
	int n_mem_nodes;
	char *mem_why;             /* how mem_node was found, or why not; NULL not read */
};

struct hv_vm {
	enum hv_adapter_id adapter;
	char *name;
	char *name_source;         /* "cmdline", "libvirt cgroup", "xl", "pid", ... */
	char *uuid;                /* NULL when unknown */
	char *alias;               /* the name its users know it by, where the orchestrator's
				      name differs: OpenStack Nova's instance name, KubeVirt's
				      VMI name; NULL none */
	char *alias_source;        /* where alias came from ("OpenStack Nova metadata") */
	int pid;                   /* QEMU (or process) pid, -1 under Xen */
	int domid;                 /* Xen domain id, -1 elsewhere */
	char *accel;               /* "kvm", "tcg", "pv", "hvm", "pvh"; NULL unknown */
	char *cgroup;              /* VM cgroup path, relative to its hierarchy ("/machine.slice/..."), NULL none */
	char *cgroup_dir;          /* that cgroup's directory as seen from root, for perf -G; NULL none */
	int cgroup_version;        /* 2 or 1; 0 when none */
	struct hv_vcpu *vcpus;     /* ascending index */
	size_t n_vcpus;
	size_t cap_vcpus;          /* vcpus' room (hv_vm_add_vcpus() grows it by half); code
				      that gives vcpus an array of its own sets it too */
	char vcpu_reason[160];     /* how vCPUs were found, or why not */
	int *other_tids;           /* threads that are not vCPUs (emulator, I/O) */
	size_t n_other;
	uint64_t *mem_node;        /* resident guest RAM per host node, bytes (indexed by node id) */
	int n_mem_nodes;           /* 0 when unknown: see mem_reason */
	uint64_t mem_size;         /* configured guest RAM, bytes; 0 when unknown */
	char mem_reason[160];      /* why mem_node is unknown, or what it counts */
	struct cpulist node_affinity; /* Xen node affinity; empty when unknown */
	bool dom0;                 /* Xen Domain-0 (listed, but it is the host) */
	int vpmu;                  /* guest adapter: 1 a (virtual) core PMU, 0 none, -1 unknown */
	char *hypervisor;          /* guest adapter: who runs us ("KVM", "Xen"), NULL unknown */
	char *trace_reason;        /* Xen with xen_trace: what the trace gave, or why none; NULL not asked */
	double trace_s;            /* the trace's length (first to last stamp), s; 0 none */
	/* Xen with hv_ctx.xen_psr: Intel CMT/MBM through xl psr-cmt-*, summed over sockets; NaN n/a */
	double psr_llc_bytes;      /* LLC occupancy */
	double psr_mbm_bps;        /* memory bandwidth, bytes/s (xl's 10 ms sample) */
	double psr_mbm_local_bps;  /* of it, to the local node */
	char *psr_reason;          /* what was measured, or why not; NULL not asked */
	/* lifecycle (issue 20): which incarnation this is, and whether it runs */
	uint64_t start_ticks;      /* the process's start, clock ticks after boot (/proc/PID/stat
				      field 22): with pid, one incarnation; 0 unknown (Xen) */
	int paused;                /* 1 paused or suspended (it has no guest time to rate),
				      0 running, -1 not known (no state source for it) */
	char state_source[96];     /* where paused came from ("libvirt domain state 'paused'
				      (user)"), "" when not known */
	struct hv_pcidev *pci;     /* devices passed through (kvm_pci_from_cmdline()); NULL none */
	size_t n_pci;
	struct hv_iothread *io;    /* KVM: its main loop, IOThreads and vhost workers (by kind,
				      then tid); NULL none found */
	size_t n_io;
	struct hv_vnode *vnodes;   /* KVM: the guest's virtual NUMA nodes (by id); NULL none */
	size_t n_vnodes;
};

/* "main loop", "IOThread", "vhost" */
const char *hv_io_kind_name(enum hv_io_kind k);
/* Owned copies (NULL for none), and their release. */
struct hv_iothread *hv_iothreads_dup(const struct hv_iothread *t, size_t n);
void hv_iothreads_free(struct hv_iothread *t, size_t n);
struct hv_vnode *hv_vnodes_dup(const struct hv_vnode *v, size_t n);
void hv_vnodes_free(struct hv_vnode *v, size_t n);

/* Owned copies of n devices (NULL for none); hv_pcidevs_free() releases them. */
struct hv_pcidev *hv_pcidevs_dup(const struct hv_pcidev *d, size_t n);
void hv_pcidevs_free(struct hv_pcidev *d, size_t n);

/*
 * Whether NAME names VM: its name, its alias (Nova's or KubeVirt's name) or its
 * uuid.  The one test behind every --vm NAME.
 */
bool hv_vm_is_named(const struct hv_vm *vm, const char *name);

/* Owned by the caller: hv_vm_list_release(). */
struct hv_vm_list {
	struct hv_vm *vms;
	size_t n;
	size_t cap;
	char notes[512];           /* what an adapter could not do ("xl: not found") */
};

/*
 * Command runner used by the Xen adapter.  run() executes argv and returns
 * its standard output (heap string) in *out.  NULL means the default:
 * exec on a live root ("/"), and on any other root read the captured output
 * from ROOT/.vmmprof-fixture/<argv[0]>/<name> where name joins argv[1..]
 * with '-' and adds ".txt" ("xl list -l" -> xl/list-l.txt).
 */
struct hv_exec {
	int (*run)(void *arg, const char *root, const char *const *argv, char **out,
		   struct vp_err *err);
	void *arg;
};

/*
 * Opt-in: Xen's page counts per node for every domain.  Xen prints them only
 * through its 'u' debug key, into the hypervisor's console ring: the adapter
 * runs `xl debug-keys u` (at most every every_ns) and reads the newest dump
 * back from `xl dmesg` at each scan.  Each dump adds lines for every domain
 * to that ring (pushing older messages out) and, in Xen 4.17, walks every
 * page of every domain, so it is off unless asked for.  Caller-owned; the
 * scan updates last_ns.
 */
struct hv_xen_numa {
	uint64_t every_ns;              /* minimum time between dumps; 0: every scan */
	uint64_t last_ns;               /* when the last dump was asked for, 0 never */
};

/*
 * Opt-in: exact residency from Xen's trace.  The Xen adapter runs
 * `xentrace -D -e 0x00021000 -T SECS FILE` (runstate changes only) during
 * the scan, which then lasts SECS, and gives each vCPU its run time per
 * pCPU (source/xentrace.h).  xentrace uses Xen's trace buffers as they
 * are: Xen sizes them once (boot option tbuf_size=, or a first `xentrace
 * -S PAGES`) and never frees them, so vmmprof never sizes them itself.
 * On a fixture root the trace is ROOT/.vmmprof-fixture/xentrace/trace.bin.
 */
struct hv_xen_trace {
	unsigned secs;                  /* how long to trace, >= 1 */
};

/*
 * hv_ctx.xen_psr: Xen's per-domain LLC occupancy and memory bandwidth
 * (source/xen_psr.h).  Only when Xen booted with psr=cmt (platform says so;
 * otherwise nothing runs and each domain says why): `xl psr-hwinfo`, then
 * `xl psr-cmt-attach` for each domain not attached yet, the three `xl
 * psr-cmt-show` reads, and `xl psr-cmt-detach` of exactly those it
 * attached, before the scan returns.
 */

/*
 * The periodic views' PSR (top, diagnose, record, the daemon with --xen-psr
 * / xen_psr = on): a domain is attached once, when a scan first sees it,
 * and stays attached for the run, so its occupancy is what it holds (not
 * what it refilled since an attach just before the read); every scan runs
 * the three `xl psr-cmt-show` reads (their bandwidth is xl's 10 ms sample at
 * that moment).  hv_xen_psr_stop() detaches exactly the domains vmmprof
 * attached.  `xl psr-hwinfo` runs once.  Caller-owned; one per host (the
 * daemon shares one under the sessions' lock).
 */
struct hv_xen_psr;
struct hv_ctx;
struct hv_xen_psr *hv_xen_psr_new(void);
/* Detach what it attached (through ctx's runner; ctx NULL: live xl) and free it. */
void hv_xen_psr_stop(struct hv_xen_psr *p, const struct hv_ctx *ctx);
/* The domids it has attached so far (for tests and notes). */
size_t hv_xen_psr_attached(const struct hv_xen_psr *p, const int **domids);
struct hv_cache;

struct hv_ctx {
	const char *root;               /* "/" or NULL live; a fixture tree in tests */
	const struct platform *plat;    /* topology for CPU -> node; may be NULL */
	const struct hv_exec *exec;     /* NULL: hv_exec_default */
	struct hv_xen_numa *xen_numa;   /* NULL: no Xen page dumps (the default) */
	const struct hv_xen_trace *xen_trace; /* NULL: residency sampled (the default) */
	bool xen_psr;                   /* Xen PSR per domain: attach, read, detach (opt-in) */
	struct hv_xen_tracer *xen_tracer; /* a running xentrace (periodic views); NULL none */
	struct hv_xen_psr *xen_psr_run; /* PSR attached for a run (periodic views); NULL: per
					   scan with xen_psr, or none */
	struct hv_cache *cache;         /* what the KVM adapter keeps between a periodic caller's
					   scans (hv_cache_new()); NULL: everything read afresh */
};

/*
 * What a periodic caller (top, the collector's hub, the daemon) keeps between
 * scans, so that watching a host costs what changed on it, not its size
 * (issue 22).  The KVM adapter then:
 *  - lists /proc at every scan but reads only the processes it has not seen
 *    (a process that is not QEMU is looked at again while it is young, for
 *    the exec of a fork, and then every recheck_ns);
 *  - follows a QEMU process by its leader thread's stat (an exit or a new
 *    incarnation, pid + start, ends the entry) and lists its threads again
 *    only when their number changed, a vCPU thread went, or every recheck_ns;
 *  - reads each vCPU thread's stat and schedstat at every scan, or every
 *    stat_ns when a CPU source says where it runs (its run time and run-queue
 *    wait then advance at their rates over the last two reads, and say so:
 *    hv_vcpu.sched_window_ns) (through descriptors kept open: keep_fds), its
 *    affinity
 *    (status) and cgroup every slow_ns;
 *  - reads numa_maps (which walks the guest's page tables) at most every
 *    mem_min_ns, and each VM's so seldom that all VMs' reads together take
 *    1/mem_cost_x of a core (its read time x mem_cost_x x VMs), and says so in
 *    the VM's mem_reason (at every scan while it finds no guest RAM: a QEMU
 *    that is starting);
 *  - reads libvirt's status XML only when its mtime or size changed, and asks
 *    QMP again when the vCPUs' run time changed by a factor of 4 (a pause, a
 *    resume) or every state_ns; a monitor that did not answer every 30 s.
 * All zero (hv_cache_new() on a fixture tree): everything read at every scan.
 * Not thread-safe: one caller at a time (the daemon's sessions' lock).
 */
struct hv_cache_opts {
	uint64_t recheck_ns;            /* default 3 s */
	uint64_t slow_ns;               /* default 10 s */
	uint64_t mem_min_ns;            /* default 10 s */
	unsigned mem_cost_x;            /* default 5000: the numa_maps of all VMs take at most
					   0.02 % of a core together */
	uint64_t state_ns;              /* default 2 s */
	uint64_t share_ns;              /* hv_scan_vms_shared(): a scan this recent is shared by
					   the next consumer, default 250 ms */
	bool keep_fds;                  /* keep each vCPU thread's stat and schedstat open between
					   scans (at most a quarter of RLIMIT_NOFILE's hard
					   limit; the rest is the counters'), default on */
	uint64_t stat_ns;               /* with a CPU source (hv_cache_set_cpu_source()) and
					   keep_fds: a vCPU's stat (state, CPU time, name) and
					   schedstat every stat_ns (after two reads a scan apart),
					   its CPU from the source at the other scans, its run
					   time and run-queue wait advanced at their rates over
					   the last two reads (hv_vcpu.sched_window_ns); default
					   5 s (0: both at every scan) */
	uint64_t share_keep_ns;         /* hv_scan_vms_shared() keeps a copy of each scan for
					   the next consumer in the first share_keep_ns, and
					   then only while others took (or just missed) one in
					   the last share_keep_ns: a sole consumer (record, one
					   daemon session) pays for no copy; default 10 s (0:
					   a copy of every scan) */
};
/*
 * Where a vCPU thread runs, known without reading its stat: the context-switch
 * recorder a periodic caller has open (schedtrace_cpu()).  begin() is called
 * once at the start of a scan (bring the source up to now), cpu_of() for each
 * vCPU thread: its CPU, or -1 not known (then its stat is read).
 */
struct hv_cpu_source {
	void (*begin)(void *arg);
	int (*cpu_of)(void *arg, int tid);
	void *arg;
};
/* Set (or with NULL clear) c's CPU source; copied. */
void hv_cache_set_cpu_source(struct hv_cache *c, const struct hv_cpu_source *src);
/* The defaults on a live root, all zero on a fixture tree (vp_root_is_fixture()). */
struct hv_cache *hv_cache_new(const char *root);
struct hv_cache *hv_cache_new_opts(const struct hv_cache_opts *o);
void hv_cache_free(struct hv_cache *c);
/*
 * hv_scan_vms() through c, shared: a scan made for another consumer less
 * than share_ns ago with the same context is copied instead of made again
 * (top and its collector, the daemon's sessions and top streams).  *seen is
 * the consumer's own (0 at first): never the same scan twice, so each of
 * its intervals has a scan of its own.  A scan is kept for others only while
 * there are others (share_keep_ns); one that comes after a while alone makes
 * its own first scan, and its scans are kept from then on.
 */
int hv_scan_vms_shared(const struct hv_ctx *ctx, struct hv_cache *c, uint64_t *seen,
		       struct hv_vm_list *out, struct vp_err *err);
/* Deep copy of a list into *dst (released or zeroed before). */
void hv_vm_list_copy(struct hv_vm_list *dst, const struct hv_vm_list *src);

/*
 * A running xentrace for the periodic views (top, diagnose, record, the
 * daemon): started once, read at every scan without blocking (it writes
 * into a pipe; src/hv/xen_tracer.c), stopped at the end, when xentrace
 * turns Xen's tracing off again.  At each scan every Xen vCPU gets its run
 * time per pCPU since the start (hv_vcpu.trace_pcpu_s) and each domain a
 * trace_reason: what the trace holds, or why there is none (xentrace
 * missing or failed, with its own error and the tbuf_size= advice; no
 * record yet; no cpu_mhz).  Like `list vms --xentrace` it never sizes
 * Xen's buffers.  Only one may run on a host: Xen's buffers are one.
 */
struct hv_xen_tracer;
/* Always gives *t; a start that failed returns its code and leaves *t failed, saying why. */
int hv_xen_tracer_start(struct hv_xen_tracer **t, const char *root, struct vp_err *err);
/* Read what xentrace wrote since; fill out's Xen domains (from first).  -1 once it failed. */
int hv_xen_tracer_read(struct hv_xen_tracer *t, double tsc_hz, struct hv_vm_list *out,
		       size_t first);
const char *hv_xen_tracer_why(const struct hv_xen_tracer *t); /* "" while it works */
bool hv_xen_tracer_lost(const struct hv_xen_tracer *t);     /* Xen lost records */
void hv_xen_tracer_stop(struct hv_xen_tracer *t);
/*
 * Whether a xentrace already runs on this host (a process named xentrace
 * in ROOT/proc/PID/stat, not an exited one): its pid, 0 none.  Xen's trace buffers are one
 * per host and every reader consumes what it reads, so two xentraces split
 * the records between them and neither trace is whole: the tracers refuse
 * to start a second one (-EBUSY, the error names the pid).
 */
int hv_xentrace_running(const char *root);
int hv_xentrace_refuse(const char *root, struct vp_err *err);
/*
 * How a scan's Xen domains' residency per node is known, for the notes:
 * exact from the trace, or sampled and why (t NULL: not asked for).  ""
 * when l has no Xen domain but dom0.
 */
void hv_xen_residency_note(const struct hv_vm_list *l, const struct hv_xen_tracer *t, char *buf,
			   size_t size);

const char *hv_adapter_name(enum hv_adapter_id a); /* "kvm", "xen", "guest", "native" */

/*
 * Each adapter appends what it finds to *out.  They return 0 when there is
 * simply nothing (no QEMU process, no xl), and a negative code only when a
 * source that exists cannot be read or parsed.
 */
int hv_kvm_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err);
int hv_xen_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err);
int hv_guest_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err);
/* Native: the processes in pids (all processes when n_pids == 0). */
int hv_native_scan(const struct hv_ctx *ctx, const int *pids, size_t n_pids,
		   struct hv_vm_list *out, struct vp_err *err);

/*
 * The VMs of this host: KVM/QEMU processes, and Xen domains when this is a
 * Xen dom0 (platform says so, or xl's captured outputs are in the fixture).
 */
int hv_scan_vms(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err);

/*
 * Whether every name in names[0..n) is a VM of this host (hv_scan_vms(),
 * Xen's dom0 left out).  0 when all are; -ENOENT with err naming the first
 * missing one and the VMs there are ("no VM named 'x' here; VMs here: web1,
 * db1" or "no VM named 'x' here: no VM found"); another negative code when
 * the scan fails.  With need_vcpus, a VM counts as there only once it has
 * a vCPU thread (a QEMU that is starting has none for a moment).
 */
int hv_vms_check_names(const struct hv_ctx *ctx, const char *const *names, size_t n,
		       bool need_vcpus, struct vp_err *err);

void hv_vm_list_release(struct hv_vm_list *l);
/* Append an empty VM (fields marked unknown) and return it. */
struct hv_vm *hv_vm_list_add(struct hv_vm_list *l, enum hv_adapter_id a);
/* Append an empty vCPU to vm and return it. */
struct hv_vcpu *hv_vm_add_vcpu(struct hv_vm *vm);
/* Append n empty vCPUs with one allocation; the first of them (valid until the next add). */
struct hv_vcpu *hv_vm_add_vcpus(struct hv_vm *vm, size_t n);
/* Resident bytes on node, 0 when unknown or none; total over nodes. */
uint64_t hv_vm_mem_total(const struct hv_vm *vm);
/* The VM with this name, or NULL. */
const struct hv_vm *hv_vm_list_find(const struct hv_vm_list *l, const char *name);

/* NUMA node of cpu per ctx->plat, -1 when unknown. */
int hv_cpu_node(const struct hv_ctx *ctx, int cpu);

/* Run argv through ctx->exec (or the default runner). */
int hv_run(const struct hv_ctx *ctx, const char *const *argv, char **out, struct vp_err *err);

/* Shared by the process-based adapters (kvm, native): one thread's placement. */
void hv_read_thread(const struct hv_ctx *ctx, int pid, int tid, struct hv_vcpu *v);

#endif
