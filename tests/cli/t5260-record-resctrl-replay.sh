#!/bin/sh
# t5260-record-resctrl-replay.sh - a recording keeps what the live diagnose
# shows that earlier recordings lost: each VM's memory source (where its
# memory per node comes from) and, with --resctrl, each node's resctrl
# values; `diagnose FILE` and `report FILE` show them as the live command
# does, and a recording without them (an older file) still reads.
#
# Fixture: host-libvirt-v2 with the resctrl overlay (tests/data/resctrl/
# README.md: mon_L3_00 is node 0's L3, mon_L3_01 node 1's).  web1 (pid 1000)
# has one guest RAM mapping in proc/1000/numa_maps (anon=262144 pages, the
# others are far below 32 MiB): N0=196608 pages = 768 MiB, N1=65536 = 256
# MiB, so its memory source is "resident pages of 1 guest RAM mapping
# (numa_maps)" (src/hv/kvm.c).  The test writes web1's group's counters
# while record runs: 3 MiB and 2e9 bytes (1.5e9 local) on domain 0, 1 MiB
# and 1e9 (0.25e9 local) on domain 1.  The group is fresh (counts from 0),
# so over the run node 0 moved 2e9 bytes: GB/s x duration x 1e9 = 2e9.
. "$(dirname "$0")/lib.sh"
# a schema 5 recording made the schema 4 file an earlier vmmprof wrote
TO4="$(cd "$(dirname "$0")" && pwd)/rec-schema-4.py"

model=$VP_DATA/models/good/resctrl.model
G=sys/fs/resctrl/mon_groups
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

. "$(dirname "$0")/resctrl-lib.sh"

if vmmprof record -o "$TRASH/probe.vmmdb" -d 0.1 --root "$VP_DATA/root/host-libvirt-v2" 2>&1 |
	grep -q "built without SQLite"; then
	test_skip 'recordings keep resctrl node values and memory sources' 'built without SQLite'
	test_done
	exit
fi

# diagnose FILE and report FILE find the recorded model by name, here
mkdir -p "$HOME/.config/vmmprof/models" && cp "$model" "$HOME/.config/vmmprof/models/" || exit 1

N0=$DIAG_N0
WEB1='[v for v in j["diagnosis"]["vms"] if v["vm"] == "web1"][0]'
SRC="resident pages of 1 guest RAM mapping (numa_maps)"

test_expect_success 'record --resctrl while the test writes web1 counters' '
	make_root r &&
	{ "$VMMPROF" record --root r -m "$model" -o rec.vmmdb -I 300 -d 2 -q --resctrl 2>err &
	  echo $! >pid; } &&
	p=$(cat pid) &&
	wait_for r/$G/vmmprof-kvm-1000-$p &&
	mon_web1 r/$G/vmmprof-kvm-1000-$p &&
	{ wait $p; test $? = 0; } &&
	test ! -e r/$G/vmmprof-kvm-1000-$p
'

test_expect_success 'diagnose FILE --json: each node L3 values, traffic x duration = bytes written' '
	vmmprof diagnose rec.vmmdb --json >d.json 2>err &&
	diag_check_web1 d.json
'

test_expect_success 'diagnose FILE --json: web1 memory per node and where it comes from' '
	test "$(json_get d.json "$WEB1[\"mem_node_bytes\"]")" = \
		"{'\''0'\'': $((196608 * 4096)), '\''1'\'': $((65536 * 4096))}" &&
	test "$(json_get d.json "$WEB1[\"mem_reason\"]")" = "$SRC"
'

test_expect_success 'the live diagnose shows the same memory source' '
	make_root rl &&
	vmmprof diagnose --root rl -m "$model" -d 0.2 --json >live.json 2>err &&
	test "$(json_get live.json "$WEB1[\"mem_reason\"]")" = "$SRC"
'

test_expect_success 'diagnose FILE and report FILE (text): the resctrl line under each node, the memory source' '
	vmmprof diagnose rec.vmmdb >d.txt 2>err &&
	vmmprof report rec.vmmdb >rep.txt 2>err &&
	for f in d.txt rep.txt; do
		diag_text_web1 $f &&
		grep_q "^  web1 .*node 0 768.*node 1 256.* ($SRC)" $f || return 1
	done
'

test_expect_success 'each distinct reason is stored once (texts), not per row' '
	if ! command -v sqlite3 >/dev/null; then exit 0; fi &&
	test "$(sqlite3 rec.vmmdb "SELECT count(*) FROM texts WHERE text = '\''$SRC'\''")" = 1 &&
	test "$(sqlite3 rec.vmmdb "SELECT count(DISTINCT seq) FROM node_rdt")" = \
		"$(sqlite3 rec.vmmdb "SELECT count(*) FROM frames")"
'

test_expect_success 'record without --resctrl: no node_rdt rows, the node resctrl field is null' '
	make_root r0 &&
	vmmprof record --root r0 -m "$model" -o rec0.vmmdb -I 200 -d 0.5 -q 2>err &&
	vmmprof diagnose rec0.vmmdb --json >d0.json 2>err &&
	test "$(json_get d0.json "$N0")" = None &&
	test "$(json_get d0.json "$WEB1[\"mem_reason\"]")" = "$SRC" &&
	vmmprof diagnose rec0.vmmdb >d0.txt &&
	! grep_q "resctrl, the VMs" d0.txt
'

if ! command -v sqlite3 >/dev/null; then
	test_skip 'an older recording (no texts, node_rdt, mem_reason, rdt_why) still reads' 'no sqlite3 command'
else
	test_expect_success 'an older recording (no texts, node_rdt, mem_reason, rdt_why) still reads' '
		cp rec.vmmdb old.vmmdb &&
		python3 "$TO4" old.vmmdb &&
		sqlite3 old.vmmdb "ALTER TABLE rows DROP COLUMN mem_reason; ALTER TABLE frames DROP COLUMN rdt_why; DROP TABLE node_rdt; DROP TABLE texts;" &&
		vmmprof diagnose old.vmmdb --json >old.json 2>err &&
		test "$(json_get old.json "$N0")" = None &&
		test "$(json_get old.json "$WEB1[\"mem_reason\"]")" = None &&
		test "$(json_get old.json "$WEB1[\"mem_node_bytes\"]")" = \
			"{'\''0'\'': $((196608 * 4096)), '\''1'\'': $((65536 * 4096))}" &&
		vmmprof report old.vmmdb >old.txt 2>err &&
		grep_q "^  web1 .*node 0 768" old.txt &&
		! grep_q "resctrl, the VMs" old.txt
	'
fi

test_done
