#!/bin/sh
# t1000-info.sh - `vmmprof info` on this machine: sections, JSON, errors
. "$(dirname "$0")/lib.sh"

test_expect_success 'info prints every section and exits 0' '
	vmmprof info >out &&
	for s in "^CPU$" "^Virtualization$" "^Topology$" "^PMUs " "^Permissions$" "^Factor coverage"; do
		grep_q "$s" out || return 1
	done
'

test_expect_success 'info --json parses and has every section' '
	vmmprof info --json >j &&
	test "$(json_get j "j[\"schema\"]")" = vmmprof-info/2 &&
	for k in cpu virtualization topology pmus permissions resctrl coverage; do
		test "$(json_get j "\"$k\" in j")" = True || { echo "no $k"; return 1; }
	done
'

test_expect_success 'the coverage table names all five factors, text and JSON alike' '
	vmmprof info >out && vmmprof info --json >j &&
	for f in locality llc sharing imc queue; do
		grep_q "^  $f " out || return 1
	done &&
	test "$(json_get j "\",\".join(r[\"factor\"] for r in j[\"coverage\"][\"factors\"])")" = \
		locality,llc,sharing,imc,queue'

test_expect_success 'a root that does not exist: exit 2 and a clear message' '
	expect_exit 2 vmmprof info --root "$TRASH/nope" 2>err &&
	grep_q "root directory .*nope. does not exist" err
'

test_expect_success 'a root that is a file: exit 2' '
	: >afile && expect_exit 2 vmmprof info --root "$TRASH/afile" 2>err &&
	grep_q "not a usable directory" err
'

test_expect_success 'unknown flag: usage on stderr, exit 2' '
	expect_exit 2 vmmprof info --frob 2>err && grep_q "unknown option .--frob." err &&
	grep_q "usage:" err
'

test_expect_success '--root without a value: exit 2' '
	expect_exit 2 vmmprof info --root 2>err && grep_q "needs a value" err
'

test_expect_success 'a stray argument: exit 2' '
	expect_exit 2 vmmprof info extra 2>err && grep_q "unexpected argument .extra." err
'

test_expect_success 'an empty root directory: every section unknown, still exit 0' '
	mkdir empty && vmmprof info --root "$TRASH/empty" >out &&
	grep_q "identity *unknown (cannot open ./proc/cpuinfo.: No such file" out &&
	grep_q "CPUs *unknown (" out &&
	grep_q "inventory *unknown (cannot open directory ./sys/bus/event_source/devices." out &&
	grep_q "perf paranoid *unknown (" out &&
	vmmprof info --root "$TRASH/empty" --json >j &&
	test "$(json_get j "j[\"cpu\"][\"known\"]")" = False &&
	test "$(json_get j "j[\"topology\"][\"known\"]")" = False &&
	test "$(json_get j "j[\"pmus\"][\"known\"]")" = False &&
	test "$(json_get j "j[\"permissions\"][\"perf_event_paranoid\"]")" = None
'

test_done
