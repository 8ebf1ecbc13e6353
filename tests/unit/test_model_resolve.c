/* test_model_resolve.c - src/model/resolve.c: which event specs a machine (or fixture root) can count */
#include "test.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>

#include "model/resolve.h"
#include "model/swsource.h"
#include "platform/platform.h"
#include "util/alloc.h"

/*
 * An event that encodes is not yet an event this machine counts: generic
 * hardware/hw-cache names, raw rNNNN and libpfm4 core names need the core
 * PMU.  The expected reasons come from the fixtures: tests/data/root/local
 * and kvm-guest-novpmu have no core PMU directory and a kern.log with the
 * kernel's own line (arch/x86/events/core.c prints "Performance Events:
 * PMU not available due to virtualization, using software events only."),
 * guest has neither a core PMU nor a kernel log.  (LIBPFM_ENCODE_INACTIVE
 * is set for the whole unit-test binary by test_event.c, so libpfm4
 * tables of other CPUs encode here.)
 */
#define KVM_LINE "no core PMU here: kernel: \"Performance Events: PMU not available due to virtualization"

static const struct {
	int line;
	const char *root;
	const char *table;   /* libpfm4 core table for bare names, "" none */
	bool with_plat;      /* false: model_machine.plat is NULL (core PMU not checked) */
	const char *spec;
	int ret;
	size_t n;            /* events appended when ret is 0 */
	const char *reason;  /* substring of the reason when ret is not 0 */
} core_rows[] = {
	/* this project's test machine, captured: a KVM guest without a vPMU */
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "cycles", VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "instructions", VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "cache-misses", VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "LLC-load-misses", VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "r003c", VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "cycles:u", VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL",
	  VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", VP_EUNSUPP, 0,
	  KVM_LINE },
	/* a libpfm4 name of another CPU: still the core PMU that is missing first */
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", VP_EUNSUPP, 0,
	  KVM_LINE },
	/* software events and tracepoints need no PMU hardware */
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "task-clock", 0, 1, NULL },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "context-switches", 0, 1, NULL },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "cpu-migrations", 0, 1, NULL },
	/* a sysfs spec needs its PMU's directory under the root */
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "cpu/event=0x3c/", VP_EUNSUPP, 0, "no PMU 'cpu' here" },
	{ __LINE__, "local", "amd64_fam19h_zen3", true, "amd_l3/event=0x04,umask=0xff/", VP_EUNSUPP, 0,
	  "no PMU 'amd_l3' here" },
	{ __LINE__, "kvm-guest-novpmu", "icx", true, "cycles", VP_EUNSUPP, 0, KVM_LINE },
	{ __LINE__, "kvm-guest-novpmu", "icx", true, "OCR:DEMAND_DATA_RD_LOCAL_DRAM", VP_EUNSUPP, 0, KVM_LINE },
	/* no kernel log under this root: the probe's own reason */
	{ __LINE__, "guest", "", true, "instructions", VP_EUNSUPP, 0,
	  "no core PMU here: no core PMU under /sys/bus/event_source/devices" },
	/* with a core PMU they resolve */
	{ __LINE__, "kvm-guest-vpmu", "clx", true, "cycles", 0, 1, NULL },
	{ __LINE__, "kvm-guest-vpmu", "clx", true, "LLC-load-misses", 0, 1, NULL },
	{ __LINE__, "kvm-guest-vpmu", "clx", true, "r003c", 0, 1, NULL },
	{ __LINE__, "kvm-guest-vpmu", "clx", true, "cpu/event=0x3c/", 0, 1, NULL },
	{ __LINE__, "skx-2s", "skx", true, "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", 0, 1, NULL },
	{ __LINE__, "arm-n1", "arm_n1", true, "r31", 0, 1, NULL },
	{ __LINE__, "zen3-2s", "amd64_fam19h_zen3", true, "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT", 0, 1,
	  NULL },
	/* uncore PMUs are not the core PMU: a host fixture counts them either way */
	{ __LINE__, "icx-2s", "icx", true, "uncore_imc/event=0x04,umask=0x0f/", 0, 12, NULL },
	/* without a probed platform the core PMU is not checked (documented in resolve.h) */
	{ __LINE__, "local", "amd64_fam19h_zen3", false, "cycles", 0, 1, NULL },
};

TEST(model_resolve_core_pmu)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(core_rows); i++) {
		char *rel = xasprintf("root/%s", core_rows[i].root);
		char *root = xstrdup(test_data(rel));
		struct platform plat;
		struct pmu_db *db = NULL;
		struct model_machine mm;
		struct evdesc_list out;
		struct vp_err err = { 0, "" };
		char *reason = NULL;
		int ret, pret;

		pret = platform_probe(&plat, root, &err);
		CHECK_INT_AT(core_rows[i].line, pret, 0);
		CHECK_INT_AT(core_rows[i].line, pmu_db_new(&db, root, &err), 0);
		memset(&mm, 0, sizeof(mm));
		mm.db = db;
		mm.root = root;
		snprintf(mm.pfm_table, sizeof(mm.pfm_table), "%s", core_rows[i].table);
		mm.plat = core_rows[i].with_plat && !pret ? &plat : NULL;
		evdesc_list_init(&out);
		/* something already in the list stays there whatever happens */
		CHECK_INT_AT(core_rows[i].line, event_resolve(db, "task-clock", 0, &out, &err), 0);
		ret = model_resolve_event(&mm, core_rows[i].spec, 3, &out, &reason);
		CHECK_AT(core_rows[i].line, ret == core_rows[i].ret, "'%s' on %s: returned %d (%s), expected %d",
			 core_rows[i].spec, core_rows[i].root, ret, reason ? reason : "", core_rows[i].ret);
		CHECK_INT_AT(core_rows[i].line, out.n, 1 + (ret ? 0 : core_rows[i].n));
		if (core_rows[i].reason)
			CHECK_AT(core_rows[i].line, reason && strstr(reason, core_rows[i].reason),
				 "'%s' on %s: reason '%s', expected '%s'", core_rows[i].spec, core_rows[i].root,
				 reason ? reason : "(none)", core_rows[i].reason);
		else
			CHECK_AT(core_rows[i].line, !reason, "'%s': unexpected reason '%s'", core_rows[i].spec,
				 reason);
		if (out.n)
			CHECK_STR_AT(core_rows[i].line, out.v[0].spec, "task-clock");
		free(reason);
		evdesc_list_release(&out);
		pmu_db_free(db);
		if (!pret)
			platform_release(&plat);
		free(root);
		free(rel);
	}
}

/*
 * The sched.* sources for each scope, on tests/data/root/schedstat (its
 * README gives the numbers; the sums here are worked out from them).
 */
TEST(swsource_sched_scopes)
{
	static const pid_t pid1000[] = { 1000 }, tid2001[] = { 2001 }, pid3000[] = { 3000 },
			   gone[] = { 4242 };
	struct swsource_scope tasks = { SWS_TASKS, pid1000, 1, tid2001, 1 };
	struct swsource_scope none = { SWS_TASKS, NULL, 0, NULL, 0 };
	struct swsource_scope nodbg = { SWS_TASKS, pid3000, 1, NULL, 0 };
	struct swsource_scope dead = { SWS_TASKS, NULL, 0, gone, 1 };
	struct swsource_scope cmd = { SWS_COMMAND, NULL, 0, NULL, 0 };
	struct swsource_scope part = { SWS_PART, NULL, 0, NULL, 0 };
	struct swsource_scope machine = { SWS_MACHINE, NULL, 0, NULL, 0 };
	struct vp_err err = { 0, "" };
	char *root = xstrdup(test_data("root/schedstat"));
	double v;

	/* machine: /proc/schedstat cpu lines, fields 7 and 8 */
	CHECK_INT(swsource_read_scoped(root, "sched.run_ns", NULL, &v, &err), 0);
	CHECK_NEAR(v, 600000 + 400000, 0);
	CHECK_INT(swsource_read_scoped(root, "sched.wait_ns", &machine, &v, &err), 0);
	CHECK_NEAR(v, 7000 + 3000, 0);
	CHECK_INT(swsource_read(root, "sched.migrations", &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "'sched.migrations' is counted per task by stat -m -p/-t");
	CHECK_NAN(v);
	/* tasks: process 1000's two threads plus thread 2001 */
	CHECK_INT(swsource_read_scoped(root, "sched.run_ns", &tasks, &v, &err), 0);
	CHECK_NEAR(v, 5000 + 2000 + 40, 0);
	CHECK_INT(swsource_read_scoped(root, "sched.wait_ns", &tasks, &v, &err), 0);
	CHECK_NEAR(v, 300 + 100 + 9, 0);
	CHECK_INT(swsource_read_scoped(root, "sched.migrations", &tasks, &v, &err), 0);
	CHECK_NEAR(v, 11 + 4 + 2, 0);
	/* no task yet: only whether the kernel has the file (proc/self/schedstat, no proc/self/sched) */
	CHECK_INT(swsource_read_scoped(root, "sched.run_ns", &none, &v, &err), 0);
	CHECK_INT(swsource_read_scoped(root, "sched.migrations", &none, &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "no /proc/self/sched (kernel without CONFIG_SCHED_DEBUG?)");
	/* a process whose threads have no sched file; a task that is gone */
	CHECK_INT(swsource_read_scoped(root, "sched.run_ns", &nodbg, &v, &err), 0);
	CHECK_NEAR(v, 9, 0);
	CHECK(swsource_read_scoped(root, "sched.migrations", &nodbg, &v, &err) != 0);
	CHECK_NAN(v);
	CHECK(swsource_read_scoped(root, "sched.run_ns", &dead, &v, &err) != 0);
	CHECK_NAN(v);
	/* a command, a part of the machine: absent, saying where to get it */
	CHECK_INT(swsource_read_scoped(root, "sched.wait_ns", &cmd, &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "not for a command stat starts");
	CHECK_CONTAINS(err.msg, "machine-wide with -a");
	CHECK_INT(swsource_read_scoped(root, "sched.migrations", &part, &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "not for a part of the machine (-C, -G): per task with stat -m -p/-t");
	/*
	 * a command: run time and migrations are counted by the perf events that
	 * count the same per task with inherit; read, they say so; wait time has
	 * no event; no other scope opens events for them
	 */
	CHECK_STR(swsource_event_for("sched.run_ns", &cmd), "task-clock");
	CHECK_STR(swsource_event_for("sched.migrations", &cmd), "cpu-migrations");
	CHECK(swsource_event_for("sched.wait_ns", &cmd) == NULL);
	CHECK(swsource_event_for("sched.run_ns", &tasks) == NULL);
	CHECK(swsource_event_for("sched.run_ns", &part) == NULL);
	CHECK(swsource_event_for("sched.run_ns", NULL) == NULL);
	CHECK(swsource_event_for("numastat.numa_hit", &cmd) == NULL);
	CHECK_INT(swsource_read_scoped(root, "sched.run_ns", &cmd, &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "counted by the event 'task-clock'");
	CHECK_NAN(v);
	CHECK_INT(swsource_read_scoped(root, "sched.wait_ns", &cmd, &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "no perf event counts it");
	/* machine-wide sources read the machine in every scope */
	/* node migrations: the table has no reader; stat -m's tracer provides them (model_machine.live) */
	CHECK_INT(swsource_read_scoped(root, "sched.node_migrations", &tasks, &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "from the kernel's context-switch records");
	CHECK_INT(swsource_read_scoped(root, "placement.remote_fraction", &tasks, &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "stat -m has no vCPU rows");
	free(root);
}

/* A root without /proc/schedstat: machine-wide run time is absent, with the kernel option and -p. */
TEST(swsource_sched_no_schedstat)
{
	struct vp_err err = { 0, "" };
	char *root = xstrdup(test_data("root/host-qemu"));
	double v;

	CHECK_INT(swsource_read(root, "sched.run_ns", &v, &err), VP_EUNSUPP);
	CHECK_CONTAINS(err.msg, "no /proc/schedstat (kernel without CONFIG_SCHEDSTATS?): per task it is read "
		       "with stat -m -p/-t");
	CHECK_NAN(v);
	free(root);
}

/*
 * The RPQ residency of icx and spr on hand-picked counts (Little's law over
 * both pseudo-channels): occupancy 3000 + 1000 DRAM-clock entries over
 * 30 + 10 inserts = 100 DRAM clocks; no inserts is NaN, not 0.
 */
TEST(model_rpq_latency_eval)
{
	static const char *const models[] = { "icx", "spr" };
	size_t k, i;

	for (k = 0; k < VP_ARRAY_SIZE(models); k++) {
		char *rel = xasprintf("../../models/%s.model", models[k]);
		char *path = xstrdup(test_data(rel));
		char *dir = xstrdup(test_data("../../models"));
		const char *dirs[1] = { dir };
		struct model *m = NULL;
		struct diags d;
		struct vp_err err = { 0, "" };
		struct expr_env env;
		struct factor_value fv[FACTOR_N];
		double *in = NULL, *met = NULL;
		int mi;

		diags_init(&d);
		if (model_load(&m, path, dirs, 1, &d, &err)) {
			test_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
			goto next;
		}
		in = xcalloc(m->n_inputs + 1, sizeof(double));
		met = xcalloc(m->n_metrics + 1, sizeof(double));
		for (i = 0; i < m->n_inputs; i++) {
			const char *n = m->inputs[i].name;

			in[i] = !strcmp(n, "rpq_occ0") ? 3000 : !strcmp(n, "rpq_occ1") ? 1000 :
				!strcmp(n, "rpq_ins0") ? 30 : !strcmp(n, "rpq_ins1") ? 10 : NAN;
		}
		expr_env_init(&env);
		env.inputs = in;
		env.n_inputs = m->n_inputs;
		env.duration = 1;
		model_eval(m, &env, met, fv);
		mi = model_find_metric(m, "rpq_lat_dclk");
		CHECK(mi >= 0);
		if (mi >= 0)
			CHECK_NEAR(met[mi], 100, 1e-12);
		for (i = 0; i < m->n_inputs; i++)
			if (!strncmp(m->inputs[i].name, "rpq_ins", 7))
				in[i] = 0;
		model_eval(m, &env, met, fv);
		if (mi >= 0)
			CHECK_NAN(met[mi]);
next:
		free(in);
		free(met);
		model_free(m);
		diags_release(&d);
		free(dir);
		free(path);
		free(rel);
	}
}
