/* test_model_encodings.c - every event of every built-in model, encoded on its platform's fixture tree */
#include "test.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/resolve.h"
#include "platform/platform.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

/*
 * One row per event statement of models/NAME.model and models/NAME.inc, keyed by
 * the file that defines it (an included file's events are checked in every
 * model that includes it, on that model's fixture).  The expected values
 * are written from the vendor's documentation, never from vmmprof's output:
 *
 *   Intel core events: event select | umask << 8 | cmask << 24 from Intel's
 *     event lists (perf's tools/perf/pmu-events/arch/x86/CPU/FILE.json,
 *     intel/perfmon), offcore-response MSR values from the same files or
 *     the SDM's MSR_OFFCORE_RSP_x bit tables;
 *   AMD core events: PMCxNNN and its unit mask from the PPRs (Zen 2: 55803,
 *     Zen 3: 55898, Zen 4: 57930), as perf's amdzen{2,3,4} JSON has them;
 *   Arm: the PMUv3 event numbers of the Neoverse N1 TRM (table "PMU events");
 *   sysfs PMUs: the kernel's format/ of the fixture (arch/x86/events/intel/
 *     uncore_snbep.c, uncore_snb.c, arch/x86/events/amd/uncore.c), which
 *     place each field; the PMU type is the fixture's sysfs `type` file;
 *   generic events: include/uapi/linux/perf_event.h.
 *
 * A model event without a row, or a row no model uses, fails the test: a
 * new event in a model needs its row here.
 */

#define EU(ev, um) ((uint64_t)(ev) | ((uint64_t)(um) << 8))
#define CMASK(c) ((uint64_t)(c) << 24)
#define HI(v) ((uint64_t)(v) << 32)

struct mrow {
	int line;
	const char *file;    /* the model file that defines the event */
	const char *name;    /* its local name */
	const char *spec;    /* as written there */
	const char *pmu;     /* first instance */
	size_t n;            /* instances */
	uint32_t type;
	uint64_t config, config1;
};

#define HW PERF_TYPE_HARDWARE
#define SW PERF_TYPE_SOFTWARE
#define RAW PERF_TYPE_RAW

static const struct mrow rows[] = {
	/* ---- software.model, vpmu.model, vpmu-intel.model: perf_event.h generic ids ---- */
	{ __LINE__, "software.model", "tclk", "task-clock", "software", 1, SW, PERF_COUNT_SW_TASK_CLOCK, 0 },
	{ __LINE__, "software.model", "cswitch", "context-switches", "software", 1, SW,
	  PERF_COUNT_SW_CONTEXT_SWITCHES, 0 },
	{ __LINE__, "software.model", "migr", "cpu-migrations", "software", 1, SW, PERF_COUNT_SW_CPU_MIGRATIONS,
	  0 },
	{ __LINE__, "vpmu.model", "cyc", "cycles", "hardware", 1, HW, PERF_COUNT_HW_CPU_CYCLES, 0 },
	{ __LINE__, "vpmu.model", "instr", "instructions", "hardware", 1, HW, PERF_COUNT_HW_INSTRUCTIONS, 0 },
	{ __LINE__, "vpmu-intel.model", "llc_ref", "cache-references", "hardware", 1, HW,
	  PERF_COUNT_HW_CACHE_REFERENCES, 0 },
	{ __LINE__, "vpmu-intel.model", "llc_miss", "cache-misses", "hardware", 1, HW, PERF_COUNT_HW_CACHE_MISSES,
	  0 },

	/* ---- nhm-ep.model: Intel nehalemep JSON / SDM vol. 3B, Nehalem events ---- */
	/* MEM_UNCORE_RETIRED 0x0F: LOCAL_DRAM 0x20, REMOTE_DRAM 0x10, OTHER_CORE_L2_HITM 0x02 */
	{ __LINE__, "nhm-ep.model", "loc_dram", "MEM_UNCORE_RETIRED:LOCAL_DRAM", "cpu", 1, RAW, EU(0x0f, 0x20), 0 },
	{ __LINE__, "nhm-ep.model", "rem_dram", "MEM_UNCORE_RETIRED:REMOTE_DRAM", "cpu", 1, RAW, EU(0x0f, 0x10), 0 },
	{ __LINE__, "nhm-ep.model", "loc_hitm", "MEM_UNCORE_RETIRED:OTHER_CORE_L2_HITM", "cpu", 1, RAW,
	  EU(0x0f, 0x02), 0 },
	/*
	 * OFFCORE_RESPONSE_0 0xB7/0x01, MSR_OFFCORE_RSP_0: libpfm4's ANY_DATA is
	 * DMND_DATA_RD|DMND_RFO|PF_DATA_RD|PF_RFO (request bits 0,1,4,5 = 0x33);
	 * REMOTE_CACHE_HITM is response bit 11 (0x800: the nehalemep JSON's
	 * OFFCORE_RESPONSE.ANY_DATA.REMOTE_CACHE_HITM is 0x811 with reads only)
	 */
	{ __LINE__, "nhm-ep.model", "rem_hitm", "OFFCORE_RESPONSE_0:DMND_DATA_RD:REMOTE_CACHE_HITM", "cpu", 1, RAW,
	  EU(0xb7, 0x01), 0x801 },
	/* architectural LLC references 0x2E/0x4F, misses 0x2E/0x41 */
	{ __LINE__, "nhm-ep.model", "llc_ref", "LLC_REFERENCES", "cpu", 1, RAW, EU(0x2e, 0x4f), 0 },
	{ __LINE__, "nhm-ep.model", "llc_miss", "LLC_MISSES", "cpu", 1, RAW, EU(0x2e, 0x41), 0 },
	/* OFFCORE_REQUESTS_SQ_FULL 0xB2/0x01 */
	{ __LINE__, "nhm-ep.model", "sq_full", "OFFCORE_REQUESTS_SQ_FULL", "cpu", 1, RAW, EU(0xb2, 0x01), 0 },

	/* ---- wsm-ep.model: Intel westmereep-dp JSON ---- */
	/* MEM_UNCORE_RETIRED 0x0F: LOCAL_HITM 0x02, REMOTE_HITM 0x04, LOCAL_DRAM_AND_REMOTE_CACHE_HIT 0x08, REMOTE_DRAM 0x20 */
	{ __LINE__, "wsm-ep.model", "loc_dram", "MEM_UNCORE_RETIRED:LOCAL_DRAM_AND_REMOTE_CACHE_HIT", "cpu", 1, RAW,
	  EU(0x0f, 0x08), 0 },
	{ __LINE__, "wsm-ep.model", "rem_dram", "cpu/event=0x0f,umask=0x20/", "cpu", 1, RAW, EU(0x0f, 0x20), 0 },
	{ __LINE__, "wsm-ep.model", "loc_hitm", "MEM_UNCORE_RETIRED:LOCAL_HITM", "cpu", 1, RAW, EU(0x0f, 0x02), 0 },
	{ __LINE__, "wsm-ep.model", "rem_hitm", "MEM_UNCORE_RETIRED:REMOTE_HITM", "cpu", 1, RAW, EU(0x0f, 0x04), 0 },
	{ __LINE__, "wsm-ep.model", "llc_ref", "LLC_REFERENCES", "cpu", 1, RAW, EU(0x2e, 0x4f), 0 },
	{ __LINE__, "wsm-ep.model", "llc_miss", "LLC_MISSES", "cpu", 1, RAW, EU(0x2e, 0x41), 0 },
	{ __LINE__, "wsm-ep.model", "sq_full", "OFFCORE_REQUESTS_SQ_FULL", "cpu", 1, RAW, EU(0xb2, 0x01), 0 },

	/*
	 * ---- nhm-uncore.inc: the 'uncore' PMU (type 6 in nhm-ep and wsm-ep),
	 * event config:0-7, umask config:8-15 (uncore_snb.c nhm_uncore); codes
	 * from the SDM's Nehalem/Westmere uncore tables (UNC_GQ_CYCLES_FULL 0x00,
	 * UNC_GQ_CYCLES_NOT_EMPTY 0x01, GQ occupancy 0x02, UNC_GQ_ALLOC 0x03,
	 * UNC_QHL_REQUESTS 0x20 LOCAL_READS 0x10 REMOTE_READS 0x04,
	 * UNC_QMC_NORMAL_READS 0x2C, UNC_QMC_WRITES 0x2F, fixed clock 0xFF) ----
	 */
	{ __LINE__, "nhm-uncore.inc", "gq_full_rd", "uncore/event=0x00,umask=0x01/", "uncore", 1, 6, EU(0x00, 0x01),
	  0 },
	{ __LINE__, "nhm-uncore.inc", "gq_full_wr", "uncore/event=0x00,umask=0x02/", "uncore", 1, 6, EU(0x00, 0x02),
	  0 },
	{ __LINE__, "nhm-uncore.inc", "gq_full_pp", "uncore/event=0x00,umask=0x04/", "uncore", 1, 6, EU(0x00, 0x04),
	  0 },
	{ __LINE__, "nhm-uncore.inc", "gq_ne_rd", "uncore/event=0x01,umask=0x01/", "uncore", 1, 6, EU(0x01, 0x01), 0 },
	{ __LINE__, "nhm-uncore.inc", "gq_occ_rd", "uncore/event=0x02,umask=0x01/", "uncore", 1, 6, EU(0x02, 0x01),
	  0 },
	{ __LINE__, "nhm-uncore.inc", "gq_alloc_rd", "uncore/event=0x03,umask=0x01/", "uncore", 1, 6, EU(0x03, 0x01),
	  0 },
	{ __LINE__, "nhm-uncore.inc", "uclk", "uncore/event=0xff,umask=0x00/", "uncore", 1, 6, 0xff, 0 },
	{ __LINE__, "nhm-uncore.inc", "qmc_rd", "uncore/event=0x2c,umask=0x07/", "uncore", 1, 6, EU(0x2c, 0x07), 0 },
	{ __LINE__, "nhm-uncore.inc", "qmc_wr", "uncore/event=0x2f,umask=0x07/", "uncore", 1, 6, EU(0x2f, 0x07), 0 },
	{ __LINE__, "nhm-uncore.inc", "qhl_loc_rd", "uncore/event=0x20,umask=0x10/", "uncore", 1, 6, EU(0x20, 0x10),
	  0 },
	{ __LINE__, "nhm-uncore.inc", "qhl_rem_rd", "uncore/event=0x20,umask=0x04/", "uncore", 1, 6, EU(0x20, 0x04),
	  0 },

	/* ---- skx.model: Intel skylakex JSON (core), skylakex uncore-*.json on skx-2s's PMUs ---- */
	/* MEM_LOAD_L3_MISS_RETIRED 0xD3: LOCAL_DRAM 0x01, REMOTE_DRAM 0x02, REMOTE_HITM 0x04, REMOTE_FWD 0x08 */
	{ __LINE__, "skx.model", "loc_dram", "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", "cpu", 1, RAW, EU(0xd3, 0x01), 0 },
	{ __LINE__, "skx.model", "rem_dram", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM", "cpu", 1, RAW, EU(0xd3, 0x02),
	  0 },
	{ __LINE__, "skx.model", "rem_hitm", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM", "cpu", 1, RAW, EU(0xd3, 0x04),
	  0 },
	{ __LINE__, "skx.model", "rem_fwd", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD", "cpu", 1, RAW, EU(0xd3, 0x08), 0 },
	/* MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM 0xD2/0x04 */
	{ __LINE__, "skx.model", "loc_hitm", "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM", "cpu", 1, RAW, EU(0xd2, 0x04), 0 },
	/* LONGEST_LAT_CACHE 0x2E: REFERENCE 0x4F, MISS 0x41 */
	{ __LINE__, "skx.model", "llc_ref", "LONGEST_LAT_CACHE:REFERENCE", "cpu", 1, RAW, EU(0x2e, 0x4f), 0 },
	{ __LINE__, "skx.model", "llc_miss", "LONGEST_LAT_CACHE:MISS", "cpu", 1, RAW, EU(0x2e, 0x41), 0 },
	/* CYCLE_ACTIVITY.STALLS_L3_MISS 0xA3/0x06, CounterMask 6 */
	{ __LINE__, "skx.model", "stall_l3", "CYCLE_ACTIVITY:STALLS_L3_MISS", "cpu", 1, RAW,
	  EU(0xa3, 0x06) | CMASK(6), 0 },
	/* CYCLE_ACTIVITY.STALLS_L2_MISS 0xA3/0x05 CounterMask 5; STALLS_MEM_ANY 0xA3/0x14
	 * CounterMask 20 (perfmon skylakex_core.json) */
	{ __LINE__, "skx.model", "stall_l2", "CYCLE_ACTIVITY:STALLS_L2_MISS", "cpu", 1, RAW,
	  EU(0xa3, 0x05) | CMASK(5), 0 },
	{ __LINE__, "skx.model", "stall_mem", "CYCLE_ACTIVITY:STALLS_MEM_ANY", "cpu", 1, RAW,
	  EU(0xa3, 0x14) | CMASK(20), 0 },
	/* OFFCORE_REQUESTS_BUFFER.SQ_FULL 0xB2/0x01; L1D_PEND_MISS.FB_FULL 0x48/0x02 with counter mask 1 (cycles) */
	{ __LINE__, "skx.model", "sq_full", "OFFCORE_REQUESTS_BUFFER:SQ_FULL", "cpu", 1, RAW, EU(0xb2, 0x01), 0 },
	{ __LINE__, "skx.model", "fb_full", "L1D_PEND_MISS:FB_FULL:c=1", "cpu", 1, RAW, EU(0x48, 0x02) | CMASK(1), 0 },
	/*
	 * OFFCORE_RESPONSE 0xB7/0x01; MSRValue of OFFCORE_RESPONSE.DEMAND_DATA_RD.
	 * L3_MISS_LOCAL_DRAM.ANY_SNOOP 0x3F84000001 and .L3_MISS_REMOTE_HOP1_DRAM.
	 * ANY_SNOOP 0x3F90000001 (request bit 0, supplier bit 26 / 28, snoop
	 * bits 31-37 all set)
	 */
	{ __LINE__, "skx.model", "ocr_loc", "OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_LOCAL", "cpu", 1, RAW,
	  EU(0xb7, 0x01), 0x3f84000001ULL },
	{ __LINE__, "skx.model", "ocr_rem", "OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS_REMOTE_HOP1_DRAM", "cpu", 1, RAW,
	  EU(0xb7, 0x01), 0x3f90000001ULL },
	/* iMC (uncore_imc_0..5, type 30): CAS_COUNT.RD 0x04/0x03, .WR 0x04/0x0C, RPQ_OCCUPANCY 0x80, RPQ_INSERTS 0x10 */
	{ __LINE__, "skx.model", "cas_rd", "uncore_imc/event=0x04,umask=0x03/", "uncore_imc_0", 6, 30, EU(0x04, 0x03),
	  0 },
	{ __LINE__, "skx.model", "cas_wr", "uncore_imc/event=0x04,umask=0x0c/", "uncore_imc_0", 6, 30, EU(0x04, 0x0c),
	  0 },
	{ __LINE__, "skx.model", "rpq_occ", "uncore_imc/event=0x80/", "uncore_imc_0", 6, 30, 0x80, 0 },
	{ __LINE__, "skx.model", "rpq_ins", "uncore_imc/event=0x10/", "uncore_imc_0", 6, 30, 0x10, 0 },
	/* CHA (uncore_cha_0..19, type 10): TOR_INSERTS 0x35 / TOR_OCCUPANCY 0x36, IA_MISS umask 0x21; Filter1 in config1:32-63 */
	{ __LINE__, "skx.model", "tor_ins", "uncore_cha/event=0x35,umask=0x21,config1=0x4043300000000/", "uncore_cha_0",
	  20, 10, EU(0x35, 0x21), HI(0x40433) },
	{ __LINE__, "skx.model", "tor_occ", "uncore_cha/event=0x36,umask=0x21,config1=0x4043300000000/", "uncore_cha_0",
	  20, 10, EU(0x36, 0x21), HI(0x40433) },
	/* UPI (uncore_upi_0..2, type 36): TxL_FLITS.ALL_DATA 0x02/0x0F */
	{ __LINE__, "skx.model", "upi_data", "uncore_upi/event=0x02,umask=0x0f/", "uncore_upi_0", 3, 36,
	  EU(0x02, 0x0f), 0 },
	/* UNC_CHA_CLOCKTICKS 0x00 of the first CHA only (uncore_cha_0, type 10) */
	{ __LINE__, "skx.model", "cha0_clk", "uncore_cha_0/event=0x00/", "uncore_cha_0", 1, 10, 0x00, 0 },

	/* ---- icx.model: Intel icelakex JSON (core), icelakex uncore-*.json on icx-2s's PMUs ---- */
	{ __LINE__, "icx.model", "loc_dram", "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", "cpu", 1, RAW, EU(0xd3, 0x01), 0 },
	{ __LINE__, "icx.model", "rem_dram", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM", "cpu", 1, RAW, EU(0xd3, 0x02),
	  0 },
	{ __LINE__, "icx.model", "rem_hitm", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM", "cpu", 1, RAW, EU(0xd3, 0x04),
	  0 },
	{ __LINE__, "icx.model", "rem_fwd", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD", "cpu", 1, RAW, EU(0xd3, 0x08), 0 },
	/* MEM_LOAD_L3_HIT_RETIRED.XSNP_FWD 0xD2/0x04 (libpfm4 4.13 names it XSNP_HITM) */
	{ __LINE__, "icx.model", "loc_hitm", "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM", "cpu", 1, RAW, EU(0xd2, 0x04), 0 },
	{ __LINE__, "icx.model", "llc_ref", "LONGEST_LAT_CACHE:REFERENCES", "cpu", 1, RAW, EU(0x2e, 0x4f), 0 },
	{ __LINE__, "icx.model", "llc_miss", "LONGEST_LAT_CACHE:MISS", "cpu", 1, RAW, EU(0x2e, 0x41), 0 },
	/* CYCLE_ACTIVITY.STALLS_L3_MISS 0xA3/0x06, CounterMask 6 */
	{ __LINE__, "icx.model", "stall_l3", "CYCLE_ACTIVITY:STALLS_L3_MISS", "cpu", 1, RAW,
	  EU(0xa3, 0x06) | CMASK(6), 0 },
	/* CYCLE_ACTIVITY.STALLS_L2_MISS 0xA3/0x05 CounterMask 5; STALLS_MEM_ANY 0xA3/0x14
	 * CounterMask 20 (perfmon icelakex_core.json) */
	{ __LINE__, "icx.model", "stall_l2", "CYCLE_ACTIVITY:STALLS_L2_MISS", "cpu", 1, RAW,
	  EU(0xa3, 0x05) | CMASK(5), 0 },
	{ __LINE__, "icx.model", "stall_mem", "CYCLE_ACTIVITY:STALLS_MEM_ANY", "cpu", 1, RAW,
	  EU(0xa3, 0x14) | CMASK(20), 0 },
	/* SQ_MISC.SQ_FULL 0xF4/0x04 */
	{ __LINE__, "icx.model", "sq_full", "SQ_MISC:SQ_FULL", "cpu", 1, RAW, EU(0xf4, 0x04), 0 },
	/* OCR.DEMAND_DATA_RD.LOCAL_DRAM 0xB7/0x01 MSRValue 0x104000001, .REMOTE_DRAM 0x730000001 */
	{ __LINE__, "icx.model", "ocr_loc", "OCR:DEMAND_DATA_RD_LOCAL_DRAM", "cpu", 1, RAW, EU(0xb7, 0x01),
	  0x104000001ULL },
	{ __LINE__, "icx.model", "ocr_rem", "OCR:DEMAND_DATA_RD_REMOTE_DRAM", "cpu", 1, RAW, EU(0xb7, 0x01),
	  0x730000001ULL },
	/* iMC (uncore_imc_0..11, type 10): UNC_M_CAS_COUNT.RD 0x04/0x0F, .WR 0x04/0x30 */
	{ __LINE__, "icx.model", "cas_rd", "uncore_imc/event=0x04,umask=0x0f/", "uncore_imc_0", 12, 10, EU(0x04, 0x0f),
	  0 },
	{ __LINE__, "icx.model", "cas_wr", "uncore_imc/event=0x04,umask=0x30/", "uncore_imc_0", 12, 10, EU(0x04, 0x30),
	  0 },
	/* UNC_M_RPQ_OCCUPANCY_PCH0 0x80, _PCH1 0x81; UNC_M_RPQ_INSERTS.PCH0 0x10/0x01, .PCH1 0x10/0x02 */
	{ __LINE__, "icx.model", "rpq_occ0", "uncore_imc/event=0x80/", "uncore_imc_0", 12, 10, 0x80, 0 },
	{ __LINE__, "icx.model", "rpq_occ1", "uncore_imc/event=0x81/", "uncore_imc_0", 12, 10, 0x81, 0 },
	{ __LINE__, "icx.model", "rpq_ins0", "uncore_imc/event=0x10,umask=0x01/", "uncore_imc_0", 12, 10,
	  EU(0x10, 0x01), 0 },
	{ __LINE__, "icx.model", "rpq_ins1", "uncore_imc/event=0x10,umask=0x02/", "uncore_imc_0", 12, 10,
	  EU(0x10, 0x02), 0 },
	/*
	 * CHA (uncore_cha_0..3, type 22), umask config:8-15,32-57: UNC_CHA_TOR_INSERTS
	 * 0x35 / _OCCUPANCY 0x36 .IA_MISS_DRD_LOCAL UMask 0x01 UMaskExt 0xC816FE,
	 * _REMOTE UMaskExt 0xC8177E; UNC_CHA_CLOCKTICKS 0x00
	 */
	{ __LINE__, "icx.model", "tor_ins_l", "uncore_cha/event=0x35,umask=0xc816fe01/", "uncore_cha_0", 4, 22,
	  EU(0x35, 0x01) | HI(0xc816fe), 0 },
	{ __LINE__, "icx.model", "tor_occ_l", "uncore_cha/event=0x36,umask=0xc816fe01/", "uncore_cha_0", 4, 22,
	  EU(0x36, 0x01) | HI(0xc816fe), 0 },
	{ __LINE__, "icx.model", "tor_ins_r", "uncore_cha/event=0x35,umask=0xc8177e01/", "uncore_cha_0", 4, 22,
	  EU(0x35, 0x01) | HI(0xc8177e), 0 },
	{ __LINE__, "icx.model", "tor_occ_r", "uncore_cha/event=0x36,umask=0xc8177e01/", "uncore_cha_0", 4, 22,
	  EU(0x36, 0x01) | HI(0xc8177e), 0 },
	{ __LINE__, "icx.model", "cha_clk", "uncore_cha/event=0x00/", "uncore_cha_0", 4, 22, 0x00, 0 },
	{ __LINE__, "icx.model", "cha0_clk", "uncore_cha_0/event=0x00/", "uncore_cha_0", 1, 22, 0x00, 0 },
	/* UPI (uncore_upi_0..2, type 26): UNC_UPI_TxL_FLITS.ALL_DATA 0x02/0x0F */
	{ __LINE__, "icx.model", "upi_data", "uncore_upi/event=0x02,umask=0x0f/", "uncore_upi_0", 3, 26,
	  EU(0x02, 0x0f), 0 },

	/* ---- spr.model: Intel sapphirerapids JSON (core), sapphirerapids uncore-*.json on spr-2s's PMUs ---- */
	{ __LINE__, "spr.model", "loc_dram", "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM", "cpu", 1, RAW, EU(0xd3, 0x01), 0 },
	{ __LINE__, "spr.model", "rem_dram", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM", "cpu", 1, RAW, EU(0xd3, 0x02),
	  0 },
	{ __LINE__, "spr.model", "rem_hitm", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM", "cpu", 1, RAW, EU(0xd3, 0x04),
	  0 },
	{ __LINE__, "spr.model", "rem_fwd", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD", "cpu", 1, RAW, EU(0xd3, 0x08), 0 },
	{ __LINE__, "spr.model", "loc_hitm", "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD", "cpu", 1, RAW, EU(0xd2, 0x04), 0 },
	{ __LINE__, "spr.model", "llc_ref", "LONGEST_LAT_CACHE:REFERENCE", "cpu", 1, RAW, EU(0x2e, 0x4f), 0 },
	{ __LINE__, "spr.model", "llc_miss", "LONGEST_LAT_CACHE:MISS", "cpu", 1, RAW, EU(0x2e, 0x41), 0 },
	/* CYCLE_ACTIVITY.STALLS_L3_MISS 0xA3/0x06, CounterMask 6 (sapphirerapids/memory.json) */
	{ __LINE__, "spr.model", "stall_l3", "CYCLE_ACTIVITY:STALLS_L3_MISS", "cpu", 1, RAW,
	  EU(0xa3, 0x06) | CMASK(6), 0 },
	/* MEMORY_ACTIVITY.STALLS_L2_MISS 0x47/0x05 CounterMask 5; EXE_ACTIVITY.BOUND_ON_LOADS
	 * 0xA6/0x21 CounterMask 5 (perfmon sapphirerapids_core.json) */
	{ __LINE__, "spr.model", "stall_l2", "MEMORY_ACTIVITY:STALLS_L2_MISS", "cpu", 1, RAW,
	  EU(0x47, 0x05) | CMASK(5), 0 },
	{ __LINE__, "spr.model", "stall_mem", "EXE_ACTIVITY:BOUND_ON_LOADS", "cpu", 1, RAW,
	  EU(0xa6, 0x21) | CMASK(5), 0 },
	/* XQ.FULL_CYCLES 0x2D/0x01, CounterMask 1 */
	{ __LINE__, "spr.model", "xq_full", "XQ:FULL_CYCLES", "cpu", 1, RAW, EU(0x2d, 0x01) | CMASK(1), 0 },
	/* OCR 0x2A/0x01: .DEMAND_DATA_RD.LOCAL_DRAM MSRValue 0x104000001, .REMOTE_DRAM 0x730000001 */
	{ __LINE__, "spr.model", "ocr_loc", "OCR:DEMAND_DATA_RD_LOCAL_DRAM", "cpu", 1, RAW, EU(0x2a, 0x01),
	  0x104000001ULL },
	{ __LINE__, "spr.model", "ocr_rem", "OCR:DEMAND_DATA_RD_REMOTE_DRAM", "cpu", 1, RAW, EU(0x2a, 0x01),
	  0x730000001ULL },
	/* iMC (uncore_imc_0..7, type 10): UNC_M_CAS_COUNT.RD 0x05/0xCF, .WR 0x05/0xF0 */
	{ __LINE__, "spr.model", "cas_rd", "uncore_imc/event=0x05,umask=0xcf/", "uncore_imc_0", 8, 10, EU(0x05, 0xcf),
	  0 },
	{ __LINE__, "spr.model", "cas_wr", "uncore_imc/event=0x05,umask=0xf0/", "uncore_imc_0", 8, 10, EU(0x05, 0xf0),
	  0 },
	/* UNC_M_RPQ_OCCUPANCY_PCH0 0x80, _PCH1 0x81; UNC_M_RPQ_INSERTS.PCH0 0x10/0x01, .PCH1 0x10/0x02 */
	{ __LINE__, "spr.model", "rpq_occ0", "uncore_imc/event=0x80/", "uncore_imc_0", 8, 10, 0x80, 0 },
	{ __LINE__, "spr.model", "rpq_occ1", "uncore_imc/event=0x81/", "uncore_imc_0", 8, 10, 0x81, 0 },
	{ __LINE__, "spr.model", "rpq_ins0", "uncore_imc/event=0x10,umask=0x01/", "uncore_imc_0", 8, 10,
	  EU(0x10, 0x01), 0 },
	{ __LINE__, "spr.model", "rpq_ins1", "uncore_imc/event=0x10,umask=0x02/", "uncore_imc_0", 8, 10,
	  EU(0x10, 0x02), 0 },
	/* CHA (uncore_cha_0..3, type 18), umask config:8-15,32-63: as ICX (UMaskExt 0xC816FE / 0xC8177E) */
	{ __LINE__, "spr.model", "tor_ins_l", "uncore_cha/event=0x35,umask=0xc816fe01/", "uncore_cha_0", 4, 18,
	  EU(0x35, 0x01) | HI(0xc816fe), 0 },
	{ __LINE__, "spr.model", "tor_occ_l", "uncore_cha/event=0x36,umask=0xc816fe01/", "uncore_cha_0", 4, 18,
	  EU(0x36, 0x01) | HI(0xc816fe), 0 },
	{ __LINE__, "spr.model", "tor_ins_r", "uncore_cha/event=0x35,umask=0xc8177e01/", "uncore_cha_0", 4, 18,
	  EU(0x35, 0x01) | HI(0xc8177e), 0 },
	{ __LINE__, "spr.model", "tor_occ_r", "uncore_cha/event=0x36,umask=0xc8177e01/", "uncore_cha_0", 4, 18,
	  EU(0x36, 0x01) | HI(0xc8177e), 0 },
	{ __LINE__, "spr.model", "cha_clk", "uncore_cha/event=0x01/", "uncore_cha_0", 4, 18, 0x01, 0 },
	{ __LINE__, "spr.model", "cha0_clk", "uncore_cha_0/event=0x01/", "uncore_cha_0", 1, 18, 0x01, 0 },
	/* UPI (uncore_upi_0..3, type 22): UNC_UPI_TxL_FLITS.ALL_DATA 0x02/0x0F */
	{ __LINE__, "spr.model", "upi_data", "uncore_upi/event=0x02,umask=0x0f/", "uncore_upi_0", 4, 22,
	  EU(0x02, 0x0f), 0 },

	/* ---- zen2.model: PPR 55803; amd_df event config:0-7,32-35,59-60 (type 10), amd_l3 type 11 ---- */
	/* PMCx043 LsRefillsFromSys: LclCache 0x02, LclDram 0x08, RmtCache 0x10, RmtDram 0x40 */
	{ __LINE__, "zen2.model", "loc_dram", "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM", "cpu", 1, RAW,
	  EU(0x43, 0x08), 0 },
	{ __LINE__, "zen2.model", "rem_dram", "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_DRAM", "cpu", 1, RAW,
	  EU(0x43, 0x40), 0 },
	{ __LINE__, "zen2.model", "loc_cache", "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_CACHE", "cpu", 1, RAW,
	  EU(0x43, 0x02), 0 },
	{ __LINE__, "zen2.model", "rem_cache", "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_RMT_CACHE", "cpu", 1, RAW,
	  EU(0x43, 0x10), 0 },
	/* L3 PMC: l3_request_g1 0x01/0x80, l3_comb_clstr_state 0x06/0x01, xi_sys_fill_latency 0x90, xi_ccx_sdp_req1 0x9A/0x3F */
	{ __LINE__, "zen2.model", "l3_acc", "amd_l3/event=0x01,umask=0x80/", "amd_l3", 1, 11, EU(0x01, 0x80), 0 },
	{ __LINE__, "zen2.model", "l3_miss", "amd_l3/event=0x06,umask=0x01/", "amd_l3", 1, 11, EU(0x06, 0x01), 0 },
	{ __LINE__, "zen2.model", "l3_lat16", "amd_l3/event=0x90,umask=0x00/", "amd_l3", 1, 11, 0x90, 0 },
	{ __LINE__, "zen2.model", "l3_mreq", "amd_l3/event=0x9a,umask=0x3f/", "amd_l3", 1, 11, EU(0x9a, 0x3f), 0 },
	/* DF: DRAM channel controller N = event 0x07 + 0x40 N, umask 0x38 (amdzen2 data-fabric.json); bits 8-11 of the event go to 32-35 */
	{ __LINE__, "zen2.model", "df_ch0", "amd_df/event=0x07,umask=0x38/", "amd_df", 1, 10, EU(0x07, 0x38), 0 },
	{ __LINE__, "zen2.model", "df_ch1", "amd_df/event=0x47,umask=0x38/", "amd_df", 1, 10, EU(0x47, 0x38), 0 },
	{ __LINE__, "zen2.model", "df_ch2", "amd_df/event=0x87,umask=0x38/", "amd_df", 1, 10, EU(0x87, 0x38), 0 },
	{ __LINE__, "zen2.model", "df_ch3", "amd_df/event=0xc7,umask=0x38/", "amd_df", 1, 10, EU(0xc7, 0x38), 0 },
	{ __LINE__, "zen2.model", "df_ch4", "amd_df/event=0x107,umask=0x38/", "amd_df", 1, 10,
	  EU(0x07, 0x38) | HI(0x1), 0 },
	{ __LINE__, "zen2.model", "df_ch5", "amd_df/event=0x147,umask=0x38/", "amd_df", 1, 10,
	  EU(0x47, 0x38) | HI(0x1), 0 },
	{ __LINE__, "zen2.model", "df_ch6", "amd_df/event=0x187,umask=0x38/", "amd_df", 1, 10,
	  EU(0x87, 0x38) | HI(0x1), 0 },
	{ __LINE__, "zen2.model", "df_ch7", "amd_df/event=0x1c7,umask=0x38/", "amd_df", 1, 10,
	  EU(0xc7, 0x38) | HI(0x1), 0 },

	/* ---- zen3.model: PPR 55898; amd_l3 type 13, amd_df type 12 (same DF layout as Zen 2) ---- */
	/* PMCx043 LsDmndFillsFromSys: ExtCacheLcl 0x04, MemIoLcl 0x08, ExtCacheRmt 0x10, MemIoRmt 0x40 */
	{ __LINE__, "zen3.model", "loc_dram", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL", "cpu", 1, RAW,
	  EU(0x43, 0x08), 0 },
	{ __LINE__, "zen3.model", "rem_dram", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT", "cpu", 1, RAW,
	  EU(0x43, 0x40), 0 },
	{ __LINE__, "zen3.model", "loc_cache", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL", "cpu", 1, RAW,
	  EU(0x43, 0x04), 0 },
	{ __LINE__, "zen3.model", "rem_cache", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_RMT", "cpu", 1, RAW,
	  EU(0x43, 0x10), 0 },
	/* L3 PMC: l3_lookup_state 0x04 all 0xFF / l3_miss 0x01; xi_sys_fill_latency 0x90; xi_ccx_sdp_req1 0x9A/0xFF */
	{ __LINE__, "zen3.model", "l3_acc", "amd_l3/event=0x04,umask=0xff/", "amd_l3", 1, 13, EU(0x04, 0xff), 0 },
	{ __LINE__, "zen3.model", "l3_miss", "amd_l3/event=0x04,umask=0x01/", "amd_l3", 1, 13, EU(0x04, 0x01), 0 },
	{ __LINE__, "zen3.model", "l3_lat16", "amd_l3/event=0x90,umask=0x00/", "amd_l3", 1, 13, 0x90, 0 },
	{ __LINE__, "zen3.model", "l3_mreq", "amd_l3/event=0x9a,umask=0xff/", "amd_l3", 1, 13, EU(0x9a, 0xff), 0 },
	{ __LINE__, "zen3.model", "df_ch0", "amd_df/event=0x07,umask=0x38/", "amd_df", 1, 12, EU(0x07, 0x38), 0 },
	{ __LINE__, "zen3.model", "df_ch1", "amd_df/event=0x47,umask=0x38/", "amd_df", 1, 12, EU(0x47, 0x38), 0 },
	{ __LINE__, "zen3.model", "df_ch2", "amd_df/event=0x87,umask=0x38/", "amd_df", 1, 12, EU(0x87, 0x38), 0 },
	{ __LINE__, "zen3.model", "df_ch3", "amd_df/event=0xc7,umask=0x38/", "amd_df", 1, 12, EU(0xc7, 0x38), 0 },
	{ __LINE__, "zen3.model", "df_ch4", "amd_df/event=0x107,umask=0x38/", "amd_df", 1, 12,
	  EU(0x07, 0x38) | HI(0x1), 0 },
	{ __LINE__, "zen3.model", "df_ch5", "amd_df/event=0x147,umask=0x38/", "amd_df", 1, 12,
	  EU(0x47, 0x38) | HI(0x1), 0 },
	{ __LINE__, "zen3.model", "df_ch6", "amd_df/event=0x187,umask=0x38/", "amd_df", 1, 12,
	  EU(0x87, 0x38) | HI(0x1), 0 },
	{ __LINE__, "zen3.model", "df_ch7", "amd_df/event=0x1c7,umask=0x38/", "amd_df", 1, 12,
	  EU(0xc7, 0x38) | HI(0x1), 0 },
	/* PMCx05F LsAllocMabCount; PMCx041 LsMabAlloc all allocations 0x7F */
	{ __LINE__, "zen3.model", "mab_occ", "ALLOC_MAB_COUNT", "cpu", 1, RAW, 0x5f, 0 },
	{ __LINE__, "zen3.model", "mab_alloc", "MAB_ALLOCATION_BY_TYPE:ALL", "cpu", 1, RAW, EU(0x41, 0x7f), 0 },

	/* ---- zen4.model: PPR 57930 (Zen 4); amd_l3 type 11, amd_umc_0..23 type 12 ---- */
	/* PMCx043 LsDmndFillsFromSys: NearCache 0x04, DramIoNear 0x08, FarCache 0x10, DramIoFar 0x40 */
	{ __LINE__, "zen4.model", "loc_dram", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR", "cpu", 1, RAW,
	  EU(0x43, 0x08), 0 },
	{ __LINE__, "zen4.model", "rem_dram", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_FAR", "cpu", 1, RAW,
	  EU(0x43, 0x40), 0 },
	{ __LINE__, "zen4.model", "loc_cache", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR", "cpu", 1, RAW,
	  EU(0x43, 0x04), 0 },
	{ __LINE__, "zen4.model", "rem_cache", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:FAR_CACHE_NEAR_FAR", "cpu", 1, RAW,
	  EU(0x43, 0x10), 0 },
	/* PMCx05F LsAllocMabCount; PMCx041 LsMabAlloc all allocations 0x7F */
	{ __LINE__, "zen4.model", "mab_occ", "ALLOC_MAB_COUNT", "cpu", 1, RAW, 0x5f, 0 },
	{ __LINE__, "zen4.model", "mab_alloc", "MAB_ALLOCATION_BY_TYPE:ALL", "cpu", 1, RAW, EU(0x41, 0x7f), 0 },
	/*
	 * L3 PMC (format: enallslices 46, enallcores 47, sliceid 48-50,
	 * threadmask 56-57): l3_lookup_state 0x04 all 0xFF / miss 0x01,
	 * l3_xi_sampled_latency 0xAC/0x3F, _requests 0xAD/0x3F (amdzen4 cache.json)
	 */
	{ __LINE__, "zen4.model", "l3_acc", "amd_l3/event=0x04,umask=0xff/", "amd_l3", 1, 11, EU(0x04, 0xff), 0 },
	{ __LINE__, "zen4.model", "l3_miss", "amd_l3/event=0x04,umask=0x01/", "amd_l3", 1, 11, EU(0x04, 0x01), 0 },
	{ __LINE__, "zen4.model", "l3_lat10",
	  "amd_l3/event=0xac,umask=0x3f,enallcores=1,enallslices=1,sliceid=3,threadmask=3/", "amd_l3", 1, 11,
	  EU(0xac, 0x3f) | 1ULL << 46 | 1ULL << 47 | 3ULL << 48 | 3ULL << 56, 0 },
	{ __LINE__, "zen4.model", "l3_lreq",
	  "amd_l3/event=0xad,umask=0x3f,enallcores=1,enallslices=1,sliceid=3,threadmask=3/", "amd_l3", 1, 11,
	  EU(0xad, 0x3f) | 1ULL << 46 | 1ULL << 47 | 3ULL << 48 | 3ULL << 56, 0 },
	/* UMC (format event 0-7, rdwrmask 8-9): umc_cas_cmd 0x0A, rd 1, wr 2 (amdzen4 memory-controller.json) */
	{ __LINE__, "zen4.model", "umc_rd", "amd_umc/event=0x0a,rdwrmask=1/", "amd_umc_0", 24, 12, EU(0x0a, 0x1), 0 },
	{ __LINE__, "zen4.model", "umc_wr", "amd_umc/event=0x0a,rdwrmask=2/", "amd_umc_0", 24, 12, EU(0x0a, 0x2), 0 },

	/*
	 * ---- neoverse-n1.model: Neoverse N1 TRM, PMU events (raw PMUv3 numbers):
	 * REMOTE_ACCESS 0x31, BUS_ACCESS 0x19, L2D_CACHE_REFILL 0x17,
	 * LL_CACHE_RD 0x36, LL_CACHE_MISS_RD 0x37, STALL_BACKEND 0x24 ----
	 */
	{ __LINE__, "neoverse-n1.model", "remote", "r31", "cpu", 1, RAW, 0x31, 0 },
	{ __LINE__, "neoverse-n1.model", "bus_acc", "r19", "cpu", 1, RAW, 0x19, 0 },
	{ __LINE__, "neoverse-n1.model", "l2_refill", "r17", "cpu", 1, RAW, 0x17, 0 },
	{ __LINE__, "neoverse-n1.model", "ll_rd", "r36", "cpu", 1, RAW, 0x36, 0 },
	{ __LINE__, "neoverse-n1.model", "ll_miss", "r37", "cpu", 1, RAW, 0x37, 0 },
	{ __LINE__, "neoverse-n1.model", "stall_be", "r24", "cpu", 1, RAW, 0x24, 0 },
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static const struct mrow *find_row(const char *file, const char *name)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rows); i++)
		if (!strcmp(rows[i].file, file) && !strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

/*
 * The fixture of a model as tests/tiers/models.sh pairs them: its lines
 * "	a | b) echo FIXTURE ;;".  Returns a heap string or NULL.
 */
static char *fixture_of(const char *sh, const char *model)
{
	const char *line = sh;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *l = xstrndup(line, len), *paren = strstr(l, ") echo "), *res = NULL;

		if (paren && l[0] == '\t' && l[1] != '*') {
			char *names = xstrndup(l + 1, (size_t)(paren - l - 1)), *tok, *save = NULL;

			for (tok = strtok_r(names, " |", &save); tok; tok = strtok_r(NULL, " |", &save))
				if (!strcmp(tok, model))
					res = xstrndup(paren + 7, strcspn(paren + 7, " ;"));
			free(names);
		}
		free(l);
		if (res)
			return res;
		line = end ? end + 1 : NULL;
	}
	return NULL;
}

/* Check every event of one model against its rows; mark the rows used. */
static void check_model(const char *path, const char *fx, bool *used)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	char *dir = xstrdup(test_data("../../models"));
	const char *dirs[1] = { dir };
	char *rel = xasprintf("root/%s", fx);
	char *root = xstrdup(test_data(rel));
	struct platform plat;
	struct pmu_db *db = NULL;
	struct model_machine mm;
	bool plat_ok = false;
	size_t i;

	diags_init(&d);
	if (model_load(&m, path, dirs, 1, &d, &err)) {
		test_fail(__FILE__, __LINE__, "%s: %s", path, err.msg);
		goto out;
	}
	plat_ok = platform_probe(&plat, root, &err) == 0;
	CHECK(plat_ok);
	if (pmu_db_new(&db, root, &err)) {
		test_fail(__FILE__, __LINE__, "%s: pmu_db_new: %s", fx, err.msg);
		goto out;
	}
	memset(&mm, 0, sizeof(mm));
	mm.db = db;
	mm.root = root;
	mm.plat = plat_ok ? &plat : NULL;
	/* as `model check --root` does: the root's CPU, else the model's match rule */
	if (plat_ok && plat.cpu.pfm_pmu[0])
		snprintf(mm.pfm_table, sizeof(mm.pfm_table), "%s", plat.cpu.pfm_pmu);
	else if (model_pfm_table(m))
		snprintf(mm.pfm_table, sizeof(mm.pfm_table), "%s", model_pfm_table(m));
	for (i = 0; i < m->n_inputs; i++) {
		const struct model_input *in = &m->inputs[i];
		const char *file = base_name(in->loc.file);
		const struct mrow *r;
		struct evdesc_list l;
		char *reason = NULL;
		int ret;

		if (in->kind == INPUT_SOURCE)
			continue;
		r = find_row(file, in->name);
		if (!r) {
			test_fail(__FILE__, __LINE__, "%s (in model %s): event '%s' = %s has no encoding row", file,
				  m->name, in->name, in->spec);
			continue;
		}
		used[r - rows] = true;
		CHECK_STR_AT(r->line, in->spec, r->spec);
		evdesc_list_init(&l);
		ret = model_resolve_event(&mm, in->spec, (int)i, &l, &reason);
		CHECK_AT(r->line, ret == 0, "%s on %s: '%s' does not resolve: %s", m->name, fx, in->spec,
			 reason ? reason : "");
		if (!ret) {
			CHECK_AT(r->line, l.n == r->n, "%s on %s: '%s': %zu instances, expected %zu", m->name, fx,
				 in->spec, l.n, r->n);
			if (l.n) {
				CHECK_STR_AT(r->line, l.v[0].pmu, r->pmu);
				CHECK_AT(r->line, l.v[0].attr.type == r->type, "%s on %s: '%s': type %u, expected %u",
					 m->name, fx, in->spec, l.v[0].attr.type, r->type);
				CHECK_AT(r->line, l.v[0].attr.config == r->config,
					 "%s on %s: '%s': config 0x%llx, expected 0x%llx", m->name, fx, in->spec,
					 (unsigned long long)l.v[0].attr.config, (unsigned long long)r->config);
				CHECK_AT(r->line, l.v[0].attr.config1 == r->config1,
					 "%s on %s: '%s': config1 0x%llx, expected 0x%llx", m->name, fx, in->spec,
					 (unsigned long long)l.v[0].attr.config1, (unsigned long long)r->config1);
			}
		}
		free(reason);
		evdesc_list_release(&l);
	}
out:
	if (plat_ok)
		platform_release(&plat);
	pmu_db_free(db);
	model_free(m);
	diags_release(&d);
	free(root);
	free(rel);
	free(dir);
}

TEST(model_builtin_encodings)
{
	struct vp_err err = { 0, "" };
	char **names = NULL, *sh = NULL;
	size_t n = 0, i, checked = 0;
	bool used[VP_ARRAY_SIZE(rows)];
	char *models = xstrdup(test_data("../../models"));

	memset(used, 0, sizeof(used));
	if (vp_read_file("/", test_data("../tiers/models.sh"), &sh, NULL, &err) ||
	    vp_list_dir("/", models, &names, &n, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char *name, *fx, *path;

		if (len < 7 || strcmp(names[i] + len - 6, ".model"))
			continue;
		name = xstrndup(names[i], len - 6);
		fx = fixture_of(sh, name);
		path = xasprintf("%s/%s", models, names[i]);
		if (!fx)
			test_fail(__FILE__, __LINE__, "models.sh pairs no fixture with model %s", name);
		else
			check_model(path, fx, used);
		checked++;
		free(fx);
		free(path);
		free(name);
	}
	CHECK(checked >= 12);
	for (i = 0; i < VP_ARRAY_SIZE(rows); i++)
		CHECK_AT(rows[i].line, used[i], "row %s '%s' matches no event of any built-in model", rows[i].file,
			 rows[i].name);
out:
	vp_free_names(names, n);
	free(sh);
	free(models);
}
