#!/bin/sh
# t3080-stat-aggr.sh - stat -a with -A, --per-core, --per-socket, --per-node:
# one line per CPU, core, package or node, labelled and counted as perf does
# (CPU3, S0-D0-C1, S0, N0, then the number of CPUs summed).  The groups come
# from sysfs here (cpuN/topology/*, cpuN/nodeM, cpuN/cache/index*: --per-die
# S0-D0, --per-cache S0-D0-L3-ID0 with the last-level cache's first CPU as
# its id, as perf numbers it); cpu-clock counts wall time
# on every CPU, so each group's count is its CPUs times the time elapsed.
. "$(dirname "$0")/lib.sh"

cd "$TRASH" || exit 1
SYS=/sys/devices/system/cpu
online=$(cat $SYS/online)
# cpus: the online CPUs, one per line
expand() { echo "$1" | tr ',' '\n' | awk -F- '{ e = NF > 1 ? $2 : $1; for (c = $1; c <= e; c++) print c }'; }
expand "$online" >cpus
# node_of CPU: its cpuN/nodeM link
node_of() { for d in $SYS/cpu$1/node*; do [ -e "$d" ] && basename "$d" | sed 's/node//'; done | head -n 1; }
topo() { cat "$SYS/cpu$1/topology/$2" 2>/dev/null || echo 0; }
# llc CPU: "LEVEL FIRST" of the highest data or unified cache of the CPU
llc() {
	for d in $SYS/cpu$1/cache/index*; do
		[ "$(cat "$d/type")" = Instruction ] && continue
		echo "$(cat "$d/level") $(expand "$(cat "$d/shared_cpu_list")" | sort -n | head -n 1)"
	done | sort -n | tail -n 1
}

# want.ID: "ID,CPUS" lines, sorted, from sysfs (the groups perf makes)
while read -r c; do
	echo "N$(node_of "$c")" >>node.ids
	echo "S$(topo "$c" physical_package_id)" >>socket.ids
	echo "S$(topo "$c" physical_package_id)-D$(topo "$c" die_id)-C$(topo "$c" core_id)" >>core.ids
	echo "S$(topo "$c" physical_package_id)-D$(topo "$c" die_id)" >>die.ids
	set -- $(llc "$c")
	echo "S$(topo "$c" physical_package_id)-D$(topo "$c" die_id)-L$1-ID$2" >>cache.ids
	echo "CPU$c" >>cpu.ids
done <cpus
for k in node socket core die cache; do sort "$k.ids" | uniq -c | awk '{ print $2 "," $1 }' >want.$k; done
sort cpu.ids >want.cpu

# got FILE: "ID,CPUS" of each cpu-clock line of stat -x, output (ID,CPUS,value,unit,event,...)
got() {
	awk -F, '$5 == "cpu-clock" { print $1 "," $2 }' "$1" | sort
}

for m in node socket core die cache; do
	test_expect_success "--per-$m: one line per $m, with its CPUs counted (sysfs)" '
		vmmprof stat -a --per-'$m' -x, -e cpu-clock -- sleep 0.3 2>out &&
		got out >got && diff -u want.'$m' got
	'
done

test_expect_success '-A: one line per online CPU, no CPU count' '
	vmmprof stat -a -A -x, -e cpu-clock -- sleep 0.3 2>out &&
	awk -F, "\$4 == \"cpu-clock\" { print \$1 }" out | sort >got &&
	diff -u want.cpu got
'

# Each CPU counts cpu-clock for as long as the counters were on: at least
# the command's 500 ms, at most the time vmmprof ran (which a loaded machine
# stretches: fork, exec and wait take longer), timed around it here.
test_expect_success 'cpu-clock per node: its CPUs x the time elapsed (within 10 %)' '
	t0=$(date +%s%N) &&
	vmmprof stat -a --per-node -x, -e cpu-clock -- sleep 0.5 2>out &&
	wall=$(( ($(date +%s%N) - t0) / 1000000 )) &&
	awk -F, -v wall="$wall" "\$5 == \"cpu-clock\" { n = \$2; ms = \$3; if (ms < 0.9 * n * 500 || ms > 1.1 * n * wall + 30) { print \$1 \": \" ms \" ms for \" n \" CPUs, \" wall \" ms of wall time\"; bad = 1 } seen++ } END { exit bad || !seen }" out
'

test_expect_success 'aggregates come one by one with every event; -A goes event by event (perf 6.1)' '
	vmmprof stat -a --per-socket -x, -e cpu-clock,task-clock -- sleep 0.2 2>out &&
	awk -F, "{ print \$1 \",\" \$5 }" out >order &&
	first=$(head -n 1 want.socket | cut -d, -f1) &&
	test "$(sed -n 1p order)" = "$first,cpu-clock" &&
	test "$(sed -n 2p order)" = "$first,task-clock" &&
	vmmprof stat -a -A -x, -e cpu-clock,task-clock -- sleep 0.2 2>out &&
	n=$(wc -l <want.cpu) &&
	test "$(awk -F, "NR <= $n { print \$4 }" out | sort -u)" = cpu-clock
'

test_expect_success 'the table: "N0        2" before the count, CSV fields, --json keys, -I header' '
	vmmprof stat -a --per-node -e cpu-clock -- sleep 0.2 2>out &&
	first=$(head -n 1 want.node) && id=${first%,*} && nc=${first#*,} &&
	grep -q "^$(printf "%-6s %4d " "$id" "$nc") *[0-9.,]* msec cpu-clock" out &&
	vmmprof stat -a --per-node --json -e cpu-clock -- sleep 0.2 2>j &&
	test "$(tail -n 1 j | python3 -c "import json, sys; e = json.load(sys.stdin)[\"events\"][0]; print(e[\"node\"], e[\"cpus\"])")" = "$id $nc" &&
	vmmprof stat -a --per-node -I 100 -e cpu-clock -- sleep 0.25 2>out &&
	head -n 1 out >hdr &&
	grep -qx "#           time node   cpus             counts unit events" hdr
'

test_expect_success '--per-die and --per-cache: perf labels in 12 and 22 columns, JSON keys die and cache' '
	first=$(head -n 1 want.die) && id=${first%,*} && nc=${first#*,} &&
	vmmprof stat -a --per-die -e cpu-clock -- sleep 0.2 2>out &&
	grep -q "^$(printf "%-12s %4d " "$id" "$nc") *[0-9.,]* msec cpu-clock" out &&
	first=$(head -n 1 want.cache) && id=${first%,*} && nc=${first#*,} &&
	vmmprof stat -a --per-cache -e cpu-clock -- sleep 0.2 2>out &&
	grep -q "^$(printf "%-22s %4d " "$id" "$nc") *[0-9.,]* msec cpu-clock" out &&
	vmmprof stat -a --per-cache --json -e cpu-clock -- sleep 0.2 2>j &&
	test "$(tail -n 1 j | python3 -c "import json, sys; e = json.load(sys.stdin)[\"events\"][0]; print(e[\"cache\"], e[\"cpus\"])")" = "$id $nc" &&
	vmmprof stat -a --per-die -I 100 -e cpu-clock -- sleep 0.25 2>out &&
	head -n 1 out | grep -qx "#           time die          cpus             counts unit events"
'

test_expect_success '--per-cache=LEVEL: the last level by name or number; another level says which is known' '
	lvl=$(head -n 1 want.cache | sed "s/.*-L\([0-9]*\)-ID.*/\1/") &&
	vmmprof stat -a --per-cache=L$lvl -x, -e cpu-clock -- true 2>out &&
	vmmprof stat -a --per-cache=$lvl -x, -e cpu-clock -- true 2>out2 &&
	got out >g1 && got out2 >g2 && cut -d, -f1 want.cache >w && cut -d, -f1 g1 >c1 && cut -d, -f1 g2 >c2 &&
	diff -u w c1 && diff -u w c2 &&
	other=$((lvl - 1)) &&
	expect_exit 1 vmmprof stat -a --per-cache=L$other -e cpu-clock -- true 2>err &&
	grep_q "L$other: the topology knows the last-level cache only, L$lvl here" err &&
	expect_exit 2 vmmprof stat -a --per-cache=x3 -e cpu-clock -- true 2>err &&
	grep_q "a cache level as L1, L2, L3" err
'

if command -v perf >/dev/null 2>&1 && perf stat -a -e cpu-clock true >/dev/null 2>&1; then
	test_expect_success 'the same groups, labels and CPU counts as perf stat in the same run' '
		for a in --per-node --per-socket --per-core -A --per-die --per-cache; do
			# an older perf without --per-die or --per-cache: that mode is not compared
			perf stat -a $a -x, -e cpu-clock -- sleep 0.1 2>p || continue
			vmmprof stat -a $a -x, -e cpu-clock -- sleep 0.1 2>v || return 1
			if [ "$a" = -A ]; then f=1; else f=1,2; fi
			grep cpu-clock p | cut -d, -f$f >p.ids && grep cpu-clock v | cut -d, -f$f >v.ids &&
			diff -u p.ids v.ids || { echo "$a"; return 1; }
		done
	'
else
	test_skip 'the same groups as perf stat' 'perf is not installed or cannot count system-wide'
fi

test_expect_success 'usage errors: no -a/-C, two modes, with -G, -m or -r' '
	expect_exit 2 vmmprof stat --per-node -e cpu-clock -- true 2>err &&
	grep_q "needs -a or -C" err &&
	expect_exit 2 vmmprof stat -a -A --per-core -e cpu-clock -- true 2>err &&
	grep_q "exclude each other" err &&
	expect_exit 2 vmmprof stat -a --per-node -G / -e cpu-clock -- true 2>err &&
	expect_exit 2 vmmprof stat -a --per-node -m software -- true 2>err &&
	expect_exit 2 vmmprof stat -a --per-node -r 2 -- true 2>err
'

test_done
