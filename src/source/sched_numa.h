/* sched_numa.h - a thread's NUMA hinting faults per node, from /proc/PID/task/TID/sched */
#ifndef VP_SCHED_NUMA_H
#define VP_SCHED_NUMA_H

#include "util/err.h"

/*
 * With CONFIG_NUMA_BALANCING the kernel ends a task's sched file with
 * (kernel/sched/debug.c sched_show_numa(), fair.c show_numa_stats()):
 *
 *   numa_preferred_nid    :   1
 *   current_node=0, numa_group_id=0
 *   numa_faults node=0 task_private=12 task_shared=3 group_private=40 group_shared=9
 *
 * one numa_faults line per online node.  task_* are the thread's NUMA
 * hinting faults on pages whose memory is on that node, decayed averages:
 * shares, not counts.  A task not scanned yet prints zeros.
 *
 * Owned by the caller: sched_numa_parse()/sched_numa_read() then
 * sched_numa_release() (also after an error).
 */
struct sched_numa {
	double *faults;        /* task_private + task_shared per node id, n_nodes long */
	int n_nodes;           /* highest node id in numa_faults lines + 1; 0 when none */
	double total;          /* sum of faults[] */
	int current_node;      /* "current_node=N", -1 when absent */
	int preferred_nid;     /* numa_preferred_nid, -1 when absent or none */
};

/*
 * Parse the text of a sched file.  Lines other than the three above are
 * ignored; a numa_faults line that does not parse is VP_EPARSE naming its
 * line.  No numa_faults lines is not an error: n_nodes stays 0.
 */
int sched_numa_parse(const char *text, struct sched_numa *out, struct vp_err *err);

/*
 * Read root/proc/PID/task/TID/sched (TID <= 0: /proc/PID/sched).  Returns 0
 * when the thread has hinting faults (total > 0).  Otherwise a negative code
 * and err->msg says why, for a user: no sched file (-ENOENT & co), or
 * VP_EUNSUPP with "NUMA balancing is off (kernel.numa_balancing = 0)", "the
 * kernel has no NUMA balancing (no /proc/sys/kernel/numa_balancing)" or
 * "not scanned by NUMA balancing yet (no hinting faults)"; VP_EPARSE for a
 * malformed line.  *out is filled as far as the file went.
 */
int sched_numa_read(const char *root, int pid, int tid, struct sched_numa *out,
		    struct vp_err *err);

void sched_numa_release(struct sched_numa *s);

#endif
