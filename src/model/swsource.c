/* swsource.c - the table of software source names a model may use */
#include "model/swsource.h"

#include <string.h>

/*
 * provided is false until the module that reads a source lands and flips
 * it here (one line each): the model language can name them today and
 * every model that uses them says why the value is missing meanwhile.
 */
static const struct swsource_def table[] = {
	/* /sys/devices/system/node/nodeN/numastat, summed over nodes (or per node) */
	{ "numastat.numa_hit", "pages", "pages allocated on the node the process wanted", true, false },
	{ "numastat.numa_miss", "pages", "pages allocated here although another node was wanted", true, false },
	{ "numastat.numa_foreign", "pages", "pages wanted here but allocated on another node", true, false },
	{ "numastat.local_node", "pages", "pages allocated on the node of the allocating CPU", true, false },
	{ "numastat.other_node", "pages", "pages allocated on another node than the allocating CPU's", true, false },
	{ "numastat.interleave_hit", "pages", "interleave-policy pages allocated on the intended node", true, false },
	/* /proc/vmstat */
	{ "vmstat.numa_hint_faults", "events", "NUMA-balancing hinting faults", true, false },
	{ "vmstat.numa_hint_faults_local", "events", "hinting faults on pages already local", true, false },
	{ "vmstat.numa_pages_migrated", "pages", "pages moved by NUMA balancing", true, false },
	{ "vmstat.pgmigrate_success", "pages", "pages migrated (any reason)", true, false },
	/* placement: vCPU residency by node x guest memory by node (src/hv) */
	{ "placement.remote_fraction", "ratio", "expected share of memory accesses to a remote node, from where the vCPU ran and where its VM's memory is", false, false },
	{ "placement.spread", "ratio", "share of the VM's memory outside its largest node", false, false },
	/* resctrl monitoring group of the entity */
	{ "resctrl.llc_occupancy", "bytes", "LLC bytes held by the group (resctrl llc_occupancy)", false, false },
	{ "resctrl.mbm_total_bytes", "bytes", "memory traffic of the group (resctrl mbm_total_bytes)", true, false },
	{ "resctrl.mbm_local_bytes", "bytes", "memory traffic to the local node (resctrl mbm_local_bytes)", true, false },
	/* scheduler: /proc/PID/task/TID/schedstat and sched tracepoints */
	{ "sched.run_ns", "ns", "time on a CPU (schedstat field 1)", true, false },
	{ "sched.wait_ns", "ns", "time runnable but waiting for a CPU (schedstat field 2)", true, false },
	{ "sched.migrations", "events", "moves to another CPU", true, false },
	{ "sched.node_migrations", "events", "moves to a CPU of another NUMA node", true, false },
	{ NULL, NULL, NULL, false, false },
};

const struct swsource_def *swsource_table(void)
{
	return table;
}

const struct swsource_def *swsource_find(const char *name)
{
	const struct swsource_def *d;

	for (d = table; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

int swsource_check(const char *name, struct vp_err *err)
{
	const struct swsource_def *d = swsource_find(name);

	if (!d)
		return vp_err_set(err, VP_ENOTFOUND, "unknown source '%s'", name);
	if (!d->provided)
		return vp_err_set(err, VP_EUNSUPP, "no provider for source '%s' in this build yet",
				  name);
	return 0;
}
