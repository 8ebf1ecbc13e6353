# checks-x86_64.sh - the x86_64 NUMA guest's checks: topology as QEMU defined
# it, and locality truth from the kernel's per-node allocation counters for a
# workload of known placement.  Runs as /vmtest/checks.sh under busybox sh.
. ./vmtest.sh

vt_topology

# Locality truth.  mm/page_alloc.c zone_statistics() counts one event per
# page allocation on the node the page came from: numa_hit when that is the
# preferred node (under MPOL_BIND, the bound node) else numa_miss (and
# numa_foreign on the preferred node); local_node when that node is the
# allocating CPU's node, else other_node.  So N pages bound to node 1 and
# touched from a CPU of node 0 add at least N to node 1's numa_hit and
# other_node (not numa_miss: the policy got what it asked for), and leave
# node 0's local_node short of N; with memory on node 0 the reverse.
pages=$(vt_arg pages)
# locality CHECK CPUNODE MEMNODE: one run of numa_touch and its counters.
locality() {
	name=$1
	cn=$2
	mn=$3
	for f in numa_hit numa_miss local_node other_node; do
		eval "b_${f}_m=$(vt_numastat "$mn" $f)"
		eval "b_${f}_c=$(vt_numastat "$cn" $f)"
	done
	out=$(./numa_touch "$cn" "$mn" "$pages" 2>&1)
	for f in numa_hit numa_miss local_node other_node; do
		eval "d_${f}_m=\$(( \$(vt_numastat $mn $f) - b_${f}_m ))"
		eval "d_${f}_c=\$(( \$(vt_numastat $cn $f) - b_${f}_c ))"
	done
	case $out in
	"placed $pages of $pages on node $mn"*) vt_ok "$name/placement" "$out" ;;
	*) vt_fail "$name/placement" "$out"; return ;;
	esac
	if [ "$cn" != "$mn" ]; then
		detail="node$mn numa_hit +$d_numa_hit_m other_node +$d_other_node_m numa_miss +$d_numa_miss_m; node$cn local_node +$d_local_node_c"
		if [ "$d_numa_hit_m" -ge "$pages" ] && [ "$d_other_node_m" -ge "$pages" ] &&
		   [ "$d_local_node_c" -lt "$pages" ]; then
			vt_ok "$name/numastat" "$detail"
		else
			vt_fail "$name/numastat" "want node$mn numa_hit and other_node >= +$pages, node$cn local_node < +$pages: $detail"
		fi
	else
		detail="node$mn numa_hit +$d_numa_hit_m local_node +$d_local_node_m other_node +$d_other_node_m"
		if [ "$d_numa_hit_m" -ge "$pages" ] && [ "$d_local_node_m" -ge "$pages" ] &&
		   [ "$d_other_node_m" -lt "$pages" ]; then
			vt_ok "$name/numastat" "$detail"
		else
			vt_fail "$name/numastat" "want node$mn numa_hit and local_node >= +$pages, other_node < +$pages: $detail"
		fi
	fi
}
locality locality-remote 0 1
locality locality-local 0 0
# vmmprof's locality factor for the same workloads, running: numa_touch
# keeps reading its pages from node 0's CPU while vmmprof diagnose -p
# watches it.  The host judges the JSON (eval.py) against the share of the
# process's resident memory that its PAGES bound pages make (VmRSS).
if vt_has diagnose; then
	for c in "remote 1" "local 0"; do
		set -- $c
		./numa_touch 0 "$2" "$pages" 12 >/tmp/nt.out 2>&1 &
		np=$!
		i=0
		while ! grep -q placed /tmp/nt.out && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		echo "VMDATA diag-$1-rss $(awk '/^VmRSS/ { print $2 }' /proc/$np/status)"
		vt_data "diag-$1" vmmprof diagnose -p "$np" -d 3 --json ||
			vt_fail "locality/vmmprof-factor-$1" "vmmprof diagnose failed: $(head -c 200 /tmp/vt_data.err)"
		wait "$np"
	done
	echo "VMDATA diag-pages $pages"
else
	vt_skip locality/vmmprof-factor "'vmmprof diagnose' is not on main yet (issue 9)"
fi

# vmmprof verify: every factor's check on this guest, judged on the host
# (eval.py check_verify).  Exit 1 (a check failed) still prints the JSON.
if vt_has verify; then
	vt_data verify vmmprof verify --json
	rc=$?
	[ $rc -le 1 ] || vt_fail verify/run "vmmprof verify exited $rc: $(head -c 200 /tmp/vt_data.err)"
else
	vt_skip verify/run "'vmmprof verify' is not in this build"
fi

# Hold for the host's checks of this running VM: wait for "go" on ttyS1.
if [ -e /dev/ttyS1 ]; then
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	echo "VMTEST-HOLD"
	read -r -t "$(vt_arg hold)" go </dev/ttyS1 || true
fi
