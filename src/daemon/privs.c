/* privs.c - dropping root: run as a dedicated user keeping only the capabilities profiling needs */
#include "daemon/daemon.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/fs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

/*
 * Kept: CAP_PERFMON (perf_event_open on other users' tasks and system-wide,
 * since Linux 5.8; CAP_SYS_ADMIN on older kernels, which is said),
 * CAP_SYS_PTRACE (reading other users' /proc/PID/numa_maps and attaching
 * counters to their threads where ptrace rules apply), and CAP_DAC_READ_SEARCH
 * is not kept: the daemon reads only world-readable /proc and /sys files
 * besides its own.  The raw capset(2) call avoids a libcap dependency; it
 * runs before any thread exists, so every thread inherits the result.
 */
int vpd_drop_privileges(const char *user, struct vp_err *err)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	struct passwd *pw = getpwnam(user);
	int keep[3], nkeep = 0, i, last = 0;
	char line[32];
	uint32_t mask[2] = { 0, 0 };

	if (!pw)
		return vp_err_set(err, VP_ENOTFOUND, "no user '%s' to run as", user);
	if (vp_read_line(NULL, "/proc/sys/kernel/cap_last_cap", line, sizeof(line), NULL) == 0)
		last = atoi(line);
	keep[nkeep++] = last >= CAP_PERFMON ? CAP_PERFMON : CAP_SYS_ADMIN;
	keep[nkeep++] = CAP_SYS_PTRACE;
	for (i = 0; i < nkeep; i++)
		mask[keep[i] / 32] |= 1u << (keep[i] % 32);
	/* the bounding set too, so that nothing (no setuid binary) brings a capability back */
	for (i = 0; i <= (last > 0 ? last : 63); i++) {
		if (i == keep[0] || i == keep[1])
			continue;
		if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) && errno != EINVAL)
			return vp_err_errno(err, errno, "cannot drop capability %d from the bounding set", i);
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return vp_err_errno(err, errno, "cannot keep capabilities across setuid");
	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid))
		return vp_err_errno(err, errno, "cannot switch to user '%s'", user);
	memset(data, 0, sizeof(data));
	for (i = 0; i < 2; i++) {
		data[i].effective = mask[i];
		data[i].permitted = mask[i];
		data[i].inheritable = 0;
	}
	if (syscall(SYS_capset, &hdr, data))
		return vp_err_errno(err, errno, "cannot set capabilities after switching to '%s'", user);
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	fprintf(stderr, "vmmprofd: running as %s (uid %d, gid %d); kept capabilities: %s, "
			"cap_sys_ptrace%s\n", user, (int)pw->pw_uid, (int)pw->pw_gid,
		keep[0] == CAP_PERFMON ? "cap_perfmon" : "cap_sys_admin",
		keep[0] == CAP_PERFMON ? "" : " (this kernel has no CAP_PERFMON: before Linux 5.8 "
					       "perf needs CAP_SYS_ADMIN)");
	return 0;
}
