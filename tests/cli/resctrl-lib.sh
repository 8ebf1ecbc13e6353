# resctrl-lib.sh - what the resctrl tests (t52xx) share: the fixture tree and
# the kernel's part played by hand.  Source after lib.sh.
#
#   make_root DIR            host-libvirt-v2 with the resctrl overlay
#                            (tests/data/resctrl/README.md) copied into DIR
#   mon GROUPDIR DOMAIN OCC TOTAL LOCAL
#                            write a group's mon_data/mon_L3_DOMAIN files as
#                            the kernel would show them (a new domain at once)
#   wait_for PATH, wait_gone PATH   until PATH exists / is gone (10 s at most)
#
# For `top --resctrl --json` lines (t5220 locally, t5250 through a daemon):
#   sum_bytes EXPR [FILE]    the sum over the lines of EXPR (bytes/s, on j) x
#                            the line's interval_s, rounded: the bytes moved
#                            (the first line has no rate); FILE t.json
#   last EXPR [FILE]         EXPR on the last line
#   TOP_VM, TOP_N0, TOP_N1   web1's resctrl object, node 0's and node 1's
#   top_check_web1 [FILE]    web1's counters as the tests write them (3 MiB,
#                            2e9, 1.5e9 on domain 0; 1 MiB, 1e9, 0.25e9 on
#                            domain 1: see mon_web1), by hand: web1 holds
#                            4 MiB and moved 3e9 bytes (1.75e9 local); node 0
#                            3 MiB, 2e9 (1.5e9), node 1 1 MiB, 1e9 (0.25e9)
#   mon_web1 GROUPDIR        write those counters into web1's group
#
# For `diagnose --json` (live, t5230; a recording, t5260) after them:
#   DIAG_N0, DIAG_N1         node 0's and node 1's resctrl object
#   diag_check_web1 FILE     the node view over the whole run: node 0 holds
#                            3 MiB and moved 2e9 bytes (1.5e9 local): its GB/s
#                            x the run's duration x 1e9; node 1 1 MiB, 1e9
#                            (0.25e9); node 0 has no reason
#   diag_text_web1 FILE      the same in the text node view (occupancy lines)

make_root() {
	mkdir -p "$1" &&
	cp -a "$VP_DATA/root/host-libvirt-v2/." "$1/" &&
	cp -a "$VP_DATA/resctrl/." "$1/"
}

mon() {
	# a new domain appears at once (renamed into place), so that a sample
	# never reads some of its files and not the others
	t=$1/.mon_L3_$2.new
	mkdir -p "$t" "$1/mon_data" &&
	printf '%s\n' "$3" >"$t/llc_occupancy" &&
	printf '%s\n' "$4" >"$t/mbm_total_bytes" &&
	printf '%s\n' "$5" >"$t/mbm_local_bytes" &&
	if [ -d "$1/mon_data/mon_L3_$2" ]; then
		mv -f "$t"/* "$1/mon_data/mon_L3_$2/" && rmdir "$t"
	else
		mv "$t" "$1/mon_data/mon_L3_$2"
	fi
}

wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

wait_gone() {
	i=0
	while [ -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -e "$1" ]
}

TOP_VM='[v for v in j["vms"] if v["name"] == "web1"][0]["resctrl"]'
TOP_N0='[n for n in j["nodes"] if n["node"] == 0][0]["resctrl"]'
TOP_N1='[n for n in j["nodes"] if n["node"] == 1][0]["resctrl"]'

sum_bytes() {
	python3 - "${2:-t.json}" "$1" <<-\EOF
	import json, sys
	tot = 0.0
	for line in open(sys.argv[1]):
	    j = json.loads(line)
	    v = eval(sys.argv[2], {"j": j})
	    if v is not None:
	        tot += v * j["interval_s"]
	print(round(tot))
	EOF
}

last() {
	tail -n 1 "${2:-t.json}" >last.json && json_get last.json "$1"
}

mon_web1() {
	mon "$1" 00 3145728 2000000000 1500000000 &&
	mon "$1" 01 1048576 1000000000 250000000
}

top_check_web1() {
	f=${1:-t.json}
	test "$(last "$TOP_VM[\"llc_occupancy_bytes\"]" "$f")" = 4194304 &&
	test "$(sum_bytes "$TOP_VM[\"mbm_total_bytes_per_s\"]" "$f")" = 3000000000 &&
	test "$(sum_bytes "$TOP_VM[\"mbm_local_bytes_per_s\"]" "$f")" = 1750000000 &&
	test "$(last "j[\"resctrl\"]" "$f")" = True &&
	test "$(last "$TOP_N0[\"llc_occupancy_bytes\"]" "$f")" = 3145728 &&
	test "$(last "$TOP_N1[\"llc_occupancy_bytes\"]" "$f")" = 1048576 &&
	test "$(sum_bytes "$TOP_N0[\"mbm_total_bytes_per_s\"]" "$f")" = 2000000000 &&
	test "$(sum_bytes "$TOP_N0[\"mbm_local_bytes_per_s\"]" "$f")" = 1500000000 &&
	test "$(sum_bytes "$TOP_N1[\"mbm_total_bytes_per_s\"]" "$f")" = 1000000000 &&
	test "$(sum_bytes "$TOP_N1[\"mbm_local_bytes_per_s\"]" "$f")" = 250000000
}

DIAG_N0='[n for n in j["diagnosis"]["nodes"] if n["node"] == 0][0]["resctrl"]'
DIAG_N1='[n for n in j["diagnosis"]["nodes"] if n["node"] == 1][0]["resctrl"]'

diag_check_web1() {
	test "$(json_get "$1" "$DIAG_N0[\"llc_occupancy_bytes\"]")" = 3145728 &&
	test "$(json_get "$1" "$DIAG_N1[\"llc_occupancy_bytes\"]")" = 1048576 &&
	test "$(json_get "$1" "round($DIAG_N0[\"mbm_total_gbs\"] * j[\"duration_s\"] * 1e9)")" = 2000000000 &&
	test "$(json_get "$1" "round($DIAG_N0[\"mbm_local_gbs\"] * j[\"duration_s\"] * 1e9)")" = 1500000000 &&
	test "$(json_get "$1" "round($DIAG_N1[\"mbm_total_gbs\"] * j[\"duration_s\"] * 1e9)")" = 1000000000 &&
	test "$(json_get "$1" "round($DIAG_N1[\"mbm_local_gbs\"] * j[\"duration_s\"] * 1e9)")" = 250000000 &&
	test "$(json_get "$1" "$DIAG_N0[\"why\"]")" = None
}

diag_text_web1() {
	grep_q "^  node 0 (CPUs 0-1): " "$1" &&
	grep_q "^    resctrl, the VMs. groups on its L3: LLC occupancy 3.0 MiB, memory traffic [0-9.]* GB/s (local [0-9.]* GB/s)$" "$1" &&
	grep_q "^    resctrl, the VMs. groups on its L3: LLC occupancy 1.0 MiB, " "$1"
}
