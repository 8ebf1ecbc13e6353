/* test_coverage.c - info's factor coverage read off the model chosen for each fixture tree */
#include "test.h"

#include <stdlib.h>

#include "plan/coverage.h"
#include "util/alloc.h"

/*
 * Each row is worked out by hand from the model file that matches the
 * fixture (models/NAME.model and its includes) and from what the fixture
 * tree holds (tests/data/root/NAME/sys/bus/event_source/devices): the
 * model's quality for each factor where all the inputs its score needs are
 * there, else unavailable; and one input each score reads, with whether the
 * tree has it.  LIBPFM_ENCODE_INACTIVE is set for the whole unit binary
 * (test_event.c), as `info --root` sets it.
 */
struct want_row {
	enum vp_quality q;
	enum cov_kind k;
	const char *reads;       /* an input the score reads, NULL: none */
	bool present;
};

static const struct {
	int line;
	const char *root;
	const char *model;
	struct want_row f[FACTOR_N];
} rows[] = {
	/* skx.model + intel-core.inc; the tree has cpu, uncore_imc x6, uncore_cha, uncore_upi */
	{ __LINE__, "root/skx-2s", "skx", {
		{ VQ_MEASURED, COV_SRC_CORE, "rem_dram", true },       /* remote_frac */
		{ VQ_MEASURED, COV_SRC_CORE, "llc_miss", true },       /* llc_mpki */
		{ VQ_MEASURED, COV_SRC_CORE, "loc_hitm", true },       /* hitm_pki */
		{ VQ_APPORTIONED, COV_SRC_UNCORE, "cas_rd", true },    /* bw_util: CAS_COUNT, home */
		/* tracker_full_frac: the IMC's RPQ/WPQ-full clocks, per socket (home) */
		{ VQ_APPORTIONED, COV_SRC_UNCORE, "rpq_full", true } } },
	/* a Cascade Lake vPMU: skx.model; a guest has no uncore_imc, so no bw_util */
	{ __LINE__, "root/kvm-guest-vpmu", "skx", {
		{ VQ_MEASURED, COV_SRC_CORE, "rem_dram", true },
		{ VQ_MEASURED, COV_SRC_CORE, "llc_miss", true },
		{ VQ_MEASURED, COV_SRC_CORE, "rem_hitm", true },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, "cas_rd", false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, "rpq_full", false } } },
	/* zen3.model + amd-core.inc; amd_l3 and amd_df are per-CCX / per-socket */
	{ __LINE__, "root/zen3-2s", "zen3", {
		{ VQ_MEASURED, COV_SRC_CORE, "rem_dram", true },
		{ VQ_APPORTIONED, COV_SRC_UNCORE, "l3_miss", true },   /* l3_mpki */
		{ VQ_PROXY, COV_SRC_CORE, "rem_cache", true },         /* xccx_pki: no HITM on Zen */
		{ VQ_APPORTIONED, COV_SRC_UNCORE, "df_ch7", true },
		/* amd-core.inc declares it unavailable: no Zen event counts a tracker full */
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false } } },
	/* nhm-ep.model + nhm-uncore.inc: the one "uncore" PMU gives the GQ and the QMC */
	{ __LINE__, "root/nhm-ep", "nhm-ep", {
		{ VQ_MEASURED, COV_SRC_CORE, "loc_dram", true },
		{ VQ_MEASURED, COV_SRC_CORE, "llc_miss", true },
		{ VQ_MEASURED, COV_SRC_CORE, "rem_hitm", true },
		{ VQ_APPORTIONED, COV_SRC_UNCORE, "qmc_rd", true },
		{ VQ_APPORTIONED, COV_SRC_UNCORE, "gq_full_rd", true } } },
	/* neoverse-n1.model + arm-cmn.inc: sharing and imc declared unavailable; the
	 * queue score reads the CMN's HN-F retries, per socket (home), and the tree
	 * has arm_cmn_0 with the driver's formats */
	{ __LINE__, "root/arm-n1", "neoverse-n1", {
		{ VQ_MEASURED, COV_SRC_CORE, NULL, true },
		{ VQ_MEASURED, COV_SRC_CORE, NULL, true },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false },
		{ VQ_APPORTIONED, COV_SRC_UNCORE, "pocq_retry", true } } },
	/*
	 * No core PMU: software.model.  Its locality reads resctrl, the
	 * placement and /proc/vmstat, none of which a static check of these
	 * trees finds (no vmstat file; placement and resctrl are per VM);
	 * imc reads resctrl MBM; llc, sharing and queue it declares unavailable.
	 */
	{ __LINE__, "root/kvm-guest-novpmu", "software", {
		{ VQ_UNAVAILABLE, COV_SRC_NONE, "hint_all", false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, "mbm_total", false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false } } },
	{ __LINE__, "root/xen-pv-dom0", "software", {
		{ VQ_UNAVAILABLE, COV_SRC_NONE, "place_rem", false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, "mbm_total", false },
		{ VQ_UNAVAILABLE, COV_SRC_NONE, NULL, false } } },
};

static const struct cov_input *find_read(const struct cov_row *r, const char *name)
{
	int i;

	for (i = 0; i < r->n_inputs; i++)
		if (!strcmp(sbuf_str(&r->inputs[i].name), name))
			return &r->inputs[i];
	return NULL;
}

static void open_builtin(struct model_registry *reg)
{
	char *dir = xstrdup(test_data("../../models"));
	const char *dirs[1] = { dir };

	model_registry_init(reg, dirs, 1);
	free(dir);
}

TEST(coverage_is_the_chosen_models)
{
	struct model_registry reg;
	size_t i;
	int f;

	open_builtin(&reg);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct platform p;
		struct coverage cv;
		struct vp_err err;

		if (platform_probe(&p, test_data(rows[i].root), &err)) {
			CHECK_AT(rows[i].line, 0, "%s: %s", rows[i].root, err.msg);
			continue;
		}
		coverage_compute(&p, &reg, &cv);
		CHECK_STR_AT(rows[i].line, sbuf_str(&cv.model), rows[i].model);
		for (f = 0; f < FACTOR_N; f++) {
			const struct want_row *w = &rows[i].f[f];
			const struct cov_row *r = &cv.rows[f];
			const struct cov_input *ci;

			CHECK_AT(rows[i].line, r->quality == w->q, "%s %s: quality %s, expected %s",
				 rows[i].root, factor_name(f), vp_quality_name(r->quality),
				 vp_quality_name(w->q));
			CHECK_AT(rows[i].line, r->kind == w->k, "%s %s: kind %s, expected %s",
				 rows[i].root, factor_name(f), cov_kind_name(r->kind),
				 cov_kind_name(w->k));
			/* never a silent gap: unavailable says why and what is left */
			if (r->quality == VQ_UNAVAILABLE)
				CHECK_AT(rows[i].line, r->note.len && r->remains.len,
					 "%s %s: unavailable without a reason or a substitute",
					 rows[i].root, factor_name(f));
			if (!w->reads)
				continue;
			ci = find_read(r, w->reads);
			CHECK_AT(rows[i].line, ci != NULL, "%s %s: does not read %s", rows[i].root,
				 factor_name(f), w->reads);
			if (ci) {
				CHECK_AT(rows[i].line, ci->present == w->present, "%s %s: %s present %d",
					 rows[i].root, factor_name(f), w->reads, ci->present);
				CHECK_AT(rows[i].line, ci->present || ci->reason.len,
					 "%s %s: %s absent without a reason", rows[i].root,
					 factor_name(f), w->reads);
			}
		}
		coverage_release(&cv);
		platform_release(&p);
	}
	model_registry_release(&reg);
}

/*
 * The skx queue factor is what skx.model scores: the IMC's read and write
 * pending queues full (uncore_imc), not a per-CPU table's choice.
 */
TEST(coverage_skx_queue_reads_what_the_model_reads)
{
	struct model_registry reg;
	struct platform p;
	struct coverage cv;
	struct vp_err err;
	const struct cov_row *q;
	const struct cov_input *in;
	int i;

	open_builtin(&reg);
	if (platform_probe(&p, test_data("root/skx-2s"), &err)) {
		CHECK_AT(__LINE__, 0, "%s", err.msg);
		model_registry_release(&reg);
		return;
	}
	coverage_compute(&p, &reg, &cv);
	q = &cv.rows[FACTOR_QUEUE];
	CHECK_STR(sbuf_str(&q->score), "tracker_full_frac");
	CHECK_INT(q->n_inputs, 3);              /* rpq_full, imc_clk, wpq_full */
	for (i = 0; i < q->n_inputs; i++)
		CHECK(!strstr(sbuf_str(&q->inputs[i].spec), "uncore_cha"));
	in = find_read(q, "rpq_full");
	CHECK(in != NULL);
	if (in)
		CHECK_STR(sbuf_str(&in->spec), "uncore_imc/event=0x12/");
	in = find_read(q, "wpq_full");
	CHECK(in && in->per_node);
	CHECK_STR(cv.rows[FACTOR_IMC].inputs[0].pmu, "uncore_imc");
	CHECK(cv.rows[FACTOR_IMC].inputs[0].per_node);
	CHECK_STR(sbuf_str(&cv.verdict), "nothing lost: locality, llc, sharing measured; imc, queue apportioned");
	coverage_release(&cv);
	platform_release(&p);
	model_registry_release(&reg);
}

/*
 * The cost anchor, from the models' `cost` lines: skx binds stall_mem
 * (CYCLE_ACTIVITY:STALLS_MEM_ANY, a core event); neoverse-n1 binds access
 * counts and no stall term; software.model binds none.
 */
TEST(coverage_cost_anchor)
{
	static const struct {
		int line;
		const char *root;
		enum cov_anchor a;
		const char *absent;     /* the terms absent there, " a b ", NULL: none */
	} cases[] = {
		{ __LINE__, "root/skx-2s", COV_COST_MEASURED, NULL },
		/* a guest: no uncore_imc (mem_bw, the queues' full clocks) nor uncore_cha (tor_lat_ns) */
		{ __LINE__, "root/kvm-guest-vpmu", COV_COST_MEASURED,
		  " node_bw_gbs tracker_ns tracker_full " },
		{ __LINE__, "root/arm-n1", COV_COST_ESTIMATED, NULL },
		{ __LINE__, "root/kvm-guest-novpmu", COV_COST_NONE, NULL },
	};
	struct model_registry reg;
	size_t i;
	int k;

	open_builtin(&reg);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct platform p;
		struct coverage cv;
		struct vp_err err;
		int n_absent = 0;

		if (platform_probe(&p, test_data(cases[i].root), &err)) {
			CHECK_AT(cases[i].line, 0, "%s", err.msg);
			continue;
		}
		coverage_compute(&p, &reg, &cv);
		CHECK_AT(cases[i].line, cv.anchor == cases[i].a, "%s: anchor %s", cases[i].root,
			 cov_anchor_name(cv.anchor));
		CHECK_AT(cases[i].line, cv.cost_note.len, "%s: no cost note", cases[i].root);
		for (k = 0; k < cv.n_terms; k++) {
			char key[32];
			bool want;

			snprintf(key, sizeof(key), " %s ", sbuf_str(&cv.terms[k].term));
			want = !cases[i].absent || !strstr(cases[i].absent, key);
			n_absent += !want;
			CHECK_AT(cases[i].line, cv.terms[k].present == want, "%s: cost %s present %d",
				 cases[i].root, sbuf_str(&cv.terms[k].term), cv.terms[k].present);
			CHECK_AT(cases[i].line, cv.terms[k].present || cv.terms[k].reason.len,
				 "%s: cost %s absent without a reason", cases[i].root, sbuf_str(&cv.terms[k].term));
		}
		CHECK_AT(cases[i].line, !cases[i].absent || n_absent == 3, "%s: %d of %s", cases[i].root,
			 n_absent, cases[i].absent);
		coverage_release(&cv);
		platform_release(&p);
	}
	model_registry_release(&reg);
}

/* No model at all in the path: every factor unavailable, and the reason says so. */
TEST(coverage_without_models)
{
	struct model_registry reg;
	struct platform p;
	struct coverage cv;
	struct vp_err err;
	int f;

	model_registry_init(&reg, NULL, 0);
	if (platform_probe(&p, test_data("root/skx-2s"), &err)) {
		CHECK_AT(__LINE__, 0, "%s", err.msg);
		return;
	}
	coverage_compute(&p, &reg, &cv);
	CHECK_STR(sbuf_str(&cv.model), "");
	CHECK_CONTAINS(sbuf_str(&cv.model_why), "no model matches this machine");
	for (f = 0; f < FACTOR_N; f++) {
		CHECK_INT(cv.rows[f].quality, VQ_UNAVAILABLE);
		CHECK(cv.rows[f].remains.len);
	}
	CHECK_STR(sbuf_str(&cv.verdict), "lost: all five factors");
	coverage_release(&cv);
	platform_release(&p);
	model_registry_release(&reg);
}

/*
 * A Xen dom0 with a core PMU (the Skylake-SP tree taken as dom0, pmu_mode
 * 'self'): skx.model computes every factor from core or uncore events, but
 * those count dom0's own vCPUs, so none is measured for the domains
 * (docs/xen.md); each says why and what would enable it, and locality
 * keeps Xen's placement estimate as what is left.
 */
TEST(coverage_xen_dom0_core_pmu_is_not_per_domain)
{
	struct model_registry reg;
	struct platform p;
	struct coverage cv;
	struct vp_err err;
	int f;

	open_builtin(&reg);
	if (platform_probe(&p, test_data("root/skx-2s"), &err)) {
		CHECK_AT(__LINE__, 0, "%s", err.msg);
		model_registry_release(&reg);
		return;
	}
	CHECK(p.core_pmu);
	p.hv.xen_dom0 = true;
	snprintf(p.hv.xen_pmu_mode, sizeof(p.hv.xen_pmu_mode), "self");
	coverage_compute(&p, &reg, &cv);
	CHECK_STR(sbuf_str(&cv.model), "skx");
	for (f = 0; f < FACTOR_N; f++) {
		CHECK_INT(cv.rows[f].quality, VQ_UNAVAILABLE);
		CHECK_CONTAINS(sbuf_str(&cv.rows[f].note), "counts dom0's own vCPUs");
		CHECK(cv.rows[f].remains.len);
		/* the IMC and the queue trackers are uncore: no pmu_mode reaches them */
		if (f != FACTOR_IMC && f != FACTOR_QUEUE)
			CHECK_CONTAINS(sbuf_str(&cv.rows[f].note), "pmu_mode is 'self'");
	}
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_IMC].note), "dom0 has no uncore PMU");
	/* no core event stands in for the trackers (CPI is every kind of stall) */
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_QUEUE].note), "no core event counts them");
	CHECK(!strstr(sbuf_str(&cv.rows[FACTOR_QUEUE].note), "pmu_mode"));
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_LLC].note), "xl psr-cmt-show");
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_LOCALITY].remains), "xl vcpu-list");
	CHECK_STR(sbuf_str(&cv.verdict), "lost: all five factors");
	coverage_release(&cv);
	platform_release(&p);
	model_registry_release(&reg);
}

/*
 * The PV dom0 fixture: no vPMU (no /sys/hypervisor/pmu), no xl output, so
 * the software model; its notes name Xen's boot option and that the
 * topology is dom0's own for want of xl info -n.
 */
TEST(coverage_xen_pv_dom0_says_what_would_enable_it)
{
	struct model_registry reg;
	struct platform p;
	struct coverage cv;
	struct vp_err err;

	open_builtin(&reg);
	if (platform_probe(&p, test_data("root/xen-pv-dom0"), &err)) {
		CHECK_AT(__LINE__, 0, "%s", err.msg);
		model_registry_release(&reg);
		return;
	}
	coverage_compute(&p, &reg, &cv);
	CHECK_STR(sbuf_str(&cv.model), "software");
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_LOCALITY].note), "Xen has no vPMU");
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_LOCALITY].note), "add vpmu=1 to Xen's command line");
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_LOCALITY].note), "xl info -n");
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_LOCALITY].remains), "xl vcpu-list");
	CHECK(!p.topo.from_xen);
	CHECK_CONTAINS(sbuf_str(&p.hv.xen_info_reason), "xl/info-n.txt");
	CHECK_INT(cv.rows[FACTOR_SHARING].quality, VQ_UNAVAILABLE);
	CHECK_CONTAINS(sbuf_str(&cv.rows[FACTOR_SHARING].note), "HITM");
	coverage_release(&cv);
	platform_release(&p);
	model_registry_release(&reg);
}

TEST(coverage_kind_names)
{
	CHECK_STR(factor_name(FACTOR_LOCALITY), "locality");
	CHECK_STR(factor_name(FACTOR_QUEUE), "queue");
	CHECK_STR(vp_quality_name(VQ_APPORTIONED), "apportioned");
	CHECK_STR(cov_kind_name(COV_SRC_RESCTRL), "resctrl");
	CHECK_STR(cov_kind_name(COV_SRC_UNCORE), "uncore");
}
