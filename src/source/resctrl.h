/* resctrl.h - resctrl monitoring groups: LLC occupancy and memory bandwidth per group */
#ifndef VP_RESCTRL_H
#define VP_RESCTRL_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * One L3 monitoring domain of a group (mon_data/mon_L3_XX).  Values are
 * bytes; NaN when the file is absent or reads "Unavailable" (the kernel's
 * word for an RMID whose counter is not valid yet).  MBM values are
 * cumulative: rates come from the difference of two reads.
 */
struct resctrl_mon {
	int domain;                /* XX of mon_L3_XX (the L3 cache id) */
	double llc_occupancy;
	double mbm_total_bytes;
	double mbm_local_bytes;
};

struct resctrl_group {
	char name[256];            /* "" for the default group */
	struct resctrl_mon *mon;   /* heap array sorted by domain; free() it */
	size_t n_mon;
};

/* Default mount point. */
#define RESCTRL_DIR "/sys/fs/resctrl"

/*
 * Read the monitoring data of group name ("" = the default group, else
 * mon_groups/NAME) under root/sys/fs/resctrl.  Caller frees g->mon.
 */
int resctrl_group_read(const char *root, const char *name, struct resctrl_group *g,
		       struct vp_err *err);
void resctrl_group_release(struct resctrl_group *g);
/*
 * The same for any group directory dir (relative to root: a CTRL_MON
 * group, or a MON group under one); g->name is left empty.
 */
int resctrl_dir_read(const char *root, const char *dir, struct resctrl_group *g,
		     struct vp_err *err);

/* Names of the monitoring groups (the directories under mon_groups); free with vp_free_names(). */
int resctrl_list_groups(const char *root, char ***names, size_t *n, struct vp_err *err);

/*
 * Create mon_groups/NAME (an existing group is fine) and write each thread
 * id to its tasks file.  Only called when the user asks for it: it changes
 * the system.
 */
int resctrl_group_create(const char *root, const char *name, struct vp_err *err);
int resctrl_group_add_tasks(const char *root, const char *name, const int *tids, size_t n,
			    struct vp_err *err);
/*
 * Write each thread id to dir/tasks (dir relative to root), one write()
 * per id as the kernel wants; threads that exited (ESRCH) are skipped.
 * Goes on past a refused id: returns the first error, *n_moved (may be
 * NULL) counts the ids taken.
 */
int resctrl_tasks_add(const char *root, const char *dir, const int *tids, size_t n,
		      size_t *n_moved, struct vp_err *err);
/* Remove mon_groups/NAME (its tasks go back to the parent group). */
int resctrl_group_remove(const char *root, const char *name, struct vp_err *err);

/* Parse one counter file's text: a byte count, or NaN for "Unavailable". */
double resctrl_parse_value(const char *text);

#endif
