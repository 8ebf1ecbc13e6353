/* test_sched_numa.c - unit tests for src/source/sched_numa: NUMA hinting faults from a thread's sched file */
#include "test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "source/sched_numa.h"
#include "util/err.h"

#define FL(n, tp, ts) "numa_faults node=" #n " task_private=" #tp " task_shared=" #ts \
	" group_private=7 group_shared=5\n"

/* faults[k] = task_private + task_shared of node k (the group_* values never count) */
static const struct {
	int line;
	const char *text;
	int ret;               /* 0 or VP_EPARSE */
	int n_nodes;
	double faults[3];
	double total;
	int current, pref;
	const char *msg;       /* part of the error message */
} parse_rows[] = {
	{ __LINE__, "numa_preferred_nid                           :                    1\n"
		    "total_numa_faults                            :                   95\n"
		    "current_node=0, numa_group_id=0\n" FL(0, 12, 3) FL(1, 80, 0),
	  0, 2, { 15, 80 }, 95, 0, 1, NULL },
	/* the last line without its newline; nodes out of order */
	{ __LINE__, FL(1, 5, 5) "numa_faults node=0 task_private=1 task_shared=2 group_private=0 group_shared=0",
	  0, 2, { 3, 10 }, 13, -1, -1, NULL },
	/* a node with no line stays 0 (a gap in online nodes) */
	{ __LINE__, FL(0, 1, 0) FL(2, 0, 3), 0, 3, { 1, 0, 3 }, 4, -1, -1, NULL },
	/* no NUMA lines at all (a kernel without CONFIG_NUMA_BALANCING) */
	{ __LINE__, "se.exec_start : 1.0\npolicy : 0\n", 0, 0, { 0 }, 0, -1, -1, NULL },
	{ __LINE__, "", 0, 0, { 0 }, 0, -1, -1, NULL },
	/* zeros: a task not scanned yet; numa_preferred_nid -1 is none */
	{ __LINE__, "numa_preferred_nid : -1\ncurrent_node=1, numa_group_id=0\n" FL(0, 0, 0) FL(1, 0, 0),
	  0, 2, { 0, 0 }, 0, 1, -1, NULL },
	/* fields in another order, tabs, an unknown field of a later kernel */
	{ __LINE__, "numa_faults task_shared=4 node=0\ttask_private=6 mem_private=9\n",
	  0, 1, { 10 }, 10, -1, -1, NULL },
	/* lines that only look alike are not ours */
	{ __LINE__, "numa_faults_locality : 1\nnuma_preferred_nid_x : 3\n" FL(0, 2, 2),
	  0, 1, { 4 }, 4, -1, -1, NULL },
	/* malformed numa_faults lines name the line */
	{ __LINE__, "policy : 0\nnuma_faults node=x task_private=1 task_shared=2\n",
	  VP_EPARSE, 0, { 0 }, 0, -1, -1, "sched line 2: cannot parse" },
	{ __LINE__, "numa_faults node=0 task_private=1\n", VP_EPARSE, 0, { 0 }, 0, -1, -1,
	  "sched line 1" },
	{ __LINE__, "numa_faults task_private=1 task_shared=2\n", VP_EPARSE, 0, { 0 }, 0, -1, -1,
	  "cannot parse" },
	{ __LINE__, "numa_faults node=0 task_private=-1 task_shared=2\n", VP_EPARSE, 0, { 0 }, 0,
	  -1, -1, "cannot parse" },
	{ __LINE__, "numa_faults node=0 task_private=1x task_shared=2\n", VP_EPARSE, 0, { 0 }, 0,
	  -1, -1, "cannot parse" },
	{ __LINE__, "numa_faults node=0 task_private=1 task_shared=2 group_private=\n", VP_EPARSE,
	  0, { 0 }, 0, -1, -1, "cannot parse" },
	{ __LINE__, "numa_faults node=0 task_private=1 task_shared=2 garbage\n", VP_EPARSE, 0,
	  { 0 }, 0, -1, -1, "cannot parse" },
	{ __LINE__, "numa_faults node=99999 task_private=1 task_shared=2\n", VP_EPARSE, 0, { 0 },
	  0, -1, -1, "cannot parse" },
	{ __LINE__, "numa_faults node=0 task_private=99999999999999999999999 task_shared=2\n",
	  VP_EPARSE, 0, { 0 }, 0, -1, -1, "cannot parse" },
	{ __LINE__, FL(0, 1, 1) FL(1, 1, 1) FL(0, 1, 1), VP_EPARSE, 0, { 0 }, 0, -1, -1,
	  "sched line 3: second line for the node" },
};

TEST(sched_numa_parse_rows)
{
	size_t i;
	int k;

	for (i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++) {
		struct sched_numa s;
		struct vp_err err = { 0, "" };
		int line = parse_rows[i].line;
		int ret = sched_numa_parse(parse_rows[i].text, &s, &err);

		CHECK_INT_AT(line, ret, parse_rows[i].ret);
		if (parse_rows[i].msg)
			CHECK_AT(line, strstr(err.msg, parse_rows[i].msg), "message '%s' lacks '%s'",
				 err.msg, parse_rows[i].msg);
		if (!ret) {
			CHECK_INT_AT(line, s.n_nodes, parse_rows[i].n_nodes);
			for (k = 0; k < s.n_nodes && k < 3; k++)
				CHECK_NEAR_AT(line, s.faults[k], parse_rows[i].faults[k], 0);
			CHECK_NEAR_AT(line, s.total, parse_rows[i].total, 0);
			CHECK_INT_AT(line, s.current_node, parse_rows[i].current);
			CHECK_INT_AT(line, s.preferred_nid, parse_rows[i].pref);
		}
		sched_numa_release(&s);
	}
}

/* The fixture trees of tests/data/root (make-fixtures.py): each reason once. */
static const struct {
	int line;
	const char *root;
	int pid, tid;
	int ret;
	double faults[2];
	const char *msg;
} read_rows[] = {
	/* balancing on (numa_balancing 1): task 12+3 on node 0, 80+0 on node 1 */
	{ __LINE__, "root/host-libvirt-v2", 1000, 1002, 0, { 15, 80 }, NULL },
	{ __LINE__, "root/host-libvirt-v2", 1000, 1003, 0, { 40, 160 }, NULL },
	/* balancing on, all zeros */
	{ __LINE__, "root/host-libvirt-v2", 2000, 2002, VP_EUNSUPP, { 0 },
	  "not scanned by NUMA balancing yet" },
	/* balancing off: zeros say so; older decayed faults still count */
	{ __LINE__, "root/host-libvirt-v1", 3000, 3003, VP_EUNSUPP, { 0 },
	  "NUMA balancing is off (kernel.numa_balancing = 0)" },
	{ __LINE__, "root/host-libvirt-v1", 3000, 3004, 0, { 3, 6 }, NULL },
	/* no sysctl at all */
	{ __LINE__, "root/host-qemu", 4000, 4002, VP_EUNSUPP, { 0 },
	  "the kernel has no NUMA balancing (no /proc/sys/kernel/numa_balancing)" },
	/* no sched file: the path without the root */
	{ __LINE__, "root/host-qemu", 4000, 4003, -ENOENT, { 0 },
	  "no '/proc/4000/task/4003/sched' (the thread is gone" },
};

TEST(sched_numa_read_fixtures)
{
	size_t i;

	for (i = 0; i < sizeof(read_rows) / sizeof(read_rows[0]); i++) {
		struct sched_numa s;
		struct vp_err err = { 0, "" };
		int line = read_rows[i].line;
		char root[4096];
		int ret;

		snprintf(root, sizeof(root), "%s", test_data(read_rows[i].root));
		ret = sched_numa_read(root, read_rows[i].pid, read_rows[i].tid, &s, &err);
		CHECK_INT_AT(line, ret, read_rows[i].ret);
		if (read_rows[i].msg)
			CHECK_AT(line, strstr(err.msg, read_rows[i].msg) && !strstr(err.msg, root),
				 "message '%s' lacks '%s' (or names the root)", err.msg,
				 read_rows[i].msg);
		if (!ret) {
			CHECK_INT_AT(line, s.n_nodes, 2);
			if (s.n_nodes == 2) {
				CHECK_NEAR_AT(line, s.faults[0], read_rows[i].faults[0], 0);
				CHECK_NEAR_AT(line, s.faults[1], read_rows[i].faults[1], 0);
			}
		}
		sched_numa_release(&s);
	}
}

/* This kernel's own sched file: its real format, and the reason the sysctl implies. */
TEST(sched_numa_live_self)
{
	struct sched_numa s;
	struct vp_err err = { 0, "" };
	char path[64], line[256];
	int lines = 0, bal = -1, ret;
	bool have_sysctl;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", (int)getpid(), (int)gettid());
	f = fopen(path, "r");
	if (!f)
		SKIP("no %s on this kernel", path);
	while (fgets(line, sizeof(line), f))
		lines += !strncmp(line, "numa_faults node=", 17);
	fclose(f);
	f = fopen("/proc/sys/kernel/numa_balancing", "r");
	have_sysctl = f != NULL;
	if (f) {
		if (fscanf(f, "%d", &bal) != 1)
			bal = -1;
		fclose(f);
	}
	ret = sched_numa_read("/", getpid(), gettid(), &s, &err);
	/* one numa_faults line per online node when the kernel prints them */
	CHECK_INT(s.n_nodes > 0, lines > 0);
	if (!have_sysctl)
		CHECK_CONTAINS(err.msg, "no /proc/sys/kernel/numa_balancing");
	else if (bal == 0 && ret)
		CHECK_STR(err.msg, "NUMA balancing is off (kernel.numa_balancing = 0)");
	else if (ret && !lines)
		CHECK_CONTAINS(err.msg, "no numa_faults lines");
	else if (ret)
		CHECK_CONTAINS(err.msg, "not scanned by NUMA balancing yet");
	CHECK(ret == 0 || ret == VP_EUNSUPP);
	sched_numa_release(&s);
}
