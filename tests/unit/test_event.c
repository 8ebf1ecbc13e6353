/* test_event.c - unit tests for src/pmu: sysfs formats, the event-spec parser, libpfm4 glue */
#include "test.h"

#include <linux/perf_event.h>
#include <stdlib.h>

#include "pmu/event.h"
#include "pmu/generic.h"
#include "pmu/sysfs_pmu.h"
#include "util/alloc.h"
#include "util/fs.h"

/*
 * libpfm4 reads LIBPFM_ENCODE_INACTIVE when it is first initialized; with
 * it, the tables of CPUs we are not running on (skx::, icx::, zen3 ...)
 * encode here.  Set before any test runs (the library itself reads no
 * environment).
 */
__attribute__((constructor)) static void encode_inactive(void)
{
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
}

/* ---- format fields ---- */

static const struct {
	int line;
	const char *text;
	int ret;
	int word, bits;
	uint64_t value;      /* stored ... */
	uint64_t c0, c1;     /* ... gives these config / config1 */
} field_rows[] = {
	{ __LINE__, "config:0-7", 0, 0, 8, 0xd3, 0xd3, 0 },
	{ __LINE__, "config:21", 0, 0, 1, 1, 1ULL << 21, 0 },
	{ __LINE__, "config1:0-63", 0, 1, 64, 0x730000001ULL, 0, 0x730000001ULL },
	/* ICX CHA umask: low byte in 8-15, the rest from bit 32 */
	{ __LINE__, "config:8-15,32-57", 0, 0, 34, 0xc8177e01ULL, 0x00c8177e00000100ULL, 0 },
	/* AMD DF (Zen 2/3) event: 0x107 -> 0x07 in 0-7, 0x1 in 32-35 */
	{ __LINE__, "config:0-7,32-35,59-60", 0, 0, 14, 0x107, 0x100000007ULL, 0 },
	{ __LINE__, "config:0-7,32-35,59-60", 0, 0, 14, 0x3000, 3ULL << 59, 0 },
	{ __LINE__, "config2:0-31", 0, 2, 32, 5, 0, 0 },
	{ __LINE__, "config:0-7\n", 0, 0, 8, 1, 1, 0 },
	{ __LINE__, "config:7-0", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "config:0-64", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "config3:0-7", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "config:", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "config:1-2,", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "event", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "config:0-63,0-7", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "config:4-15,5,3", VP_EPARSE, 0, 0, 0, 0, 0 },
	{ __LINE__, "config1:0-3,3", VP_EPARSE, 0, 0, 0, 0, 0 },
};

TEST(pmu_field_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(field_rows); i++) {
		struct pmu_field f;
		struct perf_event_attr a;
		struct vp_err err = { 0, "" };
		int line = field_rows[i].line, ret;

		memset(&f, 0, sizeof(f));
		memset(&a, 0, sizeof(a));
		ret = pmu_field_parse(&f, field_rows[i].text, &err);
		CHECK_INT_AT(line, ret, field_rows[i].ret);
		if (ret) {
			CHECK_AT(line, strstr(err.msg, "invalid format"), "message '%s'", err.msg);
			continue;
		}
		CHECK_INT_AT(line, f.word, field_rows[i].word);
		CHECK_INT_AT(line, f.bits, field_rows[i].bits);
		CHECK_INT_AT(line, pmu_field_set(&f, field_rows[i].value, &a), 0);
		if (f.word == 2) {
			CHECK_U64_AT(line, a.config2, field_rows[i].value);
		} else {
			CHECK_U64_AT(line, a.config, field_rows[i].c0);
			CHECK_U64_AT(line, a.config1, field_rows[i].c1);
		}
		CHECK_U64_AT(line, pmu_field_get(&f, &a), field_rows[i].value);
		if (f.bits < 64)
			CHECK_INT_AT(line, pmu_field_set(&f, 1ULL << f.bits, &a), VP_ERANGE);
	}
}

TEST(pmu_field_replaces_bits)
{
	struct pmu_field f;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	CHECK_INT(pmu_field_parse(&f, "config:8-15", NULL), 0);
	a.config = 0xffff00ff;
	CHECK_INT(pmu_field_set(&f, 0x03, &a), 0);
	CHECK_U64(a.config, 0xffff03ff);
}

static const struct {
	int line;
	const char *name, *family;
	int instance;
} split_rows[] = {
	{ __LINE__, "uncore_imc_12", "uncore_imc", 12 },
	{ __LINE__, "uncore_imc_free_running_0", "uncore_imc_free_running", 0 },
	{ __LINE__, "amd_umc_3", "amd_umc", 3 },
	{ __LINE__, "amd_df", "amd_df", -1 },
	{ __LINE__, "cpu", "cpu", -1 },
	{ __LINE__, "cpu_core", "cpu_core", -1 },
	{ __LINE__, "_1", "_1", -1 },
	{ __LINE__, "x_", "x_", -1 },
};

TEST(pmu_name_split_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(split_rows); i++) {
		char fam[64];
		int inst;

		pmu_name_split(split_rows[i].name, fam, sizeof(fam), &inst);
		CHECK_STR_AT(split_rows[i].line, fam, split_rows[i].family);
		CHECK_INT_AT(split_rows[i].line, inst, split_rows[i].instance);
	}
}

/* ---- encodings ---- */

#define EU 1   /* exclude_user */
#define EK 2   /* exclude_kernel */
#define EH 4   /* exclude_hv */
#define EG 8   /* exclude_guest */
#define EO 16  /* exclude_host */

#define MIB 6.103515625e-5

/*
 * Every row: the fixture tree (tests/data/root/NAME; "/" is this machine),
 * the spec, and what it must give.  Expected codes come from the kernel's
 * sysfs aliases and format files (arch/x86/events/intel/uncore_snbep.c,
 * arch/x86/events/amd/uncore.c), the vendor event lists (Intel perfmon JSON,
 * Linux tools/perf/pmu-events/arch/x86/amdzen*), and hand-computed bit
 * placement; see tests/data/root/<name>/sys/bus/event_source/README.md.
 */
static const struct enc_row {
	int line;
	const char *root;
	const char *spec;
	int ret;
	size_t n;            /* entries appended */
	const char *pmu;     /* of the first */
	uint32_t type;
	uint64_t config, config1;
	unsigned excl;       /* EU|EK|EH|EG|EO that must be set; all others clear */
	const char *msg;     /* error: a part of the message */
} enc_rows[] = {
	/* Skylake-SP (platform's skx-2s tree; formats of skx_uncore_cha_formats_attr, hswep_uncore_imc_events) */
	{ __LINE__, "skx-2s", "uncore_imc/cas_count_read/", 0, 6, "uncore_imc_0", 30, 0x0304, 0, 0, NULL },
	{ __LINE__, "skx-2s", "uncore_imc_5/cas_count_write/", 0, 1, "uncore_imc_5", 35, 0x0c04, 0, 0, NULL },
	/* TOR_INSERTS.IA_MISS with a whole config1 (REFERENCES.md §1) on every CHA */
	{ __LINE__, "skx-2s", "uncore_cha/event=0x35,umask=0x21,config1=0x40432/", 0, 20, "uncore_cha_0", 10, 0x2135,
	  0x40432, 0, NULL },
	/* the same through the named filter fields: rem bit 32, loc bit 33, opc0 bits 41-50 */
	{ __LINE__, "skx-2s", "uncore_cha_3/event=0x35,umask=0x21,filter_rem=1,filter_loc=1,filter_opc0=0x202/", 0, 1,
	  "uncore_cha_3", 13, 0x2135, 0x4040300000000ULL, 0, NULL },
	/* UNC_UPI_TxL_FLITS.ALL_DATA 0x02/0x0f; umask bits 8-11 of the value go to 32-43, bit 20 to 45 */
	{ __LINE__, "skx-2s", "uncore_upi_0/event=0x02,umask=0x0f/", 0, 1, "uncore_upi_0", 36, 0xf02, 0, 0, NULL },
	{ __LINE__, "skx-2s", "uncore_upi_1/event=0x02,umask=0x1000f/", 0, 1, "uncore_upi_1", 37, 0x10000000f02ULL, 0, 0,
	  NULL },
	{ __LINE__, "skx-2s", "uncore_upi_2/event=0x02,umask=0x10000f/", 0, 1, "uncore_upi_2", 38, 0x200000000f02ULL, 0, 0,
	  NULL },
	{ __LINE__, "skx-2s", "power/energy-pkg/", 0, 1, "power", 9, 0x2, 0, 0, NULL },
	{ __LINE__, "skx-2s", "msr/aperf/", 0, 1, "msr", 8, 0x1, 0, 0, NULL },
	{ __LINE__, "skx-2s", "cpu/mem-loads/", 0, 1, "cpu", 4, 0x1cd, 3, 0, NULL },
	{ __LINE__, "skx-2s", "cpu/event=0xc0,any/", 0, 1, "cpu", 4, 0x2000c0, 0, 0, NULL },
	{ __LINE__, "skx-2s", "cpu/event=0xd1,umask=0x20/pp", 0, 1, "cpu", 4, 0x20d1, 0, 0, NULL },

	/* Zen 3 (platform's zen3-2s tree; family 19h amd_l3 formats) */
	{ __LINE__, "zen3-2s", "amd_l3/event=0x04,umask=0xff/", 0, 1, "amd_l3", 13, 0xff04, 0, 0, NULL },
	{ __LINE__, "zen3-2s", "amd_l3/event=0x04,umask=0x01,enallcores=1,enallslices=1,threadmask=3/", 0, 1, "amd_l3",
	  13, 0x300c00000000104ULL, 0, 0, NULL },
	{ __LINE__, "zen3-2s", "amd_df/event=0x3007/", 0, 1, "amd_df", 12, 0x1800000000000007ULL, 0, 0, NULL },
	{ __LINE__, "zen3-2s", "cpu/event=0x43,umask=0x08/", 0, 1, "cpu", 4, 0x843, 0, 0, NULL },
	{ __LINE__, "zen3-2s", "ibs_op/cnt_ctl/", 0, 1, "ibs_op", 11, 0x80000, 0, 0, NULL },

	/* Nehalem-EP (platform's nhm-ep tree; nhm_uncore_events of uncore_snb.c) */
	{ __LINE__, "nhm-ep", "uncore/qmc_normal_reads_any/", 0, 1, "uncore", 6, 0x0f2c, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "uncore/qhl_request_remote_reads/", 0, 1, "uncore", 6, 0x0420, 0, 0, NULL },
	/* Global Queue read-tracker occupancy, raw (REFERENCES.md §1) */
	{ __LINE__, "nhm-ep", "uncore/event=0x02,umask=0x01/", 0, 1, "uncore", 6, 0x0102, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "uncore/event=0x2c,umask=0x07,cmask=1/", 0, 1, "uncore", 6, 0x0100072c, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "cpu/event=0x0f,umask=0x10/", 0, 1, "cpu", 4, 0x100f, 0, 0, NULL },

	/* a KVM guest with a vPMU: the core PMU only */
	{ __LINE__, "kvm-guest-vpmu", "cpu/cpu-cycles/", 0, 1, "cpu", 4, 0x3c, 0, 0, NULL },
	{ __LINE__, "kvm-guest-vpmu", "cpu/event=0x2e,umask=0x41/", 0, 1, "cpu", 4, 0x412e, 0, 0, NULL },

	/* Ice Lake-SP uncore through sysfs (uncore_snbep.c: snr_uncore_imc_events, snr CHA formats) */
	{ __LINE__, "icx-2s", "uncore_imc/cas_count_read/", 0, 12, "uncore_imc_0", 10, 0x0f04, 0, 0, NULL },
	{ __LINE__, "icx-2s", "uncore_imc_3/cas_count_write/", 0, 1, "uncore_imc_3", 13, 0x3004, 0, 0, NULL },
	{ __LINE__, "icx-2s", "uncore_imc/event=0x04,umask=0x0f/", 0, 12, "uncore_imc_0", 10, 0x0f04, 0, 0, NULL },
	/* UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE: 0x35, umask 0x01, umask_ext 0xC8177E */
	{ __LINE__, "icx-2s", "uncore_cha_3/event=0x35,umask=0xc8177e01/", 0, 1, "uncore_cha_3", 25,
	  0x00c8177e00000135ULL, 0, 0, NULL },
	/* ..._LOCAL: umask_ext 0xC816FE, on every CHA */
	{ __LINE__, "icx-2s", "uncore_cha/event=0x35,umask=0xc816fe01/", 0, 4, "uncore_cha_0", 22,
	  0x00c816fe00000135ULL, 0, 0, NULL },
	/* UNC_CHA_LLC_LOOKUP.DATA_READ: 0x34, umask 0xFF, umask_ext 0x1BC1 */
	{ __LINE__, "icx-2s", "uncore_cha_0/event=0x34,umask=0x1bc1ff/", 0, 1, "uncore_cha_0", 22,
	  0x00001bc10000ff34ULL, 0, 0, NULL },
	{ __LINE__, "icx-2s", "uncore_cha_1/event=0x35,umask=0x1,tid_en,filter_tid=0x3ff/", 0, 1,
	  "uncore_cha_1", 23, 0x80135, 0x3ff, 0, NULL },
	/* UNC_UPI_TxL_FLITS.ALL_DATA: 0x02/0x0f */
	{ __LINE__, "icx-2s", "uncore_upi_0/event=0x02,umask=0x0f/", 0, 1, "uncore_upi_0", 26, 0xf02, 0, 0, NULL },
	{ __LINE__, "icx-2s", "cpu/event=0xd3,umask=0x02/", 0, 1, "cpu", 4, 0x2d3, 0, 0, NULL },
	{ __LINE__, "icx-2s", "cpu/event=0xb7,umask=0x01,offcore_rsp=0x730000001/", 0, 1, "cpu", 4, 0x1b7,
	  0x730000001ULL, 0, NULL },
	{ __LINE__, "icx-2s", "cpu/cache-misses/", 0, 1, "cpu", 4, 0x412e, 0, 0, NULL },
	{ __LINE__, "icx-2s", "cpu/event=0xa3,umask=0x06,cmask=6/u", 0, 1, "cpu", 4, 0x060006a3, 0, EK | EH, NULL },
	{ __LINE__, "icx-2s", "cpu/event=0xd0,umask=0x81,edge,inv/", 0, 1, "cpu", 4, 0x8481d0, 0, 0, NULL },
	{ __LINE__, "icx-2s", "cpu/event=0x3c/:k", 0, 1, "cpu", 4, 0x3c, 0, EU | EH, NULL },
	{ __LINE__, "icx-2s", "cpu/config=0x1234,config1=7,name=mine/", 0, 1, "cpu", 4, 0x1234, 7, 0, NULL },
	{ __LINE__, "icx-2s", "cas_count_write", 0, 12, "uncore_imc_0", 10, 0x3004, 0, 0, NULL },
	{ __LINE__, "icx-2s", "sched:sched_switch", 0, 1, "tracepoint", 2, 316, 0, 0, NULL },
	{ __LINE__, "icx-2s", "sched:sched_*", 0, 3, "tracepoint", 2, 315, 0, 0, NULL },
	{ __LINE__, "icx-2s", "kvm:kvm_exit", 0, 1, "tracepoint", 2, 1600, 0, 0, NULL },
	{ __LINE__, "icx-2s", "sched:sched_switch:k", 0, 1, "tracepoint", 2, 316, 0, EU | EH, NULL },

	/* Sapphire Rapids (spr_uncore_imc_events, spr CHA formats) */
	{ __LINE__, "spr-2s", "uncore_imc/cas_count_read/", 0, 8, "uncore_imc_0", 10, 0xcf05, 0, 0, NULL },
	{ __LINE__, "spr-2s", "uncore_imc_7/cas_count_write/", 0, 1, "uncore_imc_7", 17, 0xf005, 0, 0, NULL },
	{ __LINE__, "spr-2s", "uncore_imc/clockticks/", 0, 8, "uncore_imc_0", 10, 0x01, 0, 0, NULL },
	{ __LINE__, "spr-2s", "uncore_cha_0/event=0x35,umask=0xffffffffff/", 0, 1, "uncore_cha_0", 18,
	  0xffffffff0000ff35ULL, 0, 0, NULL },
	{ __LINE__, "spr-2s", "uncore_cha_0/event=0x35,umask=1,tid_en=1,filter_tid=0x21/", 0, 1,
	  "uncore_cha_0", 18, 0x10135, 0x21, 0, NULL },
	{ __LINE__, "spr-2s", "uncore_upi_1/event=0x02,umask=0x0f/", 0, 1, "uncore_upi_1", 23, 0xf02, 0, 0, NULL },

	/* Zen 2: amd_df event = config:0-7,32-35,59-60 (amdzen2 data-fabric.json) */
	{ __LINE__, "zen2-2s", "amd_df/event=0x07,umask=0x38/", 0, 1, "amd_df", 10, 0x3807, 0, 0, NULL },
	{ __LINE__, "zen2-2s", "amd_df/event=0x107,umask=0x38/", 0, 1, "amd_df", 10, 0x100003807ULL, 0, 0, NULL },
	{ __LINE__, "zen2-2s", "amd_df/event=0x7c7,umask=0x02/", 0, 1, "amd_df", 10, 0x7000002c7ULL, 0, 0, NULL },
	/* l3_request_g1.caching_l3_cache_accesses 0x01/0x80 */
	{ __LINE__, "zen2-2s", "amd_l3/event=0x01,umask=0x80/", 0, 1, "amd_l3", 11, 0x8001, 0, 0, NULL },
	{ __LINE__, "zen2-2s", "amd_l3/event=0x06,umask=0x01,slicemask=0xf,threadmask=0xff/", 0, 1, "amd_l3", 11,
	  0xff0f000000000106ULL, 0, 0, NULL },
	{ __LINE__, "zen2-2s", "cpu/event=0x43,umask=0x08/", 0, 1, "cpu", 4, 0x843, 0, 0, NULL },
	{ __LINE__, "zen2-2s", "cpu/event=0x1c7/", 0, 1, "cpu", 4, 0x1000000c7ULL, 0, 0, NULL },

	/* Zen 4: amd_df event config:0-7,32-37, umask config:8-15,24-27 (amdzen4 data-fabric.json) */
	{ __LINE__, "zen4-2s", "amd_df/event=0x1f,umask=0x7fe/", 0, 1, "amd_df", 10, 0x0700fe1f, 0, 0, NULL },
	{ __LINE__, "zen4-2s", "amd_df/event=0x1f,umask=0xbfe/", 0, 1, "amd_df", 10, 0x0b00fe1f, 0, 0, NULL },
	{ __LINE__, "zen4-2s", "amd_df/event=0x11f,umask=0x7fe/", 0, 1, "amd_df", 10, 0x10700fe1fULL, 0, 0, NULL },
	/* umc_cas_cmd.rd / .wr: 0x0a, RdWrMask 1 / 2 */
	{ __LINE__, "zen4-2s", "amd_umc/event=0x0a,rdwrmask=1/", 0, 24, "amd_umc_0", 12, 0x10a, 0, 0, NULL },
	{ __LINE__, "zen4-2s", "amd_umc_13/event=0x0a,rdwrmask=2/", 0, 1, "amd_umc_13", 25, 0x20a, 0, 0, NULL },
	{ __LINE__, "zen4-2s", "amd_l3/event=0x04,umask=0xff,enallcores,enallslices,threadmask=3/", 0, 1,
	  "amd_l3", 11, 0x0300c0000000ff04ULL, 0, 0, NULL },

	/* libpfm4 core tables (LIBPFM_ENCODE_INACTIVE=1); codes from Intel's and AMD's event lists */
	{ __LINE__, "nhm-ep", "nhm::MEM_UNCORE_RETIRED:REMOTE_DRAM", 0, 1, "cpu", 4, 0x100f, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "nhm::MEM_UNCORE_RETIRED:LOCAL_DRAM", 0, 1, "cpu", 4, 0x200f, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "nhm::MEM_UNCORE_RETIRED:OTHER_CORE_L2_HITM", 0, 1, "cpu", 4, 0x20f, 0, 0, NULL },
	/* ANY_DATA = DMND_DATA_RD|DMND_RFO|PF_DATA_RD|PF_RFO (0x33), REMOTE_DRAM = bit 13 */
	{ __LINE__, "nhm-ep", "nhm::OFFCORE_RESPONSE_0:ANY_DATA:REMOTE_DRAM", 0, 1, "cpu", 4, 0x1b7, 0x2033, 0, NULL },
	{ __LINE__, "nhm-ep", "wsm_dp::MEM_UNCORE_RETIRED:REMOTE_DRAM", 0, 1, "cpu", 4, 0x100f, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "wsm_dp::MEM_UNCORE_RETIRED:LOCAL_DRAM_AND_REMOTE_CACHE_HIT", 0, 1, "cpu", 4, 0x80f, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "wsm_dp::MEM_UNCORE_RETIRED:REMOTE_HITM", 0, 1, "cpu", 4, 0x40f, 0, 0, NULL },
	{ __LINE__, "nhm-ep", "wsm_dp::MEM_UNCORE_RETIRED:LOCAL_HITM", 0, 1, "cpu", 4, 0x20f, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM", 0, 1, "cpu", 4, 0x2d3, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", 0, 1, "cpu", 4, 0x1d3, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM", 0, 1, "cpu", 4, 0x4d3, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM", 0, 1, "cpu", 4, 0x4d2, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::CYCLE_ACTIVITY:STALLS_L3_MISS", 0, 1, "cpu", 4, 0x060006a3, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::OFFCORE_REQUESTS_BUFFER:SQ_FULL", 0, 1, "cpu", 4, 0x1b2, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::L1D_PEND_MISS:FB_FULL", 0, 1, "cpu", 4, 0x248, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::LONGEST_LAT_CACHE:MISS", 0, 1, "cpu", 4, 0x412e, 0, 0, NULL },
	{ __LINE__, "skx-2s", "skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM:G", 0, 1, "cpu", 4, 0x2d3, 0, EO, NULL },
	{ __LINE__, "skx-2s", "skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM:H", 0, 1, "cpu", 4, 0x2d3, 0, EG, NULL },
	{ __LINE__, "skx-2s", "skx::INST_RETIRED:ANY_P:u", 0, 1, "cpu", 4, 0xc0, 0, EK, NULL },
	{ __LINE__, "icx-2s", "icx::OCR:DEMAND_DATA_RD_REMOTE_DRAM", 0, 1, "cpu", 4, 0x1b7, 0x730000001ULL, 0, NULL },
	{ __LINE__, "icx-2s", "icx::OCR:DEMAND_DATA_RD_LOCAL_DRAM", 0, 1, "cpu", 4, 0x1b7, 0x104000001ULL, 0, NULL },
	{ __LINE__, "icx-2s", "icx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM", 0, 1, "cpu", 4, 0x2d3, 0, 0, NULL },
	{ __LINE__, "icx-2s", "icx::SQ_MISC:SQ_FULL", 0, 1, "cpu", 4, 0x4f4, 0, 0, NULL },
	{ __LINE__, "spr-2s", "spr::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM", 0, 1, "cpu", 4, 0x2d3, 0, 0, NULL },
	{ __LINE__, "spr-2s", "spr::OCR:DEMAND_DATA_RD_REMOTE_DRAM", 0, 1, "cpu", 4, 0x12a, 0x730000001ULL, 0, NULL },
	{ __LINE__, "spr-2s", "spr::XQ:FULL_CYCLES", 0, 1, "cpu", 4, 0x0100012d, 0, 0, NULL },
	{ __LINE__, "zen2-2s", "amd64_fam17h_zen2::DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM", 0, 1,
	  "cpu", 4, 0x843, 0, 0, NULL },
	{ __LINE__, "zen2-2s", "amd64_fam17h_zen2::DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_DRAM", 0, 1,
	  "cpu", 4, 0x4043, 0, 0, NULL },
	{ __LINE__, "zen3-2s", "amd64_fam19h_zen3::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL", 0, 1, "cpu", 4,
	  0x843, 0, 0, NULL },
	{ __LINE__, "zen3-2s", "amd64_fam19h_zen3::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT", 0, 1, "cpu", 4,
	  0x4043, 0, 0, NULL },
	{ __LINE__, "zen3-2s", "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", 0, 1, "cpu", 4, 0xc0, 0, 0, NULL },
	{ __LINE__, "zen4-2s", "amd64_fam19h_zen4::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR", 0, 1,
	  "cpu", 4, 0x843, 0, 0, NULL },
	{ __LINE__, "zen4-2s", "amd64_fam19h_zen4::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_FAR", 0, 1,
	  "cpu", 4, 0x4043, 0, 0, NULL },

	/* generic names, raw codes, modifiers */
	{ __LINE__, "icx-2s", "cycles", 0, 1, "hardware", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, NULL },
	{ __LINE__, "icx-2s", "cycles:u", 0, 1, "hardware", 0, 0, 0, EK | EH, NULL },
	{ __LINE__, "icx-2s", "cycles:G", 0, 1, "hardware", 0, 0, 0, EO, NULL },
	{ __LINE__, "icx-2s", "cycles:H", 0, 1, "hardware", 0, 0, 0, EG, NULL },
	{ __LINE__, "icx-2s", "cycles:GH", 0, 1, "hardware", 0, 0, 0, 0, NULL },
	{ __LINE__, "icx-2s", "instructions:kG", 0, 1, "hardware", 0, 1, 0, EU | EH | EO, NULL },
	{ __LINE__, "icx-2s", "cpu-cycles", 0, 1, "hardware", 0, 0, 0, 0, NULL },
	{ __LINE__, "icx-2s", "ref-cycles", 0, 1, "hardware", 0, PERF_COUNT_HW_REF_CPU_CYCLES, 0, 0, NULL },
	{ __LINE__, "icx-2s", "branches", 0, 1, "hardware", 0, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 0, NULL },
	{ __LINE__, "icx-2s", "task-clock", 0, 1, "software", 1, PERF_COUNT_SW_TASK_CLOCK, 0, 0, NULL },
	{ __LINE__, "icx-2s", "faults", 0, 1, "software", 1, PERF_COUNT_SW_PAGE_FAULTS, 0, 0, NULL },
	{ __LINE__, "icx-2s", "cs", 0, 1, "software", 1, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, NULL },
	{ __LINE__, "icx-2s", "migrations", 0, 1, "software", 1, PERF_COUNT_SW_CPU_MIGRATIONS, 0, 0, NULL },
	{ __LINE__, "icx-2s", "major-faults", 0, 1, "software", 1, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0, 0, NULL },
	{ __LINE__, "icx-2s", "emulation-faults", 0, 1, "software", 1, PERF_COUNT_SW_EMULATION_FAULTS, 0, 0, NULL },
	/* hw-cache: id | op << 8 | result << 16 */
	{ __LINE__, "icx-2s", "L1-dcache-load-misses", 0, 1, "hw_cache", 3, 0x10000, 0, 0, NULL },
	{ __LINE__, "icx-2s", "LLC-loads", 0, 1, "hw_cache", 3, 0x00002, 0, 0, NULL },
	{ __LINE__, "icx-2s", "LLC-load-misses", 0, 1, "hw_cache", 3, 0x10002, 0, 0, NULL },
	{ __LINE__, "icx-2s", "LLC-store-misses", 0, 1, "hw_cache", 3, 0x10102, 0, 0, NULL },
	{ __LINE__, "icx-2s", "dTLB-load-misses", 0, 1, "hw_cache", 3, 0x10003, 0, 0, NULL },
	{ __LINE__, "icx-2s", "iTLB-load-misses", 0, 1, "hw_cache", 3, 0x10004, 0, 0, NULL },
	{ __LINE__, "icx-2s", "node-loads", 0, 1, "hw_cache", 3, 0x00006, 0, 0, NULL },
	{ __LINE__, "icx-2s", "L1-icache-misses", 0, 1, "hw_cache", 3, 0x10001, 0, 0, NULL },
	{ __LINE__, "icx-2s", "r1b7", 0, 1, "cpu", PERF_TYPE_RAW, 0x1b7, 0, 0, NULL },
	{ __LINE__, "icx-2s", "r412e:u", 0, 1, "cpu", PERF_TYPE_RAW, 0x412e, 0, EK | EH, NULL },

	/* errors */
	/* libpfm4 has this uncore table but encodes it only where the PMU is present */
	{ __LINE__, "skx-2s", "snbep_unc_imc0::UNC_M_CAS_COUNT:RD", VP_EUNSUPP, 0, NULL, 0, 0, 0, 0,
	  "its PMU is not present on this machine" },
	{ __LINE__, "icx-2s", "sched:sched_switch:q", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "unknown modifier 'q' at column 20" },
	{ __LINE__, "kvm-guest-vpmu", "uncore_imc/cas_count_read/", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "unknown PMU 'uncore_imc' at column 1" },
	{ __LINE__, "nhm-ep", "uncore/event=0x20,umask=0x04/u", VP_EUNSUPP, 0, NULL, 0, 0, 0, 0,
	  "PMU 'uncore' counts every privilege level" },
	{ __LINE__, "skx-2s", "uncore_cha_0/filter_opc0=0x400/", VP_ERANGE, 0, NULL, 0, 0, 0, 0,
	  "(10 bits, config1:41-50)" },
	{ __LINE__, "skx-2s", "uncore_upi_0/umask=0x8000000f/", VP_ERANGE, 0, NULL, 0, 0, 0, 0,
	  "(31 bits, config:8-15,32-43,45-55)" },
	{ __LINE__, "skx-2s", "skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAMX", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "unknown umask or modifier 'REMOTE_DRAMX' at column 31" },
	{ __LINE__, "nhm-ep", "wsm_dp::MEM_UNCORE_RETIRED:LOCAL_DRAM", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "unknown umask or modifier 'LOCAL_DRAM' at column 28" },
	{ __LINE__, "skx-2s", "skx::NO_SUCH_EVENT", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0, "unknown event" },
	{ __LINE__, "icx-2s", "NO_SUCH_EVENT", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0, "unknown event" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=0x100/", VP_ERANGE, 0, NULL, 0, 0, 0, 0,
	  "value 0x100 does not fit format field 'event' of PMU 'uncore_imc_0' (8 bits, config:0-7) at column 20" },
	{ __LINE__, "icx-2s", "uncore_cha_0/filter_tid=0x400/", VP_ERANGE, 0, NULL, 0, 0, 0, 0,
	  "does not fit format field 'filter_tid'" },
	{ __LINE__, "zen4-2s", "amd_umc_0/event=0x0a,rdwrmask=4/", VP_ERANGE, 0, NULL, 0, 0, 0, 0,
	  "(2 bits, config:8-9) at column 31" },
	{ __LINE__, "icx-2s", "cpu/evnt=1/", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "event 'cpu/evnt=1/': unknown format field 'evnt' at column 5" },
	{ __LINE__, "icx-2s", "uncore_foo/event=1/", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "unknown PMU 'uncore_foo' at column 1" },
	{ __LINE__, "icx-2s", "uncore_imc/cas_count_reed/", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "unknown event 'cas_count_reed' of PMU 'uncore_imc' at column 12" },
	{ __LINE__, "icx-2s", "cpu/no-such-alias/", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "unknown event 'no-such-alias' of PMU 'cpu' at column 5" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=0x04,,umask=3/", VP_EPARSE, 0, NULL, 0, 0, 0, 0,
	  "empty term at column 25" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=0x04,/", VP_EPARSE, 0, NULL, 0, 0, 0, 0,
	  "missing term after ',' at column 25" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=0x04", VP_EPARSE, 0, NULL, 0, 0, 0, 0,
	  "missing closing '/' at column 24" },
	{ __LINE__, "icx-2s", "/event=1/", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "missing PMU name" },
	{ __LINE__, "icx-2s", "uncore_imc_0//", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "no event or term" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=zz/", VP_EPARSE, 0, NULL, 0, 0, 0, 0,
	  "invalid value 'zz' at column 20" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=0x4q/", VP_EPARSE, 0, NULL, 0, 0, 0, 0,
	  "invalid number at column 23" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=0x04=5/", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "invalid number" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=99999999999999999999999/", VP_EPARSE, 0, NULL, 0, 0, 0, 0,
	  "does not fit in 64 bits" },
	{ __LINE__, "icx-2s", "uncore_imc_0/cas_count_read=1/", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "takes no value" },
	{ __LINE__, "icx-2s", "uncore_imc_0/event=0x04/u", VP_EUNSUPP, 0, NULL, 0, 0, 0, 0,
	  "modifier 'u' not supported at column 25" },
	{ __LINE__, "icx-2s", "cpu/event=0x3c/x", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "unknown modifier 'x' at column 16" },
	{ __LINE__, "icx-2s", "cycles:q", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "unknown modifier 'q' at column 8" },
	{ __LINE__, "icx-2s", "cycles:", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "missing modifier" },
	{ __LINE__, "icx-2s", "cycles:pppp", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "too many 'p'" },
	{ __LINE__, "icx-2s", "sched:no_such", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0,
	  "unknown tracepoint 'no_such' in subsystem 'sched' at column 7" },
	{ __LINE__, "icx-2s", "nosys:*", VP_ENOTFOUND, 0, NULL, 0, 0, 0, 0, "no tracepoint matches" },
	{ __LINE__, "icx-2s", "r12345678901234567", VP_ERANGE, 0, NULL, 0, 0, 0, 0, "wider than 64 bits" },
	{ __LINE__, "icx-2s", "cycles u", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "unexpected character at column 7" },
	{ __LINE__, "icx-2s", "", VP_EPARSE, 0, NULL, 0, 0, 0, 0, "empty event spec" },
};

static const char *fixture(const char *root)
{
	static char buf[4096];

	if (!strcmp(root, "/"))
		return "/";
	snprintf(buf, sizeof(buf), "%s/root/%s", test_data_dir(), root);
	return buf;
}

TEST(event_encoding_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(enc_rows); i++) {
		const struct enc_row *r = &enc_rows[i];
		struct pmu_db *db = NULL;
		struct evdesc_list l;
		struct vp_err err = { 0, "" };
		const struct perf_event_attr *a;
		unsigned excl;
		int ret;

		if (pmu_db_new(&db, fixture(r->root), &err)) {
			CHECK_AT(r->line, 0, "pmu_db_new: %s", err.msg);
			continue;
		}
		evdesc_list_init(&l);
		ret = event_resolve(db, r->spec, 7, &l, &err);
		CHECK_AT(r->line, ret == r->ret, "'%s': returned %d (%s), expected %d", r->spec, ret,
			 err.msg, r->ret);
		if (ret) {
			CHECK_INT_AT(r->line, l.n, 0);
			CHECK_AT(r->line, r->msg && strstr(err.msg, r->msg), "message '%s', expected '%s'",
				 err.msg, r->msg ? r->msg : "");
			CHECK_AT(r->line, !*r->spec || strstr(err.msg, r->spec), "message '%s' does not name the spec",
				 err.msg);
			goto next;
		}
		CHECK_INT_AT(r->line, l.n, r->n);
		if (!l.n)
			goto next;
		a = &l.v[0].attr;
		CHECK_STR_AT(r->line, l.v[0].pmu, r->pmu);
		CHECK_INT_AT(r->line, a->type, r->type);
		CHECK_U64_AT(r->line, a->config, r->config);
		CHECK_U64_AT(r->line, a->config1, r->config1);
		CHECK_INT_AT(r->line, a->size, sizeof(*a));
		CHECK_STR_AT(r->line, l.v[0].spec, r->spec);
		CHECK_INT_AT(r->line, l.v[l.n - 1].spec_index, 7);
		excl = (a->exclude_user ? EU : 0) | (a->exclude_kernel ? EK : 0) | (a->exclude_hv ? EH : 0) |
		       (a->exclude_guest ? EG : 0) | (a->exclude_host ? EO : 0);
		CHECK_AT(r->line, excl == r->excl, "'%s': exclude bits 0x%x, expected 0x%x", r->spec, excl,
			 r->excl);
next:
		evdesc_list_release(&l);
		pmu_db_free(db);
	}
}

/* Instances, cpumasks, scale and unit of an expanded uncore alias. */
TEST(event_uncore_family)
{
	struct pmu_db *db = NULL;
	struct evdesc_list l;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	size_t i;

	CHECK_INT(pmu_db_new(&db, fixture("icx-2s"), &err), 0);
	evdesc_list_init(&l);
	CHECK_INT(event_resolve(db, "uncore_imc/cas_count_read/", 0, &l, &err), 0);
	CHECK_INT(event_resolve(db, "cycles", 1, &l, &err), 0);
	CHECK_INT(l.n, 13);
	for (i = 0; i < 12 && i < l.n; i++) {
		char want[64];

		snprintf(want, sizeof(want), "uncore_imc_%zu/cas_count_read/", i);
		CHECK_STR(l.v[i].name, want);
		CHECK(l.v[i].uncore);
		CHECK_NEAR(l.v[i].scale, MIB, 1e-15);
		CHECK_STR(l.v[i].unit, "MiB");
		CHECK_INT(l.v[i].spec_index, 0);
		CHECK_INT(l.v[i].source, EV_SYSFS);
		sbuf_reset(&sb);
		cpulist_format(&l.v[i].cpus, &sb);
		CHECK_STR(sbuf_str(&sb), "0,40");
	}
	if (l.n == 13) {
		CHECK(!l.v[12].uncore);
		CHECK_INT(l.v[12].cpus.n, 0);
		CHECK_INT(l.v[12].spec_index, 1);
		CHECK_NEAR(l.v[12].scale, 1.0, 0);
	}
	/* a failing spec leaves what is there */
	CHECK(event_resolve(db, "uncore_imc/nope/", 2, &l, &err) < 0);
	CHECK_INT(l.n, 13);
	evdesc_list_release(&l);

	/* instances in numeric order: uncore_imc_10 after uncore_imc_9 */
	evdesc_list_init(&l);
	CHECK_INT(event_resolve(db, "uncore_imc/event=1/", 0, &l, &err), 0);
	if (l.n == 12) {
		CHECK_STR(l.v[9].pmu, "uncore_imc_9");
		CHECK_STR(l.v[10].pmu, "uncore_imc_10");
	}
	evdesc_list_release(&l);
	sbuf_release(&sb);
	pmu_db_free(db);
}

TEST(evdesc_copy_is_deep)
{
	struct pmu_db *db = NULL;
	struct evdesc_list l;
	struct vp_err err = { 0, "" };
	struct evdesc c;

	CHECK_INT(pmu_db_new(&db, fixture("icx-2s"), &err), 0);
	evdesc_list_init(&l);
	CHECK_INT(event_resolve(db, "icx::OCR:DEMAND_DATA_RD_REMOTE_DRAM", 0, &l, &err), 0);
	CHECK_INT(event_resolve(db, "uncore_imc_1/cas_count_read/", 1, &l, &err), 0);
	if (l.n == 2) {
		evdesc_copy(&c, &l.v[0]);
		CHECK(c.fstr && c.fstr != l.v[0].fstr && !strcmp(c.fstr, l.v[0].fstr));
		CHECK(c.spec != l.v[0].spec && c.name != l.v[0].name);
		CHECK_U64(c.attr.config1, 0x730000001ULL);
		evdesc_release(&c);
		evdesc_copy(&c, &l.v[1]);
		CHECK(c.cpus.ids != l.v[1].cpus.ids);
		CHECK_INT(c.cpus.n, 2);
		CHECK_STR(c.unit, "MiB");
		evdesc_list_release(&l);    /* the copy outlives its source */
		CHECK_STR(c.name, "uncore_imc_1/cas_count_read/");
		evdesc_release(&c);
	} else {
		evdesc_list_release(&l);
	}
	pmu_db_free(db);
}

/* PMUs come in family order, instances by number: uncore_imc_2 before uncore_imc_10. */
TEST(pmu_db_natural_order)
{
	struct pmu_db *db = NULL;
	struct vp_err err = { 0, "" };
	size_t i, prev_imc = 0, seen = 0;

	CHECK_INT(pmu_db_new(&db, fixture("icx-2s"), &err), 0);
	for (i = 0; i < pmu_db_count(db); i++) {
		const struct pmu_desc *p = pmu_db_pmu(db, i);

		if (strcmp(p->family, "uncore_imc"))
			continue;
		CHECK_INT(p->instance, (int)seen);
		if (seen)
			CHECK_INT(i, prev_imc + 1);
		prev_imc = i;
		seen++;
	}
	CHECK_INT(seen, 12);
	CHECK(pmu_db_find(db, "uncore_imc_10") != NULL);
	CHECK(pmu_db_find(db, "uncore_imc") == NULL);
	pmu_db_free(db);
}

TEST(event_db_without_sysfs)
{
	struct pmu_db *db = NULL;
	struct evdesc_list l;
	struct vp_err err = { 0, "" };

	CHECK_INT(pmu_db_new(&db, test_data("root/no-such-tree"), &err), 0);
	CHECK_INT(pmu_db_count(db), 0);
	CHECK(pmu_db_sysfs_error(db)[0] != '\0');
	CHECK(pmu_db_tracefs(db) == NULL);
	evdesc_list_init(&l);
	CHECK_INT(event_resolve(db, "task-clock", 0, &l, &err), 0);
	CHECK(event_resolve(db, "cpu/event=1/", 0, &l, &err) == VP_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "unknown PMU 'cpu'");
	CHECK(event_resolve(db, "sched:sched_switch", 0, &l, &err) == VP_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "tracefs");
	CHECK_INT(l.n, 1);
	evdesc_list_release(&l);
	pmu_db_free(db);
	pmu_db_free(NULL);
}

static const struct {
	int line;
	const char *in;
	int ret;
	size_t n;
	const char *first, *last;
} split_list_rows[] = {
	{ __LINE__, "cycles,instructions", 0, 2, "cycles", "instructions" },
	{ __LINE__, "uncore_imc/event=0x4,umask=0x3/,cycles", 0, 2, "uncore_imc/event=0x4,umask=0x3/", "cycles" },
	{ __LINE__, "{cycles,instructions},cs", 0, 2, "{cycles,instructions}", "cs" },
	{ __LINE__, "sched:sched_switch", 0, 1, "sched:sched_switch", "sched:sched_switch" },
	{ __LINE__, "cycles,,cs", VP_EPARSE, 0, NULL, NULL },
	{ __LINE__, "cycles,", VP_EPARSE, 0, NULL, NULL },
	{ __LINE__, "", VP_EPARSE, 0, NULL, NULL },
};

TEST(event_split_list_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(split_list_rows); i++) {
		char **v = NULL;
		size_t n = 0;
		struct vp_err err = { 0, "" };
		int ret = event_split_list(split_list_rows[i].in, &v, &n, &err);

		CHECK_INT_AT(split_list_rows[i].line, ret, split_list_rows[i].ret);
		if (ret) {
			CHECK_AT(split_list_rows[i].line, strstr(err.msg, "empty event at column"), "'%s'",
				 err.msg);
			continue;
		}
		CHECK_INT_AT(split_list_rows[i].line, n, split_list_rows[i].n);
		if (n == split_list_rows[i].n) {
			CHECK_STR_AT(split_list_rows[i].line, v[0], split_list_rows[i].first);
			CHECK_STR_AT(split_list_rows[i].line, v[n - 1], split_list_rows[i].last);
		}
		vp_free_names(v, n);
	}
}

/* Every hw-cache name perf lists resolves back to the config it was listed with. */
TEST(generic_cache_names_round_trip)
{
	char name[96];
	uint64_t config, got;
	uint32_t type;
	size_t i;

	for (i = 0; generic_cache_name(i, name, sizeof(name), &config); i++) {
		CHECK(generic_lookup(name, strlen(name), &type, &got));
		CHECK_INT(type, PERF_TYPE_HW_CACHE);
		CHECK_U64(got, config);
	}
	/*
	 * perf's hw_cache_stat table: L1D, LLC, dTLB and node with load, store
	 * and prefetch; L1I with load and prefetch; iTLB and branch with load:
	 * 16 cache-op pairs, each as access and miss.
	 */
	CHECK_INT(i, 32);
}

/* ---- live: this machine's software events and tracepoints ---- */

TEST(event_live_software_and_tracepoints)
{
	struct pmu_db *db = NULL;
	struct evdesc_list l;
	struct vp_err err = { 0, "" };
	uint64_t id = 0;
	const char *tf;
	char *path;

	CHECK_INT(pmu_db_new(&db, "/", &err), 0);
	evdesc_list_init(&l);
	CHECK_INT(event_resolve(db, "task-clock", 0, &l, &err), 0);
	CHECK_INT(event_resolve(db, "context-switches", 0, &l, &err), 0);
	CHECK_INT(event_resolve(db, "page-faults", 0, &l, &err), 0);
	CHECK_INT(l.n, 3);
	/* the kernel's software PMU has type 1 (PERF_TYPE_SOFTWARE) */
	if (l.n == 3) {
		CHECK_STR(l.v[0].pmu, "software");
		CHECK_INT(l.v[0].attr.type, PERF_TYPE_SOFTWARE);
	}
	tf = pmu_db_tracefs(db);
	if (!tf) {
		char why[256];

		/* the reason lives in db: copied before db goes */
		snprintf(why, sizeof(why), "%s", pmu_db_tracefs_error(db));
		evdesc_list_release(&l);
		pmu_db_free(db);
		SKIP("tracefs is not mounted on this machine: %s", why);
	}
	path = xasprintf("%s/events/sched/sched_switch/id", tf);
	if (vp_read_u64("/", path, &id, &err)) {
		free(path);
		evdesc_list_release(&l);
		pmu_db_free(db);
		SKIP("cannot read the sched_switch id (%s)", err.msg);
	}
	free(path);
	CHECK_INT(event_resolve(db, "sched:sched_switch", 0, &l, &err), 0);
	if (l.n == 4) {
		CHECK_INT(l.v[3].attr.type, PERF_TYPE_TRACEPOINT);
		CHECK_U64(l.v[3].attr.config, id);
	}
	evdesc_list_release(&l);
	pmu_db_free(db);
}
