#!/bin/sh
# t9109-vocab-one-recording.sh - one recording read back by report (text, CSV, JSON, HTML) and
# diagnose (text, JSON): each VM's factor values and their quality in the same words and marks
# everywhere (tests/cli/vocab-check.py compares them; its legend is written there, from
# docs/method.md, not taken from the program)
. "$(dirname "$0")/lib.sh"

CHECK="$(cd "$(dirname "$0")" && pwd)/vocab-check.py"
MODELS=$VP_DATA/../../models
if [ ! -x "$VP_HELPERS/rec_counts" ] || [ ! -x "$VP_HELPERS/rec_synth" ]; then
	test_skip 'one vocabulary over a recording' 'VP_HELPERS/rec_counts or rec_synth is not built'
	test_done
	exit $?
fi

# skx, one VM of one vCPU, 2.4 GHz, 1 s per interval (t9130 works the same counts by hand)
common="tclk=1e9 cyc=2.4e9 instr=1e9 rem_dram=0 rem_hitm=0 rem_fwd=0 loc_hitm=0"
cal="cal lat_local_ns 89
cal lat_remote_ns 143
cal lat_llc_ns 20
cal peak_bw_gbs 105"

test_expect_success 'counted costs (stall counts recorded): measured, no mark; imc and queue unavailable' '
	{ echo "$cal" &&
	  echo "frame alone=1 $common loc_dram=2e6 llc_ref=2e6 llc_miss=2e6 stall_l3=427.2e6 stall_l2=427.2e6 stall_mem=427.2e6" &&
	  echo "frame alone=-1 $common loc_dram=8e6 llc_ref=8e6 llc_miss=8e6 stall_l3=1708.8e6 stall_l2=1708.8e6 stall_mem=1708.8e6"
	} >spec &&
	"$VP_HELPERS/rec_counts" m.vmmdb "$MODELS" skx <spec &&
	python3 "$CHECK" "$VMMPROF" m.vmmdb >out && grep_q "^checked 4 report rows, 1 diagnose VMs" out &&
	vmmprof report m.vmmdb >t && grep -E "^ +2\.0 +vm1 \[pid 42\] .* 41\.4% +0\.0% +n/a +n/a" t &&
	vmmprof report --csv m.vmmdb >c && grep_q ",n/a,unavailable,,,n/a,unavailable,42," c
'

test_expect_success 'costs without a stall count: estimate, marked e in every text and named so in CSV and JSON' '
	{ echo "$cal" &&
	  echo "frame alone=1 $common rem_dram=1e6 loc_dram=2e6 llc_ref=3e6 llc_miss=3e6" &&
	  echo "frame alone=-1 $common rem_dram=1e6 loc_dram=8e6 llc_ref=9e6 llc_miss=9e6"
	} >spec &&
	"$VP_HELPERS/rec_counts" e.vmmdb "$MODELS" skx <spec &&
	python3 "$CHECK" "$VMMPROF" e.vmmdb >out && grep_q "^checked 4 report rows, 1 diagnose VMs" out &&
	vmmprof report e.vmmdb >t && grep -E "^ +2\.0 +vm1 \[pid 42\] .* [0-9.]+%e +41\.4%e +0\.0%e" t &&
	# the run: llc 0 and 6e6 x 69 ns x 2.4 = 993.6e6 cycles of 4.8e9 = 20.7 %
	vmmprof diagnose e.vmmdb >d && grep -E "^  vm1 +1 +[0-9.]+%e +20\.7%e +0\.0%e +n/a +n/a" d
'

test_expect_success 'a proxy score (software model): sN with p in report and diagnose alike' '
	"$VP_HELPERS/rec_synth" p.vmmdb 4 2 >/dev/null &&
	python3 "$CHECK" "$VMMPROF" p.vmmdb >out && grep_q "^checked 12 report rows, 1 diagnose VMs" out &&
	vmmprof report p.vmmdb >t && grep -E "^ +1\.0 +vm1 \[pid 42\] .* s0p +n/a" t &&
	# rec_synth scores locality 0, 0.01, 0.02, 0.03: the run mean 0.015
	vmmprof diagnose p.vmmdb >d && grep -E "^  vm1 +2 +s0\.015p +n/a" d
'

test_done
