#!/usr/bin/env python3
"""vendor-events.py - extract the event facts the built-in models use from the vendors' tables

Writes tests/data/vendor-events/CPU.tsv (one file per CPU) from:
  --perfmon DIR     a checkout of github.com/intel/perfmon (CPU/events/*.json)
  --pmu-events DIR  the Linux kernel's tools/perf/pmu-events/arch (or a copy of
                    that directory, e.g. github.com/tud-zih-energy/pmu-events,
                    whose arch/ is the kernel's at a named kernel commit)
  --libpfm4 DIR     a checkout of libpfm4 (only the Nehalem uncore table
                    lib/events/intel_nhm_unc_events.h: Intel publishes no JSON
                    for the Nehalem-EP uncore; libpfm4 transcribes the SDM's)
  --kernel-commit C the kernel commit the pmu-events copy was taken from, for
                    the header (the copy's own README names it)
Each DIR may be a work tree or a bare git directory (then HEAD is read;
--libpfm4-rev names another revision of libpfm4, e.g. the v4.13.0 commit).

Only the facts are written, never the vendors' files.  The wanted events are
listed below (WANT); a name may end in ":cN" (counter mask N), ":e1" (edge)
or ":i1" (invert) for a derived form of the vendor's event (e.g. Top-down's
OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4), noted as such in the row.

The file format is described in tests/data/vendor-events/README.md.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

# ---------------------------------------------------------------------------
# what to extract: CPU -> (source kind, files, wanted names)
# ---------------------------------------------------------------------------
INTEL_COST = [
    "CYCLE_ACTIVITY.STALLS_MEM_ANY", "CYCLE_ACTIVITY.STALLS_L3_MISS", "CYCLE_ACTIVITY.STALLS_L2_MISS",
    "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD", "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD:c4",
    "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD", "OFFCORE_REQUESTS.ALL_DATA_RD",
    "MEM_LOAD_RETIRED.L3_MISS", "CPU_CLK_UNHALTED.THREAD",
]
SKX_CORE = [
    "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM",
    "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD",
    "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM", "LONGEST_LAT_CACHE.REFERENCE", "LONGEST_LAT_CACHE.MISS",
    "OFFCORE_REQUESTS_BUFFER.SQ_FULL", "L1D_PEND_MISS.FB_FULL", "L1D_PEND_MISS.FB_FULL:c1",
    "OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_MISS_LOCAL_DRAM.SNOOP_MISS_OR_NO_FWD",
    "OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_MISS_REMOTE_DRAM.SNOOP_MISS_OR_NO_FWD",
]
SKX_UNCORE = [
    "UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_M_RPQ_OCCUPANCY", "UNC_M_RPQ_INSERTS",
    "UNC_M_RPQ_CYCLES_FULL", "UNC_M_WPQ_CYCLES_FULL", "UNC_M_CLOCKTICKS", "UNC_CHA_TOR_INSERTS.IA_MISS", "UNC_CHA_TOR_OCCUPANCY.IA_MISS",
    "UNC_CHA_TOR_INSERTS.IA_MISS_DRD", "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", "UNC_CHA_CLOCKTICKS",
    "UNC_UPI_TxL_FLITS.ALL_DATA",
]
ICX_CORE = [
    "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM",
    "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD",
    "MEM_LOAD_L3_HIT_RETIRED.XSNP_FWD", "LONGEST_LAT_CACHE.REFERENCE", "LONGEST_LAT_CACHE.MISS",
    "OCR.DEMAND_DATA_RD.LOCAL_DRAM", "OCR.DEMAND_DATA_RD.REMOTE_DRAM", "L1D_PEND_MISS.FB_FULL",
]
ICX_UNCORE = [
    "UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_M_RPQ_OCCUPANCY_PCH0", "UNC_M_RPQ_OCCUPANCY_PCH1",
    "UNC_M_RPQ_INSERTS.PCH0", "UNC_M_RPQ_INSERTS.PCH1", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL",
    "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE",
    "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE", "UNC_CHA_CLOCKTICKS", "UNC_UPI_TxL_FLITS.ALL_DATA",
]
SPR_COST = [
    "CYCLE_ACTIVITY.STALLS_L3_MISS", "CYCLE_ACTIVITY.STALLS_L2_MISS", "CYCLE_ACTIVITY.STALLS_TOTAL",
    "MEMORY_ACTIVITY.STALLS_L3_MISS", "MEMORY_ACTIVITY.STALLS_L2_MISS", "MEMORY_ACTIVITY.STALLS_L1D_MISS",
    "EXE_ACTIVITY.BOUND_ON_LOADS",
    "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD", "OFFCORE_REQUESTS_OUTSTANDING.DATA_RD:c4",
    "OFFCORE_REQUESTS_OUTSTANDING.ALL_DATA_RD", "OFFCORE_REQUESTS_OUTSTANDING.CYCLES_WITH_DATA_RD",
    "OFFCORE_REQUESTS.DATA_RD", "MEM_LOAD_RETIRED.L3_MISS", "CPU_CLK_UNHALTED.THREAD",
]

HSX_BDX = [
    "MEM_LOAD_UOPS_L3_MISS_RETIRED.LOCAL_DRAM", "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_DRAM",
    "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_HITM", "MEM_LOAD_UOPS_L3_MISS_RETIRED.REMOTE_FWD",
    "MEM_LOAD_UOPS_L3_HIT_RETIRED.XSNP_HITM", "LONGEST_LAT_CACHE.REFERENCE", "LONGEST_LAT_CACHE.MISS",
    "CYCLE_ACTIVITY.STALLS_L2_PENDING", "CYCLE_ACTIVITY.STALLS_LDM_PENDING",
    "OFFCORE_REQUESTS_BUFFER.SQ_FULL", "L1D_PEND_MISS.FB_FULL",
    "UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_M_DCLOCKTICKS", "UNC_M_WPQ_CYCLES_FULL",
    "UNC_C_TOR_INSERTS.MISS_LOCAL_OPCODE:opc=0x182", "UNC_C_TOR_OCCUPANCY.MISS_LOCAL_OPCODE:opc=0x182",
    "UNC_C_TOR_INSERTS.MISS_REMOTE_OPCODE:opc=0x182", "UNC_C_TOR_OCCUPANCY.MISS_REMOTE_OPCODE:opc=0x182",
    "UNC_C_CLOCKTICKS", "UNC_H_CLOCKTICKS", "UNC_H_TRACKER_CYCLES_FULL.ALL",
    "UNC_H_TRACKER_OCCUPANCY.READS_LOCAL", "UNC_H_TRACKER_OCCUPANCY.READS_REMOTE",
    "UNC_H_REQUESTS.READS_LOCAL", "UNC_H_REQUESTS.READS_REMOTE",
]

CPUS = {
    "skx": ("perfmon", ["SKX/events/skylakex_core.json", "SKX/events/skylakex_uncore.json",
                        "SKX/events/skylakex_uncore_experimental.json"],
            SKX_CORE + INTEL_COST + SKX_UNCORE),
    "clx": ("perfmon", ["CLX/events/cascadelakex_core.json", "CLX/events/cascadelakex_uncore.json",
                        "CLX/events/cascadelakex_uncore_experimental.json"],
            SKX_CORE[:-4] + ["L1D_PEND_MISS.FB_FULL", "L1D_PEND_MISS.FB_FULL:c1",
                             "OCR.DEMAND_DATA_RD.L3_MISS_LOCAL_DRAM.ANY_SNOOP",
                             "OCR.DEMAND_DATA_RD.L3_MISS_REMOTE_HOP1_DRAM.ANY_SNOOP"] + INTEL_COST + SKX_UNCORE),
    "icx": ("perfmon", ["ICX/events/icelakex_core.json", "ICX/events/icelakex_uncore.json",
                        "ICX/events/icelakex_uncore_experimental.json"],
            ICX_CORE + ["SQ_MISC.SQ_FULL", "CYCLE_ACTIVITY.STALLS_TOTAL"] + INTEL_COST + ICX_UNCORE
            + ["UNC_M_CLOCKTICKS", "UNC_M_RPQ_CYCLES_FULL_PCH0", "UNC_M_RPQ_CYCLES_FULL_PCH1",
               "UNC_M_WPQ_CYCLES_FULL_PCH0", "UNC_M_WPQ_CYCLES_FULL_PCH1"]),
    "spr": ("perfmon", ["SPR/events/sapphirerapids_core.json", "SPR/events/sapphirerapids_uncore.json",
                        "SPR/events/sapphirerapids_uncore_experimental.json"],
            ICX_CORE + ["XQ.FULL_CYCLES"] + SPR_COST + ICX_UNCORE
            + ["UNC_M_CLOCKTICKS", "UNC_M_RDB_FULL:u24", "UNC_M_RDB_OCCUPANCY", "UNC_M_RDB_INSERTS"]),
    # Sandy Bridge-EP .. Broadwell-EP: models written with raw codes (the CPU rule
    # picks them); the CBo TOR events with the demand-data-read opcode filter
    "snb-ep": ("perfmon", ["JKT/events/Jaketown_core.json", "JKT/events/Jaketown_uncore.json"],
               ["MEM_LOAD_UOPS_LLC_MISS_RETIRED.LOCAL_DRAM", "MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_DRAM",
                "OFFCORE_RESPONSE.DEMAND_DATA_RD.LLC_MISS.REMOTE_HITM",
                "MEM_LOAD_UOPS_LLC_HIT_RETIRED.XSNP_HITM", "LONGEST_LAT_CACHE.REFERENCE", "LONGEST_LAT_CACHE.MISS",
                "CYCLE_ACTIVITY.STALLS_L2_PENDING", "CYCLE_ACTIVITY.STALLS_L1D_PENDING",
                "OFFCORE_REQUESTS_BUFFER.SQ_FULL", "L1D_PEND_MISS.FB_FULL",
                "UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_M_CLOCKTICKS", "UNC_M_RPQ_CYCLES_FULL",
                "UNC_M_WPQ_CYCLES_FULL", "UNC_M_RPQ_INSERTS", "UNC_M_RPQ_OCCUPANCY",
                "UNC_C_TOR_INSERTS.MISS_OPCODE:opc=0x182", "UNC_C_TOR_OCCUPANCY.MISS_OPCODE:opc=0x182",
                "UNC_C_CLOCKTICKS", "UNC_H_TRACKER_INSERTS.ALL", "UNC_H_REQUESTS.READS"]),
    "ivb-ep": ("perfmon", ["IVT/events/ivytown_core.json", "IVT/events/ivytown_uncore.json"],
               ["MEM_LOAD_UOPS_LLC_MISS_RETIRED.LOCAL_DRAM", "MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_DRAM",
                "MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_HITM", "MEM_LOAD_UOPS_LLC_MISS_RETIRED.REMOTE_FWD",
                "MEM_LOAD_UOPS_LLC_HIT_RETIRED.XSNP_HITM", "LONGEST_LAT_CACHE.REFERENCE", "LONGEST_LAT_CACHE.MISS",
                "CYCLE_ACTIVITY.STALLS_L2_PENDING", "CYCLE_ACTIVITY.STALLS_LDM_PENDING",
                "OFFCORE_REQUESTS_BUFFER.SQ_FULL", "L1D_PEND_MISS.FB_FULL",
                "UNC_M_CAS_COUNT.RD", "UNC_M_CAS_COUNT.WR", "UNC_M_DCLOCKTICKS", "UNC_M_WPQ_CYCLES_FULL",
                "UNC_C_TOR_INSERTS.MISS_LOCAL_OPCODE:opc=0x182", "UNC_C_TOR_OCCUPANCY.MISS_LOCAL_OPCODE:opc=0x182",
                "UNC_C_TOR_INSERTS.MISS_REMOTE_OPCODE:opc=0x182", "UNC_C_TOR_OCCUPANCY.MISS_REMOTE_OPCODE:opc=0x182",
                "UNC_C_CLOCKTICKS", "UNC_H_TRACKER_CYCLES_NE", "UNC_H_REQUESTS.READS_LOCAL",
                "UNC_H_REQUESTS.READS_REMOTE"]),
    "hsx": ("perfmon", ["HSX/events/haswellx_core.json", "HSX/events/haswellx_uncore.json"], HSX_BDX),
    "bdx": ("perfmon", ["BDX/events/broadwellx_core.json", "BDX/events/broadwellx_uncore.json"], HSX_BDX),
    # libpfm4 4.13 has no Emerald or Granite Rapids table: the models write these raw
    "emr": ("perfmon", ["EMR/events/emeraldrapids_core.json", "EMR/events/emeraldrapids_uncore.json",
                        "EMR/events/emeraldrapids_uncore_experimental.json"],
            ICX_CORE + ["XQ.FULL_CYCLES"] + SPR_COST + ICX_UNCORE + ["UNC_M_CLOCKTICKS", "UNC_M_RDB_FULL:u24"]),
    "gnr": ("perfmon", ["GNR/events/graniterapids_core.json", "GNR/events/graniterapids_uncore.json",
                        "GNR/events/graniterapids_uncore_experimental.json"],
            ICX_CORE + ["XQ.FULL_CYCLES"] + SPR_COST
            + ["UNC_M_CAS_COUNT_SCH0.RD", "UNC_M_CAS_COUNT_SCH0.WR", "UNC_M_CAS_COUNT_SCH1.RD",
               "UNC_M_CAS_COUNT_SCH1.WR", "UNC_M_RPQ_INSERTS.SCH0_PCH0", "UNC_M_RPQ_INSERTS.SCH0_PCH1",
               "UNC_M_RPQ_INSERTS.SCH1_PCH0", "UNC_M_RPQ_INSERTS.SCH1_PCH1", "UNC_M_RPQ_OCCUPANCY_SCH0_PCH0",
               "UNC_M_RPQ_OCCUPANCY_SCH0_PCH1", "UNC_M_RPQ_OCCUPANCY_SCH1_PCH0", "UNC_M_RPQ_OCCUPANCY_SCH1_PCH1",
               "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL", "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL",
               "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE", "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE",
               "UNC_CHA_CLOCKTICKS", "UNC_UPI_TxL_FLITS.ALL_DATA", "UNC_M_CLOCKTICKS"]),
    "nhm-ep": ("perfmon", ["NHM-EP/events/NehalemEP_core.json"],
               ["MEM_UNCORE_RETIRED.LOCAL_DRAM", "MEM_UNCORE_RETIRED.REMOTE_DRAM",
                "MEM_UNCORE_RETIRED.OTHER_CORE_L2_HITM", "OFFCORE_RESPONSE_0.ANY_DATA.REMOTE_CACHE_HITM",
                "OFFCORE_RESPONSE_0.DATA_IN.REMOTE_CACHE_HITM", "OFFCORE_RESPONSE_0.DEMAND_DATA_RD.REMOTE_CACHE_HITM",
                "LONGEST_LAT_CACHE.REFERENCE", "LONGEST_LAT_CACHE.MISS", "OFFCORE_REQUESTS_SQ_FULL",
                "SQ_FULL_STALL_CYCLES", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.THREAD_P",
                "RESOURCE_STALLS.ANY", "RESOURCE_STALLS.LOAD", "UOPS_EXECUTED.CORE_STALL_CYCLES",
                "UOPS_RETIRED.STALL_CYCLES", "MEM_LOAD_RETIRED.LLC_MISS"]),
    # Intel's WSM-EP-DP table (the one mapfile.csv names for model 0x2C) has no
    # MEM_UNCORE_RETIRED events; its Westmere-EX table (same core) has them.
    "wsm-ep": ("perfmon", ["WSM-EP-DP/events/WestmereEP-DP_core.json", "WSM-EX/events/WestmereEX_core.json"],
               ["MEM_UNCORE_RETIRED.LOCAL_DRAM_AND_REMOTE_CACHE_HIT", "MEM_UNCORE_RETIRED.REMOTE_DRAM",
                "MEM_UNCORE_RETIRED.LOCAL_HITM", "MEM_UNCORE_RETIRED.REMOTE_HITM",
                "LONGEST_LAT_CACHE.REFERENCE", "LONGEST_LAT_CACHE.MISS", "OFFCORE_REQUESTS_SQ_FULL",
                "SQ_FULL_STALL_CYCLES", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.THREAD_P",
                "RESOURCE_STALLS.ANY", "RESOURCE_STALLS.LOAD", "OFFCORE_REQUESTS_OUTSTANDING.ANY.READ",
                "OFFCORE_REQUESTS_OUTSTANDING.ANY.READ_NOT_EMPTY",
                "OFFCORE_REQUESTS_OUTSTANDING.DEMAND.READ_DATA", "MEM_LOAD_RETIRED.LLC_MISS"]),
    "zen2": ("pmu-events", ["x86/amdzen2/*.json"],
             ["ls_refills_from_sys.ls_mabresp_lcl_dram", "ls_refills_from_sys.ls_mabresp_rmt_dram",
              "ls_refills_from_sys.ls_mabresp_lcl_cache", "ls_refills_from_sys.ls_mabresp_rmt_cache",
              "ls_refills_from_sys.ls_mabresp_lcl_l2",
              "l3_request_g1.caching_l3_cache_accesses", "l3_comb_clstr_state.request_miss",
              "l3_lookup_state.all_l3_req_typs", "l3_misses", "xi_sys_fill_latency",
              "xi_ccx_sdp_req1.all_l3_miss_req_typs"]
             + ["dram_channel_data_controller_%d" % i for i in range(8)]
             + ["ls_mab_alloc.loads", "ls_mab_alloc.stores", "ls_mab_alloc.dc_prefetcher"]),
    "zen3": ("pmu-events", ["x86/amdzen3/*.json"],
             ["ls_dmnd_fills_from_sys.mem_io_local", "ls_dmnd_fills_from_sys.mem_io_remote",
              "ls_dmnd_fills_from_sys.ext_cache_local", "ls_dmnd_fills_from_sys.ext_cache_remote",
              "ls_any_fills_from_sys.mem_io_local", "ls_any_fills_from_sys.mem_io_remote",
              "l3_request_g1.caching_l3_cache_accesses", "l3_comb_clstr_state.request_miss",
              "l3_lookup_state.all_l3_req_typs", "l3_cache_accesses", "l3_misses", "xi_sys_fill_latency",
              "xi_ccx_sdp_req1",
              "ls_alloc_mab_count", "ls_mab_alloc.all_allocations", "ls_mab_alloc.load_store_allocations"]
             + ["dram_channel_data_controller_%d" % i for i in range(8)]),
    "zen4": ("pmu-events", ["x86/amdzen4/*.json"],
             ["ls_dmnd_fills_from_sys.dram_io_near", "ls_dmnd_fills_from_sys.dram_io_far",
              "ls_dmnd_fills_from_sys.near_cache", "ls_dmnd_fills_from_sys.far_cache",
              "ls_any_fills_from_sys.dram_io_near", "ls_any_fills_from_sys.dram_io_far",
              "ls_alloc_mab_count", "ls_mab_alloc.all_allocations", "ls_mab_alloc.load_store_allocations",
              "l3_lookup_state.all_coherent_accesses_to_l3", "l3_lookup_state.l3_miss",
              "l3_xi_sampled_latency.all", "l3_xi_sampled_latency_requests.all",
              "l3_xi_sampled_latency.dram_near", "l3_xi_sampled_latency.dram_far",
              "l3_xi_sampled_latency_requests.dram_near", "l3_xi_sampled_latency_requests.dram_far",
              "umc_cas_cmd.rd", "umc_cas_cmd.wr", "ex_no_retire.load_not_complete"]),
    # libpfm4 4.13 has no Zen 5 table: the zen5 model writes these raw
    "zen5": ("pmu-events", ["x86/amdzen5/*.json"],
             ["ls_dmnd_fills_from_sys.dram_io_near", "ls_dmnd_fills_from_sys.dram_io_far",
              "ls_dmnd_fills_from_sys.near_cache", "ls_dmnd_fills_from_sys.far_cache",
              "ls_any_fills_from_sys.dram_io_near", "ls_any_fills_from_sys.dram_io_far",
              "ls_alloc_mab_count", "ls_mab_alloc.all_allocations", "ls_mab_alloc.load_store_allocations",
              "l3_lookup_state.all_coherent_accesses_to_l3", "l3_lookup_state.l3_miss",
              "l3_xi_sampled_latency.all", "l3_xi_sampled_latency_requests.all",
              "l3_xi_sampled_latency.dram_near", "l3_xi_sampled_latency.dram_far",
              "l3_xi_sampled_latency_requests.dram_near", "l3_xi_sampled_latency_requests.dram_far",
              "umc_cas_cmd.rd", "umc_cas_cmd.wr", "ex_no_retire.load_not_complete"]),
    # Zen 1 (family 17h models 00h-2Fh): perf's amdzen1 table has no fills-by-source
    # event (PMCx043 appears from amdzen2 on); L3 and DF as on Zen 2
    "zen1": ("pmu-events", ["x86/amdzen1/*.json"],
             ["l3_request_g1.caching_l3_cache_accesses", "l3_comb_clstr_state.request_miss",
              "xi_sys_fill_latency", "xi_ccx_sdp_req1.all_l3_miss_req_typs",
              "dram_channel_data_controller_0", "dram_channel_data_controller_1",
              "dram_channel_data_controller_2", "dram_channel_data_controller_3",
              "dram_channel_data_controller_4", "dram_channel_data_controller_5",
              "dram_channel_data_controller_6", "dram_channel_data_controller_7",
              "remote_outbound_data_controller_0", "ls_mab_alloc.loads", "l2_fill_pending.l2_fill_busy",
              "ex_ret_instr", "ls_not_halted_cyc"]),
    "neoverse-n1": ("pmu-events", ["arm64/arm/neoverse-n1/*.json"],
                    ["REMOTE_ACCESS", "BUS_ACCESS", "L2D_CACHE_REFILL", "LL_CACHE_RD", "LL_CACHE_MISS_RD",
                     "STALL_BACKEND", "MEM_ACCESS", "CPU_CYCLES"]),
    "neoverse-n2": ("pmu-events", ["arm64/arm/neoverse-n2-v2/*.json"],
                    ["REMOTE_ACCESS", "BUS_ACCESS", "L2D_CACHE_REFILL", "LL_CACHE_RD", "LL_CACHE_MISS_RD",
                     "STALL_BACKEND", "STALL_BACKEND_MEM", "MEM_ACCESS", "CPU_CYCLES"]),
    "neoverse-v1": ("pmu-events", ["arm64/arm/neoverse-v1/*.json"],
                    ["REMOTE_ACCESS", "BUS_ACCESS", "L2D_CACHE_REFILL", "LL_CACHE_RD", "LL_CACHE_MISS_RD",
                     "STALL_BACKEND", "STALL_BACKEND_MEM", "MEM_ACCESS", "CPU_CYCLES"]),
    # perf's mapfile gives Neoverse V2 (part 0xd4f) the same table as N2
    "neoverse-v2": ("pmu-events", ["arm64/arm/neoverse-n2-v2/*.json"],
                    ["REMOTE_ACCESS", "BUS_ACCESS", "L2D_CACHE_REFILL", "LL_CACHE_RD", "LL_CACHE_MISS_RD",
                     "STALL_BACKEND", "STALL_BACKEND_MEM", "MEM_ACCESS", "CPU_CYCLES"]),
    # Arm's CMN mesh (CMN-600/650/700, CI-700: the table's Compat "(434|436|43c|43a).*"),
    # the arm_cmn PMU of Neoverse N1/N2/V1/V2 systems: HN-F (node type 0x5) events
    "cmn": ("pmu-events", ["arm64/arm/cmn/sys/cmn.json"],
            ["hnf_pocq_retry", "hnf_pocq_reqs_recvd", "hnf_cache_miss", "hnf_slc_sf_cache_access",
             "hnf_mc_retries", "hnf_mc_reqs"]),
    "nhm-uncore": ("libpfm4", ["lib/events/intel_nhm_unc_events.h"],
                   ["UNC_GQ_CYCLES_FULL.READ_TRACKER", "UNC_GQ_CYCLES_FULL.WRITE_TRACKER",
                    "UNC_GQ_CYCLES_FULL.PEER_PROBE_TRACKER", "UNC_GQ_CYCLES_NOT_EMPTY.READ_TRACKER",
                    "UNC_GQ_ALLOC.READ_TRACKER", "UNC_CLK_UNHALTED", "UNC_QMC_NORMAL_READS.ANY",
                    "UNC_QMC_WRITES.FULL_ANY", "UNC_QHL_REQUESTS.LOCAL_READS", "UNC_QHL_REQUESTS.REMOTE_READS",
                    "UNC_GQ_ALLOC.RT_LLC_MISS", "UNC_QHL_CYCLES_FULL.LOCAL", "UNC_QHL_CYCLES_FULL.REMOTE",
                    "UNC_QHL_OCCUPANCY.LOCAL", "UNC_QHL_OCCUPANCY.REMOTE"]),
}

# Facts no machine-readable vendor table holds, transcribed by hand (name the page).
HAND = {
    "nhm-uncore": [
        # Intel SDM vol. 3B, "Uncore performance events" of the Intel Core i7 / Xeon 5500
        # (Nehalem) processors: UNC_GQ_OCCUPANCY.READ_TRACKER, event 02H, umask 01H.
        ("UNC_GQ_OCCUPANCY.READ_TRACKER", "uncore", "0x02", "0x01", "-", "0", "0", "0", "-", "-", "-", "-",
         "Intel SDM vol. 3B, Nehalem uncore events (UNC_GQ_OCCUPANCY 02H/01H); not in libpfm4 4.13"),
    ],
}

UNIT_PMU = {"cbo": "uncore_cbox", "ha": "uncore_ha", "qpi ll": "uncore_qpi", "imc": "uncore_imc", "cha": "uncore_cha", "upi ll": "uncore_upi", "upi": "uncore_upi",
            "l3pmc": "amd_l3", "dfpmc": "amd_df", "umcpmc": "amd_umc", "arm_cmn": "arm_cmn"}

COLS = ["event", "pmu", "code", "umask", "umask_ext", "cmask", "inv", "edge", "msr", "filter", "extra",
        "counters", "source"]


class Tree:
    """A work tree or a bare git directory, read at HEAD."""

    def __init__(self, path, rev="HEAD"):
        self.path = path
        self.rev = rev
        self.git = None
        if os.path.isdir(os.path.join(path, "objects")) and os.path.isfile(os.path.join(path, "HEAD")):
            self.git = path
        elif os.path.isdir(os.path.join(path, ".git")):
            self.git = os.path.join(path, ".git")

    def commit(self):
        if not self.git:
            return "unknown (not a git checkout)"
        return subprocess.run(["git", "--git-dir=" + self.git, "rev-parse", self.rev], check=True,
                              capture_output=True, text=True).stdout.strip()

    def files(self, pattern):
        if self.git and not os.path.isfile(os.path.join(self.path, pattern.split("*")[0])) and \
                not os.path.isdir(os.path.dirname(os.path.join(self.path, pattern))):
            names = subprocess.run(["git", "--git-dir=" + self.git, "ls-tree", "-r", "--name-only", self.rev],
                                   check=True, capture_output=True, text=True).stdout.split()
            rx = re.compile("^" + re.escape(pattern).replace("\\*", "[^/]*") + "$")
            return sorted(n for n in names if rx.match(n))
        return sorted(os.path.relpath(p, self.path) for p in glob.glob(os.path.join(self.path, pattern)))

    def read(self, rel):
        p = os.path.join(self.path, rel)
        if os.path.isfile(p) and self.rev == "HEAD":
            with open(p, encoding="utf-8") as f:
                return f.read()
        return subprocess.run(["git", "--git-dir=" + self.git, "show", self.rev + ":" + rel], check=True,
                              capture_output=True, text=True).stdout


def hexs(v, default="-"):
    if v is None or v == "" or v == "na":
        return default
    v = str(v).strip()
    n = int(v, 16) if v.lower().startswith("0x") else int(v)
    return "0x%x" % n


def intel_row(e, name, rel):
    unit = (e.get("Unit") or "").lower()
    pmu = UNIT_PMU.get(unit, "cpu" if not unit else "uncore_" + unit.replace(" ", "_"))
    code = e.get("EventCode", "0")
    code = code.split(",")[0].strip()  # "0xB7, 0xBB": the first offcore-response MSR pair
    umask = hexs(e.get("UMask"), "0x0")
    uext = e.get("UMaskExt")
    uext = hexs(uext) if uext and int(uext, 16) else "-"
    msr = e.get("MSRValue")
    msr = hexs(msr) if msr and int(msr, 16) else "-"
    filt = "-"
    fv = e.get("FILTER_VALUE")
    if fv and fv not in ("0", "0x0"):
        filt = "%s=%s" % (e.get("Filter", "filter"), hexs(fv))
    cnt = (e.get("Counter") or "-").replace(" ", "")
    return [name, pmu, hexs(code), umask, uext, str(int(e.get("CounterMask") or 0)),
            str(int(e.get("Invert") or 0)), str(int(e.get("EdgeDetect") or 0)), msr, filt, "-", cnt, rel]


def amd_arm_row(e, name, rel, std):
    unit = (e.get("Unit") or "").lower()
    pmu = UNIT_PMU.get(unit, "cpu")
    code = e.get("EventCode") or e.get("ConfigCode")
    if not code and e.get("ArchStdEvent"):
        code = std.get(e["ArchStdEvent"])
        rel = rel + " (ArchStdEvent; code from arm64/common-and-microarch.json)"
    extra = []
    if e.get("EventidCode"):
        # Arm CMN (sys/cmn.json): the event id within a node type; the driver's
        # format puts them in `eventid` and `type`
        code = e["EventidCode"]
        extra.append("type=0x%x" % int(e["NodeType"], 16))
    for k, f in (("EnAllCores", "enallcores"), ("EnAllSlices", "enallslices"), ("SliceId", "sliceid"),
                 ("ThreadMask", "threadmask"), ("RdWrMask", "rdwrmask")):
        if e.get(k):
            extra.append("%s=%d" % (f, int(e[k], 16)))
    umask = hexs(e.get("UMask"), "0x0")
    return [name, pmu, hexs(code), umask, "-", str(int(e.get("CounterMask") or 0)),
            str(int(e.get("Invert") or 0)), str(int(e.get("EdgeDetect") or 0)), "-", "-",
            ",".join(extra) or "-", "-", rel]


# The opcode the TOR's filter_opc field takes for demand data reads: Intel's
# Xeon E5/E7 tables give only the filter's bits (CBoFilter[31:23],
# CBoFilter1[28:20]); the value comes from the kernel's pmu-events metrics
# for these CPUs (jaketown, ivytown: the DRAM read latency metric's
# UNC_C_TOR_*.MISS_OPCODE@filter_opc\=0x182@; haswellx, broadwellx:
# uncore-cache.json LLC_MISSES.DATA_READ, "Filter": "filter_opc=0x182").
OPC_SOURCE = ("filter_opc=0x182 = demand data read, as the kernel's tools/perf/pmu-events/arch/x86/%s "
              "gives it (commit 76b2cf07a6d2)")


def derive(row, mods):
    """Apply :cN / :e1 / :i1 / :uN (a unit mask the vendor's description asks for,
    e.g. UNC_M_RDB_FULL's 'Umask must be set to the maximum number of elements')
    / :opc=V (the CBo's filter_opc) to a row; name the derivation."""
    note = []
    for m in mods:
        if m.startswith("opc="):
            row[9] = "filter_opc=" + m[4:]
            note.append("filter_opc=" + m[4:])
            continue
        k, v = m[0], int(m[1:])
        idx = {"c": 5, "i": 6, "e": 7, "u": 3}[k]
        row[idx] = hex(v) if k == "u" else str(v)
        note.append({"c": "cmask", "i": "inv", "e": "edge", "u": "umask"}[k] + "=%d" % v)
    if mods:
        row[0] = row[0] + "".join(":" + m for m in mods)
        row[-1] += " (derived: vendor event with %s)" % ", ".join(note)
        if any(m.startswith("opc=") for m in mods):
            row[-1] += "; " + OPC_SOURCE % (
                "jaketown/jkt-metrics.json" if "Jaketown" in row[-1] else
                "ivytown/ivt-metrics.json" if "ivytown" in row[-1] else
                "haswellx/uncore-cache.json LLC_MISSES.DATA_READ" if "haswellx" in row[-1] else
                "broadwellx/uncore-cache.json LLC_MISSES.DATA_READ")
    return row


def split_mods(want):
    parts = want.split(":")
    return parts[0], parts[1:]


def from_perfmon(tree, files, wants):
    events = {}
    for rel in files:
        for e in json.loads(tree.read(rel))["Events"]:
            events.setdefault(e["EventName"], (e, rel))
    rows = []
    for w in wants:
        base, mods = split_mods(w)
        if base not in events:
            print("vendor-events: %s not in %s" % (base, ", ".join(files)), file=sys.stderr)
            continue
        e, rel = events[base]
        rows.append(derive(intel_row(e, base, rel), mods))
    return rows


def from_pmu_events(tree, prefix, files, wants):
    std = {}
    if any(f.startswith("arm64/") for f in files):
        for e in json.loads(tree.read(prefix + "arm64/common-and-microarch.json")):
            if "EventName" in e and "EventCode" in e:
                std[e["EventName"]] = e["EventCode"]
    events = {}
    for pat in files:
        for rel in tree.files(prefix + pat):
            for e in json.loads(tree.read(rel)):
                n = e.get("EventName") or e.get("ArchStdEvent")
                if n:
                    events.setdefault(n, (e, rel[len(prefix):] if rel.startswith(prefix) else rel))
    rows = []
    for w in wants:
        base, mods = split_mods(w)
        if base not in events:
            print("vendor-events: %s not in %s" % (base, ", ".join(files)), file=sys.stderr)
            continue
        e, rel = events[base]
        rows.append(derive(amd_arm_row(e, base, "tools/perf/pmu-events/arch/" + rel, std), mods))
    return rows


def from_libpfm4(tree, files, wants):
    text = tree.read(files[0])
    ev = {}
    # { .name = "UNC_GQ_ALLOC", ... .code = 0x3, ... .umasks = nhm_unc_unc_gq_alloc, ...
    for m in re.finditer(r'\{\s*\.name\s*=\s*"(\w+)",(.*?)\n\}', text, re.S):
        name, body = m.group(1), m.group(2)
        code = re.search(r"\.code\s*=\s*(0x[0-9a-fA-F]+|\d+)", body)
        um = re.search(r"\.umasks\s*=\s*(\w+)", body)
        ev[name] = (int(code.group(1), 0), um.group(1) if um else None)
    rows = []
    for w in wants:
        base, mods = split_mods(w)
        ename, _, uname = base.partition(".")
        if ename not in ev:
            print("vendor-events: %s not in %s" % (ename, files[0]), file=sys.stderr)
            continue
        code, utab = ev[ename]
        umask = 0
        if uname:
            t = re.search(r"static const intel_x86_umask_t %s\[\]\s*=\s*\{(.*?)\n\};" % utab, text, re.S)
            u = t and re.search(r'\.uname\s*=\s*"%s",.*?\.ucode\s*=\s*(0x[0-9a-fA-F]+|\d+)' % uname,
                                t.group(1), re.S)
            if not u:
                print("vendor-events: %s has no unit mask %s" % (ename, uname), file=sys.stderr)
                continue
            umask = int(u.group(1), 0) >> 8
        rows.append(derive([base, "uncore", "0x%x" % code, "0x%x" % umask, "-", "0", "0", "0", "-", "-", "-",
                            "-", files[0]], mods))
    return rows


# perf's generic event names -> the perf_event.h enumerator they stand for
GENERIC = [("cycles", "hardware", "PERF_COUNT_HW_CPU_CYCLES"), ("instructions", "hardware", "PERF_COUNT_HW_INSTRUCTIONS"),
           ("cache-references", "hardware", "PERF_COUNT_HW_CACHE_REFERENCES"),
           ("cache-misses", "hardware", "PERF_COUNT_HW_CACHE_MISSES"),
           ("task-clock", "software", "PERF_COUNT_SW_TASK_CLOCK"),
           ("context-switches", "software", "PERF_COUNT_SW_CONTEXT_SWITCHES"),
           ("cpu-migrations", "software", "PERF_COUNT_SW_CPU_MIGRATIONS")]


def from_perf_event_h(path):
    """Enumerator values of perf_hw_id / perf_sw_ids (implicit values counted)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    vals = {}
    for enum in ("perf_hw_id", "perf_sw_ids"):
        body = re.search(r"enum %s \{(.*?)\};" % enum, text, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        n = -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, val = item.partition("=")
            n = int(val.strip(), 0) if val.strip() else n + 1
            vals[name.strip()] = n
    return [[name, pmu, "0x%x" % vals[sym], "-", "-", "0", "0", "0", "-", "-", "-", "-",
             "include/uapi/linux/perf_event.h " + sym] for name, pmu, sym in GENERIC]


def write(out, cpu, kind, repo, commit, files, rows):
    path = os.path.join(out, cpu + ".tsv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# %s: event facts from the vendor's tables, written by scripts/vendor-events.py\n" % cpu)
        f.write("# source: %s\n# commit: %s\n" % (repo, commit))
        f.write("# files: %s\n" % ", ".join(files))
        f.write("# format: tests/data/vendor-events/README.md\n")
        f.write("\t".join(COLS) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
        for h in HAND.get(cpu, []):
            f.write("\t".join(h[:10] + (h[10], h[11], h[12])) + "\n")
    print("wrote %s (%d rows)" % (path, len(rows) + len(HAND.get(cpu, []))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfmon")
    ap.add_argument("--pmu-events")
    ap.add_argument("--kernel-commit", default="")
    ap.add_argument("--libpfm4")
    ap.add_argument("--libpfm4-rev", default="HEAD", help="revision of the libpfm4 git tree (e.g. v4.13.0's commit)")
    ap.add_argument("--perf-event-h", help="the kernel's include/uapi/linux/perf_event.h (generic events)")
    ap.add_argument("--perf-event-h-from", default="an installed copy",
                    help="what the header is, for the facts header (e.g. the package and its version)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                                                  "vendor-events"))
    ap.add_argument("cpus", nargs="*", help="CPUs to write (default: every one whose source is given)")
    a = ap.parse_args()
    if a.perf_event_h and (not a.cpus or "generic" in a.cpus):
        write(a.out, "generic", "header", "the Linux kernel's include/uapi/linux/perf_event.h", a.perf_event_h_from,
              [a.perf_event_h], from_perf_event_h(a.perf_event_h))
    for cpu, (kind, files, wants) in CPUS.items():
        if a.cpus and cpu not in a.cpus:
            continue
        if kind == "perfmon" and a.perfmon:
            t = Tree(a.perfmon)
            write(a.out, cpu, kind, "github.com/intel/perfmon", t.commit(), files, from_perfmon(t, files, wants))
        elif kind == "pmu-events" and a.pmu_events:
            t = Tree(a.pmu_events)
            prefix = "arch/" if t.files("arch/x86/amdzen2/*.json") else ""
            repo = "the Linux kernel's tools/perf/pmu-events/arch"
            commit = t.commit()
            if a.kernel_commit:
                repo += " (kernel commit %s)" % a.kernel_commit
            repo += ", as copied in the tree at"
            if not t.git:
                # a kernel source tree (a release tarball): the version names it
                repo = "the Linux kernel's tools/perf/pmu-events/arch (%s)" % (a.kernel_commit or "unnamed version")
                commit = "none: a source tree, not a git checkout; the version above names it"
            write(a.out, cpu, kind, repo, commit,
                  ["tools/perf/pmu-events/arch/" + f for f in files], from_pmu_events(t, prefix, files, wants))
        elif kind == "libpfm4" and a.libpfm4:
            t = Tree(a.libpfm4, a.libpfm4_rev)
            write(a.out, cpu, kind, "libpfm4 (perfmon2), transcribing the Intel SDM", t.commit(), files,
                  from_libpfm4(t, files, wants))


if __name__ == "__main__":
    main()
