#!/bin/sh
# t8003-calibrate.sh - calibrate writes a file the loader reads back; corrupt,
# truncated and foreign files are refused or warned about
. "$(dirname "$0")/lib.sh"

# --force: on a busy or time-shared machine the checks may fail (t8004 tests them)
test_expect_success 'calibrate -o writes a calibration with reasons for what it cannot measure' '
	vmmprof calibrate --quick --time 3 -q --force -o cal.json >out 2>err &&
	grep_q "calibration written to .cal.json." out &&
	json_get cal.json "j[\"format\"]" >f && grep_q "^vmmprof-calibration$" f &&
	json_get cal.json "j[\"values\"][\"lat_local_ns\"] > 0" >ok && grep_q True ok &&
	json_get cal.json "j[\"values\"][\"peak_bw_gbs\"] > 0" >ok && grep_q True ok &&
	json_get cal.json "j[\"machine\"][\"cpus\"]" >c && test "$(cat c)" = "$(nproc)"
'

if [ "$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)" -eq 1 ]; then
	test_expect_success 'one node: remote latency is null with the reason' '
		json_get cal.json "j[\"values\"][\"lat_remote_ns\"]" >v && grep_q None v &&
		json_get cal.json "j[\"reasons\"][\"lat_remote_ns\"]" >r && grep_q "one NUMA node" r &&
		json_get cal.json "j[\"values\"][\"migrate_gbs\"]" >v && grep_q None v &&
		json_get cal.json "j[\"reasons\"][\"migrate_gbs\"]" >r &&
		grep_q "one NUMA node: no page to move between nodes" r
	'
	test_skip 'several nodes: the page migration rate is measured' 'one NUMA node here'
else
	test_skip 'one node: remote latency is null' 'several NUMA nodes here'
	test_expect_success 'several nodes: the page migration rate is measured (move_pages)' '
		json_get cal.json "j[\"values\"][\"migrate_gbs\"] > 0" >ok && grep_q True ok
	'
fi

test_expect_success 'calibrate --show reads it back' '
	vmmprof calibrate --show cal.json >show 2>err &&
	grep_q "cal.lat_local_ns" show && grep_q "checks: " show && ! grep -q warning err
'

test_expect_success 'a truncated file is refused with file:line:col' '
	head -c 200 cal.json >trunc.json &&
	expect_exit 1 vmmprof calibrate --show trunc.json 2>err &&
	grep_q "trunc.json:[0-9]*:[0-9]*: unexpected end of input" err
'

test_expect_success 'a corrupt field is refused with file:line:col' '
	sed "s/\"version\": 1/\"version\": \"one\"/" cal.json >bad.json &&
	expect_exit 1 vmmprof calibrate --show bad.json 2>err &&
	grep_q "bad.json:3:14: field .version. should be a number" err
'

test_expect_success 'a calibration from another machine is flagged' '
	sed "s/\"cpus\": [0-9]*/\"cpus\": 4096/" cal.json >foreign.json &&
	vmmprof calibrate --show foreign.json >show 2>err &&
	grep_q "warning: calibration was made on another machine: 4096 CPUs there" err
'

test_expect_success 'the default path is under XDG_CONFIG_HOME' '
	XDG_CONFIG_HOME=$PWD/cfg vmmprof calibrate --quick --time 2 -q --force >out 2>err &&
	test -s cfg/vmmprof/calibration.json
'

# every command that reads a calibration keys it to this machine the same way
# calibrate does: a file made here is used by stat -m and diagnose, from -o or
# from the default path, and a foreign one is not
test_expect_success 'stat -m and diagnose use a calibration made here (named and default)' '
	vmmprof stat -m software --calibration cal.json -- true 2>err &&
	! grep -q "no calibration\|not used" err &&
	XDG_CONFIG_HOME=$PWD/cfg vmmprof stat -m software -- true 2>err &&
	! grep -q "no calibration\|not used" err &&
	vmmprof diagnose --calibration cal.json --duration 0.3 -p $$ >out 2>err &&
	grep_q "calibration .cal.json." out &&
	XDG_CONFIG_HOME=$PWD/cfg vmmprof diagnose --duration 0.3 -p $$ >out 2>err &&
	grep_q "calibration .*cfg/vmmprof/calibration.json." out &&
	! grep -q "not used" out
'

test_expect_success 'a foreign calibration is not used, and stat -m and diagnose say why' '
	vmmprof stat -m software --calibration foreign.json -- true 2>err &&
	grep_q "not used: calibration was made on another machine: 4096 CPUs there" err &&
	vmmprof diagnose --calibration foreign.json --duration 0.3 -p $$ >out 2>err &&
	grep_q "not used: calibration was made on another machine: 4096 CPUs there" out
'

test_expect_success 'a named calibration that cannot be read is an error; a missing default is a note' '
	expect_exit 1 vmmprof stat -m software --calibration trunc.json -- true 2>err &&
	grep_q "trunc.json:[0-9]*:[0-9]*: unexpected end of input" err &&
	expect_exit 1 vmmprof diagnose --calibration nosuch.json --duration 0.3 -p $$ 2>err &&
	grep_q "nosuch.json" err &&
	XDG_CONFIG_HOME=$PWD/empty vmmprof stat -m software -- true 2>err &&
	grep_q "no calibration: cannot open .*empty/vmmprof/calibration.json" err
'

test_done
