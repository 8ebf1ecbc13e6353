/* perm.c - what we may measure: perf_event_paranoid, uid and capabilities, resctrl, cgroups */
#include "platform/probe.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fs.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

/* "Uid:\t0\t0\t0\t0" -> the effective (second) id; -1 when absent. */
static long status_euid(const char *text)
{
	size_t len;
	const char *v = plat_field(text, "Uid", &len);
	char *end;
	long ruid, euid;

	if (!v)
		return -1;
	ruid = strtol(v, &end, 10);
	if (end == v)
		return -1;
	(void)ruid;
	v = end;
	euid = strtol(v, &end, 10);
	return end == v ? -1 : euid;
}

static bool status_capeff(const char *text, unsigned long long *caps)
{
	size_t len;
	const char *v = plat_field(text, "CapEff", &len);
	char *end;

	if (!v)
		return false;
	*caps = strtoull(v, &end, 16);
	return end != v;
}

static void probe_resctrl(struct platform *p)
{
	struct perm_info *pm = &p->perm;
	char *fs = NULL, *feat = NULL;
	bool listed = false;

	if (vp_read_file(p->root, "/proc/filesystems", &fs, NULL, NULL) == 0) {
		listed = strstr(fs, "\tresctrl\n") != NULL || strstr(fs, "\tresctrl") != NULL;
		free(fs);
	}
	pm->resctrl_mounted = vp_exists(p->root, "/sys/fs/resctrl/info") == 0;
	pm->resctrl_supported = listed || pm->resctrl_mounted;
	if (!pm->resctrl_supported) {
		plat_setf(&pm->resctrl_reason,
			 "kernel has no resctrl filesystem (not in /proc/filesystems)%s",
			 p->cpu.known && !p->cpu.flag_cqm_llc && !strcmp(p->cpu.arch, "x86_64") ?
			 "; CPU flags lack cqm_occup_llc" : "");
		return;
	}
	if (!pm->resctrl_mounted) {
		plat_setf(&pm->resctrl_reason,
			 "resctrl not mounted (mount -t resctrl resctrl /sys/fs/resctrl)");
		return;
	}
	if (vp_read_file(p->root, "/sys/fs/resctrl/info/L3_MON/mon_features", &feat, NULL, NULL)) {
		plat_setf(&pm->resctrl_reason,
			 "resctrl mounted without L3 monitoring (no info/L3_MON/mon_features)");
		return;
	}
	{
		char *s = feat, *tok, *save = NULL;

		while ((tok = strtok_r(s, " \t\n", &save))) {
			s = NULL;
			if (!strcmp(tok, "llc_occupancy"))
				pm->resctrl_llc_occupancy = true;
			else if (!strcmp(tok, "mbm_total_bytes"))
				pm->resctrl_mbm_total = true;
			else if (!strcmp(tok, "mbm_local_bytes"))
				pm->resctrl_mbm_local = true;
			if (pm->resctrl_features.len)
				sbuf_addstr(&pm->resctrl_features, ", ");
			sbuf_addutf8(&pm->resctrl_features, tok);
		}
	}
	free(feat);
	if (!pm->resctrl_features.len)
		plat_setf(&pm->resctrl_reason,
			 "info/L3_MON/mon_features is empty");
}

/* cgroup v2: a "cgroup2" mount in mountinfo, else a cgroup.controllers file. */
static void probe_cgroup(struct platform *p)
{
	struct perm_info *pm = &p->perm;
	char *mi = NULL;

	if (vp_read_file(p->root, "/proc/self/mountinfo", &mi, NULL, NULL) == 0) {
		char *line = mi, *nl;

		for (; line && *line; line = nl ? nl + 1 : NULL) {
			char *sep, mnt[256], fstype[32];

			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE SUPER" */
			sep = strstr(line, " - ");
			if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 ||
			    sscanf(sep + 3, "%31s", fstype) != 1)
				continue;
			if (!strcmp(fstype, "cgroup"))
				pm->cgroup_v1 = true;
			if (!strcmp(fstype, "cgroup2") && !pm->cgroup_v2) {
				pm->cgroup_v2 = true;
				plat_set(&pm->cgroup_root, mnt);
			}
		}
		free(mi);
	}
	if (!pm->cgroup_v2) {
		if (vp_exists(p->root, "/sys/fs/cgroup/cgroup.controllers") == 0) {
			pm->cgroup_v2 = true;
			plat_set(&pm->cgroup_root, "/sys/fs/cgroup");
		} else if (vp_exists(p->root, "/sys/fs/cgroup/unified/cgroup.controllers") == 0) {
			pm->cgroup_v2 = true;
			plat_set(&pm->cgroup_root, "/sys/fs/cgroup/unified");
		}
	}
	if (!pm->cgroup_v2)
		plat_set(&pm->cgroup_reason,
			  "no cgroup2 mount in /proc/self/mountinfo and no cgroup.controllers");
}

void probe_perm(struct platform *p, bool live)
{
	struct perm_info *pm = &p->perm;
	struct vp_err err = { 0, "" };
	char *status = NULL;
	int v;

	pm->paranoid = INT_MIN;
	if (vp_read_int(p->root, "/proc/sys/kernel/perf_event_paranoid", &v, &err) == 0)
		pm->paranoid = v;
	else
		plat_reason(&pm->paranoid_reason, p->root, &err);
	if (vp_read_file(p->root, "/proc/self/status", &status, NULL, &err) == 0) {
		unsigned long long caps = 0;
		long euid = status_euid(status);

		pm->known = euid >= 0;
		pm->is_root = live ? geteuid() == 0 : euid == 0;
		if (status_capeff(status, &caps)) {
			pm->cap_sys_admin = (caps >> CAP_SYS_ADMIN_BIT) & 1;
			pm->cap_perfmon = ((caps >> CAP_PERFMON_BIT) & 1) || pm->cap_sys_admin;
		} else {
			pm->known = false;
		}
		if (!pm->known)
			plat_set(&pm->reason,
				  "/proc/self/status lacks Uid or CapEff lines");
		free(status);
	} else {
		plat_reason(&pm->reason, p->root, &err);
		if (live) {
			pm->is_root = geteuid() == 0;
		}
	}
	probe_resctrl(p);
	probe_cgroup(p);
}
