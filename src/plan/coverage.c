/* coverage.c - the factor-coverage decision: best source per factor on a platform */
#include "plan/coverage.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * Event recipes per CPU family, from REFERENCES.md section 1.  core[] needs
 * the core PMU and is spelled as libpfm4 4.13 names the events of that
 * table ("EVENT:UMASK / :UMASK2, EVENT2": a leading ':' repeats the event
 * before it); tests/helpers/check_recipes.c encodes every one of them.
 * unc[] names the uncore PMU family that must be present for unc_ev[],
 * which are spelled as the kernel's sysfs aliases and perf name them
 * (libpfm4 lacks most of those tables).
 */
struct recipe {
	const char *pfm[3];        /* libpfm4 core tables this recipe serves */
	const char *label;
	bool zen;                  /* sharing on Zen: cache-to-cache fills, not HITM */
	const char *core[FACTOR_N];
	const char *unc[FACTOR_N];
	const char *unc_ev[FACTOR_N];
};

static const struct recipe recipes[] = {
	/* single-socket Westmere ("wsm") has the Nehalem umasks, not Westmere-EP's */
	{ { "nhm", "nhm_ex", "wsm" }, "Nehalem", false,
	  { "MEM_UNCORE_RETIRED:LOCAL_DRAM / :REMOTE_DRAM",
	    "LLC_MISSES / LLC_REFERENCES",
	    "MEM_UNCORE_RETIRED:OTHER_CORE_L2_HITM, OFFCORE_RESPONSE_0:ANY_DATA:REMOTE_CACHE_HITM",
	    NULL,
	    NULL },  /* OFFCORE_REQUESTS_SQ_FULL: a core sub-metric, not the queue factor */
	  { "uncore", "uncore", NULL, "uncore", "uncore" },
	  { "UNC_QHL_REQUESTS:LOCAL_READS / :REMOTE_READS",
	    "UNC_LLC_MISS:ANY, UNC_LLC_HITS:ANY",
	    NULL,
	    "UNC_QMC_NORMAL_READS:ANY, UNC_QMC_WRITES:FULL_ANY, UNC_QMC_OCCUPANCY, UNC_QHL_CYCLES_FULL",
	    "UNC_GQ_CYCLES_FULL:{READ,WRITE,PEER_PROBE}_TRACKER, UNC_QHL_CYCLES_FULL:{LOCAL,REMOTE} / "
	    "UNC_CLK_UNHALTED; UNC_GQ_OCCUPANCY / UNC_GQ_ALLOC:RT_LLC_MISS (residency)" } },
	{ { "wsm_dp" }, "Westmere-EP", false,
	  { "MEM_UNCORE_RETIRED:LOCAL_DRAM_AND_REMOTE_CACHE_HIT / :REMOTE_DRAM",
	    "LLC_MISSES / LLC_REFERENCES",
	    "MEM_UNCORE_RETIRED:LOCAL_HITM / :REMOTE_HITM",
	    NULL,
	    NULL },  /* OFFCORE_REQUESTS_SQ_FULL: a core sub-metric, not the queue factor */
	  { "uncore", "uncore", NULL, "uncore", "uncore" },
	  { "UNC_QHL_REQUESTS:LOCAL_READS / :REMOTE_READS",
	    "UNC_LLC_MISS:ANY, UNC_LLC_HITS:ANY",
	    NULL,
	    "UNC_QMC_NORMAL_READS:ANY, UNC_QMC_WRITES:FULL_ANY, UNC_QMC_OCCUPANCY, UNC_QHL_CYCLES_FULL",
	    "UNC_GQ_CYCLES_FULL:{READ,WRITE,PEER_PROBE}_TRACKER, UNC_QHL_CYCLES_FULL:{LOCAL,REMOTE} / "
	    "UNC_CLK_UNHALTED; UNC_GQ_OCCUPANCY / UNC_GQ_ALLOC:RT_LLC_MISS (residency)" } },
	{ { "skx", "clx" }, "Skylake-SP / Cascade Lake", false,
	  { "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM / :REMOTE_DRAM",
	    "LONGEST_LAT_CACHE:MISS / :REFERENCE, CYCLE_ACTIVITY:STALLS_L3_MISS",
	    "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM, MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM / :REMOTE_FWD",
	    NULL,
	    NULL },  /* SQ_FULL, FB_FULL: core sub-metrics, not the queue factor */
	  { "uncore_cha", NULL, "uncore_upi", "uncore_imc", "uncore_imc" },
	  { "TOR_INSERTS.IA_MISS (config1 local 0x40432 / remote 0x40431)",
	    NULL,
	    "TxL_FLITS.ALL_DATA (MB/s = flits x 64 / 9 / t)",
	    "CAS_COUNT.RD / .WR, RPQ_OCCUPANCY / RPQ_INSERTS, RPQ_CYCLES_FULL, CLOCKTICKS",
	    "RPQ_CYCLES_FULL / WPQ_CYCLES_FULL over CLOCKTICKS (full share); CHA TOR_OCCUPANCY / "
	    "TOR_INSERTS.IA_MISS_DRD (residency)" } },
	{ { "icx" }, "Ice Lake-SP", false,
	  { "OCR:DEMAND_DATA_RD_LOCAL_DRAM / :DEMAND_DATA_RD_REMOTE_DRAM",
	    "LONGEST_LAT_CACHE:MISS / :REFERENCES",  /* libpfm4's icx spelling */
	    /* perf's XSNP_FWD: libpfm4 4.13 still calls it XSNP_HITM on ICX (same code) */
	    "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM",
	    NULL,
	    NULL },  /* SQ_MISC:SQ_FULL: a core sub-metric */
	  { "uncore_cha", NULL, NULL, "uncore_imc", "uncore_imc" },
	  { "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL / _REMOTE",
	    NULL, NULL,
	    "CAS_COUNT.RD (0x04/0x0f) / .WR (0x04/0x30), RPQ per pseudo-channel",
	    "RPQ/WPQ_CYCLES_FULL_PCH0/1 over CLOCKTICKS (full share); CHA TOR_OCCUPANCY / "
	    "TOR_INSERTS.IA_MISS_DRD_LOCAL/_REMOTE (residency)" } },
	{ { "spr" }, "Sapphire Rapids", false,
	  { "OCR:DEMAND_DATA_RD_LOCAL_DRAM / :DEMAND_DATA_RD_REMOTE_DRAM",
	    "LONGEST_LAT_CACHE:MISS / :REFERENCE",
	    "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD",
	    NULL,
	    NULL },  /* XQ:FULL_CYCLES: a core sub-metric */
	  { "uncore_cha", NULL, NULL, "uncore_imc", "uncore_imc" },
	  { "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL / _REMOTE",
	    NULL, NULL,
	    "CAS_COUNT.RD (0x05/0xcf) / .WR (0x05/0xf0)",
	    "RDB_FULL (umask 24, the read buffer's entries) over CLOCKTICKS (full share); CHA "
	    "TOR_OCCUPANCY / TOR_INSERTS.IA_MISS_DRD_LOCAL/_REMOTE (residency)" } },
	{ { "amd64_fam17h_zen2" }, "Zen 2", true,
	  { "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM / :LS_MABRESP_RMT_DRAM",
	    NULL,
	    "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_CACHE / :LS_MABRESP_RMT_CACHE",
	    NULL,
	    NULL },
	  { NULL, "amd_l3", NULL, "amd_df", "amd_l3" },
	  { NULL,
	    "l3_request_g1.caching_l3_cache_accesses, l3_comb_clstr_state.request_miss",
	    NULL,
	    "DRAM channel data controller 0..7 (x64 B)",
	    NULL } },  /* amd_l3's miss latency is the whole miss latency, not a tracker */
	{ { "amd64_fam19h_zen3" }, "Zen 3", true,
	  { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL / :MEM_IO_RMT",
	    NULL,
	    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL / :EXT_CACHE_RMT",
	    NULL,
	    NULL },  /* the MABs are per core: a sub-metric */
	  { NULL, "amd_l3", NULL, "amd_df", "amd_l3" },
	  { NULL,
	    "l3_lookup_state.all / .miss",
	    NULL,
	    "DRAM channel data controller 0..7 (x64 B)",
	    NULL } },  /* amd_l3's miss latency is the whole miss latency, not a tracker */
	{ { "amd64_fam19h_zen4" }, "Zen 4", true,
	  { "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR / :DRAM_IO_FAR",
	    NULL,
	    "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR / :FAR_CACHE_NEAR_FAR",
	    NULL,
	    NULL },
	  { "amd_df", "amd_l3", NULL, "amd_umc", "amd_l3" },
	  { "local / remote processor read beats x64 B",
	    "l3_lookup_state.all / .miss",
	    NULL,
	    "umc_cas_cmd.rd / .wr, umc_data_slot_clks.all, umc_mem_clk",
	    NULL } },  /* amd_l3's miss latency is the whole miss latency, not a tracker */
};

const char *cov_kind_name(enum cov_kind k)
{
	switch (k) {
	case COV_SRC_CORE: return "core";
	case COV_SRC_UNCORE: return "uncore";
	case COV_SRC_RESCTRL: return "resctrl";
	case COV_SRC_SOFTWARE: return "software";
	case COV_SRC_NONE: return "none";
	}
	return "none";
}

static const struct recipe *recipe_for(const char *pfm)
{
	size_t i, k;

	if (!pfm || !*pfm)
		return NULL;
	for (i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++)
		for (k = 0; k < 3 && recipes[i].pfm[k]; k++)
			if (!strcmp(recipes[i].pfm[k], pfm))
				return &recipes[i];
	return NULL;
}

const char *coverage_recipe_core(const char *pfm, enum factor_id f)
{
	const struct recipe *rc = recipe_for(pfm);

	return rc && f < FACTOR_N ? rc->core[f] : NULL;
}

static const struct pmu_family *family(const struct platform *p, const char *name)
{
	int i;

	for (i = 0; name && i < p->n_families; i++)
		if (!strcmp(p->families[i].family, name))
			return &p->families[i];
	return NULL;
}

static void remains(struct cov_row *r, const char *text)
{
	snprintf(r->remains, sizeof(r->remains), "%s", text);
}

static void set(struct cov_row *r, enum vp_quality q, enum cov_kind k, const char *source,
		const char *events)
{
	r->quality = q;
	r->kind = k;
	snprintf(r->source, sizeof(r->source), "%s", source);
	snprintf(r->events, sizeof(r->events), "%s", events ? events : "");
}

__attribute__((format(printf, 2, 3)))
static void note(struct cov_row *r, const char *fmt, ...)
{
	size_t o = strlen(r->note);
	va_list ap;

	if (o + 3 >= sizeof(r->note))
		return;
	if (o) {
		memcpy(r->note + o, "; ", 3);
		o += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->note + o, sizeof(r->note) - o, fmt, ap);
	va_end(ap);
}

/* Do we run inside a VM (whatever else runs here)?  Xen dom0 sees the hardware. */
static bool in_vm(const struct platform *p)
{
	if (p->hv.xen_dom0)
		return false;
	return (p->hv.kind != HV_NONE && p->hv.kind != HV_UNKNOWN) || p->cpu.flag_hypervisor;
}

/* Why there is no core PMU, shortened for a table note. */
static const char *no_core(const struct platform *p)
{
	if (!p->pmus_known)
		return "PMU inventory unknown";
	if (p->hv.kind == HV_XEN)
		return "no core PMU: Xen gives this domain no vPMU (Xen's vpmu= boot option)";
	if (strstr(p->core_pmu_reason, "virtualization"))
		return "no core PMU: the hypervisor exposes none (no vPMU)";
	if (in_vm(p))
		return "no core PMU in this VM (no vPMU)";
	return "no core PMU";
}

/* Try the recipe's uncore PMU for factor f; true when it serves. */
static bool try_uncore(const struct platform *p, const struct recipe *rc, enum factor_id f,
		       struct cov_row *r)
{
	const struct pmu_family *fam;
	char src[160];

	if (!rc || !rc->unc[f])
		return false;
	fam = family(p, rc->unc[f]);
	if (!fam)
		return false;
	snprintf(src, sizeof(src), "uncore PMU %s x%d", fam->family, fam->n_instances);
	set(r, VQ_APPORTIONED, COV_SRC_UNCORE, src, rc->unc_ev[f]);
	note(r, "counted per socket or L3, shared out to VMs by residency (an estimate)");
	return true;
}

static bool try_core(const struct platform *p, const struct recipe *rc, enum factor_id f,
		     struct cov_row *r)
{
	char src[160];

	if (!p->core_pmu || !rc || !rc->core[f])
		return false;
	snprintf(src, sizeof(src), "core PMU %s (%s events)", p->core_pmu_name, p->cpu.pfm_pmu);
	set(r, VQ_MEASURED, COV_SRC_CORE, src, rc->core[f]);
	return true;
}

/* Why the recipe's uncore PMU does not serve, if it has one. */
static void uncore_missing(const struct platform *p, const struct recipe *rc, enum factor_id f,
			   struct cov_row *r)
{
	if (rc && rc->unc[f])
		note(r, "%s PMU not exposed%s", rc->unc[f],
		     in_vm(p) ? " (a VM sees no uncore PMU)" : "");
}

static void do_locality(const struct platform *p, const struct recipe *rc, struct cov_row *r)
{
	const struct perm_info *pm = &p->perm;

	if (try_core(p, rc, FACTOR_LOCALITY, r)) {
		if (in_vm(p))
			note(r, "counts the host's physical nodes, which this VM's virtual nodes "
			     "need not match");
		if (pm->resctrl_mbm_total && pm->resctrl_mbm_local)
			note(r, "also resctrl mbm_local_bytes / mbm_total_bytes");
		return;
	}
	if (try_uncore(p, rc, FACTOR_LOCALITY, r))
		return;
	if (pm->resctrl_mbm_total && pm->resctrl_mbm_local) {
		set(r, VQ_MEASURED, COV_SRC_RESCTRL, "resctrl MBM",
		    "(mbm_total_bytes - mbm_local_bytes) / mbm_total_bytes per monitoring group");
		note(r, "bytes, not accesses");
		return;
	}
	set(r, VQ_PROXY, COV_SRC_SOFTWARE, "software: placement estimate",
	    "vCPU residency by node (sched) x guest RAM by node (numa_maps), numastat, "
	    "/proc/vmstat numa_*");
	if (!p->core_pmu)
		note(r, "%s", no_core(p));
	else if (!rc)
		note(r, "no locality events known for libpfm4 table '%s'",
		     p->cpu.pfm_pmu[0] ? p->cpu.pfm_pmu : "none");
	if (p->hv.xen_dom0)
		; /* xen_dom0_rows() says it */
	else if (p->topo.known && p->topo.n_nodes == 1)
		note(r, in_vm(p) ?
		     "one (virtual) NUMA node: the host's placement of this guest's memory is "
		     "invisible here" : "one NUMA node: all memory is local here");
}

static void do_llc(const struct platform *p, const struct recipe *rc, struct cov_row *r)
{
	const struct perm_info *pm = &p->perm;
	bool amd = !strcmp(p->cpu.vendor, "AuthenticAMD");
	bool arm = !strcmp(p->cpu.arch, "aarch64");
	char src[160];

	if (try_core(p, rc, FACTOR_LLC, r) || try_uncore(p, rc, FACTOR_LLC, r)) {
		if (pm->resctrl_llc_occupancy)
			note(r, "also resctrl llc_occupancy");
		return;
	}
	if (pm->resctrl_llc_occupancy) {
		set(r, VQ_MEASURED, COV_SRC_RESCTRL, "resctrl", "llc_occupancy per monitoring group");
		note(r, "occupancy in bytes, not misses");
		uncore_missing(p, rc, FACTOR_LLC, r);
		return;
	}
	if (p->core_pmu) {
		snprintf(src, sizeof(src), "core PMU %s (generic events)", p->core_pmu_name);
		if (amd || arm) {
			set(r, VQ_PROXY, COV_SRC_CORE, src, "cache-references / cache-misses");
			note(r, amd ? "AMD maps the generic cache events to L2, not the LLC" :
			     "Arm maps the generic cache events to L1D refills, not the LLC");
		} else {
			set(r, VQ_MEASURED, COV_SRC_CORE, src, "cache-references / cache-misses");
		}
		uncore_missing(p, rc, FACTOR_LLC, r);
		return;
	}
	set(r, VQ_UNAVAILABLE, COV_SRC_NONE, "none", NULL);
	note(r, "%s", no_core(p));
	uncore_missing(p, rc, FACTOR_LLC, r);
	note(r, "no resctrl llc_occupancy");
	remains(r, "an active probe (timed pointer chase over LLC-sized buffers) can infer "
		"lost capacity; the LLC domains are known from the topology");
}

static void do_sharing(const struct platform *p, const struct recipe *rc, struct cov_row *r)
{
	if (try_core(p, rc, FACTOR_SHARING, r)) {
		if (rc->zen) {
			r->quality = VQ_PROXY;
			note(r, "fills from other CCX caches: counters do not separate HITM");
		}
		return;
	}
	if (try_uncore(p, rc, FACTOR_SHARING, r))
		return;
	set(r, VQ_UNAVAILABLE, COV_SRC_NONE, "none", NULL);
	remains(r, "nothing per VM: which vCPUs share data cannot be seen without counters");
	if (!p->core_pmu)
		note(r, "%s; HITM and snoop-forward counts need one", no_core(p));
	else
		note(r, "no HITM events known for libpfm4 table '%s'",
		     p->cpu.pfm_pmu[0] ? p->cpu.pfm_pmu : "none");
}

static void do_imc(const struct platform *p, const struct recipe *rc, struct cov_row *r)
{
	const struct perm_info *pm = &p->perm;

	if (try_uncore(p, rc, FACTOR_IMC, r))
		return;
	if (pm->resctrl_mbm_total) {
		set(r, VQ_PROXY, COV_SRC_RESCTRL, "resctrl MBM", "mbm_total_bytes per monitoring group");
		note(r, "bandwidth only: no controller queueing");
		uncore_missing(p, rc, FACTOR_IMC, r);
		return;
	}
	set(r, VQ_UNAVAILABLE, COV_SRC_NONE, "none", NULL);
	if (rc && rc->unc[FACTOR_IMC])
		uncore_missing(p, rc, FACTOR_IMC, r);
	else
		note(r, "no memory-controller PMU (uncore_imc, amd_df, amd_umc) known here");
	note(r, "no resctrl mbm_total_bytes");
	remains(r, "an active probe (latency under a bandwidth load) shows how loaded memory "
		"is as this machine sees it, not who loads it");
}

static void do_queue(const struct platform *p, const struct recipe *rc, struct cov_row *r)
{
	char src[160];

	if (rc && rc->zen) {
		/* as the models say (amd-core.inc): nothing counts a shared tracker */
		set(r, VQ_UNAVAILABLE, COV_SRC_NONE, "none", NULL);
		note(r, "no Zen uncore event counts a shared request tracker full or rejecting; "
		     "amd_l3's miss latency is the whole miss latency, and the MABs are per core");
		remains(r, "the L3-miss latency and MAB occupancy as metrics, and the IMC factor's "
			"queueing at the memory controller");
		return;
	}
	if (try_uncore(p, rc, FACTOR_QUEUE, r) || try_core(p, rc, FACTOR_QUEUE, r))
		return;
	if (p->core_pmu) {
		snprintf(src, sizeof(src), "core PMU %s (generic events)", p->core_pmu_name);
		set(r, VQ_PROXY, COV_SRC_CORE, src, "CPI = cycles / instructions");
		uncore_missing(p, rc, FACTOR_QUEUE, r);
		note(r, "nothing architectural counts queue occupancy");
		return;
	}
	set(r, VQ_UNAVAILABLE, COV_SRC_NONE, "none", NULL);
	note(r, "%s; not even CPI (cycles, instructions)", no_core(p));
	uncore_missing(p, rc, FACTOR_QUEUE, r);
	remains(r, "task-clock and run-queue delay (schedstat) show a slowdown, not its cause");
}

/*
 * A Xen dom0: perf there counts dom0's own vCPUs, so a core or uncore
 * source that the generic rules found does not measure other domains
 * (docs/xen.md).  Each factor then says what it has and what would enable
 * it on Xen: the vPMU mode, PSR, the uncore's reach.
 */
static void xen_dom0_rows(const struct platform *p, struct coverage *c)
{
	char pmu[320], psr[192];
	bool have_psr = platform_xen_psr(p, psr, sizeof(psr));
	int f;

	platform_xen_pmu_why(p, pmu, sizeof(pmu));
	for (f = 0; f < FACTOR_N; f++) {
		struct cov_row *r = &c->rows[f];

		if (r->kind != COV_SRC_CORE && r->kind != COV_SRC_UNCORE)
			continue;
		/* what dom0's PMUs count is dom0's, not the domains' */
		set(r, VQ_UNAVAILABLE, COV_SRC_NONE, "none", NULL);
		r->note[0] = '\0';
	}
	for (f = 0; f < FACTOR_N; f++) {
		struct cov_row *r = &c->rows[f];

		if (f == FACTOR_LOCALITY) {
			if (r->kind == COV_SRC_NONE || r->kind == COV_SRC_SOFTWARE) {
				set(r, VQ_PROXY, COV_SRC_SOFTWARE, "software: placement estimate", NULL);
				snprintf(r->events, sizeof(r->events),
					 "vCPU run time per pCPU (xl vcpu-list) x domain pages per node "
					 "(Xen's 'u' dump, --xen-numa-dump, or the vNUMA config)");
				r->note[0] = '\0';
			}
			note(r, "measured remote shares per domain need counters: %s", pmu);
			if (!p->topo.from_xen)
				note(r, "dom0 sees one node: the machine's nodes are Xen's (xl info -n: %s)",
				     p->hv.xen_info_reason[0] ? p->hv.xen_info_reason : "not read");
			continue;
		}
		if (r->quality != VQ_UNAVAILABLE)
			continue;
		r->note[0] = '\0';
		switch (f) {
		case FACTOR_LLC:
			note(r, "per-domain LLC occupancy: Xen PSR CMT (xl psr-cmt-show "
			     "cache-occupancy): %s", psr);
			note(r, "LLC misses: %s", pmu);
			break;
		case FACTOR_SHARING:
			note(r, "HITM and snoop-forward counts: %s", pmu);
			break;
		case FACTOR_IMC:
			note(r, "per-domain bandwidth: Xen PSR MBM (xl psr-cmt-show "
			     "total-mem-bandwidth): %s", psr);
			note(r, "memory-controller counters: dom0 has no uncore PMU (Linux registers "
			     "none under a hypervisor; Xen >= 4.15 faults uncore MSR reads); the IMC's "
			     "PCI/MMIO registers that dom0 owns are not read by vmmprof yet");
			break;
		case FACTOR_QUEUE:
			note(r, "queue trackers (GQ, CHA TOR) are uncore MSRs, which Xen does not "
			     "let dom0 read; CPI: %s", pmu);
			break;
		}
	}
	(void)have_psr;
}

/* Append the factors of quality q as "a, b" to sb-like buffer; returns how many. */
static int list_quality(const struct coverage *c, enum vp_quality q, char *buf, size_t size)
{
	size_t o = strlen(buf);
	int f, n = 0;

	for (f = 0; f < FACTOR_N; f++) {
		if (c->rows[f].quality != q || o >= size)
			continue;
		o += (size_t)snprintf(buf + o, size - o, "%s%s", n++ ? ", " : "",
				      factor_name((enum factor_id)f));
	}
	return n;
}

static void set_verdict(struct coverage *c)
{
	static const char *const qword[VQ_N] = {
		[VQ_MEASURED] = " measured", [VQ_ESTIMATE] = " estimated",
		[VQ_APPORTIONED] = " apportioned", [VQ_PROXY] = " by proxy" };
	char lost[128] = "", remains[192] = "";
	int q, n_lost, parts = 0;

	n_lost = list_quality(c, VQ_UNAVAILABLE, lost, sizeof(lost));
	for (q = VQ_MEASURED; q <= VQ_PROXY; q++) {
		size_t o = strlen(remains);

		if (parts && o + 2 < sizeof(remains)) {
			memcpy(remains + o, "; ", 3);
			o += 2;
		}
		if (list_quality(c, (enum vp_quality)q, remains, sizeof(remains))) {
			o = strlen(remains);
			snprintf(remains + o, sizeof(remains) - o, "%s", qword[q]);
			parts++;
		} else {
			remains[o - (parts ? 2 : 0)] = '\0';
		}
	}
	if (!n_lost)
		snprintf(c->verdict, sizeof(c->verdict), "nothing lost: %s", remains);
	else if (n_lost == FACTOR_N)
		snprintf(c->verdict, sizeof(c->verdict), "lost: all five factors");
	else
		snprintf(c->verdict, sizeof(c->verdict), "lost: %s; remains: %s", lost, remains);
}

void coverage_compute(const struct platform *p, struct coverage *c)
{
	const struct recipe *rc = recipe_for(p->cpu.pfm_pmu);
	int counts[VQ_N] = { 0 }, f;

	memset(c, 0, sizeof(*c));
	if (rc)
		snprintf(c->recipe, sizeof(c->recipe), "%s", rc->label);
	for (f = 0; f < FACTOR_N; f++)
		c->rows[f].factor = (enum factor_id)f;
	do_locality(p, rc, &c->rows[FACTOR_LOCALITY]);
	do_llc(p, rc, &c->rows[FACTOR_LLC]);
	do_sharing(p, rc, &c->rows[FACTOR_SHARING]);
	do_imc(p, rc, &c->rows[FACTOR_IMC]);
	do_queue(p, rc, &c->rows[FACTOR_QUEUE]);
	if (p->hv.xen_dom0)
		xen_dom0_rows(p, c);
	for (f = 0; f < FACTOR_N; f++)
		counts[c->rows[f].quality]++;
	set_verdict(c);
	snprintf(c->summary, sizeof(c->summary),
		 "%s: %d measured, %d apportioned, %d by proxy, %d unavailable",
		 p->core_pmu ? "hardware counters" : "no hardware PMU", counts[VQ_MEASURED],
		 counts[VQ_APPORTIONED], counts[VQ_PROXY], counts[VQ_UNAVAILABLE]);
}
