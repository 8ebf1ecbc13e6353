#!/bin/sh
# t8002-bench-contention.sh - false sharing is slower than padded counters,
# loaded latency rises with load, k chains overlap their misses.  Shared noisy
# machines: each figure gets three tries, and must hold in one of them.
. "$(dirname "$0")/lib.sh"

ncpu=$(nproc)

# try3 SCENARIO PYTHON-CONDITION: run the scenario up to three times.
try3() {
	for i in 1 2 3; do
		vmmprof bench "$1" --quick --json -q >r.json || return 1
		json_get r.json "$2" >ok || return 1
		grep -q True ok && return 0
		echo "try $i: $(json_get r.json "$3")"
	done
	return 1
}

if [ "$ncpu" -ge 2 ]; then
	# False sharing costs only while both threads run at once.  On an
	# overcommitted host they may seldom do; each thread's CPU time / wall
	# time says how much it ran.  If every try had a thread under half of
	# its CPU, the test says so as a skip instead of passing or failing on
	# noise.
	verdict=fail
	cd "$TRASH"
	for i in 1 2 3; do
		vmmprof bench sharing --quick --json -q >r.json || break
		s="j[\"scenarios\"][\"sharing\"]"
		if [ "$(json_get r.json "$s[\"false_ns\"] >= 1.2 * $s[\"padded_ns\"]")" = True ]; then
			verdict=pass
			break
		fi
		share=$(json_get r.json "int(100 * ($s[\"cpu_share\"] or 0))")
		echo "# try $i: padded $(json_get r.json "$s[\"padded_ns\"]") false $(json_get r.json "$s[\"false_ns\"]") ns, threads ran ${share} % of the time"
		[ "$share" -lt 50 ] && verdict=busy || verdict=fail
	done
	cd - >/dev/null
	if [ "$verdict" = busy ]; then
		test_skip 'false sharing is slower than padded counters (>= 1.2x)' \
			"the sharing threads ran only ${share} % of the time: host too busy for lines to bounce"
	else
		test_expect_success 'false sharing is slower than padded counters (>= 1.2x)' '
			test "$verdict" = pass
		'
	fi

	test_expect_success 'one package: the cross-socket core-to-core latency is n/a with a reason' '
		if [ "$(json_get r.json "j[\"machine\"][\"packages\"]")" = 1 ]; then
			json_get r.json "j[\"scenarios\"][\"sharing\"][\"c2c_cross_package_ns\"]" >x &&
			grep_q None x &&
			json_get r.json "j[\"scenarios\"][\"sharing\"][\"c2c_note\"]" >note &&
			grep_q "one package" note
		fi
	'

	test_expect_success 'loaded latency rises with load (top load >= 1.05x idle)' '
		try3 bandwidth "max(p[\"lat_ns\"] for p in j[\"scenarios\"][\"bandwidth\"][\"loaded\"][1:]) >= 1.05 * j[\"scenarios\"][\"bandwidth\"][\"idle_ns\"]" \
			"[(p[\"bw_gbs\"], p[\"lat_ns\"]) for p in j[\"scenarios\"][\"bandwidth\"][\"loaded\"]]"
	'
else
	test_skip 'false sharing is slower than padded' 'one CPU'
	test_skip 'cross-socket n/a' 'one CPU'
	test_skip 'loaded latency rises with load' 'one CPU: nothing to load with'
fi

test_expect_success 'memory-level parallelism: the miss rate at k = 8 exceeds k = 1 by 1.5x' '
	try3 queue "[p for p in j[\"scenarios\"][\"queue\"][\"points\"] if p[\"k\"] == 8][0][\"misses_per_us\"] >= 1.5 * j[\"scenarios\"][\"queue\"][\"points\"][0][\"misses_per_us\"]" \
		"[(p[\"k\"], p[\"misses_per_us\"]) for p in j[\"scenarios\"][\"queue\"][\"points\"]]"
'

test_expect_success 'imc and llc run and state what they bound where' '
	vmmprof bench imc --time 1 --quick -q >imc.txt &&
	grep_q "bound: packed: read streams on CPUs" imc.txt &&
	vmmprof bench llc --time 1 --quick -q >llc.txt &&
	grep_q "bound: victim: chaser on CPU" llc.txt &&
	grep_q "slowdown per co-runner" llc.txt
'

test_done
