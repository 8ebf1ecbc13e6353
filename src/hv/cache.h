/* cache.h - what hv_cache keeps between scans (hv.h): shared by hv.c and the KVM adapter */
#ifndef VP_HV_CACHE_H
#define VP_HV_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hv/hv.h"

struct kvm_thread {             /* one thread of a QEMU process */
	int tid;
	int index;                  /* vCPU number from its name, -1 another thread */
	char acc[16];               /* "KVM", "TCG": the name's suffix */
	uint64_t first_ns;          /* the scan that first listed it */
	uint64_t named_ns;          /* when its name was last read (not a vCPU: looked at again) */
	uint64_t slow_ns;           /* when its affinity was read, 0 never */
	uint64_t cg_ns;             /* when its cgroup was read, 0 never (thread_cgroup_due()) */
	struct cpulist affinity;    /* Cpus_allowed_list then */
	bool have_affinity;
	char *cgroup;               /* its cgroup when not its VM's, NULL */
	/* schedstat: read with stat (at every scan, or every stat_ns with a CPU source); its
	 * run and wait reported as totals that advance by what each scan read, or between
	 * reads by the rates over the last two reads (hv_vcpu.sched_window_ns) */
	uint64_t ss_read_ns;        /* when last read, 0 never */
	uint64_t ss_run, ss_wait;   /* what it said then */
	double rate_run, rate_wait; /* ns per ns over the window ending then */
	uint64_t ss_window_ns;      /* that window, 0 not known yet (one read) */
	uint64_t acc_run, acc_wait; /* the totals reported (hv_vcpu.run_ns, wait_ns) */
	uint64_t scan_ns;           /* the previous scan that reported them, 0 none */
	/* a vCPU's stat and schedstat kept open (hv_cache_opts.keep_fds): one pread each a scan */
	int fd_stat, fd_sched;
	bool have_fds;
	/* its stat when last read (hv_cache_opts.stat_ns with a CPU source): at stat_ns */
	uint64_t stat_ns;
	char state;
	uint64_t ticks;             /* utime + stime */
	int io;                     /* 1 + enum hv_io_kind: an I/O thread (its stat read at every
				       scan), 0 not one */
	int io_id;                  /* its IOThread number, -1 none */
};

struct kvm_proc {               /* one process of /proc */
	int pid;
	uint64_t start_ticks;       /* the incarnation (QEMU only) */
	bool qemu;
	uint64_t first_ns, checked_ns; /* first listed; last looked at (not QEMU) */
	/* QEMU: what its command line and cgroup say (read once, the cgroup every slow_ns) */
	char **argv;
	size_t argc;
	char *name, *name_source, *uuid, *cgroup, *cgroup_dir;
	int cgroup_version;
	uint64_t cg_ns;
	uint64_t cg_changed_ns;     /* when its cgroup last read differently, 0 never */
	struct kvm_thread *th;      /* ascending tid */
	size_t n_th, cap_th;
	int num_threads;            /* the leader's stat when the threads were listed */
	int fd_lstat;               /* the leader thread's stat kept open (QEMU, keep_fds) */
	bool have_lfd;
	uint64_t list_ns;
	bool relist;                /* a vCPU thread went, or one is not named yet */
	/* numa_maps */
	uint64_t mem_ns, mem_cost_ns;
	bool have_mem;
	uint64_t *mem_node;
	int n_mem_nodes;
	uint64_t mem_size;
	char mem_reason[160];
	/* paused or running */
	int paused;
	char state_source[96];
	uint64_t state_ns;
	bool state_asked, state_failed;
	bool xml_known;             /* libvirt's status file was read: its stat below */
	struct timespec xml_mtime;
	off_t xml_size;
	char *alias, *alias_source; /* what libvirt's status said with it (read_run_state()) */
	char *xml_uuid;             /* the uuid from libvirt's status, when the command line has none */
	struct hv_pcidev *pci;      /* passthrough devices: from argv and sysfs, read once */
	size_t n_pci;
	struct hv_vnode *vnodes;    /* virtual NUMA nodes from argv (their pages: with numa_maps) */
	size_t n_vnodes;
	/* not QEMU: a kernel thread "vhost-PID", the vhost worker of QEMU PID (0 none) */
	int vhost_of;
	bool kthread;               /* a kernel thread past its first YOUNG_NS that is not one: its
				       name is set once, so it is not looked at again */
	struct cpulist vh_aff;      /* its affinity, read every slow_ns */
	uint64_t vh_aff_ns;
	uint64_t run_prev;          /* the vCPUs' run time in the previous interval */
	bool have_run_prev;
};

struct hv_cache {
	struct hv_cache_opts o;
	struct hv_cpu_source cpu_src; /* cpu_of NULL: none */
	size_t n_fds;               /* descriptors kept open (keep_fds) */
	size_t n_qemu;              /* QEMU processes at the last scan (numa_maps' budget) */
	struct kvm_proc *p;         /* ascending pid */
	size_t n, cap;
	/* hv_scan_vms_shared() */
	struct hv_vm_list last;
	bool have_last;
	uint64_t last_ns, last_gen;
	struct hv_ctx last_ctx;     /* its root: last_root (a consumer's root goes with it) */
	const uint64_t *last_by;    /* the consumer that made it (its seen), compared only */
	uint64_t first_ns;          /* the first scan: copies are kept for share_keep_ns after */
	uint64_t keep_until_ns;     /* a copy is kept until then: a consumer shared one, or
				       missed one it could have shared, share_keep_ns before */
	char *last_root;
	struct xen_cache *xen;      /* the Xen adapter's copies of xl's outputs (xen.c), NULL none */
};

void kvm_cache_release(struct hv_cache *c);
void xen_cache_release(struct hv_cache *c);

#endif
