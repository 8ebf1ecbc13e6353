# checks-aarch64.sh - the aarch64 guest's checks: topology, and counting
# exactness against QEMU's emulated Neoverse N1 PMU, which under -icount
# counts every retired instruction.  Runs as /vmtest/checks.sh.
. ./vmtest.sh

vt_topology

N=$(vt_arg loop)
# loop-aarch64.S retires 4*N + 7*D + 13 user-mode instructions (D digits)
want=$((4 * N + 7 * ${#N} + 13))

pmu=$(ls -d /sys/bus/event_source/devices/armv8_pmuv3* 2>/dev/null | head -n 1)
if [ -n "$pmu" ]; then
	vt_ok pmu/present "$(basename "$pmu") type $(cat "$pmu/type")"
else
	vt_fail pmu/present "no armv8_pmuv3 PMU in /sys/bus/event_source/devices"
fi
pmu=$(basename "${pmu:-armv8_pmuv3}")
echo "VMDATA pmutype $(cat "/sys/bus/event_source/devices/$pmu/type" 2>/dev/null || echo null)"

# Event resolution in the guest, judged on the host (eval.py): the ARM
# architecture's INST_RETIRED is event 0x08, through libpfm4 and sysfs.
if vt_has list; then
	vt_data encode vmmprof list --encode --json INST_RETIRED "$pmu/event=0x08/" instructions:u ||
		vt_fail list/encode "vmmprof list --encode failed: $(head -c 200 /tmp/vt_data.err)"
else
	vt_skip list/encode "'vmmprof list --encode' is not on main yet (issue 3)"
fi

# Counted workloads run on CPU 0 while CPU 1 idles.  Under -icount QEMU's
# instruction count is one clock for all vCPUs: a loop on CPU 1 counted
# 0.05-0.1 % too many (what CPU 0 retired meanwhile), on CPU 0 exactly.
on0="taskset -c 0"

# The testbed's own ground truth: one raw perf_event_open counts the loop.
got=$($on0 ./pmucount ./loop "$N" 2>&1 | awk '/^instructions/ { print $2 }')
if [ "$got" = "$want" ]; then
	vt_ok pmu/exact-raw "perf_event_open counts $got = 4*$N+7*${#N}+13 exactly"
elif vt_within "$got" "$want" 1; then
	vt_ok pmu/exact-raw "perf_event_open counts $got, want $want (within 0.1 %)"
else
	vt_fail pmu/exact-raw "perf_event_open counts '$got', want $want"
fi

if ! vt_want stat; then
	:
elif ! vt_has stat; then
	r="'vmmprof stat' is not on main yet (issue 3)"
	for c in instructions-generic instructions-libpfm instructions-sysfs group-of-two per-thread per-cpu \
		per-node multiplex child-only; do
		vt_skip "stat/$c" "$r"
	done
else
	# st OUT ARGS...: vmmprof stat -x, pinned to CPU 0 (its command too)
	st() {
		o=$1
		shift
		$on0 vmmprof stat -x, -o "$o" "$@" >/tmp/st.out 2>&1 ||
			{ echo "vmmprof stat $*: $(head -c 300 /tmp/st.out)" >"$o.err"; return 1; }
	}
	# vals FILE: the counted values, one a line, in the order printed;
	# pcts FILE: the share of the run each was on a counter
	vals() { awk -F, '$1 ~ /^[0-9][0-9.]*$/ { print $1 }' "$1"; }
	pcts() { awk -F, '$1 ~ /^[0-9][0-9.]*$/ { print $5 }' "$1"; }
	# all_within FILE WANT PERMILLE: every value within the tolerance
	all_within() {
		[ -n "$(vals "$1")" ] || return 1
		for v in $(vals "$1"); do vt_within "$v" "$2" "$3" || return 1; done
	}
	show() { tr '\n' ' ' <"$1" | cut -c1-300; cat "$1.err" 2>/dev/null; }

	for c in "instructions-generic instructions:u" "instructions-libpfm INST_RETIRED:u" \
		"instructions-sysfs $pmu/event=0x08/u"; do
		set -- $c
		if st /tmp/s1 -e "$2" -- ./loop "$N" && all_within /tmp/s1 "$want" 1 &&
		   [ "$(vals /tmp/s1 | wc -l)" -eq 1 ]; then
			vt_ok "stat/$1" "$2 = $(vals /tmp/s1), want $want"
		else
			vt_fail "stat/$1" "$2: want one count of $want within 0.1 %: $(show /tmp/s1)"
		fi
	done

	# the same event through two paths, in one group: both exact, both
	# on a counter the whole run
	if st /tmp/s2 -e "{instructions:u,$pmu/event=0x08/u}" -- ./loop "$N" &&
	   all_within /tmp/s2 "$want" 1 && [ "$(vals /tmp/s2 | wc -l)" -eq 2 ]; then
		vt_ok stat/group-of-two "$(vals /tmp/s2 | tr '\n' ' ')want $want"
	else
		vt_fail stat/group-of-two "want two counts of $want within 0.1 %: $(show /tmp/s2)"
	fi

	# -t: attach to a thread waiting at a gate, then open the gate; after
	# it, gate retires 4*N and a few dozen more
	rm -f /tmp/gate
	mkfifo /tmp/gate
	$on0 ./gate /tmp/gate "$N" &
	gp=$!
	(st /tmp/s3 -t "$gp" -e instructions:u) &
	sp=$!
	i=0
	# open the gate once vmmprof holds a perf_event descriptor
	while [ $i -lt 300 ]; do
		sp_child=$(pgrep -n -x vmmprof)
		[ -n "$sp_child" ] && ls -l /proc/"$sp_child"/fd 2>/dev/null | grep -q perf_event && break
		i=$((i + 1))
		sleep 0.1
	done
	sleep 0.2
	echo x >/tmp/gate
	wait "$gp"
	wait "$sp"
	wg=$((4 * N))
	if all_within /tmp/s3 "$wg" 1 && [ "$(vals /tmp/s3)" -ge "$wg" ]; then
		vt_ok stat/per-thread "-t: $(vals /tmp/s3), want $wg + a few dozen"
	else
		vt_fail stat/per-thread "-t: want $wg + a few dozen: $(show /tmp/s3)"
	fi

	# -C 0: everything on CPU 0 while the loop runs is the loop, save
	# vmmprof's own few instructions around it
	if st /tmp/s4 -C 0 -e instructions:u -- ./loop "$N" && all_within /tmp/s4 "$want" 1 &&
	   [ "$(vals /tmp/s4)" -ge "$want" ]; then
		vt_ok stat/per-cpu "-C 0: $(vals /tmp/s4), want $want"
	else
		vt_fail stat/per-cpu "-C 0: want >= $want within 0.1 %: $(show /tmp/s4)"
	fi

	# --per-node on the guest's two nodes (CPU 0 / CPU 1): one row each,
	# "N0,1,..." and "N1,1,..."; the loop on CPU 0 is counted on N0 as -C 0
	# counts it, and node 1's idle CPU retired fewer user instructions
	if st /tmp/s8 -a --per-node -e instructions:u -- ./loop "$N" &&
	   awk -F, -v w="$want" '$1 == "N0" && $2 == 1 && $3 >= w && $3 <= w * 1.001 { a = $3 }
		$1 == "N1" && $2 == 1 { b = $3 } END { exit !(a && b != "" && b < a) }' /tmp/s8 &&
	   [ "$(grep -c '^N[0-9]' /tmp/s8)" -eq 2 ]; then
		vt_ok stat/per-node "$(grep '^N' /tmp/s8 | cut -d, -f1-3 | tr '\n' ' ')want N0 >= $want within 0.1 %"
	else
		vt_fail stat/per-node "want N0,1 >= $want within 0.1 % and N1,1 below it: $(show /tmp/s8)"
	fi

	# more events than the PMU has counters: the kernel says how many it
	# found ("hw perfevents: enabled with armv8_pmuv3 PMU driver, K
	# counters available", the cycle counter among them, which counts only
	# cycles); K instruction counters take turns on K-1; each scaled count
	# within 5 % of the exact value, and the scaling shown (< 100 %)
	k=$(dmesg | sed -n 's/.*armv8_pmuv3.*, \([0-9]*\) counters available.*/\1/p' | head -n 1)
	M=$((5 * N))
	wm=$((4 * M + 7 * ${#M} + 13))
	e=""
	i=0
	while [ "$i" -lt "${k:-0}" ]; do
		case $((i % 3)) in
		0) e="$e${e:+,}instructions:u" ;;
		1) e="$e${e:+,}INST_RETIRED:u" ;;
		2) e="$e${e:+,}$pmu/event=0x08/u" ;;
		esac
		i=$((i + 1))
	done
	if [ -z "$k" ]; then
		vt_fail stat/multiplex "the kernel log does not say how many counters the PMU has"
	elif st /tmp/s5 -e "$e" -- ./loop "$M" && all_within /tmp/s5 "$wm" 50 &&
	   [ "$(vals /tmp/s5 | wc -l)" -eq "$k" ] && pcts /tmp/s5 | awk '$1 < 99.99 { n++ } END { exit !n }'; then
		vt_ok stat/multiplex "$k events on $((k - 1)) counters: scaled $(vals /tmp/s5 | tr '\n' ' ')on counters $(pcts /tmp/s5 | tr '\n' ' ')%, want $wm"
	else
		vt_fail stat/multiplex "want $k scaled counts of $wm within 5 %, some below 100 %: $(show /tmp/s5)"
	fi

	# a second loop on the same CPU meanwhile is not the child's
	$on0 ./loop 4000000000 &
	np=$!
	if st /tmp/s6 -e instructions:u -- ./loop "$N" && all_within /tmp/s6 "$want" 1; then
		vt_ok stat/child-only "$(vals /tmp/s6) with another loop on CPU 0, want $want"
	else
		vt_fail stat/child-only "want $want within 0.1 % with another loop on CPU 0: $(show /tmp/s6)"
	fi
	kill "$np" 2>/dev/null
	wait "$np" 2>/dev/null
fi
# Model sanity: the model chosen here (Neoverse N1) and the generic vPMU
# model, run by vmmprof diagnose over a running loop; judged on the host.
if ! vt_want diagnose; then
	:
elif vt_has diagnose; then
	for m in auto vpmu; do
		$on0 ./loop 100000000000 &
		lp=$!
		if [ $m = auto ]; then
			vt_data "diag-model-$m" vmmprof diagnose -p "$lp" -d 2 --json
		else
			vt_data "diag-model-$m" vmmprof diagnose -p "$lp" -d 2 -m "$m" --json
		fi || vt_fail "model/$m" "vmmprof diagnose failed: $(head -c 200 /tmp/vt_data.err)"
		kill "$lp"
		wait "$lp" 2>/dev/null
	done
else
	vt_skip model/auto "'vmmprof diagnose' is not on main yet (issue 9)"
	vt_skip model/vpmu "'vmmprof diagnose' is not on main yet (issue 9)"
fi

# vmmprof verify: every factor's check on this guest, judged on the host
# (eval.py check_verify).  Exit 1 (a check failed) still prints the JSON.
if ! vt_want verify; then
	:
elif vt_has verify; then
	vt_data verify $on0 vmmprof verify --json
	rc=$?
	[ $rc -le 1 ] || vt_fail verify/run "vmmprof verify exited $rc: $(head -c 200 /tmp/vt_data.err)"
else
	vt_skip verify/run "'vmmprof verify' is not in this build"
fi
