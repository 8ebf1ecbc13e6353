#!/bin/sh
# t9130-recording-llc-cost.sh - the LLC contention cost read back from a recording: counts
# written as given (tests/helpers/rec_counts, no cost computed there) through the cost stage
# of `diagnose FILE` and `report`, against costs worked by hand; and the recorded intervals'
# cost intervals.
. "$(dirname "$0")/lib.sh"

MODELS=$VP_DATA/../../models
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

# The skx model, calibration 89 ns local, 20 ns L3 hit; one VM, one vCPU, 2.4 GHz, 1 s each:
#   interval 1, alone on its LLC:   1e9 instructions, 2e6 local DRAM loads = 2e6 LLC misses:
#                                   its solo rate 2 MPKI; stall 2e6 x 89 ns x 2.4 = 427.2e6
#   intervals 2, 3, co-runners:     8e6 local DRAM loads = LLC misses; stall 1708.8e6 each
# Each interval: s = D / W_D = 2.4 (MLP 1).  Interval 2 (and 3): x = 8e6 - 2 x 1e9 / 1000 = 6e6
#   llc = x (L_loc - L_llc) s = 6e6 x 69 x 2.4 = 993.6e6 of 2.4e9 cycles = 41.4 %; interval 1: 0
# The whole run: 3e9 instructions, 1.8e7 misses, x = 1.8e7 - 2 x 3e9 / 1000 = 1.2e7,
#   W_D = 1.8e7 x 89 = 1.602e9 ns, D = 427.2e6 + 2 x 1708.8e6 = 3.8448e9: s = 2.4
#   llc = 1.2e7 x 69 x 2.4 = 1.9872e9 of 7.2e9 cycles = 27.6 %; the memory stall 53.4 %
#   locality and sharing 0 (no remote load, no HITM); imc and queue n/a (no node counts)
# The intervals: the costs 0, 41.4, 41.4 have the mean 27.6; a bootstrap mean of three
#   draws is 0 with probability 1/27 = 3.7 % (above 2.5 %) and 41.4 with (2/3)^3 = 30 %:
#   the 95 % interval is [0, 41.4], which holds 0.
common="tclk=1e9 cyc=2.4e9 instr=1e9 rem_dram=0 rem_hitm=0 rem_fwd=0 loc_hitm=0"
cat >"$TRASH/spec" <<EOF2
cal lat_local_ns 89
cal lat_remote_ns 143
cal lat_llc_ns 20
cal peak_bw_gbs 105
frame alone=1 $common loc_dram=2e6 llc_ref=2e6 llc_miss=2e6 stall_l3=427.2e6 stall_l2=427.2e6 stall_mem=427.2e6
frame alone=-1 $common loc_dram=8e6 llc_ref=8e6 llc_miss=8e6 stall_l3=1708.8e6 stall_l2=1708.8e6 stall_mem=1708.8e6
frame alone=-1 $common loc_dram=8e6 llc_ref=8e6 llc_miss=8e6 stall_l3=1708.8e6 stall_l2=1708.8e6 stall_mem=1708.8e6
EOF2

test_expect_success 'diagnose FILE: the LLC cost of the whole run from the recorded counts, as worked by hand' '
	"$VP_HELPERS/rec_counts" llc.vmmdb "$MODELS" skx <spec &&
	vmmprof diagnose --json llc.vmmdb >j &&
	python3 -c "
import json
j = json.load(open(\"j\"))
v = j[\"diagnosis\"][\"vms\"][0]
f = v[\"factors\"]
assert v[\"vm\"] == \"vm1\", v
assert abs(f[\"llc\"][\"cost_pct\"] - 27.6) < 1e-6, f[\"llc\"]
assert abs(v[\"cycles\"] - 7.2e9) < 1, v[\"cycles\"]
assert abs(v[\"memory_stall_pct\"] - 53.4) < 0.05, v[\"memory_stall_pct\"]
assert f[\"locality\"][\"cost_pct\"] == 0 and f[\"sharing\"][\"cost_pct\"] == 0, f
assert f[\"imc\"][\"cost_pct\"] is None and f[\"queue\"][\"cost_pct\"] is None, f
b = j[\"diagnosis\"][\"bottlenecks\"][0]
assert b[\"factor\"] == \"llc\" and abs(b[\"cost_cycles\"] - 1.9872e9) < 1e3, b
"
'

test_expect_success 'report: the timeline 0, 41.4, 41.4 % interval by interval, then the run 27.6 %' '
	vmmprof report llc.vmmdb >out &&
	grep -E "^ +1\.0 +vm1/vCPU 0 .* 0\.0% +0\.0% +0\.0%" out &&
	test "$(grep -cE "^ +[23]\.0 +vm1/vCPU 0 .* 0\.0% +41\.4% +0\.0%" out)" = 2 &&
	grep -E "^ +vm1 +1 +0\.0% +27\.6% +0\.0% " out
'

test_expect_success 'diagnose FILE: cost intervals over the recorded intervals, [0, 41.4] holding 0' '
	python3 -c "
import json
j = json.load(open(\"j\"))
c = j[\"cost_intervals\"]
assert c[\"samples\"] == 3, c
a = c[\"accounts_for\"]
assert a[\"multiplexing_running_ratio\"] is None and \"multiplexing_why\" not in a, a
assert a[\"calibrated\"] is True, a
assert \"recorded intervals\" in a[\"spread\"], a
l = c[\"vms\"][0][\"costs\"][\"llc\"]
assert abs(l[\"value\"] - 27.6) < 1e-9 and l[\"n\"] == 3, l
assert l[\"lo\"] == 0 and abs(l[\"hi\"] - 41.4) < 1e-9 and l[\"holds_zero\"] is True, l
assert c[\"vms\"][0][\"costs\"][\"imc\"] is None, c
" &&
	vmmprof diagnose llc.vmmdb >out &&
	grep_q "^Costs interval by interval (mean of 3 recorded intervals" out &&
	grep_q "^  vm1: .*llc 27.6 % ±27.6 (holds 0)" out &&
	grep_q "its 95% interval \[0.0, 41.4\] holds 0" out &&
	! grep -q "multiplexing:" out
'

# The one vCPU runs on node 0 (the recording's one-node platform), so node 0's costs are its
#   costs, interval by interval: llc 0, 41.4, 41.4 (mean 27.6, interval [0, 41.4] as above),
#   locality and sharing 0 each time ([0, 0]); imc and queue n/a.  The vCPU's llc finding
#   and the node's row carry that interval.  The node's share is over the threads that have
#   the cost (frame_node_cost()): the one vCPU has llc, locality and sharing costs, so none is
#   left out; it has no imc or queue cost (no node counts): 1 thread, all 7.2e9 of the
#   node's cycles, left out, and those shares stay n/a rather than 0 (no line under the table).
test_expect_success 'diagnose FILE: the node table and the vCPU finding carry the intervals, as worked by hand' '
	python3 -c "
import json
j = json.load(open(\"j\"))
c = j[\"cost_intervals\"]
n = c[\"nodes\"]
assert [x[\"node\"] for x in n] == [0], n
l = n[0][\"costs\"][\"llc\"]
assert abs(l[\"value\"] - 27.6) < 1e-9 and l[\"lo\"] == 0 and abs(l[\"hi\"] - 41.4) < 1e-9, l
assert l[\"holds_zero\"] is True, l
o = n[0][\"costs\"][\"locality\"]
assert o[\"value\"] == 0 and o[\"lo\"] == 0 and o[\"hi\"] == 0, o
assert n[0][\"costs\"][\"imc\"] is None and n[0][\"costs\"][\"queue\"] is None, n
v = c[\"vcpus\"]
assert [(x[\"vm\"], x[\"vcpu\"]) for x in v] == [(\"vm1\", 0)], v
assert abs(v[0][\"costs\"][\"llc\"][\"hi\"] - 41.4) < 1e-9, v
nd = j[\"diagnosis\"][\"nodes\"][0]
assert abs(nd[\"cost_pct\"][\"llc\"] - 27.6) < 1e-9, nd
lo = nd[\"cost_left_out\"]
assert lo == {\"locality\": 0, \"llc\": 0, \"sharing\": 0, \"imc\": 1, \"queue\": 1}, lo
sh = nd[\"cost_left_out_share\"]
assert sh[\"llc\"] == 0 and sh[\"imc\"] == 1 and sh[\"queue\"] == 1, sh
assert nd[\"cost_pct\"][\"imc\"] is None, nd
bs = [b for b in j[\"diagnosis\"][\"bottlenecks\"] if b[\"scope\"] == \"vcpu\"]
assert len(bs) == 1 and bs[0][\"factor\"] == \"llc\", bs
ci = bs[0][\"cost_interval\"]
assert ci[\"lo\"] == 0 and abs(ci[\"hi\"] - 41.4) < 1e-9 and ci[\"holds_zero\"] is True, ci
" &&
	vmmprof diagnose llc.vmmdb >out &&
	grep_q "^Factor cost per node" out &&
	grep -E "^  0 +0\.0% \[0\.0, 0\.0\] +27\.6% \[0\.0, 41\.4\] +0\.0% \[0\.0, 0\.0\] +n/a +n/a$" out &&
	! grep -q "left out" out &&
	grep -E "^  [0-9]+ +vm1 vCPU 0 +llc +27\.6% +\[0\.0, 41\.4\] .*holds 0" out
'

# The running shares are recorded and widen as live.  The same intervals with instr counted
#   25 % of each second (1 s enabled, 0.25 s running) and loc_hitm and cyc all the time:
#   the whole run ran instr 0.75 of 3 s = 25 %.  The llc cost reads instr (x, the misses
#   above the solo rate, docs/method.md): its half-widths x 1/sqrt(0.25) = 2 about the mean
#   27.6: hi 27.6 + 2 x (41.4 - 27.6) = 55.2, lo 27.6 - 2 x 27.6 < 0, so 0.  The sharing cost
#   reads loc_hitm and cyc (100 %) and not instr: not widened, [0, 0].  A file from before
#   the running shares were kept (no scaling table) says so and widens nothing.
test_expect_success 'diagnose FILE: the recorded running shares widen each factor as live, by hand' '
	sed "s/^frame .*/& run.instr=25 run.loc_hitm=100 run.cyc=100/" spec >spec25 &&
	"$VP_HELPERS/rec_counts" mux.vmmdb "$MODELS" skx <spec25 &&
	vmmprof diagnose --json mux.vmmdb >jm &&
	python3 -c "
import json
j = json.load(open(\"jm\"))
c = j[\"cost_intervals\"]
a = c[\"accounts_for\"]
assert abs(a[\"multiplexing_running_ratio\"] - 0.25) < 1e-12, a
assert abs(a[\"multiplexing_running_ratio_by_factor\"][\"llc\"] - 0.25) < 1e-12, a
assert a[\"multiplexing_running_ratio_by_factor\"][\"sharing\"] == 1, a
l = c[\"vms\"][0][\"costs\"][\"llc\"]
assert l[\"widened_by\"] == 2 and l[\"lo\"] == 0 and abs(l[\"hi\"] - 55.2) < 1e-9, l
n = c[\"nodes\"][0][\"costs\"][\"llc\"]
assert n[\"widened_by\"] == 2 and abs(n[\"hi\"] - 55.2) < 1e-9, n
h = c[\"vms\"][0][\"costs\"][\"sharing\"]
assert h[\"widened_by\"] == 1 and h[\"hi\"] == 0, h
" &&
	vmmprof diagnose mux.vmmdb >out &&
	grep_q "multiplexing: events counted 25 % of the time at worst" out &&
	grep -E "^  0 +0\.0% \[0\.0, 0\.0\] +27\.6% \[0\.0, 55\.2\] " out &&
	cp mux.vmmdb old.vmmdb &&
	python3 -c "
import sqlite3
c = sqlite3.connect(\"old.vmmdb\")
c.execute(\"DROP TABLE scaling\")
c.commit()
" &&
	vmmprof diagnose --json old.vmmdb >jo &&
	python3 -c "
import json
a = json.load(open(\"jo\"))[\"cost_intervals\"][\"accounts_for\"]
assert a[\"multiplexing_running_ratio\"] is None, a
assert \"written before recordings kept the running shares\" in a[\"multiplexing_why\"], a
"
'

test_expect_success 'no interval known alone: the LLC cost is n/a with the reason, never the whole miss count' '
	sed "s/alone=1/alone=0/; s/alone=-1/alone=0/" spec >spec0 &&
	"$VP_HELPERS/rec_counts" unknown.vmmdb "$MODELS" skx <spec0 &&
	vmmprof diagnose --json unknown.vmmdb >j0 &&
	test "$(json_get j0 "j[\"diagnosis\"][\"vms\"][0][\"factors\"][\"llc\"][\"cost_pct\"]")" = None &&
	test "$(json_get j0 "j[\"diagnosis\"][\"vms\"][0][\"factors\"][\"locality\"][\"cost_pct\"]")" = 0
'

test_done
