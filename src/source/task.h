/* task.h - processes and threads in procfs: stat, schedstat, status, cgroup, cmdline */
#ifndef VP_TASK_H
#define VP_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cpulist.h"
#include "util/err.h"

/* /proc/PID/task/TID/stat, the fields we use. */
struct task_stat {
	int tid;
	char comm[64];          /* may hold spaces and parentheses ("CPU 0/KVM") */
	char state;             /* 'R', 'S', 'D', ... */
	int ppid;
	uint64_t utime, stime;  /* clock ticks */
	uint64_t starttime;     /* clock ticks after boot */
	int num_threads;
	int processor;          /* CPU it last ran on */
};

/* /proc/PID/task/TID/schedstat. */
struct task_schedstat {
	uint64_t run_ns;        /* time on a CPU */
	uint64_t wait_ns;       /* time runnable, waiting for a CPU */
	uint64_t timeslices;
};

/* /proc/PID/task/TID/status, the fields we use.  Owned: task_status_release(). */
struct task_status {
	char name[64];
	int tgid;
	struct cpulist cpus_allowed;   /* Cpus_allowed_list */
	struct cpulist mems_allowed;   /* Mems_allowed_list */
	bool have_cpus, have_mems;
};

/* Cgroup membership from /proc/PID/task/TID/cgroup.  Owned: task_cgroup_release(). */
struct task_cgroup {
	char *unified;          /* the "0::" line's path (cgroup v2), NULL if absent */
	char *v1_cpu;           /* the v1 hierarchy holding cpu (or cpuacct), NULL if absent */
	char *v1_perf_event;    /* the v1 perf_event hierarchy, NULL if absent */
	char *v1_cpuset;
	char *v1_systemd;       /* name=systemd */
};

/*
 * Each reader takes pid and tid: tid <= 0 reads the process's own file
 * (/proc/PID/stat), otherwise /proc/PID/task/TID/...
 */
int task_stat_read(const char *root, int pid, int tid, struct task_stat *out,
		   struct vp_err *err);
int task_schedstat_read(const char *root, int pid, int tid, struct task_schedstat *out,
			struct vp_err *err);
int task_status_read(const char *root, int pid, int tid, struct task_status *out,
		     struct vp_err *err);
void task_status_release(struct task_status *st);
int task_cgroup_read(const char *root, int pid, int tid, struct task_cgroup *out,
		     struct vp_err *err);
void task_cgroup_release(struct task_cgroup *cg);

/*
 * The same two files through a descriptor kept open (a periodic reader's:
 * src/hv/kvm.c's scan cache).  A read at offset 0 of a procfs file makes it
 * again, so each read is one pread() instead of a path lookup, open, reads
 * and close.  task_file_open() returns the descriptor (O_CLOEXEC) or a
 * negative errno; the readers fail with -ESRCH once the thread is gone.
 */
int task_file_open(const char *root, int pid, int tid, const char *file);
int task_stat_fd(int fd, struct task_stat *out, struct vp_err *err);
int task_schedstat_fd(int fd, struct task_schedstat *out, struct vp_err *err);

/* Parsers of the files' text (for tests and fuzzers). */
int task_stat_parse(const char *text, struct task_stat *out, struct vp_err *err);
int task_schedstat_parse(const char *text, struct task_schedstat *out, struct vp_err *err);
void task_cgroup_parse(const char *text, struct task_cgroup *out);

/* Thread ids of a process (/proc/PID/task), ascending; free() *tids. */
int task_list(const char *root, int pid, int **tids, size_t *n, struct vp_err *err);
/* Process ids (/proc/[0-9]*), ascending; free() *pids. */
int proc_list(const char *root, int **pids, size_t *n, struct vp_err *err);

/*
 * The command line of a process as a NULL-terminated argv (heap array of
 * heap strings; free with vp_free_names(argv, argc)).
 */
int proc_cmdline(const char *root, int pid, char ***argv, size_t *argc, struct vp_err *err);

/* Clock ticks per second for utime/stime (sysconf(_SC_CLK_TCK)). */
long task_ticks_per_sec(void);

#endif
