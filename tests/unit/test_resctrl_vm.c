/* test_resctrl_vm.c - unit tests for src/collect/resctrl_vm: per-VM monitoring groups on a copied fixture tree */
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/resctrl_vm.h"
#include "hv/hv.h"
#include "model/model.h"
#include "platform/platform.h"
#include "top/topdata.h"
#include "util/alloc.h"
#include "util/fs.h"

#define OWNER 4242
#define MIB 1048576.0

/* host-libvirt-v2 with the resctrl overlay, copied to a fresh directory (caller frees). */
static char *make_root(void)
{
	char *dir = xstrdup("/tmp/vp-resctrl-XXXXXX"), *cmd;
	int rc;

	if (!mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		free(dir);
		return NULL;
	}
	/* the overlay is copied second: its files win */
	cmd = xasprintf("cp -a '%s/root/host-libvirt-v2/.' '%s/' && cp -a '%s/resctrl/.' '%s/'",
			test_data_dir(), dir, test_data_dir(), dir);
	rc = system(cmd);
	free(cmd);
	if (rc) {
		test_fail(__FILE__, __LINE__, "copying the fixture failed");
		free(dir);
		return NULL;
	}
	return dir;
}

static void drop_root(char *dir)
{
	char *cmd;

	if (!dir)
		return;
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd))
		test_fail(__FILE__, __LINE__, "cannot remove %s", dir);
	free(cmd);
	free(dir);
}

static void put(const char *root, const char *rel, const char *text)
{
	char *p = vp_path(root, rel);
	FILE *f = fopen(p, "w");

	if (!f) {
		test_fail(__FILE__, __LINE__, "cannot write %s: %s", p, strerror(errno));
	} else {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

static bool exists(const char *root, const char *rel)
{
	return vp_exists(root, rel) == 0;
}

/* dir/tasks as text (heap). */
static char *tasks_of(const char *root, const char *dir)
{
	char *rel = xasprintf("%s/tasks", dir), *t = NULL;

	if (vp_read_file(root, rel, &t, NULL, NULL))
		t = xstrdup("");
	free(rel);
	return t;
}

/* Write a group's mon_data as the kernel would show it. */
static void mon(const char *root, const char *gdir, int dom, const char *occ, const char *tot,
		const char *loc)
{
	char *d = xasprintf("%s/mon_data/mon_L3_%02d", gdir, dom), *p = vp_path(root, d), *f;

	mkdir(p, 0755);
	free(p);
	f = xasprintf("%s/llc_occupancy", d);
	put(root, f, occ);
	free(f);
	f = xasprintf("%s/mbm_total_bytes", d);
	put(root, f, tot);
	free(f);
	f = xasprintf("%s/mbm_local_bytes", d);
	put(root, f, loc);
	free(f);
	free(d);
}

static void mon_dir(const char *root, const char *gdir)
{
	char *d = xasprintf("%s/mon_data", gdir), *p = vp_path(root, d);

	mkdir(p, 0755);
	free(p);
	free(d);
}

static int scan(const char *root, const struct platform *p, struct hv_vm_list *l)
{
	struct hv_ctx ctx = { root, p, NULL };
	struct vp_err err = { 0, "" };

	memset(l, 0, sizeof(*l));
	return hv_scan_vms(&ctx, l, &err);
}

static const struct hv_vm *vm_named(const struct hv_vm_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->vms[i].name && !strcmp(l->vms[i].name, name))
			return &l->vms[i];
	return NULL;
}

TEST(resctrl_vm_group_names)
{
	static const struct {
		int line;
		enum hv_adapter_id ad;
		int pid, owner;
		const char *want; /* NULL: no group possible */
	} rows[] = {
		{ __LINE__, HVA_KVM, 1234, 99, "vmmprof-kvm-1234-99" },
		{ __LINE__, HVA_NATIVE, 77, 5, "vmmprof-native-77-5" },
		{ __LINE__, HVA_XEN, -1, 5, NULL },   /* Xen vCPUs are no dom0 threads */
		{ __LINE__, HVA_KVM, 0, 5, NULL },    /* no process */
		{ __LINE__, HVA_GUEST, 1, 5, NULL },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		struct hv_vm vm;
		char *n;

		memset(&vm, 0, sizeof(vm));
		vm.adapter = rows[i].ad;
		vm.pid = rows[i].pid;
		n = resctrl_vm_group_name(&vm, rows[i].owner);
		if (!rows[i].want)
			CHECK_AT(rows[i].line, !n, "row %d: got '%s'", rows[i].line, n);
		else
			CHECK_STR_AT(rows[i].line, n ? n : "(null)", rows[i].want);
		free(n);
	}
}

TEST(resctrl_vm_mkdir_explain)
{
	static const struct {
		int line, errnum;
		long rmids;
		const char *want;
	} rows[] = {
		{ __LINE__, ENOSPC, 4, "no free RMID" },
		{ __LINE__, ENOSPC, 4, "(num_rmids 4)" },
		{ __LINE__, EBUSY, 4, "max_threshold_occupancy" },
		{ __LINE__, EACCES, -1, "cannot create '/x/mon_groups/g': Permission denied: making a "
					"resctrl group needs write access to its parent directory, "
					"which is root's (mode 0755): run as root" },
		{ __LINE__, EPERM, -1, "cannot create '/x/mon_groups/g': Operation not permitted: " },
		{ __LINE__, EEXIST, -1, "exists and is no monitoring group" },
		{ __LINE__, ENOTDIR, -1, "no mon_groups directory" },
		{ __LINE__, EIO, -1, "Input/output error" },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		char buf[512] = "";

		resctrl_mkdir_explain(rows[i].errnum, rows[i].rmids, "/x/mon_groups/g", buf,
				      sizeof(buf));
		CHECK_AT(rows[i].line, strstr(buf, rows[i].want) != NULL, "row %d: '%s' lacks '%s'",
			 rows[i].line, buf, rows[i].want);
	}
}

static int two_nodes(const void *ctx, int dom)
{
	(void)ctx;
	return dom == 0 ? 0 : dom == 1 ? 1 : -1;
}

TEST(resctrl_vm_rates)
{
	/*
	 * Two reads of a group with two L3 domains, by hand: domain 0 went
	 * 1000 -> 4000 total and 600 -> 2400 local bytes, domain 1 5000 ->
	 * 5500 and 1000 -> 1200; occupancy now 3 MiB and 1 MiB.
	 */
	struct resctrl_mon b[2] = { { 0, 2 * MIB, 1000, 600 }, { 1, 0, 5000, 1000 } };
	static const struct {
		int line;
		double tot1, loc1;           /* domain 1 now */
		double want_tot, want_loc, want_n1_tot;
		int unavailable;
	} rows[] = {
		{ __LINE__, 5500, 1200, 3500, 2000, 500, 0 },
		/* domain 1 reads Unavailable: left out, counted */
		{ __LINE__, NAN, 1200, 3000, 1800, NAN, 1 },
		/* domain 1 went back (its counter was reset): left out */
		{ __LINE__, 100, 50, 3000, 1800, NAN, 1 },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		struct resctrl_mon n[2] = { { 0, 3 * MIB, 4000, 2400 },
					    { 1, 1 * MIB, rows[i].tot1, rows[i].loc1 } };
		struct resctrl_group gb = { "", b, 2 }, gn = { "", n, 2 };
		struct resctrl_values v;

		resctrl_values_compute(&gb, &gn, two_nodes, NULL, 2, &v);
		CHECK_NEAR_AT(rows[i].line, v.mbm_total, rows[i].want_tot, 0);
		CHECK_NEAR_AT(rows[i].line, v.mbm_local, rows[i].want_loc, 0);
		CHECK_NEAR_AT(rows[i].line, v.llc_occupancy, 4 * MIB, 0);
		CHECK_NEAR_AT(rows[i].line, v.node_total[0], 3000, 0);
		CHECK_NEAR_AT(rows[i].line, v.node_llc[0], 3 * MIB, 0);
		CHECK_NEAR_AT(rows[i].line, v.node_llc[1], 1 * MIB, 0);
		if (isnan(rows[i].want_n1_tot))
			CHECK_AT(rows[i].line, isnan(v.node_total[1]), "row %d: node 1 %g",
				 rows[i].line, v.node_total[1]);
		else
			CHECK_NEAR_AT(rows[i].line, v.node_total[1], rows[i].want_n1_tot, 0);
		CHECK_INT_AT(rows[i].line, v.n_unavailable, rows[i].unavailable);
		resctrl_values_release(&v);
	}
	/* no earlier read: no rate, but occupancy is a gauge */
	{
		struct resctrl_mon n[1] = { { 0, 5 * MIB, 10, 5 } };
		struct resctrl_group gn = { "", n, 1 };
		struct resctrl_values v;

		resctrl_values_compute(NULL, &gn, two_nodes, NULL, 2, &v);
		CHECK_NAN(v.mbm_total);
		CHECK_NAN(v.mbm_local);
		CHECK_NEAR(v.llc_occupancy, 5 * MIB, 0);
		CHECK_INT(v.n_unavailable, 1);
		resctrl_values_release(&v);
	}
}

TEST(resctrl_vm_fixture_lifecycle)
{
	char *root = make_root();
	struct platform plat;
	struct vp_err err = { 0, "" };
	struct hv_vm_list l;
	struct resctrl_vms *s = NULL;
	struct resctrl_meter *m = NULL;
	const struct hv_vm *web, *db;
	struct resctrl_values v;
	char wdir[128], ddir[128], *t;

	if (!root)
		return;
	snprintf(wdir, sizeof(wdir), RESCTRL_DIR "/mon_groups/vmmprof-kvm-1000-%d", OWNER);
	snprintf(ddir, sizeof(ddir), RESCTRL_DIR "/p1/mon_groups/vmmprof-kvm-2000-%d", OWNER);
	CHECK_INT(platform_probe(&plat, root, &err), 0);
	s = resctrl_vms_new(root, &plat, OWNER);
	CHECK(resctrl_vms_unavailable(s) == NULL);
	CHECK(resctrl_vms_event_missing(s, RCE_MBM_LOCAL) == NULL);
	/* the crashed run's group is gone, the live one's and a stranger's stay */
	CHECK_CONTAINS(resctrl_vms_notes(s), "vmmprof-kvm-1000-4000000");
	CHECK(!exists(root, RESCTRL_DIR "/mon_groups/vmmprof-kvm-1000-4000000"));
	CHECK(exists(root, RESCTRL_DIR "/mon_groups/vmmprof-kvm-2000-5000"));
	CHECK(exists(root, RESCTRL_DIR "/mon_groups/other"));
	/* L3 cache id 0 is CPUs 0-1 (node 0), id 1 CPUs 2-3 (node 1) */
	CHECK_INT(resctrl_vms_domain_node(s, 0), 0);
	CHECK_INT(resctrl_vms_domain_node(s, 1), 1);
	CHECK_INT(resctrl_vms_domain_node(s, 7), -1);

	CHECK_INT(scan(root, &plat, &l), 0);
	web = vm_named(&l, "web1");
	db = vm_named(&l, "db-2");
	CHECK(web && db);
	if (!web || !db)
		goto out;
	m = resctrl_meter_new(s);
	resctrl_meter_update(m, l.vms, l.n);
	/* web1 in the root group; db-2 under the CTRL_MON group its threads are in */
	CHECK(exists(root, wdir));
	CHECK(exists(root, ddir));
	/* libvirt VM: its cgroup's threads, the vhost worker 1500 among them */
	t = tasks_of(root, wdir);
	CHECK_STR(t, "1000\n1003\n1500\n1001\n1002\n");
	free(t);
	t = tasks_of(root, ddir);
	CHECK_STR(t, "2000\n2002\n");
	free(t);

	/* no mon_data yet: the reason, no number */
	CHECK(resctrl_meter_read(m, web, false, &v) < 0);
	CHECK_NAN(v.mbm_total);
	CHECK_CONTAINS(v.why, "mon_data");
	resctrl_values_release(&v);

	/* the kernel's first read of a fresh group: counted from 0 */
	mon_dir(root, wdir);
	mon(root, wdir, 0, "3145728\n", "2000000\n", "1500000\n");
	mon(root, wdir, 1, "1048576\n", "Unavailable\n", "Unavailable\n");
	CHECK_INT(resctrl_meter_read(m, web, false, &v), 0);
	CHECK_NEAR(v.llc_occupancy, 4 * MIB, 0);
	CHECK_NEAR(v.mbm_total, 2000000, 0);
	CHECK_NEAR(v.mbm_local, 1500000, 0);
	CHECK_NEAR(v.node_llc[0], 3 * MIB, 0);
	CHECK_NEAR(v.node_llc[1], 1 * MIB, 0);
	CHECK_INT(v.n_unavailable, 1);
	CHECK_CONTAINS(v.why, "Unavailable");
	resctrl_values_release(&v);
	/* next sample: domain 0 +3000000 / +1000000, domain 1 now valid from 0 */
	mon(root, wdir, 0, "2097152\n", "5000000\n", "2500000\n");
	mon(root, wdir, 1, "0\n", "400000\n", "100000\n");
	CHECK_INT(resctrl_meter_read(m, web, false, &v), 0);
	CHECK_NEAR(v.mbm_total, 3400000, 0);
	CHECK_NEAR(v.mbm_local, 1100000, 0);
	CHECK_NEAR(v.node_total[0], 3000000, 0);
	CHECK_NEAR(v.node_total[1], 400000, 0);
	CHECK_NEAR(v.llc_occupancy, 2 * MIB, 0);
	CHECK_INT(v.n_unavailable, 0);
	resctrl_values_release(&v);
	/* the whole run: everything since the group was made */
	CHECK_INT(resctrl_meter_read(m, web, true, &v), 0);
	CHECK_NEAR(v.mbm_total, 5400000, 0);
	CHECK_NEAR(v.mbm_local, 2600000, 0);
	resctrl_values_release(&v);

	/* a thread that appears is moved at the next update, once */
	put(root, "/sys/fs/cgroup/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope/libvirt/emulator/"
	    "cgroup.threads", "1000\n1003\n1500\n1004\n");
	hv_vm_list_release(&l);
	CHECK_INT(scan(root, &plat, &l), 0);
	resctrl_meter_update(m, l.vms, l.n);
	resctrl_meter_update(m, l.vms, l.n);
	t = tasks_of(root, wdir);
	CHECK_STR(t, "1000\n1003\n1500\n1001\n1002\n1004\n");
	free(t);

	/* db-2 exits: its group goes with it, web1's stays */
	{
		char *cmd = xasprintf("rm -rf '%s/proc/2000'", root);

		CHECK_INT(system(cmd), 0);
		free(cmd);
	}
	hv_vm_list_release(&l);
	CHECK_INT(scan(root, &plat, &l), 0);
	CHECK(vm_named(&l, "db-2") == NULL);
	resctrl_meter_update(m, l.vms, l.n);
	CHECK(!exists(root, ddir));
	CHECK(exists(root, wdir));
	/* the end: every group made is removed */
	resctrl_meter_free(m);
	m = NULL;
	CHECK(!exists(root, wdir));
	CHECK(exists(root, RESCTRL_DIR "/mon_groups/other"));
out:
	resctrl_meter_free(m);
	resctrl_vms_free(s);
	hv_vm_list_release(&l);
	platform_release(&plat);
	drop_root(root);
}

TEST(resctrl_vm_refusals)
{
	static const struct {
		int line;
		const char *setup;  /* shell run in the copied root */
		const char *want;   /* in web1's reason */
	} rows[] = {
		/* mkdir cannot work: mon_groups is no directory (stands in for ENOSPC & co.) */
		{ __LINE__, "rm -rf sys/fs/resctrl/mon_groups && : > sys/fs/resctrl/mon_groups",
		  "no mon_groups directory" },
		/* a file where the group would go */
		{ __LINE__, ": > sys/fs/resctrl/mon_groups/vmmprof-kvm-1000-4242",
		  "exists and is no monitoring group" },
		/* the VM is in someone else's monitoring group */
		{ __LINE__, "printf 'res:/\\nmon:other\\n' > proc/1000/cpu_resctrl_groups",
		  "already" },
	};
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++) {
		char *root = make_root(), *cmd;
		struct platform plat;
		struct hv_vm_list l;
		struct resctrl_vms *s;
		struct resctrl_meter *m;
		struct resctrl_values v;
		const struct hv_vm *web, *db;

		if (!root)
			return;
		cmd = xasprintf("cd '%s' && %s", root, rows[i].setup);
		CHECK_INT_AT(rows[i].line, system(cmd), 0);
		free(cmd);
		CHECK_INT_AT(rows[i].line, platform_probe(&plat, root, NULL), 0);
		s = resctrl_vms_new(root, &plat, OWNER);
		CHECK_INT_AT(rows[i].line, scan(root, &plat, &l), 0);
		m = resctrl_meter_new(s);
		resctrl_meter_update(m, l.vms, l.n);
		web = vm_named(&l, "web1");
		db = vm_named(&l, "db-2");
		if (web) {
			CHECK_AT(rows[i].line, resctrl_meter_read(m, web, false, &v) < 0, "row %d",
				 rows[i].line);
			CHECK_AT(rows[i].line, strstr(v.why, rows[i].want) != NULL,
				 "row %d: '%s' lacks '%s'", rows[i].line, v.why, rows[i].want);
			resctrl_values_release(&v);
		}
		/* the other VM is not affected by web1's refusal (its group is under p1) */
		if (db) {
			char *d = xasprintf(RESCTRL_DIR "/p1/mon_groups/vmmprof-kvm-2000-%d", OWNER);

			CHECK_AT(rows[i].line, exists(root, d), "row %d: db-2's group missing",
				 rows[i].line);
			free(d);
		}
		resctrl_meter_free(m);
		resctrl_vms_free(s);
		hv_vm_list_release(&l);
		platform_release(&plat);
		drop_root(root);
	}
}

TEST(resctrl_vm_unavailable)
{
	struct platform plat;
	struct resctrl_vms *s;

	/* host-qemu has no /sys/fs/resctrl */
	CHECK_INT(platform_probe(&plat, test_data("root/host-qemu"), NULL), 0);
	s = resctrl_vms_new(test_data("root/host-qemu"), &plat, OWNER);
	CHECK(resctrl_vms_unavailable(s) != NULL);
	CHECK_CONTAINS(resctrl_vms_unavailable(s), "resctrl");
	CHECK(resctrl_vms_event_missing(s, RCE_LLC_OCCUPANCY) != NULL);
	resctrl_vms_free(s);
	platform_release(&plat);
}

TEST(resctrl_vm_retry_after_refusal)
{
	/* a refused mkdir (RMIDs busy, say) is tried again at the next sample */
	char *root = make_root(), *cmd;
	struct platform plat;
	struct hv_vm_list l;
	struct resctrl_vms *s;
	struct resctrl_meter *m;
	struct resctrl_values v;
	const struct hv_vm *web;
	char wdir[128];

	if (!root)
		return;
	snprintf(wdir, sizeof(wdir), RESCTRL_DIR "/mon_groups/vmmprof-kvm-1000-%d", OWNER);
	cmd = xasprintf("cd '%s' && : > sys/fs/resctrl/mon_groups/vmmprof-kvm-1000-%d", root, OWNER);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	CHECK_INT(platform_probe(&plat, root, NULL), 0);
	s = resctrl_vms_new(root, &plat, OWNER);
	CHECK_INT(scan(root, &plat, &l), 0);
	m = resctrl_meter_new(s);
	resctrl_meter_update(m, l.vms, l.n);
	web = vm_named(&l, "web1");
	CHECK(web != NULL);
	if (web) {
		CHECK(resctrl_meter_read(m, web, false, &v) < 0);
		CHECK_CONTAINS(v.why, "exists and is no monitoring group");
		resctrl_values_release(&v);
	}
	/* the obstacle goes: the next update makes the group, counting from 0 */
	cmd = xasprintf("rm '%s%s'", root, wdir);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	resctrl_meter_update(m, l.vms, l.n);
	CHECK(exists(root, wdir));
	mon_dir(root, wdir);
	mon(root, wdir, 0, "0\n", "700\n", "100\n");
	if (web) {
		CHECK_INT(resctrl_meter_read(m, web, false, &v), 0);
		CHECK_NEAR(v.mbm_total, 700, 0);
		CHECK_NEAR(v.mbm_local, 100, 0);
		resctrl_values_release(&v);
	}
	resctrl_meter_free(m);
	CHECK(!exists(root, wdir));
	resctrl_vms_free(s);
	hv_vm_list_release(&l);
	platform_release(&plat);
	drop_root(root);
}

/*
 * top --resctrl with a model that reads resctrl: top's own columns and its
 * collector's model inputs come from one set of groups (one per VM, named
 * after top), not from two sets whose groups would take the VM's threads
 * from each other (a task is in one monitoring group only).  web1's group
 * is written 3 MiB on domain 0 and 1 MiB on domain 1: the model's llc
 * score is llc_occ / 1048576 = 4 (MiB), top's own column 4194304 bytes.
 */
TEST(resctrl_vm_top_and_its_collector_share_groups)
{
	char *root = make_root(), *mpath, *t;
	struct top_state s;
	struct model *m = NULL;
	struct diags dg;
	struct vp_err err = { 0, "" };
	char wdir[128];
	char **names = NULL;
	size_t n = 0, i, mine = 0;
	const struct top_vm *web = NULL;

	if (!root)
		return;
	snprintf(wdir, sizeof(wdir), RESCTRL_DIR "/mon_groups/vmmprof-kvm-1000-%d", OWNER);
	diags_init(&dg);
	mpath = xasprintf("%s/models/good/resctrl.model", test_data_dir());
	CHECK_INT(model_load(&m, mpath, NULL, 0, &dg, &err), 0);
	diags_release(&dg);
	free(mpath);
	CHECK_INT(top_init(&s, root, &err), 0);
	top_resctrl_start(&s, OWNER);
	if (m)
		CHECK_INT(top_count_start(&s, m, NULL, "chosen with -m", &err), 0);
	CHECK_INT(top_sample(&s, &err), 0);
	CHECK(exists(root, wdir));
	/* one group for web1 in the root group's mon_groups: top's, none of another owner */
	if (!vp_list_dir(root, RESCTRL_DIR "/mon_groups", &names, &n, NULL)) {
		for (i = 0; i < n; i++)
			mine += !strncmp(names[i], "vmmprof-kvm-1000-", 17);
		vp_free_names(names, n);
	}
	CHECK_INT((int)mine, 1);
	/* its threads written once, not once per user of the group */
	t = tasks_of(root, wdir);
	CHECK_STR(t, "1000\n1003\n1500\n1001\n1002\n");
	free(t);
	mon_dir(root, wdir);
	mon(root, wdir, 0, "3145728\n", "0\n", "0\n");
	mon(root, wdir, 1, "1048576\n", "0\n", "0\n");
	CHECK_INT(top_sample(&s, &err), 0);
	for (i = 0; i < s.n_vms; i++)
		if (!strcmp(sbuf_str(&s.vms[i].name), "web1"))
			web = &s.vms[i];
	CHECK(web != NULL);
	if (web) {
		CHECK_NEAR(web->rdt.llc_bytes, 4194304, 0);
		CHECK_INT(web->factor[FACTOR_LLC].src, TOP_SRC_MODEL);
		CHECK_NEAR(web->factor[FACTOR_LLC].q.v, 4.0, 1e-12);
	}
	top_release(&s);
	CHECK(!exists(root, wdir));
	model_free(m);
	drop_root(root);
}
