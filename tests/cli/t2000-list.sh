#!/bin/sh
# t2000-list.sh - `vmmprof list`: kinds, patterns, JSON, fixture roots
. "$(dirname "$0")/lib.sh"

ICX=$VP_DATA/root/icx-2s

test_expect_success 'list names the generic and software events (--all: those that cannot open too)' '
	vmmprof list --all >out &&
	grep_q "^software events:" out &&
	grep_q "^  task-clock " out &&
	grep_q "^  cycles OR cpu-cycles " out &&
	grep_q "^  LLC-load-misses " out
'

test_expect_success 'list without --all: only the hardware events that open here, the rest counted in a note' '
	vmmprof list --all --json >all.json && vmmprof list --json >here.json &&
	python3 - all.json here.json <<-PY
	import json, os, sys
	a = json.load(open(sys.argv[1])); h = json.load(open(sys.argv[2]))
	hw = [e for e in a["events"] if e["kind"] in ("hardware", "hw_cache")]
	assert hw and all(e["openable"] in (True, False) for e in hw), hw[:3]
	shut = [e["name"] for e in hw if not e["openable"]]
	listed = [e["name"] for e in h["events"] if e["kind"] in ("hardware", "hw_cache")]
	assert listed == [e["name"] for e in hw if e["openable"]], (listed, shut)
	note = [n for n in h["notes"] if "cannot be opened here" in n]
	if shut:
	    assert note and note[0].startswith("%d generic hardware event" % len(shut)), (note, len(shut))
	else:
	    assert not note, note
	# no core PMU in sysfs (as on these test machines): none of them can open
	d = "/sys/bus/event_source/devices"
	core = [p for p in os.listdir(d) if p in ("cpu", "cpu_core", "cpu_atom") or p.startswith("armv")]
	if not core:
	    assert len(shut) == len(hw), (len(shut), len(hw))
	PY
'

test_expect_success 'a PATTERN keeps matching names only (substring, case-insensitive)' '
	vmmprof list CONTEXT-sw >out &&
	grep_q "context-switches" out &&
	! grep -q "task-clock" out
'

test_expect_success 'a glob PATTERN matches whole names' '
	vmmprof list "*-faults" >out &&
	grep_q "^  major-faults " out &&
	! grep -q "page-faults OR" out
'

test_expect_success 'list --json is valid JSON with kinds' '
	vmmprof list --all --json >out.json &&
	test "$(json_get out.json "[e[\"kind\"] for e in j[\"events\"] if e[\"name\"]==\"task-clock\"][0]")" = software &&
	test "$(json_get out.json "[e[\"kind\"] for e in j[\"events\"] if e[\"name\"]==\"LLC-loads\"][0]")" = hw_cache
'

test_expect_success 'sysfs aliases of a fixture: one name per uncore family, with instances, scale, unit' '
	vmmprof list --root "$ICX" --json cas_count >out.json &&
	test "$(json_get out.json "len(j[\"events\"])")" = 2 &&
	test "$(json_get out.json "j[\"events\"][0][\"name\"]")" = uncore_imc/cas_count_read/ &&
	test "$(json_get out.json "j[\"events\"][0][\"instances\"]")" = 12 &&
	test "$(json_get out.json "j[\"events\"][0][\"encoding\"]")" = event=0x04,umask=0x0f &&
	test "$(json_get out.json "j[\"events\"][0][\"unit\"]")" = MiB &&
	test "$(json_get out.json "j[\"events\"][0][\"scale\"]")" = 6.103515625e-05
'

test_expect_success 'text listing of a fixture shows the alias encoding and says libpfm4 is not used' '
	vmmprof list --root "$ICX" cas_count_read >out &&
	grep_q "uncore_imc/cas_count_read/ *event=0x04,umask=0x0f (12 instances) \[scale 6.10352e-05 MiB\]" out &&
	grep_q "libpfm4 events are listed for this machine only" out
'

test_expect_success 'fixture tracepoints are listed' '
	vmmprof list --root "$ICX" "sched:*" >out &&
	grep_q "^  sched:sched_switch" out &&
	grep_q "^  sched:sched_wakeup" out &&
	! grep -q kvm_exit out
'

if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
   [ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ]; then
	test_expect_success 'this machine: tracepoints are listed' '
		vmmprof list sched:sched_switch >out &&
		grep_q "^  sched:sched_switch" out
	'
else
	test_skip 'this machine: tracepoints are listed' 'tracefs is not mounted'
fi

test_expect_success 'list pmus shows type, cpumask and counts' '
	vmmprof list pmus --root "$ICX" >out &&
	grep_q "^uncore_imc_0 *10 *0,40 *5 *3" out &&
	grep_q "^cpu *4 *- " out &&
	vmmprof list pmus --root "$ICX" --json >out.json &&
	test "$(json_get out.json "[p[\"formats\"][\"umask\"] for p in j[\"pmus\"] if p[\"name\"]==\"uncore_cha_0\"][0]")" = config:8-15,32-57
'

test_expect_success 'list pmus with a pattern' '
	vmmprof list pmus --root "$ICX" upi >out &&
	test "$(grep -c "^uncore_upi_" out)" = 3 &&
	! grep -q uncore_imc out
'

test_expect_success 'libpfm4 events of the detected core PMU are listed (forced to skx)' '
	LIBPFM_FORCE_PMU=skx vmmprof list MEM_LOAD_L3_MISS_RETIRED >out &&
	grep_q "^libpfm4 events of this machine" out &&
	grep_q "^  skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM " out &&
	LIBPFM_FORCE_PMU=skx vmmprof list --encode --json MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM >out.json &&
	test "$(json_get out.json "j[\"events\"][0][\"config\"]")" = 0x2d3
'

test_expect_success 'an unknown libpfm4 name says which table was searched' '
	expect_exit 1 env LIBPFM_FORCE_PMU=skx "$VMMPROF" list --encode MEM_LOAD_X 2>err &&
	grep_q "event .MEM_LOAD_X.: unknown event at column 1 (not in libpfm4.s .skx. table)" err
'

test_expect_success 'unknown option, extra argument, missing root: usage errors and runtime error' '
	expect_exit 2 vmmprof list --frob 2>err && grep_q "unknown option" err &&
	expect_exit 2 vmmprof list events a b 2>err && grep_q "unexpected argument .b." err &&
	expect_exit 1 vmmprof list --root /no/such/dir 2>err && grep_q "cannot use root" err
'

test_done
