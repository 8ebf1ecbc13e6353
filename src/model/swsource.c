/* swsource.c - the table of software source names a model may use, with their providers */
#include "model/swsource.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "source/numastat.h"

/* numastat.FIELD: the field summed over every node. */
static int read_numastat(const char *root, const char *name, double *val, struct vp_err *err)
{
	const char *field = strchr(name, '.') + 1;
	struct node_stat *ns = NULL;
	size_t n = 0, i;
	int f, ret, have = 0;
	double sum = 0;

	for (f = 0; f < NS_NFIELDS; f++)
		if (!strcmp(node_numastat_field_name((enum node_numastat_field)f), field))
			break;
	if (f == NS_NFIELDS)
		return vp_err_set(err, VP_ENOTFOUND, "unknown source '%s'", name);
	ret = node_stat_read_all(root, &ns, &n, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (ns[i].ns_have & (1u << f)) {
			sum += (double)ns[i].ns[f];
			have++;
		}
	free(ns);
	if (!have)
		return vp_err_set(err, VP_EUNSUPP, "no node numastat holds '%s'", field);
	*val = sum;
	return 0;
}

/* vmstat.FIELD from /proc/vmstat. */
static int read_vmstat(const char *root, const char *name, double *val, struct vp_err *err)
{
	const char *field = strchr(name, '.') + 1;
	struct vmstat_numa vs;
	int f, ret;

	for (f = 0; f < VS_NFIELDS; f++)
		if (!strcmp(vmstat_numa_field_name((enum vmstat_numa_field)f), field))
			break;
	if (f == VS_NFIELDS)
		return vp_err_set(err, VP_ENOTFOUND, "unknown source '%s'", name);
	ret = vmstat_numa_read(root, &vs, err);
	if (ret)
		return ret;
	if (!(vs.have & (1u << f)))
		return vp_err_set(err, VP_EUNSUPP, "/proc/vmstat has no '%s' (kernel without "
				  "NUMA balancing?)", field);
	*val = (double)vs.v[f];
	return 0;
}

/*
 * read is NULL until the module that produces a source lands and a
 * provider is added here (one function each): the model language can name
 * them today, and every model that uses them says why the value is
 * missing meanwhile.
 */
/* src/collect/resctrl_vm.c: one monitoring group per VM, on request */
#define RESCTRL_HOW "measured per VM by a resctrl monitoring group: diagnose --resctrl, " \
	"record --resctrl, or a daemon session with resctrl: true"

static const struct swsource_def table[] = {
	/* /sys/devices/system/node/nodeN/numastat, summed over nodes */
	{ "numastat.numa_hit", "pages", "pages allocated on the node the process wanted", true, read_numastat },
	{ "numastat.numa_miss", "pages", "pages allocated here although another node was wanted", true, read_numastat },
	{ "numastat.numa_foreign", "pages", "pages wanted here but allocated on another node", true, read_numastat },
	{ "numastat.local_node", "pages", "pages allocated on the node of the allocating CPU", true, read_numastat },
	{ "numastat.other_node", "pages", "pages allocated on another node than the allocating CPU's", true, read_numastat },
	{ "numastat.interleave_hit", "pages", "interleave-policy pages allocated on the intended node", true, read_numastat },
	/* /proc/vmstat */
	{ "vmstat.numa_hint_faults", "events", "NUMA-balancing hinting faults", true, read_vmstat },
	{ "vmstat.numa_hint_faults_local", "events", "hinting faults on pages already local", true, read_vmstat },
	{ "vmstat.numa_pages_migrated", "pages", "pages moved by NUMA balancing", true, read_vmstat },
	{ "vmstat.pgmigrate_success", "pages", "pages migrated (any reason)", true, read_vmstat },
	/* placement: vCPU residency by node x guest memory by node (src/hv) */
	{ "placement.remote_fraction", "ratio", "expected share of memory accesses to a remote node, from where the vCPU ran and where its VM's memory is", false, NULL },
	{ "placement.spread", "ratio", "share of the VM's memory outside its largest node", false, NULL },
	/* resctrl monitoring group of the entity */
	{ "resctrl.llc_occupancy", "bytes", "LLC bytes held by the group (resctrl llc_occupancy)", false, NULL, RESCTRL_HOW },
	{ "resctrl.mbm_total_bytes", "bytes", "memory traffic of the group (resctrl mbm_total_bytes)", true, NULL, RESCTRL_HOW },
	{ "resctrl.mbm_local_bytes", "bytes", "memory traffic to the local node (resctrl mbm_local_bytes)", true, NULL, RESCTRL_HOW },
	/* scheduler: /proc/PID/task/TID/schedstat and sched tracepoints */
	{ "sched.run_ns", "ns", "time on a CPU (schedstat field 1)", true, NULL },
	{ "sched.wait_ns", "ns", "time runnable but waiting for a CPU (schedstat field 2)", true, NULL },
	{ "sched.migrations", "events", "moves to another CPU", true, NULL },
	{ "sched.node_migrations", "events", "moves to a CPU of another NUMA node", true, NULL },
	{ NULL, NULL, NULL, false, NULL },
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
	if (!d->read && d->entity)
		return vp_err_set(err, VP_EUNSUPP, "'%s' is %s", name, d->entity);
	if (!d->read)
		return vp_err_set(err, VP_EUNSUPP, "no provider for source '%s' in this build yet",
				  name);
	return 0;
}

int swsource_read(const char *root, const char *name, double *val, struct vp_err *err)
{
	const struct swsource_def *d = swsource_find(name);
	int ret = swsource_check(name, err);

	*val = NAN;
	if (ret)
		return ret;
	return d->read(root, name, val, err);
}
