#!/usr/bin/env python3
"""gen_counts.py - a scenario's physics turned into one consistent set of event counts per model.

Usage: gen_counts.py CASES [OUT]   expand the 'gen' lines of a cases file
                                   (tests/models/*.cases) into count/node lines
       gen_counts.py --model M KEY=VALUE...   print the counts JSON of one scenario

Which event measures which physical quantity is written here from the
vendors' event definitions, NOT read from the models' cost terms:

  Intel Skylake-SP / Ice Lake-SP / Sapphire Rapids (Intel perfmon
  skylakex/icelakex/sapphirerapids core and uncore JSON, SDM vol. 3B):
    MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM   retired loads whose data came from local DRAM
    MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM  ... from remote DRAM
    MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM  ... from a modified line in a remote cache
    MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD   ... forwarded clean from a remote cache
    MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM (SPR: XSNP_FWD)  L3 hits that took a modified
                                          line from another core of the socket
    LONGEST_LAT_CACHE.MISS / .REFERENCE   core requests that missed / looked up the L3
    CYCLE_ACTIVITY.STALLS_L3_MISS         execution stalled while an L3 miss was
                                          outstanding: sum over misses of their latency
                                          in core clocks, divided by the overlap (MLP)
    CYCLE_ACTIVITY.STALLS_L2_MISS (SPR: MEMORY_ACTIVITY.STALLS_L2_MISS)
                                          the same for L2 misses: the L3 misses' stall
                                          plus the L3-hit side (hits, in-socket HITM)
    CYCLE_ACTIVITY.STALLS_MEM_ANY (SPR: EXE_ACTIVITY.BOUND_ON_LOADS)
                                          any load miss outstanding: the above plus
                                          L1/L2-bound stall (mem_other_stall)
    uncore_imc CAS_COUNT.RD / .WR         64-byte DRAM reads / writes of the node
    uncore_imc RPQ_INSERTS / RPQ_OCCUPANCY reads entering the read pending queue, and
                                          their residency summed per DRAM clock (Little)
    uncore_cha TOR_INSERTS.IA_MISS / TOR_OCCUPANCY.IA_MISS (ICX/SPR: _DRD_LOCAL and
                                          _DRD_REMOTE): L3-missing data reads entering
                                          the CHAs' table of requests, and their
                                          residency summed per CHA clock (Little's law:
                                          occupancy = inserts x residency x CHA clock)
    uncore_cha CLOCKTICKS                 CHA clock ticks
    uncore_imc CLOCKTICKS                 DRAM clocks of each channel (summed over channels)
    uncore_imc RPQ_CYCLES_FULL / WPQ_CYCLES_FULL (ICX: per pseudo-channel, _PCH0/_PCH1)
                                          DRAM clocks a channel's read / write pending
                                          queue was full; SPR (which has neither):
                                          RDB_FULL with umask 24, clocks its read buffer
                                          held all 24 entries
  Intel Nehalem-EP / Westmere-EP (SDM vol. 3B; perfmon NehalemEP_core.json,
  WestmereEX_core.json; libpfm4 nhm_unc / wsm_unc transcribing the SDM):
    MEM_UNCORE_RETIRED.LOCAL_DRAM (Westmere: LOCAL_DRAM_AND_REMOTE_CACHE_HIT, which
      also counts clean lines from the other socket), .REMOTE_DRAM, .OTHER_CORE_L2_HITM
      (Westmere: LOCAL_HITM), Westmere .REMOTE_HITM, Nehalem OFFCORE_RESPONSE_0
      DEMAND_DATA_RD.REMOTE_CACHE_HITM: retired loads by source; LLC_MISSES /
      LLC_REFERENCES; no stall-cycle count (the costs are estimates)
    uncore UNC_CLK_UNHALTED               uncore clocks
    uncore UNC_GQ_ALLOC.READ_TRACKER / .RT_LLC_MISS / UNC_GQ_OCCUPANCY.READ_TRACKER
                                          requests entering the Global Queue's read
                                          tracker, those that missed the LLC, and their
                                          residency summed per uncore clock: an LLC hit
                                          holds its entry the L3 latency, a miss the
                                          whole miss latency (the QPI hop included)
    uncore UNC_GQ_CYCLES_FULL.*_TRACKER, UNC_QHL_CYCLES_FULL.*  uncore clocks a tracker
                                          was full
    uncore UNC_QMC_NORMAL_READS.ANY / UNC_QMC_WRITES.FULL_ANY  64-byte DRAM reads /
                                          writes of the node; UNC_QHL_REQUESTS local
                                          and remote reads at the home
  AMD Zen 2/3/4 (PPRs 55803, 55898, 57930; perf's amdzen2/3/4 JSON):
    demand data cache fills from local DRAM (MEM_IO_LCL / DRAM_IO_NEAR /
    LS_MABRESP_LCL_DRAM), remote DRAM (MEM_IO_RMT / DRAM_IO_FAR / ..._RMT_DRAM),
    another CCX of the node (EXT_CACHE_LCL / NEAR_CACHE_NEAR_FAR / ..._LCL_CACHE),
    another node's cache (EXT_CACHE_RMT / FAR_CACHE_NEAR_FAR / ..._RMT_CACHE);
    amd_l3 lookups and misses of the CCX; the sampled miss latency (Zen 3:
    xi_sys_fill_latency counts cycles / 16 over xi_ccx_sdp_req1 requests; Zen 4:
    l3_xi_sampled_latency counts cycles / 10); amd_df DRAM channel beats (Zen 2/3:
    8 channels, 64 bytes each) or amd_umc CAS commands (Zen 4); the MAB
    (miss address buffer) occupancy per cycle and its allocations.
  AMD Zen 1 (perf's amdzen1 JSON): no fills-by-source event; amd_l3 and amd_df as
    Zen 2 (the same codes).
  AMD Zen 5 (perf's amdzen5 JSON; libpfm4 4.13 has no table, so raw codes):
    as Zen 4: ls_dmnd_fills_from_sys PMCx043 umask 0x08 dram_io_near, 0x40
    dram_io_far, 0x04 near_cache, 0x10 far_cache; ls_alloc_mab_count PMCx05F;
    ls_mab_alloc.all_allocations PMCx041 umask 0x0f; amd_l3 and amd_umc as Zen 4.
  Arm Neoverse N1 (TRM "PMU events"): REMOTE_ACCESS 0x31 accesses to another
    socket, BUS_ACCESS 0x19 accesses that left the core, L2D_CACHE_REFILL 0x17,
    LL_CACHE_RD 0x36, LL_CACHE_MISS_RD 0x37, STALL_BACKEND 0x24; on N2, V1, V2
    also STALL_BACKEND_MEM 0x4005, backend stall cycles while a demand load misses
    the last cache level of the core's clock domain (the L2).
  Arm CMN mesh (perf's arm64/arm/cmn/sys/cmn.json, drivers/perf/arm-cmn.c): HN-F
    (node type 0x5) hnf_pocq_retry 0x4 requests the home nodes retried (their
    point-of-coherency queue could not take them), hnf_pocq_reqs_recvd 0x5 requests
    they received.

  The generic models (vpmu, vpmu-intel: the architectural events every core PMU
  has, Intel SDM vol. 3B 18.2.1 and perf's generic hardware events; software: no
  PMU; each documented in docs/models.md, "Software sources"):
    cycles, instructions                  core clocks and retired instructions of the
                                          row (vpmu, vpmu-intel; not on software)
    cache-references / cache-misses       Intel's architectural 2Eh/4Fh and 2Eh/41h:
                                          requests that looked up / missed the LLC
                                          (vpmu-intel only: AMD maps them to L2, Arm
                                          to L1D, so vpmu binds none)
    task-clock                            ns the row ran (a software event)
    context-switches, cpu-migrations      software events (the cswitch, migr rates)
    placement.remote_fraction             the row's residency by node x its VM's memory
                                          by node: with accesses spread evenly over the
                                          memory, the share of DRAM loads that are
                                          remote (place=1)
    vmstat.numa_hint_faults / _local      NUMA balancing's hinting faults: sampled page
                                          touches, machine-wide; hint_faults=F per s,
                                          remote ones in the remote share of the loads
    numastat.local_node / other_node      page allocations on / off the allocating
                                          CPU's node (alloc_pages=P per s, alloc_remote
                                          their remote share)
    resctrl.mbm_total_bytes / mbm_local_bytes  the group's DRAM traffic in bytes, and
                                          the part served by its local node (mbm=1):
                                          64 bytes per DRAM load
    sched.run_ns / sched.wait_ns          ns the row ran / waited runnable (runq_wait=W
                                          ns waited per s of wall time)

Physics (all rates per second of the row's run time, latencies in ns):
  stall_l3_miss = (n_loc (L_loc + q_loc + t) + n_rem (L_rem + q_rem + t)
                   + n_rc c2c_rem) x GHz / MLP
  stall_l2_miss = stall_l3_miss + (n_hl c2c_loc + n_l3 L_llc) x GHz / MLP
  stall_mem     = stall_l2_miss + mem_other_stall x cycles
  (each at most the cycles), CAS = bytes / 64, occupancy = inserts x
  residency x clock.
"""
import json
import os
import sys

DEFAULTS = {
    "duration": 1.0,        # s
    "ghz": 2.4,             # core clock
    "busy": 1.0,            # share of the interval the row ran
    "ips": 1e9,             # instructions per second
    "dram_local": 0.0,      # loads/s served by local DRAM (the row's solo misses)
    "dram_remote": 0.0,     # loads/s served by remote DRAM
    "hitm_remote": 0.0,     # loads/s served by a modified line in the other socket
    "fwd_remote": 0.0,      # loads/s forwarded clean from the other socket
    "hitm_local": 0.0,      # loads/s served by a modified line of another core (socket)
    "l3_hit": 0.0,          # loads/s that hit the L3 without a snoop
    "extra_miss": 0.0,      # loads/s that miss only because co-runners evicted the line
                            # (they go to DRAM with the row's local/remote mix)
    "lat_local": 89.0,      # idle DRAM latencies (the calibration's)
    "lat_remote": 143.0,
    "lat_llc": 20.0,
    "c2c_local": 50.0,
    "c2c_remote": 114.0,
    "q_local": 0.0,         # IMC queueing delay at the serving nodes' load, ns
    "q_remote": 0.0,
    "tracker_extra": 0.0,   # ns a miss waits for a full shared tracker (t)
    "mlp": 1.0,             # misses in flight while stalled
    "mem_other_stall": 0.0, # share of cycles stalled on L1/L2-bound loads
    "node_bw": None,        # GB/s of the serving node's DRAM (None: the row's own traffic)
    "read_share": 1.0,      # of node_bw
    "cha_ghz": 2.4,         # uncore clock
    "dclk_ghz": 1.333,      # DRAM clock (RPQ occupancy per DRAM clock)
    "sq_full": 0.0,         # share of cycles the core's super queue was full
    "tracker_full": 0.0,    # share of time the shared trackers were full
    "imc_channels": 6,      # DRAM channels of a node (their clocks are summed)
    "l1_miss_other": 0.0,   # loads/s that missed L1 and hit L2 (Zen MAB allocations)
    # the generic models' software sources (0: that source is not given)
    "place": 0.0,           # 1: the placement source (vCPU residency x VM memory by node)
    "hint_faults": 0.0,     # NUMA-balancing hinting faults per s (machine-wide)
    "alloc_pages": 0.0,     # page allocations per s (numastat, machine-wide)
    "alloc_remote": 0.0,    # their share placed off the allocating CPU's node
    "mbm": 0.0,             # 1: resctrl MBM bytes of the row's group
    "runq_wait": None,      # ns per s of wall time the row waited runnable (schedstat)
    "cswitch": 0.0,         # context switches per s
    "migr": 0.0,            # CPU migrations per s
}

FAMILIES = {
    "nhm-ep": "nhm", "wsm-ep": "nhm",
    "skx": "intel", "icx": "intel", "spr": "intel",
    "zen1": "amd", "zen2": "amd", "zen3": "amd", "zen4": "amd", "zen5": "amd",
    "neoverse-n1": "arm", "neoverse-n2": "arm", "neoverse-v1": "arm", "neoverse-v2": "arm",
    "emr": "spr-like", "gnr": "spr-like",
    "snb-ep": "intel-ep", "ivb-ep": "intel-ep", "hsx": "intel-ep", "bdx": "intel-ep",
    "vpmu": "generic", "vpmu-intel": "generic", "software": "generic",
}


def physics(p):
    d = p["duration"]
    run = d * p["busy"]
    cyc = p["ghz"] * 1e9 * run
    share_rem = p["dram_remote"] / (p["dram_local"] + p["dram_remote"]) \
        if p["dram_local"] + p["dram_remote"] > 0 else 0.0
    x_rem = p["extra_miss"] * share_rem
    x_loc = p["extra_miss"] - x_rem
    n_loc = (p["dram_local"] + x_loc) * run
    n_rem = (p["dram_remote"] + x_rem) * run
    n_rc = (p["hitm_remote"] + p["fwd_remote"]) * run
    n_hl = p["hitm_local"] * run
    n_l3 = p["l3_hit"] * run
    t = p["tracker_extra"]
    dram_ns = n_loc * (p["lat_local"] + p["q_local"] + t) + \
        n_rem * (p["lat_remote"] + p["q_remote"] + t) + n_rc * p["c2c_remote"]
    l3_ns = n_hl * p["c2c_local"] + n_l3 * p["lat_llc"]
    s_l3 = min(cyc, dram_ns * p["ghz"] / p["mlp"])
    s_l2 = min(cyc, s_l3 + l3_ns * p["ghz"] / p["mlp"])
    s_mem = min(cyc, s_l2 + p["mem_other_stall"] * cyc)
    ins = p["ips"] * run
    misses = n_loc + n_rem + n_rc
    node_bw = p["node_bw"] if p["node_bw"] is not None else \
        (n_loc * 64 / d / 1e9)
    node_bytes = node_bw * 1e9 * d
    node_reads = node_bytes * p["read_share"] / 64
    node_writes = node_bytes * (1 - p["read_share"]) / 64
    # the trackers hold each read for its whole latency: a local one at the node's
    # load, a remote one for the hop and the remote node's queueing
    res_ns = p["lat_local"] + p["q_local"] + t
    res_r_ns = p["lat_remote"] + p["q_remote"] + t
    return dict(cyc=cyc, run=run, ins=ins, n_loc=n_loc, n_rem=n_rem, n_hl=n_hl, n_l3=n_l3,
                hitm_r=p["hitm_remote"] * run, fwd_r=p["fwd_remote"] * run, misses=misses,
                s_l3=s_l3, s_l2=s_l2, s_mem=s_mem, node_reads=node_reads,
                node_writes=node_writes, res_ns=res_ns, res_r_ns=res_r_ns,
                dram_ns=dram_ns, l3_ns=l3_ns, extra=p["extra_miss"] * run)


def solo_mpki(x, llc_misses):
    """What the row's LLC-miss event would count alone, per kilo-instruction: the
    misses its co-runners caused taken away (on Zen the CCX's L3 misses include the
    fills from another CCX; on Intel the in-socket HITM are L3 hits)."""
    return 1000 * (llc_misses - x["extra"]) / x["ins"] if x["ins"] > 0 else None


def intel(model, p, x):
    d = p["duration"]
    c = {}
    n = {}
    c["cycles"] = x["cyc"]
    c["instructions"] = x["ins"]
    c["task-clock"] = x["run"] * 1e9
    # MEM_LOAD_L3_MISS_RETIRED (event 0xd3): umask 0x01 local DRAM, 0x02 remote DRAM,
    # 0x04 remote HITM, 0x08 remote FWD -- written as raw codes and as names
    c["MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM"] = x["n_loc"]
    c["cpu/event=0xd3,umask=0x02/"] = x["n_rem"]
    c["r04d3"] = x["hitm_r"]
    c["MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD"] = x["fwd_r"]
    c["MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD" if model == "spr" else
      "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM"] = x["n_hl"]
    c["LONGEST_LAT_CACHE:MISS"] = x["misses"]
    x["solo"] = solo_mpki(x, x["misses"])
    c["LONGEST_LAT_CACHE:REFERENCES" if model == "icx" else
      "LONGEST_LAT_CACHE:REFERENCE"] = x["misses"] + x["n_hl"] + x["n_l3"]
    c["CYCLE_ACTIVITY:STALLS_L3_MISS"] = x["s_l3"]
    if model == "spr":
        c["MEMORY_ACTIVITY:STALLS_L2_MISS"] = x["s_l2"]
        c["EXE_ACTIVITY:BOUND_ON_LOADS"] = x["s_mem"]
        c["XQ:FULL_CYCLES"] = p["sq_full"] * x["cyc"]
    else:
        c["CYCLE_ACTIVITY:STALLS_L2_MISS"] = x["s_l2"]
        c["CYCLE_ACTIVITY:STALLS_MEM_ANY"] = x["s_mem"]
        c["SQ_MISC:SQ_FULL" if model == "icx" else
          "OFFCORE_REQUESTS_BUFFER:SQ_FULL"] = p["sq_full"] * x["cyc"]
        if model == "skx":
            c["L1D_PEND_MISS:FB_FULL:c=1"] = 0
    # the serving node: CAS counts, RPQ and TOR by Little's law
    cha = p["cha_ghz"] * 1e9 * d
    ins_l = x["node_reads"]
    occ_l = ins_l * x["res_ns"] * p["cha_ghz"]
    ins_r = x["n_rem"]                      # the row's remote reads, from this socket's TOR
    occ_r = ins_r * x["res_r_ns"] * p["cha_ghz"]
    imc_clk = p["dclk_ghz"] * 1e9 * d * p["imc_channels"]
    full = p["tracker_full"] * imc_clk      # the read queues full that share of DRAM clocks
    rpq_ins = x["node_reads"]
    rpq_occ = rpq_ins * (p["q_local"] + 15) * p["dclk_ghz"]   # 15 ns of DRAM access itself
    if model == "skx":
        n["uncore_imc/event=0x04,umask=0x03/"] = x["node_reads"]
        n["uncore_imc/event=0x04,umask=0x0c/"] = x["node_writes"]
        n["uncore_imc/event=0x10/"] = rpq_ins
        n["uncore_imc/event=0x80/"] = rpq_occ
        n["uncore_cha/event=0x35,umask=0x21,config1=0x4043300000000/"] = ins_l + ins_r
        n["uncore_cha/event=0x36,umask=0x21,config1=0x4043300000000/"] = occ_l + occ_r
        n["uncore_imc/event=0x00/"] = imc_clk
        n["uncore_imc/event=0x12/"] = full
        n["uncore_imc/event=0x22/"] = 0
        n["uncore_cha_0/event=0x00/"] = cha
    else:
        rd = "0x0f" if model == "icx" else "0xcf"
        wr = "0x30" if model == "icx" else "0xf0"
        ev = "0x04" if model == "icx" else "0x05"
        n["uncore_imc/event=%s,umask=%s/" % (ev, rd)] = x["node_reads"]
        n["uncore_imc/event=%s,umask=%s/" % (ev, wr)] = x["node_writes"]
        n["uncore_imc/event=0x10,umask=0x01/"] = rpq_ins
        n["uncore_imc/event=0x10,umask=0x02/"] = 0
        n["uncore_imc/event=0x80/"] = rpq_occ
        n["uncore_imc/event=0x81/"] = 0
        n["uncore_cha/event=0x35,umask=0xc816fe01/"] = ins_l
        n["uncore_cha/event=0x36,umask=0xc816fe01/"] = occ_l
        n["uncore_cha/event=0x35,umask=0xc8177e01/"] = ins_r
        n["uncore_cha/event=0x36,umask=0xc8177e01/"] = occ_r
        if model == "icx":
            n["uncore_imc/event=0x00/"] = imc_clk
            n["uncore_imc/event=0x12/"] = full  # RPQ_CYCLES_FULL_PCH0
            n["uncore_imc/event=0x15/"] = full  # _PCH1
            n["uncore_imc/event=0x22/"] = 0     # WPQ_CYCLES_FULL_PCH0
            n["uncore_imc/event=0x16/"] = 0     # _PCH1
        else:
            # SPR: RDB_FULL with umask = the read buffer's 24 entries: clocks it was full
            n["uncore_imc/event=0x01,umask=0x01/"] = imc_clk
            n["uncore_imc/event=0x19,umask=0x18/"] = full
        n["uncore_cha_0/event=%s/" % ("0x00" if model == "icx" else "0x01")] = cha
    return c, n


def intel_ep(model, p, x):
    """Sandy Bridge-EP .. Broadwell-EP (Intel perfmon jaketown/ivytown/haswellx/broadwellx
    core and uncore JSON; the models write them raw):
      0xd3 retired loads by source (IVB-EP: local DRAM 0x03, remote 0x0c; else 0x01,
      0x04; remote HITM 0x10, FWD 0x20 -- SNB-EP has neither: its remote HITM is the
      offcore response DEMAND_DATA_RD.LLC_MISS.REMOTE_HITM, MSR 0x107fc00001);
      0xd2/0x04 XSNP_HITM; 0x2e/0x41, 0x4f LLC miss / reference;
      CYCLE_ACTIVITY.STALLS_L2_PENDING 0xa3/0x05 c5 (the L2-miss stall) and
      STALLS_LDM_PENDING 0xa3/0x06 c6 (any load miss; Sandy Bridge-EP's
      STALLS_L1D_PENDING, an L1D miss pending, has that encoding);
      uncore_imc CAS 0x04/0x03, 0x0c; uncore_cbox TOR 0x35/0x36 with the DRd opcode
      filter: local and remote misses apart (umask 0x23 / 0x83; SNB-EP only all
      misses, 0x03), residency summed per CBo clock (Little); CBo clock 0x00;
      uncore_ha TRACKER_CYCLES_FULL.ALL 0x02/0x02 over CLOCKTICKS 0x00 (HSX, BDX);
      uncore_imc RPQ/WPQ_CYCLES_FULL 0x12/0x22 over DRAM clocks 0x00 (SNB-EP)."""
    d = p["duration"]
    c = {}
    n = {}
    c["cycles"] = x["cyc"]
    c["instructions"] = x["ins"]
    c["task-clock"] = x["run"] * 1e9
    ivb = model == "ivb-ep"
    c["cpu/event=0xd3,umask=%s/" % ("0x03" if ivb else "0x01")] = x["n_loc"]
    c["cpu/event=0xd3,umask=%s/" % ("0x0c" if ivb else "0x04")] = x["n_rem"]
    if model == "snb-ep":
        # demand data reads answered by a remote modified line (offcore response)
        c["cpu/event=0xb7,umask=0x01,offcore_rsp=0x107fc00001/"] = x["hitm_r"]
    else:
        c["cpu/event=0xd3,umask=0x10/"] = x["hitm_r"]
        c["cpu/event=0xd3,umask=0x20/"] = x["fwd_r"]
    c["cpu/event=0xd2,umask=0x04/"] = x["n_hl"]
    c["cpu/event=0x2e,umask=0x41/"] = x["misses"]
    x["solo"] = solo_mpki(x, x["misses"])
    c["cpu/event=0x2e,umask=0x4f/"] = x["misses"] + x["n_hl"] + x["n_l3"]
    c["cpu/event=0xa3,umask=0x05,cmask=5/"] = x["s_l2"]
    # STALLS_LDM_PENDING (IVB-EP and later), STALLS_L1D_PENDING (SNB-EP): same encoding
    c["cpu/event=0xa3,umask=0x06,cmask=6/"] = x["s_mem"]
    c["cpu/event=0xb2,umask=0x01/"] = p["sq_full"] * x["cyc"]
    # the serving node
    cbo = p["cha_ghz"] * 1e9 * d
    ins_l = x["node_reads"]
    occ_l = ins_l * x["res_ns"] * p["cha_ghz"]
    ins_r = x["n_rem"]                      # the row's remote reads, from this socket's TOR
    occ_r = ins_r * x["res_r_ns"] * p["cha_ghz"]
    n["uncore_imc/event=0x04,umask=0x03/"] = x["node_reads"]
    n["uncore_imc/event=0x04,umask=0x0c/"] = x["node_writes"]
    n["uncore_cbox_0/event=0x00/"] = cbo
    if model == "snb-ep":
        opc = "filter_opc=0x182"
        n["uncore_cbox/event=0x35,umask=0x03,%s/" % opc] = ins_l + ins_r
        n["uncore_cbox/event=0x36,umask=0x03,%s/" % opc] = occ_l + occ_r
        imc_clk = p["dclk_ghz"] * 1e9 * d * p["imc_channels"]
        n["uncore_imc/event=0x00/"] = imc_clk
        n["uncore_imc/event=0x12/"] = p["tracker_full"] * imc_clk   # RPQ full
        n["uncore_imc/event=0x22/"] = 0
    else:
        opc = "filter_opc=0x182"
        n["uncore_cbox/event=0x35,umask=0x23,%s/" % opc] = ins_l
        n["uncore_cbox/event=0x36,umask=0x23,%s/" % opc] = occ_l
        n["uncore_cbox/event=0x35,umask=0x83,%s/" % opc] = ins_r
        n["uncore_cbox/event=0x36,umask=0x83,%s/" % opc] = occ_r
    if model == "ivb-ep":
        # the write pending queues are the one shared tracker Intel's IVB-EP tables
        # count full: the generator's tracker_full is their share of DRAM clocks
        imc_clk = p["dclk_ghz"] * 1e9 * d * p["imc_channels"]
        n["uncore_imc/event=0x00/"] = imc_clk
        n["uncore_imc/event=0x22/"] = p["tracker_full"] * imc_clk
    if model in ("hsx", "bdx"):
        ha_clk = p["cha_ghz"] * 1e9 * d * 2                # two home agents
        n["uncore_ha/event=0x00/"] = ha_clk
        n["uncore_ha/event=0x02,umask=0x02/"] = p["tracker_full"] * ha_clk
        n["uncore_ha/event=0x01,umask=0x01/"] = x["node_reads"]
        n["uncore_ha/event=0x01,umask=0x02/"] = 0
        n["uncore_ha/event=0x04,umask=0x04/"] = x["node_reads"] * x["res_ns"] * p["cha_ghz"]
        n["uncore_ha/event=0x04,umask=0x08/"] = 0
    return c, n


# Emerald and Granite Rapids: Sapphire Rapids' physics and encodings (Intel's
# emeraldrapids/graniterapids tables give the same core codes), written raw since
# libpfm4 4.13 has no table for them; Granite Rapids' memory controller has two
# sub-channels: CAS_COUNT_SCH0/SCH1 0x05/0x06, RPQ_INSERTS.SCHn_PCHm 0x10 umask
# 0x10/0x20/0x40/0x80, RPQ_OCCUPANCY_SCHn_PCHm 0x80..0x83.
SPR_RAW = {
    "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM": "cpu/event=0xd3,umask=0x01/",
    "MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD": "cpu/event=0xd3,umask=0x08/",
    "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD": "cpu/event=0xd2,umask=0x04/",
    "LONGEST_LAT_CACHE:MISS": "cpu/event=0x2e,umask=0x41/",
    "LONGEST_LAT_CACHE:REFERENCE": "cpu/event=0x2e,umask=0x4f/",
    "CYCLE_ACTIVITY:STALLS_L3_MISS": "cpu/event=0xa3,umask=0x06,cmask=6/",
    "MEMORY_ACTIVITY:STALLS_L2_MISS": "cpu/event=0x47,umask=0x05,cmask=5/",
    "EXE_ACTIVITY:BOUND_ON_LOADS": "cpu/event=0xa6,umask=0x21,cmask=5/",
    "XQ:FULL_CYCLES": "cpu/event=0x2d,umask=0x01,cmask=1/",
}
GNR_IMC = {
    "uncore_imc/event=0x05,umask=0xcf/": ["uncore_imc/event=0x05,umask=0xcf/", "uncore_imc/event=0x06,umask=0xcf/"],
    "uncore_imc/event=0x05,umask=0xf0/": ["uncore_imc/event=0x05,umask=0xf0/", "uncore_imc/event=0x06,umask=0xf0/"],
    "uncore_imc/event=0x10,umask=0x01/": ["uncore_imc/event=0x10,umask=0x10/", "uncore_imc/event=0x10,umask=0x40/"],
    "uncore_imc/event=0x10,umask=0x02/": ["uncore_imc/event=0x10,umask=0x20/", "uncore_imc/event=0x10,umask=0x80/"],
    "uncore_imc/event=0x80/": ["uncore_imc/event=0x80/", "uncore_imc/event=0x82/"],
    "uncore_imc/event=0x81/": ["uncore_imc/event=0x81/", "uncore_imc/event=0x83/"],
}


def spr_like(model, p, x):
    c, n = intel("spr", p, x)
    c = {SPR_RAW.get(k, k): v for k, v in c.items()}
    if model == "gnr":
        n2 = {}
        for k, v in n.items():
            if k in GNR_IMC:                 # the traffic split evenly over the sub-channels
                for k2 in GNR_IMC[k]:
                    n2[k2] = v / 2
            else:
                n2[k] = v
        n = n2
        # no RDB_FULL in Intel's Granite Rapids tables: the model has no such input
        n.pop("uncore_imc/event=0x19,umask=0x18/", None)
        n.pop("uncore_imc/event=0x01,umask=0x01/", None)
    return c, n


def nhm(model, p, x):
    d = p["duration"]
    c = {}
    n = {}
    wsm = model == "wsm-ep"
    c["cycles"] = x["cyc"]
    c["instructions"] = x["ins"]
    c["task-clock"] = x["run"] * 1e9
    # MEM_UNCORE_RETIRED (event 0x0f): Nehalem local DRAM umask 0x20, remote DRAM 0x10;
    # Westmere remote DRAM 0x20 (written raw), local DRAM and remote cache 0x08
    if wsm:
        c["MEM_UNCORE_RETIRED:LOCAL_DRAM_AND_REMOTE_CACHE_HIT"] = x["n_loc"] + x["fwd_r"]
        c["cpu/event=0x0f,umask=0x20/"] = x["n_rem"]
        c["MEM_UNCORE_RETIRED:LOCAL_HITM"] = x["n_hl"]
        c["MEM_UNCORE_RETIRED:REMOTE_HITM"] = x["hitm_r"]
    else:
        c["MEM_UNCORE_RETIRED:LOCAL_DRAM"] = x["n_loc"]
        c["MEM_UNCORE_RETIRED:REMOTE_DRAM"] = x["n_rem"]
        c["MEM_UNCORE_RETIRED:OTHER_CORE_L2_HITM"] = x["n_hl"]
        c["OFFCORE_RESPONSE_0:DMND_DATA_RD:REMOTE_CACHE_HITM"] = x["hitm_r"]
    c["LLC_MISSES"] = x["misses"]
    x["solo"] = solo_mpki(x, x["misses"])
    c["LLC_REFERENCES"] = x["misses"] + x["n_hl"] + x["n_l3"]
    c["OFFCORE_REQUESTS_SQ_FULL"] = p["sq_full"] * x["cyc"]
    # the socket's uncore: the GQ read tracker holds the node's local reads (the
    # row's and its co-runners') and the row's remote ones for their whole latency,
    # the L3 hits for the L3 latency
    uclk = p["cha_ghz"] * 1e9 * d
    miss = x["node_reads"] + x["n_rem"]
    hits = x["n_l3"] + x["n_hl"]
    occ = (x["node_reads"] * x["res_ns"] + x["n_rem"] * x["res_r_ns"] +
           x["n_l3"] * p["lat_llc"] + x["n_hl"] * p["c2c_local"]) * p["cha_ghz"]
    n["uncore/event=0xff,umask=0x00/"] = uclk
    n["uncore/event=0x03,umask=0x01/"] = miss + hits
    n["uncore/event=0x03,umask=0x02/"] = miss
    n["uncore/event=0x02,umask=0x01/"] = occ
    n["uncore/event=0x00,umask=0x01/"] = p["tracker_full"] * uclk   # GQ read tracker full
    n["uncore/event=0x00,umask=0x02/"] = 0
    n["uncore/event=0x00,umask=0x04/"] = 0
    n["uncore/event=0x21,umask=0x04/"] = 0                          # QHL local full
    n["uncore/event=0x21,umask=0x02/"] = 0
    n["uncore/event=0x2c,umask=0x07/"] = x["node_reads"]
    n["uncore/event=0x2f,umask=0x07/"] = x["node_writes"]
    n["uncore/event=0x20,umask=0x10/"] = x["node_reads"]
    n["uncore/event=0x20,umask=0x04/"] = 0
    return c, n


def amd(model, p, x):
    d = p["duration"]
    c = {}
    n = {}
    c["cycles"] = x["cyc"]
    c["instructions"] = x["ins"]
    c["task-clock"] = x["run"] * 1e9
    rc = x["hitm_r"] + x["fwd_r"]   # Zen counts clean and modified alike
    names = {
        "zen2": ("DATA_CACHE_REFILLS_FROM_SYSTEM", "LS_MABRESP_LCL_DRAM", "LS_MABRESP_RMT_DRAM",
                 "LS_MABRESP_LCL_CACHE", "LS_MABRESP_RMT_CACHE"),
        "zen3": ("DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM", "MEM_IO_LCL", "MEM_IO_RMT",
                 "EXT_CACHE_LCL", "EXT_CACHE_RMT"),
        "zen4": ("DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM", "DRAM_IO_NEAR", "DRAM_IO_FAR",
                 "NEAR_CACHE_NEAR_FAR", "FAR_CACHE_NEAR_FAR"),
    }.get(model)
    if model == "zen1":
        pass                        # amdzen1 has no fills-by-source event (no PMCx043)
    elif names:
        c["%s:%s" % (names[0], names[1])] = x["n_loc"]
        c["%s:%s" % (names[0], names[2])] = x["n_rem"]
        c["%s:%s" % (names[0], names[3])] = x["n_hl"]
        c["%s:%s" % (names[0], names[4])] = rc
    else:
        # Zen 5: raw PMCx043, as perf's r-codes and as sysfs terms
        c["r0843"] = x["n_loc"]
        c["cpu/event=0x43,umask=0x40/"] = x["n_rem"]
        c["r0443"] = x["n_hl"]
        c["cpu/event=0x43,umask=0x10/"] = rc
    # the CCX's L3: a fill from another CCX is a miss of this one
    miss = x["misses"] + x["n_hl"]
    x["solo"] = solo_mpki(x, miss)
    lat_cyc = (x["dram_ns"] + x["n_hl"] * p["c2c_local"]) * p["ghz"]
    if model in ("zen4", "zen5"):
        c["amd_l3/event=0x04,umask=0xff/"] = miss + x["n_l3"]
        c["amd_l3/event=0x04,umask=0x01/"] = miss
        c["amd_l3/event=0xac,umask=0x3f,enallcores=1,enallslices=1,sliceid=3,threadmask=3/"] = lat_cyc / 10
        c["amd_l3/event=0xad,umask=0x3f,enallcores=1,enallslices=1,sliceid=3,threadmask=3/"] = miss
        n["amd_umc/event=0x0a,rdwrmask=1/"] = x["node_reads"]
        n["amd_umc/event=0x0a,rdwrmask=2/"] = x["node_writes"]
    else:
        if model == "zen3":
            c["amd_l3/event=0x04,umask=0xff/"] = miss + x["n_l3"]
            c["amd_l3/event=0x04,umask=0x01/"] = miss
        else:
            c["amd_l3/event=0x01,umask=0x80/"] = miss + x["n_l3"]
            c["amd_l3/event=0x06,umask=0x01/"] = miss
        c["amd_l3/event=0x90,umask=0x00/"] = lat_cyc / 16     # Zen 1 and 2 alike
        c["amd_l3/event=0x9a,umask=%s/" % ("0xff" if model == "zen3" else "0x3f")] = miss
        beats = x["node_reads"] + x["node_writes"]
        for ch, ev in enumerate(("0x07", "0x47", "0x87", "0xc7", "0x107", "0x147", "0x187", "0x1c7")):
            n["amd_df/event=%s,umask=0x38/" % ev] = beats / 8
    if model in ("zen3", "zen4", "zen5"):
        l1m = miss + x["n_l3"] + p["l1_miss_other"] * x["run"]
        # MAB occupancy per cycle summed = the misses' residency in core clocks (Little)
        occ = (x["dram_ns"] + x["l3_ns"]) * p["ghz"] / 1
        if model == "zen5":
            c["cpu/event=0x5f/"] = occ
            c["cpu/event=0x41,umask=0x0f/"] = l1m
        else:
            c["ALLOC_MAB_COUNT"] = occ
            c["MAB_ALLOCATION_BY_TYPE:ALL"] = l1m
    return c, n


def arm(model, p, x):
    c = {}
    c["cycles"] = x["cyc"]
    c["instructions"] = x["ins"]
    c["task-clock"] = x["run"] * 1e9
    rc = x["hitm_r"] + x["fwd_r"]
    c["r31"] = x["n_rem"] + rc                                      # REMOTE_ACCESS
    c["r19"] = x["n_loc"] + x["n_rem"] + rc + x["n_hl"] + x["n_l3"]  # BUS_ACCESS
    c["r17"] = c["r19"]                                             # L2D_CACHE_REFILL
    c["r36"] = x["misses"] + x["n_l3"] + x["n_hl"]                  # LL_CACHE_RD
    c["r37"] = x["misses"]                                          # LL_CACHE_MISS_RD
    x["solo"] = solo_mpki(x, x["misses"])
    c["r24"] = x["s_mem"]                                           # STALL_BACKEND (memory part)
    if model != "neoverse-n1":
        # STALL_BACKEND_MEM (N2, V1, V2; not in N1's table): backend stall cycles with a
        # demand load missing the L2, the last cache in the core's clock domain: the
        # system-cache hits and the DRAM-side misses, as stall_l2_miss
        c["r4005"] = x["s_l2"]
    # the CMN mesh's home nodes (arm_cmn, HN-F node type 0x5): every request homed on
    # the node reaches an HN-F (its DRAM reads and writes, the system-cache hits and
    # the snooped lines); a first attempt that finds the POCQ full (the share of time
    # it is: 'tracker_full') is answered RetryAck and sent again with a credit, and
    # hnf_pocq_reqs_recvd counts every arrival, the resend too
    n = {}
    u = x["node_reads"] + x["node_writes"] + x["n_l3"] + x["n_hl"]
    n["arm_cmn/type=0x5,eventid=0x4/"] = p["tracker_full"] * u      # hnf_pocq_retry
    n["arm_cmn/type=0x5,eventid=0x5/"] = u * (1 + p["tracker_full"])  # hnf_pocq_reqs_recvd
    return c, n


def generic(model, p, x):
    """vpmu, vpmu-intel, software: the architectural events (not on software), the
    software events, and the software sources each scenario asks for."""
    d = p["duration"]
    c = {}
    dram = x["n_loc"] + x["n_rem"]
    rem_share = x["n_rem"] / dram if dram > 0 else 0.0
    if model != "software":
        c["cycles"] = x["cyc"]
        c["instructions"] = x["ins"]
    if model == "vpmu-intel":
        c["cache-misses"] = x["misses"]
        x["solo"] = solo_mpki(x, x["misses"])
        c["cache-references"] = x["misses"] + x["n_hl"] + x["n_l3"]
    c["task-clock"] = x["run"] * 1e9
    c["context-switches"] = p["cswitch"] * d
    c["cpu-migrations"] = p["migr"] * d
    if p["place"]:
        c["placement.remote_fraction"] = rem_share
    if p["hint_faults"] > 0:
        h = p["hint_faults"] * d
        c["vmstat.numa_hint_faults"] = h
        c["vmstat.numa_hint_faults_local"] = h * (1 - rem_share)
    if p["alloc_pages"] > 0:
        a = p["alloc_pages"] * d
        c["numastat.local_node"] = a * (1 - p["alloc_remote"])
        c["numastat.other_node"] = a * p["alloc_remote"]
    if p["mbm"]:
        c["resctrl.mbm_total_bytes"] = 64 * dram
        c["resctrl.mbm_local_bytes"] = 64 * x["n_loc"]
    if p["runq_wait"] is not None:
        c["sched.run_ns"] = x["run"] * 1e9
        c["sched.wait_ns"] = p["runq_wait"] * d
    return c, {}


def generate(model, params):
    p = dict(DEFAULTS)
    for k, v in params.items():
        if k not in p:
            raise ValueError("unknown parameter '%s' (%s)" % (k, ", ".join(sorted(p))))
        p[k] = float(v)
    fam = FAMILIES.get(model)
    if not fam:
        raise ValueError("no event definitions for model '%s' (%s)" % (model, ", ".join(sorted(FAMILIES))))
    x = physics(p)
    c, n = {"intel": intel, "intel-ep": intel_ep, "spr-like": spr_like, "nhm": nhm, "amd": amd, "arm": arm,
         "generic": generic}[fam](model, p, x)
    return p, x, c, n


def fmt(v):
    return "%.17g" % v


def expand(path, out):
    model = None
    lines = open(path).read().split("\n")
    res = []
    base = os.path.dirname(os.path.abspath(path))
    for i, line in enumerate(lines):
        words = line.split()
        if words and words[0] == "model" and len(words) == 2:
            model = words[1]
        if words and words[0] == "root" and len(words) == 2 and not words[1].startswith("/"):
            res.append("root " + os.path.normpath(os.path.join(base, words[1])))
            continue
        if not words or words[0] != "gen":
            res.append(line)
            continue
        params = {}
        for w in words[1:]:
            if "=" not in w:
                sys.exit("%s:%d: expected KEY=VALUE, not '%s'" % (path, i + 1, w))
            k, v = w.split("=", 1)
            params[k] = v
        try:
            p, x, c, n = generate(model, params)
        except ValueError as e:
            sys.exit("%s:%d: %s" % (path, i + 1, e))
        # one line for one line: the cases file's line numbers stay true
        words = ["counts", "duration", fmt(p["duration"]), "ghz", fmt(p["ghz"])]
        if p["extra_miss"] > 0 and x.get("solo") is not None:
            words += ["solo_mpki", fmt(x["solo"])]
        for k, v in c.items():
            words += [k, fmt(v)]
        for k, v in n.items():
            words += ["node:" + k, fmt(v)]
        res.append(" ".join(words))
    text = "\n".join(res)
    if out:
        open(out, "w").write(text)
    else:
        sys.stdout.write(text)


def main(argv):
    if len(argv) >= 3 and argv[1] == "--model":
        params = dict(a.split("=", 1) for a in argv[3:])
        p, x, c, n = generate(argv[2], params)
        doc = {"duration_s": p["duration"], "cpu_ghz": p["ghz"], "counts": c}
        if n:
            doc["node_counts"] = n
        if p["extra_miss"] > 0 and x.get("solo") is not None:
            doc["solo_mpki"] = x["solo"]
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    expand(argv[1], argv[2] if len(argv) == 3 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
