/* test_source.c - unit tests for src/source: numastat, vmstat, numa_maps, task files, resctrl */
#include "test.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source/cpustat.h"
#include "source/numa_maps.h"
#include "source/numastat.h"
#include "source/resctrl.h"
#include "source/task.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

#define ROOT(name) test_data("root/" name)

TEST(numastat_fixture_nodes)
{
	struct node_stat *ns = NULL;
	size_t n = 0;
	char root[4096];

	snprintf(root, sizeof(root), "%s", ROOT("host-libvirt-v2"));
	CHECK_INT(node_stat_read_all(root, &ns, &n, NULL), 0);
	CHECK_INT(n, 2);
	if (n != 2)
		goto out;
	CHECK_INT(ns[0].node, 0);
	CHECK_INT(ns[1].node, 1);
	CHECK_U64(ns[0].ns_have, (1u << NS_NFIELDS) - 1);
	CHECK_U64(ns[0].ns[NS_NUMA_HIT], 1000000);
	CHECK_U64(ns[0].ns[NS_NUMA_MISS], 2000);
	CHECK_U64(ns[0].ns[NS_NUMA_FOREIGN], 3000);
	CHECK_U64(ns[0].ns[NS_INTERLEAVE_HIT], 400);
	CHECK_U64(ns[0].ns[NS_LOCAL_NODE], 990000);
	CHECK_U64(ns[0].ns[NS_OTHER_NODE], 12000);
	CHECK_U64(ns[1].ns[NS_OTHER_NODE], 23000);
	/* meminfo is in kB in the file, bytes here; HugePages_* are counts */
	CHECK_U64(ns[0].mem[NM_MEM_TOTAL], 8388608ull * 1024);
	CHECK_U64(ns[0].mem[NM_MEM_FREE], 4194304ull * 1024);
	CHECK_U64(ns[0].mem[NM_MEM_USED], 4194304ull * 1024);
	CHECK_U64(ns[1].mem[NM_HUGE_TOTAL], 512);
	CHECK_U64(ns[1].mem[NM_HUGE_FREE], 256);
	CHECK(ns[1].mem_have & (1u << NM_ANON_PAGES));
out:
	free(ns);
}

TEST(numastat_missing_fields_are_absent_not_zero)
{
	struct node_stat s = { 0 };
	struct vmstat_numa v = { 0 };

	node_numastat_parse("numa_hit 5\nbogus line\nother_node x\nnew_counter 7\n", &s);
	CHECK_U64(s.ns_have, 1u << NS_NUMA_HIT);
	CHECK_U64(s.ns[NS_NUMA_HIT], 5);
	vmstat_numa_parse("numa_hit 1\nnuma_hint_faults 9 trailing\npgmigrate_success 3", &v);
	CHECK(v.have & (1u << VS_NUMA_HIT));
	CHECK(!(v.have & (1u << VS_NUMA_HINT_FAULTS)));
	CHECK_U64(v.v[VS_PGMIGRATE_SUCCESS], 3);
	CHECK_INT(node_stat_read_all("/nonexistent-root", &(struct node_stat *){ NULL },
				     &(size_t){ 0 }, NULL) < 0, 1);
}

TEST(vmstat_fixture)
{
	struct vmstat_numa v;
	static const struct { int line; enum vmstat_numa_field f; uint64_t want; } rows[] = {
		{ __LINE__, VS_NUMA_HIT, 1500000 },
		{ __LINE__, VS_NUMA_MISS, 5000 },
		{ __LINE__, VS_NUMA_FOREIGN, 5000 },
		{ __LINE__, VS_NUMA_INTERLEAVE, 700 },
		{ __LINE__, VS_NUMA_LOCAL, 1470000 },
		{ __LINE__, VS_NUMA_OTHER, 35000 },
		{ __LINE__, VS_NUMA_PTE_UPDATES, 1234 },
		{ __LINE__, VS_NUMA_HUGE_PTE_UPDATES, 5 },
		{ __LINE__, VS_NUMA_HINT_FAULTS, 800 },
		{ __LINE__, VS_NUMA_HINT_FAULTS_LOCAL, 600 },
		{ __LINE__, VS_NUMA_PAGES_MIGRATED, 150 },
		{ __LINE__, VS_PGMIGRATE_SUCCESS, 160 },
		{ __LINE__, VS_PGMIGRATE_FAIL, 2 },
	};
	size_t i;

	CHECK_INT(vmstat_numa_read(ROOT("host-qemu"), &v, NULL), 0);
	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		CHECK_AT(rows[i].line, v.have & (1u << rows[i].f), "%s absent",
			 vmstat_numa_field_name(rows[i].f));
		CHECK_U64_AT(rows[i].line, v.v[rows[i].f], rows[i].want);
	}
}

static const struct {
	int line;
	const char *text;
	int ret;
	uint64_t start;
	const char *file;      /* NULL: anonymous */
	int node;              /* node to check */
	uint64_t pages;
	uint64_t page_size;
	bool huge, heap;
} nm_rows[] = {
	{ __LINE__, "7f1900000000 default anon=10 dirty=10 N0=6 N1=4 kernelpagesize_kB=4",
	  0, 0x7f1900000000ull, NULL, 1, 4, 4096, false, false },
	{ __LINE__, "55f0fd189000 default heap anon=1095 N0=1095 kernelpagesize_kB=4",
	  0, 0x55f0fd189000ull, NULL, 0, 1095, 4096, false, true },
	{ __LINE__, "7f2000000000 bind:1 file=/dev/hugepages/a\\040b huge dirty=200 N1=200 kernelpagesize_kB=2048",
	  0, 0x7f2000000000ull, "/dev/hugepages/a b", 1, 200, 2048 * 1024, true, false },
	{ __LINE__, "7f1954021000 default", 0, 0x7f1954021000ull, NULL, 0, 0, 0, false, false },
	{ __LINE__, "7f00 interleave:0-1 N12=3 mapmax=4 future_key=1 newword", 0, 0x7f00, NULL, 12, 3, 0, false, false },
	{ __LINE__, "zz default N0=1", VP_EPARSE, 0, NULL, 0, 0, 0, false, false },
	{ __LINE__, "7f00 default N0=x", VP_EPARSE, 0, NULL, 0, 0, 0, false, false },
	{ __LINE__, "7f00 default N1x=1", VP_EPARSE, 0, NULL, 0, 0, 0, false, false },
	{ __LINE__, "7f00", VP_EPARSE, 0, NULL, 0, 0, 0, false, false },
	{ __LINE__, "7f00 default N99999=1", VP_EPARSE, 0, NULL, 0, 0, 0, false, false },
};

TEST(numa_maps_parse_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(nm_rows); i++) {
		struct numa_maps m;
		struct vp_err err = { 0, "" };
		int ret = numa_maps_parse(nm_rows[i].text, &m, &err);

		CHECK_INT_AT(nm_rows[i].line, ret, nm_rows[i].ret);
		if (ret) {
			CHECK_AT(nm_rows[i].line, strstr(err.msg, "numa_maps line 1"), "msg '%s'", err.msg);
			continue;
		}
		CHECK_INT_AT(nm_rows[i].line, m.n, 1);
		CHECK_U64_AT(nm_rows[i].line, m.maps[0].start, nm_rows[i].start);
		if (nm_rows[i].file)
			CHECK_STR_AT(nm_rows[i].line, m.maps[0].file, nm_rows[i].file);
		else
			CHECK_AT(nm_rows[i].line, !m.maps[0].file, "file '%s'", m.maps[0].file);
		CHECK_INT_AT(nm_rows[i].line, m.maps[0].huge, nm_rows[i].huge);
		CHECK_INT_AT(nm_rows[i].line, m.maps[0].heap, nm_rows[i].heap);
		CHECK_U64_AT(nm_rows[i].line, m.maps[0].page_size, nm_rows[i].page_size);
		if (nm_rows[i].pages) {
			CHECK_U64_AT(nm_rows[i].line, m.maps[0].node_pages[nm_rows[i].node],
				     nm_rows[i].pages);
			CHECK_U64_AT(nm_rows[i].line, numa_map_node_bytes(&m.maps[0], nm_rows[i].node),
				     nm_rows[i].pages * (nm_rows[i].page_size ? nm_rows[i].page_size : 4096));
		}
		numa_maps_release(&m);
	}
}

TEST(numa_maps_guest_ram_selection)
{
	struct numa_maps m;
	size_t i, n_ram = 0;
	uint64_t n0 = 0, n1 = 0;

	CHECK_INT(numa_maps_read(ROOT("host-qemu"), 4000, &m, NULL), 0);
	CHECK_INT(m.n, 6);
	CHECK_INT(m.n_nodes, 2);
	for (i = 0; i < m.n; i++) {
		if (!numa_map_is_guest_ram(&m.maps[i], 32ull << 20))
			continue;
		n_ram++;
		n0 += numa_map_node_bytes(&m.maps[i], 0);
		n1 += numa_map_node_bytes(&m.maps[i], 1);
	}
	/* two 128 MiB rw-p anonymous mappings; not the rwx TCG buffer, the 16 MiB
	 * mapping, the stack or the binary */
	CHECK_INT(n_ram, 2);
	CHECK_U64(n0, (32768ull + 8192) * 4096);
	CHECK_U64(n1, 16384ull * 4096);
	CHECK_STR(m.maps[3].perms, "rwxp");
	CHECK_U64(m.maps[1].end - m.maps[1].start, 128ull << 20);
	numa_maps_release(&m);
}

/* A maps line whose end is below its start (a damaged or hostile tree) is no
 * mapping: its end - start would wrap to ~2^64 bytes of "guest RAM"
 * (fuzz_numa_maps found it).  The mapping keeps end 0 and perms "", unknown,
 * and is not guest RAM; a well-formed line beside it still joins. */
TEST(numa_maps_join_refuses_inverted_range)
{
	struct numa_maps m;

	CHECK_INT(numa_maps_parse("7f4020000000 default anon=32768 N0=32768\n"
				  "7f4030000000 default anon=16 N0=16\n"
				  "7f4040000000 default anon=8 N0=8\n", &m, NULL), 0);
	numa_maps_join_ranges(&m, "7f4020000000-7f1000420000 rw-p 00000000 00:00 0\n"
				  "7f4030000000-7f4030000000 rw-p 00000000 00:00 0\n"
				  "7f4040000000-7f4042000000 rw-p 00000000 00:00 0\n");
	CHECK_U64(m.maps[0].end, 0);
	CHECK_STR(m.maps[0].perms, "");
	CHECK(!numa_map_is_guest_ram(&m.maps[0], 0));
	CHECK_U64(m.maps[1].end, 0);
	CHECK(!numa_map_is_guest_ram(&m.maps[1], 0));
	/* 0x2000000 bytes = 32 MiB */
	CHECK_U64(m.maps[2].end - m.maps[2].start, 32ull << 20);
	CHECK(numa_map_is_guest_ram(&m.maps[2], 32ull << 20));
	numa_maps_release(&m);
}

static const struct {
	int line;
	const char *text;
	int ret;
	const char *comm;
	char state;
	uint64_t utime, stime;
	int processor;
} stat_rows[] = {
	{ __LINE__, "10018 (CPU 0/TCG) S 1 10012 4634 0 -1 138412224 11 0 0 0 7 3 0 0 20 0 4 0 52296 "
		    "1642369024 9234 18446744073709551615 1 2 3 0 0 0 2147220087 4100 16451 1 0 0 -1 1 0 0",
	  0, "CPU 0/TCG", 'S', 7, 3, 1 },
	{ __LINE__, "77 (a) (b)) R 1 2 3 0 -1 0 0 0 0 0 100 200 0 0 20 0 1 0 5 0 0 0",
	  0, "a) (b)", 'R', 100, 200, -1 },
	{ __LINE__, "77 (x) R 1 2 3", VP_EPARSE, NULL, 0, 0, 0, 0 },
	{ __LINE__, "77 x R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", VP_EPARSE, NULL, 0, 0, 0, 0 },
	{ __LINE__, "77 (x)", VP_EPARSE, NULL, 0, 0, 0, 0 },
	{ __LINE__, "77 (x) R 1 2 3 4 5 6 7 8 9 10 zz 12 13 14 15 16 17 18", VP_EPARSE, NULL, 0, 0, 0, 0 },
};

TEST(task_stat_parse_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(stat_rows); i++) {
		struct task_stat st;
		int ret = task_stat_parse(stat_rows[i].text, &st, NULL);

		CHECK_INT_AT(stat_rows[i].line, ret, stat_rows[i].ret);
		if (ret)
			continue;
		CHECK_STR_AT(stat_rows[i].line, st.comm, stat_rows[i].comm);
		CHECK_INT_AT(stat_rows[i].line, st.state, stat_rows[i].state);
		CHECK_U64_AT(stat_rows[i].line, st.utime, stat_rows[i].utime);
		CHECK_U64_AT(stat_rows[i].line, st.stime, stat_rows[i].stime);
		CHECK_INT_AT(stat_rows[i].line, st.processor, stat_rows[i].processor);
	}
}

TEST(task_files_fixture)
{
	const char *root = ROOT("host-qemu");
	struct task_stat st;
	struct task_schedstat ss;
	struct task_status status;
	struct task_cgroup cg;
	int *tids = NULL;
	size_t n = 0;
	struct sbuf sb = SBUF_INIT;

	CHECK_INT(task_list(root, 4000, &tids, &n, NULL), 0);
	CHECK_INT(n, 4);
	if (n == 4)
		CHECK_INT(tids[3], 4003);
	free(tids);
	CHECK_INT(task_stat_read(root, 4000, 4001, &st, NULL), 0);
	CHECK_STR(st.comm, "x) (y");
	CHECK_INT(st.processor, 1);
	CHECK_INT(st.num_threads, 4);
	CHECK_INT(task_stat_read(root, 4000, 4002, &st, NULL), 0);
	CHECK_STR(st.comm, "CPU 0/TCG");
	CHECK_U64(st.utime, 2000);
	CHECK_U64(st.stime, 500);
	CHECK_INT(st.processor, 0);
	CHECK_INT(task_schedstat_read(root, 4000, 4002, &ss, NULL), 0);
	CHECK_U64(ss.run_ns, 25000000000ull);
	CHECK_U64(ss.wait_ns, 5000000);
	CHECK_U64(ss.timeslices, 800);
	CHECK_INT(task_status_read(ROOT("host-libvirt-v2"), 1000, 1003, &status, NULL), 0);
	CHECK(status.have_cpus);
	cpulist_format(&status.cpus_allowed, &sb);
	CHECK_STR(sbuf_str(&sb), "2-3");
	CHECK_INT(status.tgid, 1000);
	CHECK_STR(status.name, "CPU 1/KVM");
	task_status_release(&status);
	sbuf_release(&sb);
	CHECK_INT(task_cgroup_read(ROOT("host-libvirt-v1"), 3000, 3003, &cg, NULL), 0);
	CHECK_STR(cg.unified, "/");
	CHECK_STR(cg.v1_perf_event, "/machine/qemu-1-app.libvirt-qemu/vcpu0");
	CHECK_STR(cg.v1_cpu, "/machine/qemu-1-app.libvirt-qemu/vcpu0");
	CHECK_STR(cg.v1_cpuset, "/machine/qemu-1-app.libvirt-qemu/vcpu0");
	CHECK_STR(cg.v1_systemd, "/");
	task_cgroup_release(&cg);
	CHECK(task_stat_read(root, 4000, 9999, &st, NULL) < 0);
}

TEST(task_schedstat_and_cmdline)
{
	struct task_schedstat ss;
	char **argv = NULL;
	size_t argc = 0;

	CHECK_INT(task_schedstat_parse("1 2", &ss, NULL), VP_EPARSE);
	CHECK_INT(proc_cmdline(ROOT("host-qemu"), 4000, &argv, &argc, NULL), 0);
	CHECK_INT(argc, 20);
	if (argc == 20) {
		CHECK_STR(argv[0], "qemu-system-x86_64");
		CHECK_STR(argv[4], "vptest,,x,debug-threads=on");
		CHECK(argv[20] == NULL);
	}
	vp_free_names(argv, argc);
}

TEST(resctrl_fixture_group)
{
	const char *root = ROOT("host-libvirt-v2");
	struct resctrl_group g;
	char **names = NULL;
	size_t n = 0;

	CHECK_INT(resctrl_list_groups(root, &names, &n, NULL), 0);
	CHECK_INT(n, 1);
	if (n)
		CHECK_STR(names[0], "web1");
	vp_free_names(names, n);
	CHECK_INT(resctrl_group_read(root, "web1", &g, NULL), 0);
	CHECK_INT(g.n_mon, 2);
	if (g.n_mon == 2) {
		CHECK_INT(g.mon[0].domain, 0);
		CHECK_NEAR(g.mon[0].llc_occupancy, 1048576, 0);
		CHECK_NEAR(g.mon[0].mbm_total_bytes, 5000000000.0, 0);
		CHECK_NAN(g.mon[0].mbm_local_bytes);   /* "Unavailable" */
		CHECK_INT(g.mon[1].domain, 1);
		CHECK_NAN(g.mon[1].mbm_total_bytes);
	}
	resctrl_group_release(&g);
	CHECK_INT(resctrl_group_read(root, "", &g, NULL), 0);
	CHECK_INT(g.n_mon, 1);
	if (g.n_mon)
		CHECK_NEAR(g.mon[0].mbm_local_bytes, 6000000000.0, 0);
	resctrl_group_release(&g);
	CHECK(resctrl_group_read(root, "nosuch", &g, NULL) < 0);
	CHECK_NAN(resctrl_parse_value("Unavailable\n"));
	CHECK_NAN(resctrl_parse_value("12x"));
	CHECK_NEAR(resctrl_parse_value(" 42\n"), 42, 0);
	CHECK_INT(resctrl_group_create(root, "../x", NULL), VP_EINVAL);
}

TEST(cpustat_busy_between_reads)
{
	struct cpustat a, b;

	/* cpu0: busy 100+0+100+0+0+0 = 200 of 1000; then +300 busy of +400 total */
	CHECK_INT(cpustat_parse("cpu  1 2 3 4 5 6 7 8 9 10\n"
				"cpu0 100 0 100 800 0 0 0 0 0 0\n"
				"cpu1 10 0 0 90 0 0 0 0\nintr 1 2\n", &a, NULL), 0);
	CHECK_INT(a.n, 2);
	CHECK_U64(a.cpus[0].busy, 200);
	CHECK_U64(a.cpus[0].total, 1000);
	CHECK_INT(cpustat_parse("cpu0 300 0 200 900 0 0 0 0 0 0\n"
				"cpu1 10 0 0 90 0 0 0 0\n", &b, NULL), 0);
	CHECK_NEAR(cpustat_busy(&a, &b, 0), 300.0 / 400.0, 1e-12);
	CHECK_NAN(cpustat_busy(&a, &b, 1));  /* no time passed */
	CHECK_NAN(cpustat_busy(&a, &b, 7));  /* no such CPU */
	cpustat_release(&a);
	cpustat_release(&b);
	CHECK_INT(cpustat_parse("cpu0 1 2\n", &a, NULL), VP_EPARSE);
}

/*
 * Steal (the 8th number after "cpuN": user nice system idle iowait irq
 * softirq steal) is part of busy and apart on its own.  cpu0 from
 * busy 100+100+50 = 250 of 1050 to 300+200+150 = 650 of 1550: busy
 * 400 / 500 = 0.8, stolen 100 / 500 = 0.2.  A line without the column
 * (kernels before 2.6.11) has no steal: 0.
 */
TEST(cpustat_steal_between_reads)
{
	struct cpustat a, b;

	CHECK_INT(cpustat_parse("cpu0 100 0 100 800 0 0 0 50 0 0\ncpu1 10 0 0 90 0 0 0\n", &a,
				NULL), 0);
	CHECK_INT(cpustat_parse("cpu0 300 0 200 900 0 0 0 150 0 0\ncpu1 20 0 0 180 0 0 0\n", &b,
				NULL), 0);
	CHECK_U64(a.cpus[0].steal, 50);
	CHECK_NEAR(cpustat_busy(&a, &b, 0), 0.8, 1e-12);
	CHECK_NEAR(cpustat_steal(&a, &b, 0), 0.2, 1e-12);
	CHECK_NEAR(cpustat_steal(&a, &b, 1), 0.0, 0);
	CHECK_NAN(cpustat_steal(&a, &b, 5));
	CHECK_NAN(cpustat_steal(&a, &a, 0));  /* no time passed */
	cpustat_release(&a);
	cpustat_release(&b);
}

/*
 * /proc/schedstat version 15 (Documentation/scheduler/sched-stats.rst):
 * "cpuN" then yld_count, 0, sched_count, sched_goidle, ttwu_count,
 * ttwu_local, rq_cpu_time, run_delay, pcount; the domain lines are not CPUs.
 * cpu1's run_delay grows by 1.5e9 ns over 2 s: 0.75 CPUs' worth queued.
 */
TEST(cpudelay_queue_between_reads)
{
	struct cpudelay a, b;

	CHECK_INT(cpudelay_parse("version 15\ntimestamp 4295\n"
				 "cpu0 0 0 10 5 8 4 7000 2000 9\n"
				 "domain0 03 1 2 3\n"
				 "cpu1 0 0 10 5 8 4 7000 500000000 9\n", &a, NULL), 0);
	CHECK_INT(a.n, 2);
	CHECK_U64(a.cpus[1].wait_ns, 500000000);
	CHECK_INT(cpudelay_parse("version 15\ntimestamp 4495\n"
				 "cpu0 0 0 10 5 8 4 7000 2000 9\n"
				 "cpu1 0 0 10 5 8 4 7000 2000000000 9\n", &b, NULL), 0);
	CHECK_NEAR(cpudelay_queued(&a, &b, 1, 2.0), 0.75, 1e-12);
	CHECK_NEAR(cpudelay_queued(&a, &b, 0, 2.0), 0.0, 1e-12);
	CHECK_NAN(cpudelay_queued(&a, &b, 5, 2.0));   /* no such CPU */
	CHECK_NAN(cpudelay_queued(&b, &a, 1, 2.0));   /* went backwards */
	cpudelay_release(&a);
	cpudelay_release(&b);
	CHECK_INT(cpudelay_parse("version 14\ncpu0 0 0 1 1 1 1 1 1 1\n", &a, NULL), VP_EUNSUPP);
	CHECK_INT(cpudelay_parse("version 15\ncpu0 1 2\n", &a, NULL), VP_EPARSE);
	CHECK_INT(cpudelay_parse("cpu0 0 0 1 1 1 1 1 1 1\n", &a, NULL), VP_EPARSE);
}

static void *exit_at_once(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

/*
 * A kept descriptor of /proc/self/task/TID/{stat,schedstat} makes the file
 * again at each read (src/hv/kvm.c's scan cache reads them this way): after
 * this thread spun 20 ms of its own CPU time (its clock, not the wall's: a
 * loaded machine only makes it take longer), schedstat's run time through
 * the same descriptor has grown by at least that, the run time being the
 * same sum_exec_runtime the thread's CPU clock reads.  A thread that exited
 * fails its reads (ESRCH) instead of repeating the last text.
 */
TEST(task_files_kept_open)
{
	pid_t tid = (pid_t)syscall(SYS_gettid), gone = 0;
	int fd_stat = task_file_open("/", getpid(), tid, "stat");
	int fd_sched = task_file_open("/", getpid(), tid, "schedstat");
	struct task_stat st;
	struct task_schedstat a, b;
	struct timespec t0, t1;
	pthread_t th;
	int fd_gone, i, ret = 0;

	CHECK(fd_stat >= 0);
	CHECK(fd_sched >= 0);
	if (fd_stat < 0 || fd_sched < 0)
		return;
	CHECK_INT(task_stat_fd(fd_stat, &st, NULL), 0);
	CHECK_INT(st.tid, tid);
	CHECK_INT(st.state, 'R'); /* it is reading it */
	CHECK_INT(task_schedstat_fd(fd_sched, &a, NULL), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	while ((t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec) < 20000000ll);
	CHECK_INT(task_schedstat_fd(fd_sched, &b, NULL), 0);
	CHECK(b.run_ns >= a.run_ns + 20000000ull);
	CHECK_INT(task_stat_fd(fd_stat, &st, NULL), 0);
	CHECK_INT(st.tid, tid);
	close(fd_stat);
	close(fd_sched);

	CHECK_INT(pthread_create(&th, NULL, exit_at_once, &gone), 0);
	pthread_join(th, NULL);
	CHECK(gone > 0);
	/* joined: it exited; the kernel may take a moment to let go of it (5 s of grace) */
	fd_gone = task_file_open("/", getpid(), gone, "stat");
	for (i = 0; fd_gone >= 0 && i < 500; i++) {
		ret = task_stat_fd(fd_gone, &st, NULL);
		if (ret)
			break;
		usleep(10000);
	}
	if (fd_gone >= 0) {
		CHECK_INT(ret, -ESRCH);
		close(fd_gone);
	}
	CHECK_INT(task_file_open("/", getpid(), gone, "stat") < 0, 1);
}
