/* test_model_resolve.c - src/model/resolve.c: which event specs a machine (or fixture root) can count */
#include "test.h"

#include <linux/perf_event.h>
#include <stdlib.h>

#include "model/resolve.h"
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
